import LMDB
import TimelineDomain

/// The home timelines, by a **hybrid fan-out**.
///
/// Ordinary authors' posts are pushed: a post goes into its author's and every follower's
/// materialised timeline; a follow merges the followee's backlog; an unfollow removes it; a
/// deleted post is removed everywhere. When an author's follower count reaches the database's
/// fan-out threshold, the author becomes *pulled*: their boundary (their newest post id at that
/// moment) is recorded, posts after it are no longer pushed, and each follower gets a `pulls`
/// entry so the read side merges that author's own post list into the timeline. Posts up to the
/// boundary stay materialised, so the two sources never overlap. The answer is always docs/spec.md's
/// definition; only the cost moves (an `addPost` by a pulled author writes one entry).
///
/// Boosts are fanned out exactly as posts are: a boost is an entry of its own (its own id, the
/// value `ViewerMarks.boost`) in its booster's and every follower's timeline, merged with the
/// follow backlog, taken out on unfollow, and pulled at read time from the booster's boost list
/// above the boundary when the booster is pulled (a boost by the most-followed account writes
/// what a post by it writes). Which of a post's entries shows — each post once, at the first
/// entry by which it came in — is decided when reading (`ReadView.timeline(of:_:)`).
///
/// Reads the follow graph and users' posts as they stand in the same transaction, so it is
/// applied after `follows` and `posts`; and a post's boosts before `boosts` lets them go.
struct TimelineProjection: Projection {
    let name = ProjectionName.timeline
    let timelines: Table<TimelineEntries>
    let pulls: Table<Members<UserID, UserID>>  // user ‖ 0 ‖ pulled author
    let boundaries: Table<PullBoundaries>
    let followerCounts: Table<FollowerCounts>
    let follows: FollowsProjection
    let posts: PostsProjection
    let boosts: BoostsProjection
    let threshold: UInt64
    var databases: [Database] { [timelines.database, pulls.database, boundaries.database, followerCounts.database] }

    private(set) var handlers = EventHandlers()

    init(
        _ env: Environment, prefix: String, follows: FollowsProjection, posts: PostsProjection,
        boosts: BoostsProjection, threshold: UInt64
    ) throws {
        timelines = try Table(env, prefix + "timelines")
        pulls = try Table(env, prefix + "pulls")
        boundaries = try Table(env, prefix + "pullBoundaries")
        followerCounts = try Table(env, prefix + "followerCounts")
        self.follows = follows
        self.posts = posts
        self.boosts = boosts
        self.threshold = threshold
        handlers = Self.handlers(of: self)
    }

    /// The boundary of a pulled author, or `nil` for a pushed one.
    func boundary(of author: UserID, _ txn: Transaction) throws -> String? {
        try boundaries.get(author, txn)
    }

    /// The pulled authors `user` follows, with their boundaries.
    func pulledAuthors(of user: UserID, _ txn: Transaction) throws -> [(author: UserID, boundary: String)] {
        var out: [(UserID, String)] = []
        try pulls.forEachMember(in: user, txn) { author in
            out.append((author, try boundary(of: author, txn) ?? ""))
        }
        return out
    }

    /// Calls `body` with each post of `author` up to `boundary` (all of them when nil).
    private func forEachPushedPost(
        of author: UserID, boundary: String?, _ txn: Transaction, _ body: (PostID) throws -> Void
    ) throws {
        try posts.postsByUser.forEach(in: author, txn) { post, _ in
            if let boundary, !(post.rawValue.utf8.lexicographicallyPrecedes(boundary.utf8) || post.rawValue == boundary)
            {
                return false
            }
            try body(post)
            return true
        }
    }

    /// Calls `body` with each boost of `booster` up to `boundary` (all of them when nil).
    private func forEachPushedBoost(
        of booster: UserID, boundary: String?, _ txn: Transaction, _ body: (PostID) throws -> Void
    ) throws {
        try boosts.byUser.forEach(in: booster, txn) { boost, _ in
            guard !isPulled(boost, boundary: boundary) else { return false }
            try body(boost)
            return true
        }
    }

