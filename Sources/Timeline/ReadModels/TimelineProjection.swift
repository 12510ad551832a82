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
/// The hashtags a user follows bring their public posts in too (#41), by the same push: a post
/// goes into the timeline of each follower of its tags whose timeline does not hold it yet, as
/// an entry marked `ViewerMarks.tagOnly` (it came by a tag alone: read on `hashtag`, as a
/// stranger's). A follow of a tag writes its `FanOut.tagBackfill` newest posts the same way and
/// records the newest it left (`tagFollowers`): those below are merged from the tag's post list
/// when reading, so a follow of a tag with a long history stays cheap and any depth stays exact.
/// Every `tagOnly` entry stands on a followed tag of its post above that tag's boundary, so the
/// unfollow of a tag, an edit of a post's tags, a deletion and an unfollow of the author (whose
/// followed-tag posts stay, by the tag) each find the entries they change.
///
/// Reads the follow graph and users' posts as they stand in the same transaction, so it is
/// applied after `follows` and `posts`; a post's boosts before `boosts` lets them go; and a
/// post's and a user's hashtags before `hashtags` changes them.
struct TimelineProjection: Projection {
    let name = ProjectionName.timeline
    let timelines: Table<TimelineEntries>
    let pulls: Table<Members<UserID, UserID>>  // user ‖ 0 ‖ pulled author
    let tagFollowers: Table<TagFollowers>  // tag ‖ 0 ‖ follower → the newest post left to the tag's list
    let boundaries: Table<PullBoundaries>
    let followerCounts: Table<FollowerCounts>
    let follows: FollowsProjection
    let posts: PostsProjection
    let boosts: BoostsProjection
    let hashtags: HashtagsProjection
    let fanOut: FanOut
    var databases: [Database] {
        [timelines.database, pulls.database, boundaries.database, followerCounts.database, tagFollowers.database]
    }

    private(set) var handlers = EventHandlers()

