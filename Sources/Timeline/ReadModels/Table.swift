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
/// layout-agnostic (statistics, the rebuild's comparison, shipping stored bytes, the timeline
/// merge's cursors, which read keys in place).
struct Table<Layout: TableLayout>: Sendable {
    let database: Database

    /// The table over `database` (two layouts may share one database, each with keys of its own).
    init(_ database: Database) { self.database = database }

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

    /// Deletes every entry whose key starts with `prefix` (a prefix the layout defines);
    /// returns their values.
    func deleteAll(withPrefix prefix: [UInt8], _ txn: Transaction) throws -> [Layout.Value] {
        var entries: [(key: [UInt8], value: Layout.Value)] = []
        try txn.scan(database, prefix: prefix) { key, value in
            entries.append((key, try Layout.decode(value)))
            return true
        }
        for entry in entries { try txn.delete(database, entry.key) }
        return entries.map(\.value)
    }
}

// MARK: - Grouped tables: `group ‖ 0 ‖ member` keys

/// A part of a composite key: an identifier or a text (a tag, a cell, a cursor), by its UTF-8.
protocol KeyPart {
    var keyText: String { get }
    init(keyText: String)
}

extension String: KeyPart {
    var keyText: String { self }
    init(keyText: String) { self = keyText }
}

extension Identifier {
    var keyText: String { rawValue }
    init(keyText: String) { self.init(keyText) }
}

extension UserID: KeyPart {}
extension PostID: KeyPart {}
extension CommentID: KeyPart {}
extension ImageID: KeyPart {}
extension MediaID: KeyPart {}

/// A table keyed `group ‖ 0 ‖ member` (`CompositeKey`): one group's entries are one prefix
/// scan, in member order (a user's posts, a post's likes, a tag's posts).
protocol GroupedLayout: TableLayout where Key == (Group, Member) {
    associatedtype Group: KeyPart
    associatedtype Member: KeyPart
}

extension GroupedLayout {
    static func key(_ key: (Group, Member)) -> [UInt8] { CompositeKey.make(key.0.keyText, key.1.keyText) }
    /// The key prefix of `group`'s entries.
    static func prefix(_ group: Group) -> [UInt8] { CompositeKey.prefix(group.keyText) }
}

extension Table where Layout: GroupedLayout {
    /// The key prefix of `group`'s entries (for what reads the keys in place).
    func prefix(_ group: Layout.Group) -> [UInt8] { Layout.prefix(group) }

    /// The member a key of the group whose prefix is `prefix` names.
    private static func member(_ key: [UInt8], after prefix: [UInt8]) -> Layout.Member {
        Layout.Member(keyText: CompositeKey.suffix(key, after: prefix))
    }

    /// Visits `group`'s entries in member order (descending when asked) with their raw values;
    /// `body` returns `false` to stop. What every scan below is made of.
    private func scan(
        _ group: Layout.Group, descending: Bool, _ txn: Transaction,
        _ body: (Layout.Member, [UInt8]) throws -> Bool
    ) throws {
        let prefix = Layout.prefix(group)
        if descending {
            try txn.scanDescending(database, prefix: prefix, before: nil) { key, value in
                try body(Self.member(key, after: prefix), value)
            }
        } else {
            try txn.scan(database, prefix: prefix) { key, value in try body(Self.member(key, after: prefix), value) }
        }
    }

    /// Visits `group`'s entries, ascending by member; `body` returns `false` to stop.
    func forEach(in group: Layout.Group, _ txn: Transaction, _ body: (Layout.Member, Layout.Value) throws -> Bool)
        throws
    {
        try scan(group, descending: false, txn) { member, value in try body(member, try Layout.decode(value)) }
    }

    /// Visits `group`'s entries, descending by member; `body` returns `false` to stop.
    func forEachDescending(
        in group: Layout.Group, _ txn: Transaction, _ body: (Layout.Member, Layout.Value) throws -> Bool
    ) throws {
        try scan(group, descending: true, txn) { member, value in try body(member, try Layout.decode(value)) }
    }

    /// Calls `body` with each of `group`'s members, ascending (their values are not read).
    func forEachMember(in group: Layout.Group, _ txn: Transaction, _ body: (Layout.Member) throws -> Void) throws {
        try scan(group, descending: false, txn) { member, _ in
            try body(member)
            return true
        }
    }

    /// `group`'s members, ascending.
    func members(of group: Layout.Group, _ txn: Transaction) throws -> [Layout.Member] {
        var members: [Layout.Member] = []
        try forEachMember(in: group, txn) { members.append($0) }
        return members
    }

    /// `group`'s last member in key order, if any.
    func last(in group: Layout.Group, _ txn: Transaction) throws -> Layout.Member? {
        var last: Layout.Member?
        try scan(group, descending: true, txn) { member, _ in
            last = member
            return false
        }
        return last
    }

    /// Deletes every entry of `group`; returns their members.
    @discardableResult
    func deleteAll(in group: Layout.Group, _ txn: Transaction) throws -> [Layout.Member] {
        let prefix = Layout.prefix(group)
        return try txn.deleteAll(database, prefix: prefix).map { Self.member($0, after: prefix) }
    }
}

