import LMDB
import TimelineDomain

/// Each user's filters (`FilterSaved` is the filter as it stands: kept by replacing it), and
/// which filter holds each keyword and filter status, so a command naming one finds its filter.
/// An erased user's filters go with them. Nothing here expires: a filter's expiry is read when
/// posts are (`FilterMatching`).
struct FiltersProjection: Projection {
    let name = ProjectionName.filters
    /// `user ‖ 0 ‖ filter` → the filter (filter ids sort by creation: a user's filters in order).
    let filters: Table<UserFilters>
    /// A filter's, keyword's or filter status's id → `user ‖ 0 ‖ filter`.
    let holders: Table<FilterHolders>
    var databases: [Database] { [filters.database, holders.database] }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        filters = try Table(env, prefix + "filters")
        holders = try Table(env, prefix + "filterHolders")
        handlers = Self.handlers(of: self)
    }

    /// Deletes `filter`'s record and its holders' entries.
    private func forget(_ filter: FilterSaved, _ txn: Transaction) throws {
        try filters.delete((filter.userId, filter.filterId.rawValue), txn)
        for id in Self.ids(of: filter) { try holders.delete(id, txn) }
    }

    /// The ids a filter answers to: its own, its keywords' and its statuses'.
    static func ids(of filter: FilterSaved) -> [String] {
        [filter.filterId.rawValue] + filter.keywords.map(\.id) + filter.statuses.map(\.id)
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.filterSaved) { (e: FilterSaved, _, txn) in
            if let old = try projection.filters.get((e.userId, e.filterId.rawValue), txn) {
                try projection.forget(old, txn)
            }
            try projection.filters.put((e.userId, e.filterId.rawValue), e, txn)
            for id in ids(of: e) { try projection.holders.put(id, (e.userId, e.filterId.rawValue), txn) }
        }
        handlers.on(.filterDeleted) { (e: FilterDeleted, _, txn) in
            if let old = try projection.filters.get((e.userId, e.filterId.rawValue), txn) {
                try projection.forget(old, txn)
            }
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            for filter in try projection.list(of: e.userId, txn) { try projection.forget(filter, txn) }
        }
        return handlers
    }

    /// `user`'s filters, in the order they were made.
    func list(of user: UserID, _ txn: Transaction) throws -> [FilterSaved] {
        var out: [FilterSaved] = []
        try filters.forEach(in: user, txn) { _, filter in
            out.append(filter)
            return true
        }
        return out
    }

    /// The filter that is, or holds, `id`.
    func filter(holding id: String, _ txn: Transaction) throws -> FilterSaved? {
        guard let key = try holders.get(id, txn) else { return nil }
        return try filters.get(key, txn)
    }
}

/// `user ‖ 0 ‖ filter id` → the filter.
enum UserFilters: GroupedLayout {
    typealias Group = UserID
    typealias Member = String
    static func encode(_ f: FilterSaved) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(f.filterId.rawValue)
        w.string(f.userId.rawValue)
        w.string(f.title)
        w.strings(f.context.map(\.rawValue))
        w.string(f.action.rawValue)
        w.u8(f.expiresAt == nil ? 0 : 1)
        if let expiresAt = f.expiresAt { w.int64(expiresAt) }
        w.varint(UInt64(f.keywords.count))
        for k in f.keywords {
            w.string(k.id)
            w.string(k.keyword)
            w.u8(k.wholeWord ? 1 : 0)
        }
        w.varint(UInt64(f.statuses.count))
        for s in f.statuses {
            w.string(s.id)
            w.string(s.postId.rawValue)
        }
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> FilterSaved {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown filter record version") }
        let id = FilterID(try r.string()), user = UserID(try r.string()), title = try r.string()
        let context = try r.strings().compactMap(FilterContext.init(rawValue:))
        guard let action = FilterAction(rawValue: try r.string()) else {
            throw CorruptRecord(message: "unknown filter action")
        }
        let expires = try r.u8() == 0 ? nil : try r.int64()
        var keywords: [FilterKeyword] = []
        for _ in 0..<(try r.varint()) {
            keywords.append(FilterKeyword(id: try r.string(), keyword: try r.string(), wholeWord: try r.u8() != 0))
        }
        var statuses: [FilterStatus] = []
        for _ in 0..<(try r.varint()) {
            statuses.append(FilterStatus(id: try r.string(), postId: PostID(try r.string())))
        }
        return FilterSaved(
            filterId: id, userId: user, title: title, context: context, action: action, expiresAt: expires,
            keywords: keywords, statuses: statuses)
    }
}

/// An id a filter answers to → the filter's key (`user ‖ 0 ‖ filter id`).
enum FilterHolders: TableLayout {
    static func key(_ id: String) -> [UInt8] { Array(id.utf8) }
    static func encode(_ value: (UserID, String)) -> [UInt8] { UserFilters.key(value) }
    static func decode(_ bytes: [UInt8]) throws -> (UserID, String) {
        guard let zero = bytes.firstIndex(of: 0) else { throw CorruptRecord(message: "a damaged filter holder") }
        return (
            UserID(String(decoding: bytes[..<zero], as: UTF8.self)),
            String(decoding: bytes[(zero + 1)...], as: UTF8.self)
        )
    }
}

extension ReadView {
    func filter(holding id: String) throws -> FilterSaved? { try models.filters.filter(holding: id, txn) }
    func filters(of user: UserID) throws -> [FilterSaved] { try models.filters.list(of: user, txn) }
}
