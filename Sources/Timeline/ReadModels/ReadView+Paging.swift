import LMDB
import TimelineDomain

/// Paging over one range of keys (one prefix), newest first or oldest first.
extension ReadView {
    /// Newest-first page over `group`'s entries in `table`: `item` maps an entry's member (the
    /// page's cursor) and value to its item, or `nil` to skip it.
    func pageDescending<Layout: GroupedLayout, Item>(
        _ table: Table<Layout>, in group: Layout.Group, _ request: PageRequest,
        _ item: (Layout.Member, Layout.Value) throws -> Item?
    ) throws -> Page<Item> {
        try pageDescending(table.database, prefix: Layout.prefix(group), request) { id, value in
            try item(Layout.Member(keyText: id), try Layout.decode(value))
        }
    }

    /// Newest-first page over the keys `prefix ‖ id`; `item` maps an id to its item, or `nil`
    /// to skip it. `next` is set only when an item follows the page (one skipped is none).
    func pageDescending<Item>(
        _ db: Database, prefix: [UInt8], _ request: PageRequest,
        _ item: (String, [UInt8]) throws -> Item?
    ) throws -> Page<Item> {
        if let after = request.after { return try pageRightAfter(db, prefix: prefix, after: after, request, item) }
        var items: [Item] = []
        var next: String?
        var last: String?
        try txn.scanDescending(db, prefix: prefix, before: request.before) { key, value in
            let id = Key.suffix(key, after: prefix)
            guard let value = try item(id, value) else { return true }
            if items.count == request.limit {
                next = last
                return false
            }
            items.append(value)
            last = id
            return true
        }
        return Page(items: items, next: next)
    }

    /// `pageDescending`'s page of `request.after`: the `limit` kept items whose ids come right
    /// after `after` (and before `request.before`, if set), read upwards from it, so the page
    /// costs what it holds however far the newest item is; answered newest first, with no
    /// `next`.
    private func pageRightAfter<Item>(
        _ db: Database, prefix: [UInt8], after: String, _ request: PageRequest,
        _ item: (String, [UInt8]) throws -> Item?
    ) throws -> Page<Item> {
        var items: [Item] = []
        let ceiling = request.before.map { prefix + Array($0.utf8) }
        try txn.withCursor(db) { cursor in
            var entry = try cursor.seek(atLeast: prefix + Array(after.utf8))
            while items.count < request.limit, let (key, value) = entry, key.hasPrefix(prefix) {
                if let ceiling, !key.lexicographicallyPrecedes(ceiling) { return }
                let id = Key.suffix(key, after: prefix)
                // Exclusive: the cursor's own item is not after it.
                if id != after, let kept = try item(id, value) { items.append(kept) }
                entry = try cursor.next()
            }
        }
        return Page(items: items.reversed(), next: nil)
    }

    /// Ascending page over the keys that start with `prefix`, from the first key ≥ `start`;
    /// an item's cursor is `cursorOf(key)`; `item` maps an entry to its item, or `nil` to skip it.
    func pageAscending<Item>(
        _ db: Database, prefix: [UInt8], from start: [UInt8], _ request: PageRequest,
        cursorOf: ([UInt8]) -> String, _ item: ([UInt8], [UInt8]) throws -> Item?
    ) throws -> Page<Item> {
        // An oldest-first list has no "right after" page: refused rather than read as its first.
        guard request.after == nil else { throw TimelineError.invalid("after", "this list is not paged by after") }
        var items: [Item] = []
        var next: String?
        var last: String?
        try txn.withCursor(db) { cursor in
            // LMDB refuses an empty key: from nothing is from the first key.
            var entry = start.isEmpty ? try cursor.first() : try cursor.seek(atLeast: start)
            while let (key, value) = entry, key.hasPrefix(prefix) {
                if let value = try item(key, value) {
                    // Full, and another item follows: the page has a next (never an empty one).
                    if items.count == request.limit {
                        next = last
                        return
                    }
                    items.append(value)
                    last = cursorOf(key)
                }
                entry = try cursor.next()
            }
        }
        return Page(items: items, next: next)
    }
}
