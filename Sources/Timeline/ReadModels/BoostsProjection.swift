import LMDB
import TimelineDomain

/// The boosts (Mastodon's reblogs): each boost's record, each user's boosts (in boost id
/// order: what a pulled booster's followers merge at read time, as a pulled author's posts),
/// each post's boosts (its `reblogged_by`, oldest first; their count is in the post's record,
/// `StoredPost.boostCount`), and the followees whose boosts a follower hid (`reblogs` false).
///
/// Applied after `timeline`, which reads a deleted post's boosts (and a followee's backlog of
/// boosts) as they stood before the event.
struct BoostsProjection: Projection {
    let name = ProjectionName.boosts
    /// boostId → the boost
    let boosts: Table<BoostRecords>
    /// `user ‖ 0 ‖ postId` → the id of the user's boost of the post
    let byUserAndPost: Table<IDValues<UserID, PostID, PostID>>
    /// `user ‖ 0 ‖ boostId` → `ViewerMarks.boost` (a timeline entry's value)
    let byUser: Table<TimelineEntries>
    /// `postId ‖ 0 ‖ boostId` → the booster
    let byPost: Table<IDValues<PostID, PostID, UserID>>
    /// `follower ‖ 0 ‖ followee`: the follower hid the followee's boosts
    let hidden: Table<Members<UserID, UserID>>
    var databases: [Database] {
        [boosts.database, byUserAndPost.database, byUser.database, byPost.database, hidden.database]
    }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        boosts = try Table(env, prefix + "boosts")
        byUserAndPost = try Table(env, prefix + "boostsByUserAndPost")
        byUser = try Table(env, prefix + "boostsByUser")
        byPost = try Table(env, prefix + "boostsByPost")
        hidden = try Table(env, prefix + "hiddenBoosts")
        handlers = Self.handlers(of: self)
    }

    /// The boost `id`, if it stands.
    func boost(_ id: PostID, _ txn: Transaction) throws -> BoostRecord? {
        guard var boost = try boosts.get(id, txn) else { return nil }
        boost.id = id
        return boost
    }

    /// Whether `follower` sees `followee`'s boosts.
    func shows(_ follower: UserID, _ followee: UserID, _ txn: Transaction) throws -> Bool {
        try !hidden.contains((follower, followee), txn)
    }

    /// `post`'s boosts, oldest first: (boost id, booster).
    func boosts(of post: PostID, _ txn: Transaction) throws -> [(boost: PostID, booster: UserID)] {
        var out: [(PostID, UserID)] = []
        try byPost.forEach(in: post, txn) { boost, booster in
            out.append((boost, booster))
            return true
        }
        return out
    }

    private func add(_ boost: BoostRecord, _ txn: Transaction) throws {
        try boosts.put(boost.id, boost, txn)
        try byUserAndPost.put((boost.booster, boost.post), boost.id, txn)
        try byUser.put((boost.booster, boost.id), .boost, txn)
        try byPost.put((boost.post, boost.id), boost.booster, txn)
    }

    private func remove(_ id: PostID, post: PostID, booster: UserID, _ txn: Transaction) throws {
        guard try boosts.contains(id, txn) else { return }
        try boosts.delete(id, txn)
        try byUserAndPost.delete((booster, post), txn)
        try byUser.delete((booster, id), txn)
        try byPost.delete((post, id), txn)
    }

    /// A deleted or removed post's boosts go with it.
    private func forget(_ post: PostID, _ txn: Transaction) throws {
        for (boost, booster) in try boosts(of: post, txn) { try remove(boost, post: post, booster: booster, txn) }
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.postBoosted) { (e: Boost, envelope, txn) in
            try projection.add(
                BoostRecord(
                    id: e.boostId, post: e.postId, author: e.authorId, booster: e.userId, visibility: e.visibility,
                    createdAt: envelope.timestamp), txn)
        }
        handlers.on(.boostRemoved) { (e: Boost, _, txn) in
            try projection.remove(e.boostId, post: e.postId, booster: e.userId, txn)
        }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in try projection.forget(e.postId, txn) }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in try projection.forget(e.postId, txn) }
        handlers.on(.boostsHidden) { (e: Follow, _, txn) in
            try projection.hidden.put((e.followerId, e.followeeId), (), txn)
        }
        handlers.on(.boostsShown, .unfollowed, .followRequestRejected, .followRequestWithdrawn) {
            (e: Follow, _, txn) in
            try projection.hidden.delete((e.followerId, e.followeeId), txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in try projection.hidden.deleteAll(in: e.userId, txn) }
        return handlers
    }
}

/// A boost, boostId → post ‖ author ‖ booster ‖ visibility ‖ createdAt.
enum BoostRecords: TableLayout {
    static func key(_ id: PostID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ boost: BoostRecord) -> [UInt8] {
        var w = ByteWriter()
        w.string(boost.post.rawValue)
        w.string(boost.author.rawValue)
        w.string(boost.booster.rawValue)
        w.string(boost.visibility.rawValue)
        w.int64(boost.createdAt)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> BoostRecord {
        var r = ByteReader(bytes)
        let post = PostID(try r.string()), author = UserID(try r.string()), booster = UserID(try r.string())
        let visibility = BoostVisibility(rawValue: try r.string()) ?? .public
        return BoostRecord(
            id: PostID(""), post: post, author: author, booster: booster, visibility: visibility,
            createdAt: try r.int64())
    }
}

/// `group ‖ 0 ‖ member` → an identifier.
enum IDValues<Group: KeyPart, Member: KeyPart, Value: KeyPart>: GroupedLayout {
    static func encode(_ value: Value) -> [UInt8] { Array(value.keyText.utf8) }
    static func decode(_ bytes: [UInt8]) -> Value { Value(keyText: String(decoding: bytes, as: UTF8.self)) }
}
