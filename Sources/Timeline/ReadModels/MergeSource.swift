import LMDB
import TimelineDomain

/// One descending source of post ids for the timeline merge: the keys `prefix ‖ id` of a
/// cursor, stopping at `floor` (exclusive) when set, and starting at `ceiling` (inclusive).
struct MergeSource {
    let prefix: [UInt8]
    let floor: [UInt8]?
    /// The greatest id it yields (`nil`: no bound). Until the merge comes down to it the
    /// source stands at it unsought (`pending`): a page filled above it never seeks its cursor.
    let ceiling: [UInt8]?
    /// Whether its entries' values are the page's to read (a materialised timeline's marks),
    /// not another table's (a pulled author's post list).
    let ownsValues: Bool
    /// The current post id's bytes (a slice of the cursor's key: no copy).
    private(set) var current: ArraySlice<UInt8>?
    /// The current entry's value.
    private(set) var value: [UInt8] = []
    /// Whether `current` is the ceiling, not yet sought (`start(_:before:)`).
    private(set) var pending = false

    init(prefix: [UInt8], floor: String?, ceiling: String? = nil, ownsValues: Bool = false) {
        self.prefix = prefix
        self.floor = floor.map { Array($0.utf8) }
        self.ceiling = ceiling.map { Array($0.utf8) }
        self.ownsValues = ownsValues
    }

    /// Stands at the ceiling, to be sought when the merge reaches it (`page`); or, without
    /// one, at the greatest id below `before`.
    mutating func start(_ cursor: Cursor, before: String?) throws {
        if let ceiling, !pending {
            pending = true
            current = ceiling[...]
            return
        }
        pending = false
        var bound = before.map { Array($0.utf8) }
        // Just above the ceiling (inclusive), when that is lower than `before` (exclusive).
        if let ceiling, bound.map({ (ceiling + [0]).lexicographicallyPrecedes($0) }) ?? true { bound = ceiling + [0] }
        let entry: Cursor.Entry?
        if let bound {
            entry = try cursor.seek(below: prefix + bound)
        } else {
            entry = try cursor.seek(below: prefix.dropLast() + [prefix.last! + 1])
        }
        accept(entry)
    }

    mutating func advance(_ cursor: Cursor) throws { accept(try cursor.previous()) }

    /// Starts just above `after` (exclusive) and above `floor`, to be read upwards (`advanceUp`).
    mutating func start(_ cursor: Cursor, after: String) throws {
        var lower = Array(after.utf8)
        if let floor, lower.lexicographicallyPrecedes(floor) { lower = floor }
        var entry = try cursor.seek(atLeast: prefix + lower)
        // Exclusive: the bound's own key is not above it.
        if let (key, _) = entry, key.count == prefix.count + lower.count, key.hasPrefix(prefix),
            key[prefix.count...].elementsEqual(lower)
        {
            entry = try cursor.next()
        }
        acceptUp(entry)
    }

    mutating func advanceUp(_ cursor: Cursor) throws { acceptUp(try cursor.next()) }

    /// Merges `sources` (one cursor each) newest id first into a page of `request`: `item`
    /// makes an id's item from it and its entry's value (`nil` for a source whose values are
    /// not its own, a pulled author's), or answers `nil` to skip it. `next` is set only when a
    /// kept item follows the page (never a cursor to an empty one).
    static func page<Item>(
        _ sources: [MergeSource], _ cursors: [Cursor], _ request: PageRequest,
        item: (ArraySlice<UInt8>, [UInt8]?) throws -> Item?
    ) throws -> Page<Item> {
        if let after = request.after { return try pageRightAfter(sources, cursors, after: after, request, item: item) }
        var sources = sources
        for index in sources.indices { try sources[index].start(cursors[index], before: request.before) }
        var items: [Item] = []
        items.reserveCapacity(request.limit)
        var last: ArraySlice<UInt8>?
        // k is small: one source per pulled author, or per cell.
        while let best = greatest(sources) {
            if sources[best].pending {
                try sources[best].start(cursors[best], before: request.before)
                continue
            }
            let id = sources[best].current!
            let value = sources[best].ownsValues ? sources[best].value : nil
            try sources[best].advance(cursors[best])
            guard let kept = try item(id, value) else { continue }
            if items.count == request.limit {
                return Page(items: items, next: last.map { String(decoding: $0, as: UTF8.self) })
            }
            items.append(kept)
            last = id
        }
        return Page(items: items, next: nil)
    }

    /// `page`'s page of `request.after`: the `limit` kept items whose ids come right after it
    /// (and below `request.before`, if set), merged upwards from it; answered newest first,
    /// with no `next`.
    static func pageRightAfter<Item>(
        _ sources: [MergeSource], _ cursors: [Cursor], after: String,
        _ request: PageRequest,
        item: (ArraySlice<UInt8>, [UInt8]?) throws -> Item?
    ) throws -> Page<Item> {
        var sources = sources
        for index in sources.indices { try sources[index].start(cursors[index], after: after) }
        let ceiling = request.before.map { Array($0.utf8) }
        var items: [Item] = []
        while items.count < request.limit, let least = least(sources) {
            let id = sources[least].current!
            if let ceiling, !id.lexicographicallyPrecedes(ceiling) { break }
            let value = sources[least].ownsValues ? sources[least].value : nil
            try sources[least].advanceUp(cursors[least])
            if let kept = try item(id, value) { items.append(kept) }
        }
        return Page(items: items.reversed(), next: nil)
    }

    /// The index of the source with the least current id, or `nil` when every one is done.
    private static func least(_ sources: [MergeSource]) -> Int? {
        var best: Int?
        for index in sources.indices {
            guard let id = sources[index].current else { continue }
            if best == nil || id.lexicographicallyPrecedes(sources[best!].current!) { best = index }
        }
        return best
    }

    /// The index of the source with the greatest current id, or `nil` when every one is done.
    private static func greatest(_ sources: [MergeSource]) -> Int? {
        var best: Int?
        for index in sources.indices {
            guard let id = sources[index].current else { continue }
            if best == nil || sources[best!].current!.lexicographicallyPrecedes(id) { best = index }
        }
        return best
    }

    /// Takes `entry` as the current one read upwards: every id there is above `floor`.
    private mutating func acceptUp(_ entry: Cursor.Entry?) {
        guard let (key, value) = entry, key.hasPrefix(prefix) else {
            current = nil
            return
        }
        let id = key[prefix.count...]
        if let ceiling, ceiling.lexicographicallyPrecedes(id) {
            current = nil
            return
        }
        current = id
        self.value = value
    }

    private mutating func accept(_ entry: Cursor.Entry?) {
        guard let (key, value) = entry, key.hasPrefix(prefix) else {
            current = nil
            return
        }
        let id = key[prefix.count...]
        if let floor, !floor.lexicographicallyPrecedes(id) {
            current = nil
            return
        }
        current = id
        self.value = value
    }
}