    private func isPulled(_ post: PostID, boundary: String?) -> Bool {
        guard let boundary else { return false }
        return boundary.utf8.lexicographicallyPrecedes(post.rawValue.utf8)
    }

    private func addFollower(to author: UserID, _ delta: Int64, _ txn: Transaction) throws -> UInt64 {
        let current = try followerCounts.get(author, txn) ?? 0
        let next = UInt64(max(Int64(current) + delta, 0))
        try followerCounts.put(author, next, txn)
        return next
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.postAdded) { (e: PostAdded, _, txn) in
            // A new post: nobody likes or bookmarked it yet.
            try projection.timelines.put((e.authorId, e.postId), [], txn)
            let boundary = try projection.boundary(of: e.authorId, txn)
            guard !projection.isPulled(e.postId, boundary: boundary) else { return }
            try projection.follows.forEachFollower(of: e.authorId, txn) { follower in
                try projection.timelines.put((follower, e.postId), [], txn)
            }
        }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in
            try projection.unpush(e.postId, author: e.authorId, txn)
            try projection.unpushBoosts(of: e.postId, txn)
        }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in
            try projection.unpush(e.postId, author: e.authorId, txn)
            try projection.unpushBoosts(of: e.postId, txn)
        }
        handlers.on(.postBoosted) { (e: Boost, _, txn) in
            // As a post: the booster's own entry, and the followers' unless the booster is pulled.
            try projection.timelines.put((e.userId, e.boostId), .boost, txn)
            guard !projection.isPulled(e.boostId, boundary: try projection.boundary(of: e.userId, txn)) else { return }
            try projection.follows.forEachFollower(of: e.userId, txn) { follower in
                try projection.timelines.put((follower, e.boostId), .boost, txn)
            }
        }
        handlers.on(.boostRemoved) { (e: Boost, _, txn) in try projection.unpush(e.boostId, author: e.userId, txn) }
        handlers.on(.followed) { (e: Follow, _, txn) in
            let count = try projection.addFollower(to: e.followeeId, 1, txn)
            let boundary = try projection.boundary(of: e.followeeId, txn)
            if boundary != nil { try projection.pulls.put((e.followerId, e.followeeId), (), txn) }
            try projection.forEachPushedPost(of: e.followeeId, boundary: boundary, txn) { post in
                let marks = try projection.marks(of: e.followerId, post, txn)
                try projection.timelines.put((e.followerId, post), marks, txn)
            }
            try projection.forEachPushedBoost(of: e.followeeId, boundary: boundary, txn) { boost in
                try projection.timelines.put((e.followerId, boost), .boost, txn)
            }
            if boundary == nil && count >= projection.threshold { try projection.startPulling(e.followeeId, txn) }
        }
        handlers.on(.unfollowed) { (e: Follow, _, txn) in
            _ = try projection.addFollower(to: e.followeeId, -1, txn)
            let boundary = try projection.boundary(of: e.followeeId, txn)
            if boundary != nil { try projection.pulls.delete((e.followerId, e.followeeId), txn) }
            try projection.forEachPushedPost(of: e.followeeId, boundary: boundary, txn) { post in
                try projection.timelines.delete((e.followerId, post), txn)
            }
            try projection.forEachPushedBoost(of: e.followeeId, boundary: boundary, txn) { boost in
                try projection.timelines.delete((e.followerId, boost), txn)
            }
        }
        handlers.on(.likeAdded, .likeRemoved) { (e: Like, _, txn) in try projection.remark(e.userId, e.postId, txn) }
        handlers.on(.bookmarked, .unbookmarked) { (e: Bookmark, _, txn) in
            try projection.remark(e.userId, e.postId, txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            try projection.timelines.deleteAll(in: e.userId, txn)
            try projection.pulls.deleteAll(in: e.userId, txn)
            try projection.boundaries.delete(e.userId, txn)
            try projection.followerCounts.delete(e.userId, txn)
        }
        return handlers
    }

    /// Whether `user` likes and bookmarked `post`, as the posts projection (applied before this
    /// one) has it now.
    private func marks(of user: UserID, _ post: PostID, _ txn: Transaction) throws -> ViewerMarks {
        var marks: ViewerMarks = []
        if try posts.likes(user, post, txn) { marks.insert(.liked) }
        if try posts.bookmarks(user, post, txn) { marks.insert(.bookmarked) }
        return marks
    }

    /// Brings `user`'s entry for `post`, if their timeline holds it, up to date with their like
    /// and bookmark.
    private func remark(_ user: UserID, _ post: PostID, _ txn: Transaction) throws {
        guard try timelines.contains((user, post), txn) else { return }
        try timelines.put((user, post), try marks(of: user, post, txn), txn)
    }

    /// Takes a deleted or removed post out of every timeline it was pushed into (a pulled
    /// post left with the author's post list).
    private func unpush(_ post: PostID, author: UserID, _ txn: Transaction) throws {
        try timelines.delete((author, post), txn)
        guard !isPulled(post, boundary: try boundary(of: author, txn)) else { return }
        try follows.forEachFollower(of: author, txn) { follower in
            try timelines.delete((follower, post), txn)
        }
    }

    /// Takes the boosts of a deleted or removed post out of every timeline they were pushed into.
    private func unpushBoosts(of post: PostID, _ txn: Transaction) throws {
        for (boost, booster) in try boosts.boosts(of: post, txn) { try unpush(boost, author: booster, txn) }
    }

    /// From now on `author`'s new posts and boosts are merged at read time instead of pushed:
    /// the boundary is the newest of both (ids of posts and boosts share one order).
    private func startPulling(_ author: UserID, _ txn: Transaction) throws {
        let post = try posts.postsByUser.last(in: author, txn)?.rawValue ?? ""
        let boost = try boosts.byUser.last(in: author, txn)?.rawValue ?? ""
        let newest = post.utf8.lexicographicallyPrecedes(boost.utf8) ? boost : post
        try boundaries.put(author, newest, txn)
        try follows.forEachFollower(of: author, txn) { follower in
            try pulls.put((follower, author), (), txn)
        }
    }
}