/// `group ‖ 0 ‖ member` → nothing: who or what is in a group (a user's posts, a tag's posts,
/// the posts in a user's timeline).
enum Members<Group: KeyPart, Member: KeyPart>: GroupedLayout {
    static func encode(_: Void) -> [UInt8] { [] }
    static func decode(_: [UInt8]) {}
}

/// `group ‖ 0 ‖ member` → the member's cursor: when it joined, as the log sequence of the event
/// (`Key.sequenceCursor`), which is the key of its entry in the group's `InOrder` table (empty
/// for an entry written before the order was kept). A follow, a like, a bookmark.
enum TimedMembers<Group: KeyPart, Member: KeyPart>: GroupedLayout {
    static func encode(_ cursor: String) -> [UInt8] { Array(cursor.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// `group ‖ 0 ‖ cursor` → member: a group's members in the order they joined (the cursor of
/// their `TimedMembers` entry), so a descending scan pages them newest first.
enum InOrder<Group: KeyPart, Item: KeyPart>: GroupedLayout {
    typealias Member = String
    static func encode(_ item: Item) -> [UInt8] { Array(item.keyText.utf8) }
    static func decode(_ bytes: [UInt8]) -> Item { Item(keyText: String(decoding: bytes, as: UTF8.self)) }
}

/// A mute, `muter ‖ 0 ‖ muted` → its cursor (as `TimedMembers`') and when it ends by itself.
enum MuteEdges: GroupedLayout {
    typealias Group = UserID
    typealias Member = UserID
    static func encode(_ value: (cursor: String, until: Int64?)) -> [UInt8] {
        var w = ByteWriter()
        w.string(value.cursor)
        w.u8(value.until == nil ? 0 : 1)
        if let until = value.until { w.int64(until) }
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> (cursor: String, until: Int64?) {
        var r = ByteReader(bytes)
        let cursor = try r.string()
        return (cursor, try r.u8() == 0 ? nil : try r.int64())
    }
}

/// A follow or block edge, `a ‖ 0 ‖ b` → its cursor.
typealias TimedUserEdges = TimedMembers<UserID, UserID>
/// A user's edges in the order they were made, `a ‖ 0 ‖ cursor` → `b`.
typealias UserEdgeOrder = InOrder<UserID, UserID>
/// Posts by tag, `tag ‖ 0 ‖ postId` → nothing: a prefix scan of `tag ‖ 0` pages a tag's posts.
typealias TaggedPosts = Members<String, PostID>

// MARK: - Layouts shared by several tables

/// userId → UserRecord (`RecordCodec`, version byte first).
enum UserRecords: TableLayout {
    static func key(_ id: UserID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ user: UserRecord) -> [UInt8] { RecordCodec.encode(user) }
    static func decode(_ bytes: [UInt8]) throws -> UserRecord { try RecordCodec.user(bytes) }
}

/// postId → StoredPost (pages read its fields from the bytes instead: `PostFields`).
enum PostRecords: TableLayout {
    static func key(_ id: PostID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ post: StoredPost) -> [UInt8] { post.encoded() }
    static func decode(_ bytes: [UInt8]) throws -> StoredPost { try StoredPost(decoding: bytes) }
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

/// `Key` (the 0-joined identifiers), named so inside layouts, whose `Key` is their key type.
typealias CompositeKey = Key

/// An image as stored: its media type, its owner, and its bytes sealed with the owner's key.
struct SealedImage {
    /// The media type's index in `MediaType.allCases` (kept as stored, so a code this build
    /// does not know survives).
    var mediaCode: UInt8
    var owner: UserID
    var sealed: [UInt8]

    init(mediaType: MediaType, owner: UserID, sealed: [UInt8]) {
        self.init(mediaCode: UInt8(MediaType.allCases.firstIndex(of: mediaType) ?? 0), owner: owner, sealed: sealed)
    }

    init(mediaCode: UInt8, owner: UserID, sealed: [UInt8]) {
        self.mediaCode = mediaCode
        self.owner = owner
        self.sealed = sealed
    }

    /// The media type, or `nil` for a code this build does not know.
    var mediaType: MediaType? { Int(mediaCode) < MediaType.allCases.count ? MediaType.allCases[Int(mediaCode)] : nil }
}

/// imageId → media type (its index in `MediaType.allCases`, one byte) ‖ owner ‖ the sealed bytes
/// (bound to the image's id: `key(id)` is the seal's context).
enum StoredImages: TableLayout {
    static func key(_ id: ImageID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ image: SealedImage) -> [UInt8] {
        var w = ByteWriter(capacity: image.sealed.count + 64)
        w.u8(image.mediaCode)
        w.string(image.owner.rawValue)
        w.raw(image.sealed)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> SealedImage {
        var r = ByteReader(bytes)
        let code = try r.u8()
        return SealedImage(mediaCode: code, owner: UserID(try r.string()), sealed: try r.raw(r.remaining))
    }
}
