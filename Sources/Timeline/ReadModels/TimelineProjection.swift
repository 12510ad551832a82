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
/// boundary stay materialised, so the two sources never overlap. The answer is always SPEC.md's
/// definition; only the cost moves (an `addPost` by a pulled author writes one entry).
///
/// Reads the follow graph and users' posts as they stand in the same transaction, so it is
/// applied after `follows` and `posts`.
struct TimelineProjection: Projection {
    let name = ProjectionName.timeline
    let timelines: Database    // user ‖ 0 ‖ postId → () (the key is all a page needs)
    let pulls: Database        // user ‖ 0 ‖ pulled author → ()
    let boundaries: Database   // pulled author → newest post id that was pushed ("" if none)
    let followerCounts: Database  // author → BE(follower count)
    let follows: FollowsProjection
    let posts: PostsProjection
    let threshold: UInt64
    var databases: [Database] { [timelines, pulls, boundaries, followerCounts] }

    init(_ env: Environment, prefix: String, follows: FollowsProjection, posts: PostsProjection, threshold: UInt64) throws {
        timelines = try env.database(prefix + "timelines", placement: .derived)
        pulls = try env.database(prefix + "pulls", placement: .derived)
        boundaries = try env.database(prefix + "pullBoundaries", placement: .derived)
        followerCounts = try env.database(prefix + "followerCounts", placement: .derived)
        self.follows = follows
        self.posts = posts
        self.threshold = threshold
    }

    /// The boundary of a pulled author, or `nil` for a pushed one.
    func boundary(of author: String, _ txn: Transaction) throws -> String? {
        try txn.get(boundaries, Array(author.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The pulled authors `user` follows, with their boundaries.
    func pulledAuthors(of user: UserID, _ txn: Transaction) throws -> [(author: String, boundary: String)] {
        var out: [(String, String)] = []
        try txn.forEachID(in: pulls, under: user.rawValue) { author in
            out.append((author, try boundary(of: author, txn) ?? ""))
        }
        return out
    }

    /// Calls `body` with each post of `author` up to `boundary` (all of them when nil).
    private func forEachPushedPost(of author: UserID, boundary: String?, _ txn: Transaction, _ body: (String) throws -> Void) throws {
        let prefix = Key.prefix(author.rawValue)
        try txn.scan(posts.postsByUser, prefix: prefix) { key, _ in
            let post = Key.suffix(key, after: prefix)
            if let boundary, !(post.utf8.lexicographicallyPrecedes(boundary.utf8) || post == boundary) { return false }
            try body(post)
            return true
        }
    }

    private func isPulled(_ post: PostID, boundary: String?) -> Bool {
        guard let boundary else { return false }
        return boundary.utf8.lexicographicallyPrecedes(post.rawValue.utf8)
    }

    private func addFollower(to author: UserID, _ delta: Int64, _ txn: Transaction) throws -> UInt64 {
        let key = Array(author.rawValue.utf8)
        let current = try txn.get(followerCounts, key).flatMap(BigEndian.uint64) ?? 0
        let next = UInt64(max(Int64(current) + delta, 0))
        try txn.put(followerCounts, key, BigEndian.bytes(next))
        return next
    }

    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .postAdded(let e):
            try txn.put(timelines, Key.make(e.authorId.rawValue, e.postId.rawValue), [])
            guard !isPulled(e.postId, boundary: try boundary(of: e.authorId.rawValue, txn)) else { return }
            try follows.forEachFollower(of: e.authorId, txn) { follower in
                try txn.put(timelines, Key.make(follower, e.postId.rawValue), [])
            }
        case .postDeleted(let e):
            try unpush(e.postId, author: e.authorId, txn)
        case .postRemoved(let e):
            try unpush(e.postId, author: e.authorId, txn)
        case .followed(let e):
            let count = try addFollower(to: e.followeeId, 1, txn)
            let boundary = try boundary(of: e.followeeId.rawValue, txn)
            if boundary != nil { try txn.put(pulls, Key.make(e.followerId.rawValue, e.followeeId.rawValue), []) }
            try forEachPushedPost(of: e.followeeId, boundary: boundary, txn) { post in
                try txn.put(timelines, Key.make(e.followerId.rawValue, post), [])
            }
            if boundary == nil && count >= threshold { try startPulling(e.followeeId, txn) }
        case .unfollowed(let e):
            _ = try addFollower(to: e.followeeId, -1, txn)
            let boundary = try boundary(of: e.followeeId.rawValue, txn)
            if boundary != nil { try txn.delete(pulls, Key.make(e.followerId.rawValue, e.followeeId.rawValue)) }
            try forEachPushedPost(of: e.followeeId, boundary: boundary, txn) { post in
                try txn.delete(timelines, Key.make(e.followerId.rawValue, post))
            }
        case .userErased(let e):
            try txn.deleteAll(timelines, prefix: Key.prefix(e.userId.rawValue))
            try txn.deleteAll(pulls, prefix: Key.prefix(e.userId.rawValue))
            try txn.delete(boundaries, Array(e.userId.rawValue.utf8))
            try txn.delete(followerCounts, Array(e.userId.rawValue.utf8))
        default:
            throw UnroutedEvent(projection: name, type: envelope.type)
        }
    }

    /// Takes a deleted or removed post out of every timeline it was pushed into (a pulled
    /// post left with the author's post list).
    private func unpush(_ post: PostID, author: UserID, _ txn: Transaction) throws {
        try txn.delete(timelines, Key.make(author.rawValue, post.rawValue))
        guard !isPulled(post, boundary: try boundary(of: author.rawValue, txn)) else { return }
        try follows.forEachFollower(of: author, txn) { follower in
            try txn.delete(timelines, Key.make(follower, post.rawValue))
        }
    }

    /// From now on `author`'s new posts are merged at read time instead of pushed.
    private func startPulling(_ author: UserID, _ txn: Transaction) throws {
        var newest = ""
        try txn.scanDescending(posts.postsByUser, prefix: Key.prefix(author.rawValue), before: nil) { key, _ in
            newest = Key.suffix(key, after: Key.prefix(author.rawValue))
            return false
        }
        try txn.put(boundaries, Array(author.rawValue.utf8), Array(newest.utf8))
        try follows.forEachFollower(of: author, txn) { follower in
            try txn.put(pulls, Key.make(follower, author.rawValue), [])
        }
    }
}