    init(
        _ env: Environment, prefix: String, follows: FollowsProjection, posts: PostsProjection,
        boosts: BoostsProjection, hashtags: HashtagsProjection, fanOut: FanOut
    ) throws {
        timelines = try Table(env, prefix + "timelines")
        pulls = try Table(env, prefix + "pulls")
        tagFollowers = try Table(env, prefix + "tagFollowers")
        boundaries = try Table(env, prefix + "pullBoundaries")
        followerCounts = try Table(env, prefix + "followerCounts")
        self.follows = follows
        self.posts = posts
        self.boosts = boosts
        self.hashtags = hashtags
        self.fanOut = fanOut
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
            if !projection.isPulled(e.postId, boundary: boundary) {
                try projection.follows.forEachFollower(of: e.authorId, txn) { follower in
                    try projection.timelines.put((follower, e.postId), [], txn)
                }
            }
            // Only a public post may come in by a tag (`Privacy` on `hashtag` shows a
            // followers-only or direct one to followers and addressees alone): the others are
            // not written, and the read still decides.
            guard e.visibility == .public else { return }
            for tag in e.hashtags { try projection.pushByTag(e.postId, tag, txn) }
        }
        handlers.on(.postEdited) { (e: PostEdited, _, txn) in try projection.retag(e.postId, to: e.hashtags, txn) }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in
            try projection.unpush(e.postId, author: e.authorId, txn)
            try projection.unpushBoosts(of: e.postId, txn)
        }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in
            try projection.unpush(e.postId, author: e.authorId, txn)
            try projection.unpushBoosts(of: e.postId, txn)
        }
        handlers.on(.tagFollowed) { (e: UserHashtag, _, txn) in try projection.backfill(e.tag, for: e.userId, txn) }
        handlers.on(.tagUnfollowed) { (e: UserHashtag, _, txn) in try projection.unfollowTag(e.tag, of: e.userId, txn) }
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
            if boundary == nil && count >= projection.fanOut.threshold {
                try projection.startPulling(e.followeeId, txn)
            }
        }
        handlers.on(.unfollowed) { (e: Follow, _, txn) in
            _ = try projection.addFollower(to: e.followeeId, -1, txn)
            let boundary = try projection.boundary(of: e.followeeId, txn)
            if boundary != nil { try projection.pulls.delete((e.followerId, e.followeeId), txn) }
            // The posts of a tag the follower follows stay, as a stranger's.
            let followsTags = try !projection.hashtags.followedTags(of: e.followerId, txn).isEmpty
            try projection.forEachPushedPost(of: e.followeeId, boundary: boundary, txn) { post in
                let key = (e.followerId, post)
                if followsTags, try projection.staysByTag(post, for: e.followerId, txn),
                    let marks = try projection.timelines.get(key, txn)
                {
                    try projection.timelines.put(key, marks.union(.tagOnly), txn)
                } else {
                    try projection.timelines.delete(key, txn)
                }
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
            for tag in try projection.hashtags.followedTags(of: e.userId, txn) {
                try projection.tagFollowers.delete((tag, e.userId), txn)
            }
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
    /// and bookmark (it keeps how it came in).
    private func remark(_ user: UserID, _ post: PostID, _ txn: Transaction) throws {
        guard let entry = try timelines.get((user, post), txn) else { return }
        try timelines.put((user, post), try marks(of: user, post, txn).union(entry.intersection(.tagOnly)), txn)
    }

    /// Takes a deleted or removed post out of every timeline it was pushed into (a pulled
    /// post left with the author's post list), by a follow or by a tag.
    private func unpush(_ post: PostID, author: UserID, _ txn: Transaction) throws {
        try timelines.delete((author, post), txn)
        for tag in try hashtags.postTags.get(post, txn) ?? [] {
            try tagFollowers.forEach(in: tag, txn) { follower, _ in
                try timelines.delete((follower, post), txn)
                return true
            }
        }
        guard !isPulled(post, boundary: try boundary(of: author, txn)) else { return }
        try follows.forEachFollower(of: author, txn) { follower in
            try timelines.delete((follower, post), txn)
        }
    }

    // MARK: Followed hashtags

    /// Whether `post` is above `top`, the newest post a tag's follow left to the tag's list:
    /// then it comes into the follower's timeline by an entry, not by that list.
    private func isAbove(_ post: PostID, _ top: String) -> Bool {
        top.utf8.lexicographicallyPrecedes(post.rawValue.utf8)
    }

    /// Writes `post`, of `tag`, into the timeline of each of the tag's followers above whose
    /// boundary it is and whose timeline does not hold it yet (their own, a followee's).
    private func pushByTag(_ post: PostID, _ tag: String, _ txn: Transaction) throws {
        try tagFollowers.forEach(in: tag, txn) { follower, top in
            if isAbove(post, top) { try writeByTag(post, into: follower, txn) }
            return true
        }
    }

    /// Writes `post` into `user`'s timeline as having come by a tag, with their marks, unless
    /// the timeline holds it already (their own, a followee's, or by another tag).
    private func writeByTag(_ post: PostID, into user: UserID, _ txn: Transaction) throws {
        guard try !timelines.contains((user, post), txn) else { return }
        try timelines.put((user, post), try marks(of: user, post, txn).union(.tagOnly), txn)
    }

    /// Whether `post`, in `user`'s timeline, comes in by a tag it carries that `user` follows
    /// (other than `leaving`), above that follow's boundary: its entry stands on it.
    private func staysByTag(
        _ post: PostID, for user: UserID, tags: [String]? = nil, leaving: String? = nil,
        _ txn: Transaction
    ) throws -> Bool {
        for tag in try tags ?? hashtags.postTags.get(post, txn) ?? [] where tag != leaving {
            if let top = try tagFollowers.get((tag, user), txn), isAbove(post, top) { return true }
        }
        return false
    }

    /// `user` follows `tag`: its `tagBackfill` newest posts come into their timeline (those it
    /// does not hold yet), and the newest of the rest is the boundary below which the tag's
    /// list is merged when reading. Following it again changes nothing.
    private func backfill(_ tag: String, for user: UserID, _ txn: Transaction) throws {
        guard try !tagFollowers.contains((tag, user), txn) else { return }
        var written: UInt64 = 0
        var top = ""
        try hashtags.hashtags.forEachDescending(in: tag, txn) { post, _ in
            guard written < fanOut.tagBackfill else {
                top = post.rawValue
                return false
            }
            written += 1
            try writeByTag(post, into: user, txn)
            return true
        }
        try tagFollowers.put((tag, user), top, txn)
    }

    /// `user` no longer follows `tag`: the entries that came by it alone leave (those above its
    /// boundary: the tag's posts since its follow and its backfill).
    private func unfollowTag(_ tag: String, of user: UserID, _ txn: Transaction) throws {
        guard let top = try tagFollowers.get((tag, user), txn) else { return }
        try hashtags.hashtags.forEachDescending(in: tag, txn) { post, _ in
            guard isAbove(post, top) else { return false }
            if let entry = try timelines.get((user, post), txn), entry.contains(.tagOnly),
                try !staysByTag(post, for: user, leaving: tag, txn)
            {
                try timelines.delete((user, post), txn)
            }
            return true
        }
        try tagFollowers.delete((tag, user), txn)
    }

    /// `post`'s hashtags become `new`: the followers of a tag it gains get it (as a new post's),
    /// those of a tag it loses lose it unless another of their followed tags still brings it.
    private func retag(_ post: PostID, to new: [String], _ txn: Transaction) throws {
        let old = try hashtags.postTags.get(post, txn) ?? []
        for tag in old where !new.contains(tag) {
            try tagFollowers.forEach(in: tag, txn) { follower, _ in
                if let entry = try timelines.get((follower, post), txn), entry.contains(.tagOnly),
                    try !staysByTag(post, for: follower, tags: new, txn)
                {
                    try timelines.delete((follower, post), txn)
                }
                return true
            }
        }
        guard try posts.post(post, txn)?.visibility == .public else { return }
        for tag in new where !old.contains(tag) { try pushByTag(post, tag, txn) }
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
    /// The entry is there by a followed hashtag alone (not by the follow of its author): the
    /// post is read as a stranger's, on `hashtag`.
    static let tagOnly = ViewerMarks(rawValue: 0x40)
}

/// The followers of a hashtag, `tag ‖ 0 ‖ follower` → the newest of the tag's posts their
/// follow left to be merged from the tag's list when reading ("" when it wrote them all).
enum TagFollowers: GroupedLayout {
    typealias Group = String
    typealias Member = UserID
    static func encode(_ top: String) -> [UInt8] { Array(top.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
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
