import LMDB
import TimelineDomain

/// One descending source of post ids for the timeline merge: the keys `prefix ‖ id` of a
/// cursor, stopping at `floor` (exclusive) when set.
struct MergeSource {
    let prefix: [UInt8]
    let floor: [UInt8]?
    /// Whether its entries' values are the page's to read (a materialised timeline's marks),
    /// not another table's (a pulled author's post list).
    let ownsValues: Bool
    /// The current post id's bytes (a slice of the cursor's key: no copy).
    private(set) var current: ArraySlice<UInt8>?
    /// The current entry's value.
    private(set) var value: [UInt8] = []

    init(prefix: [UInt8], floor: String?, ownsValues: Bool = false) {
        self.prefix = prefix
        self.floor = floor.map { Array($0.utf8) }
        self.ownsValues = ownsValues
    }

    mutating func start(_ cursor: Cursor, before: String?) throws {
        let entry: Cursor.Entry?
        if let before {
            entry = try cursor.seek(below: prefix + Array(before.utf8))
        } else {
            entry = try cursor.seek(below: prefix.dropLast() + [prefix.last! + 1])
        }
        accept(entry)
    }

    mutating func advance(_ cursor: Cursor) throws { accept(try cursor.previous()) }

    /// Merges `sources` (one cursor each) newest id first into a page of `request`: `item`
    /// makes an id's item from it and its entry's value (`nil` for a source whose values are
    /// not its own, a pulled author's), or answers `nil` to skip it. `next` is set only when a
    /// kept item follows the page (never a cursor to an empty one).
    static func page<Item>(_ sources: [MergeSource], _ cursors: [Cursor], _ request: PageRequest,
                           item: (ArraySlice<UInt8>, [UInt8]?) throws -> Item?) throws -> Page<Item> {
        var sources = sources
        for index in sources.indices { try sources[index].start(cursors[index], before: request.before) }
        var items: [Item] = []
        items.reserveCapacity(request.limit)
        var last: ArraySlice<UInt8>?
        // k is small: one source per pulled author, or per cell.
        while let best = greatest(sources) {
            let id = sources[best].current!
            let value = sources[best].ownsValues ? sources[best].value : nil
            try sources[best].advance(cursors[best])
            guard let kept = try item(id, value) else { continue }
            if items.count == request.limit { return Page(items: items, next: last.map { String(decoding: $0, as: UTF8.self) }) }
            items.append(kept)
            last = id
        }
        return Page(items: items, next: nil)
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

    private mutating func accept(_ entry: Cursor.Entry?) {
        guard let (key, value) = entry, key.hasPrefix(prefix) else { current = nil; return }
        let id = key[prefix.count...]
        if let floor, !floor.lexicographicallyPrecedes(id) { current = nil; return }
        current = id
        self.value = value
    }
}
