import LMDB
import TimelineDomain

/// How one table lays out its keys and encodes its values: the one definition that
/// projections, queries and the rebuilder go through (nobody spells the bytes by hand).
protocol TableLayout {
    associatedtype Key
    associatedtype Value
    static func key(_ key: Key) -> [UInt8]
    static func encode(_ value: Value) -> [UInt8]
    static func decode(_ bytes: [UInt8]) throws -> Value
}

/// A database read and written through its layout. `database` stays reachable for what is
/// layout-agnostic (prefix scans of `Key`-joined keys, statistics, the rebuild's comparison).
struct Table<Layout: TableLayout>: Sendable {
    let database: Database

    /// Opens (creating if needed) the table `name`; read models live in the derived environment.
    init(_ env: Environment, _ name: String, placement: Database.Placement = .derived) throws {
        database = try env.database(name, placement: placement)
    }

    func get(_ key: Layout.Key, _ txn: Transaction) throws -> Layout.Value? {
        try txn.get(database, Layout.key(key)).map(Layout.decode)
    }

    func contains(_ key: Layout.Key, _ txn: Transaction) throws -> Bool { try txn.contains(database, Layout.key(key)) }

    func put(_ key: Layout.Key, _ value: Layout.Value, _ txn: Transaction) throws {
        try txn.put(database, Layout.key(key), Layout.encode(value))
    }

    func delete(_ key: Layout.Key, _ txn: Transaction) throws { try txn.delete(database, Layout.key(key)) }
}

// MARK: - Layouts shared by several tables

/// userId → UserRecord (`RecordCodec`, version byte first).
enum UserRecords: TableLayout {
    static func key(_ id: UserID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ user: UserRecord) -> [UInt8] { RecordCodec.encode(user) }
    static func decode(_ bytes: [UInt8]) throws -> UserRecord { try RecordCodec.user(bytes) }
}

/// postId → PostRecord (`RecordCodec`; the timeline's hot path decodes it in place from the
/// map instead: `Transaction.withValue` with `RecordCodec.post`).
enum PostRecords: TableLayout {
    static func key(_ id: PostID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ post: PostRecord) -> [UInt8] { RecordCodec.encode(post) }
    static func decode(_ bytes: [UInt8]) throws -> PostRecord { try RecordCodec.post(bytes) }
}

/// commentId → the post it is on.
enum CommentPosts: TableLayout {
    static func key(_ id: CommentID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ post: PostID) -> [UInt8] { Array(post.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> PostID { PostID(String(decoding: bytes, as: UTF8.self)) }
}

/// A unique index: normalised text (a username, an email) → the user holding it.
enum UniqueUserIndex: TableLayout {
    static func key(_ text: String) -> [UInt8] { Array(text.utf8) }
    static func encode(_ id: UserID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> UserID { UserID(String(decoding: bytes, as: UTF8.self)) }
}

/// A follow edge, `a ‖ 0 ‖ b` → the follow's cursor (its log sequence as 16 hex digits, the
/// key of its entry in `UserEdgeOrder`; empty for an edge written before follows had an order).
enum TimedUserEdges: TableLayout {
    static func key(_ edge: (from: UserID, to: UserID)) -> [UInt8] { CompositeKey.make(edge.from.rawValue, edge.to.rawValue) }
    static func encode(_ cursor: String) -> [UInt8] { Array(cursor.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// A user's edges in the order they were made, `a ‖ 0 ‖ cursor` → `b`: a descending prefix
/// scan of `a ‖ 0` pages them newest first, by the cursor.
enum UserEdgeOrder: TableLayout {
    static func key(_ entry: (user: UserID, cursor: String)) -> [UInt8] { CompositeKey.make(entry.user.rawValue, entry.cursor) }
    static func encode(_ id: UserID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> UserID { UserID(String(decoding: bytes, as: UTF8.self)) }
}

/// A post's hashtags, `postId` → the tags (to unindex them when the post is deleted).
enum PostTags: TableLayout {
    static func key(_ post: PostID) -> [UInt8] { Array(post.rawValue.utf8) }
    static func encode(_ tags: [String]) -> [UInt8] {
        var w = ByteWriter()
        w.strings(tags)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> [String] {
        var r = ByteReader(bytes)
        return try r.strings()
    }
}

/// Posts by tag, `tag ‖ 0 ‖ postId` → nothing: a prefix scan of `tag ‖ 0` pages a tag's posts.
enum TaggedPosts: TableLayout {
    static func key(_ entry: (tag: String, post: PostID)) -> [UInt8] { CompositeKey.make(entry.tag, entry.post.rawValue) }
    static func encode(_: Void) -> [UInt8] { [] }
    static func decode(_: [UInt8]) {}
}

/// `Key` (the 0-joined identifiers), named so inside layouts, whose `Key` is their key type.
typealias CompositeKey = Key