/// A pulled author → the newest of their posts that was pushed ("" if none): the boundary.
enum PullBoundaries: TableLayout {
    static func key(_ author: UserID) -> [UInt8] { Array(author.rawValue.utf8) }
    static func encode(_ boundary: String) -> [UInt8] { Array(boundary.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// An author → how many follow them (8 bytes, big-endian).
enum FollowerCounts: TableLayout {
    static func key(_ author: UserID) -> [UInt8] { Array(author.rawValue.utf8) }
    static func encode(_ count: UInt64) -> [UInt8] { BigEndian.bytes(count) }
    static func decode(_ bytes: [UInt8]) -> UInt64 { BigEndian.uint64(bytes) ?? 0 }
}

/// What a timeline entry knows of its user and its post, so a page needs no lookup for them.
struct ViewerMarks: OptionSet, Sendable {
    let rawValue: UInt8
    static let liked = ViewerMarks(rawValue: 1)
    static let bookmarked = ViewerMarks(rawValue: 2)
    /// The entry is a boost (its key a boost's id): the boosted post's marks are read with it.
    static let boost = ViewerMarks(rawValue: 0x80)
}

/// The home timelines, `user ‖ 0 ‖ postId` → `ViewerMarks` (one byte; none when empty): the
/// key is what orders a page, the value the viewer's like and bookmark of the post, or, for a
/// boost's entry (`user ‖ 0 ‖ boostId`), `ViewerMarks.boost`.
enum TimelineEntries: GroupedLayout {
    typealias Group = UserID
    typealias Member = PostID
    static func encode(_ marks: ViewerMarks) -> [UInt8] { marks.isEmpty ? [] : [marks.rawValue] }
    static func decode(_ bytes: [UInt8]) -> ViewerMarks { ViewerMarks(rawValue: bytes.first ?? 0) }
}
