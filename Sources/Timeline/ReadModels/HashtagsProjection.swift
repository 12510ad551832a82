import LMDB
import TimelineDomain

/// Posts by hashtag, and the hashtags each user follows (#41: their public posts come into the
/// follower's home timeline, written there by `TimelineProjection`, the older ones merged at
/// read time from `hashtags`).
struct HashtagsProjection: Projection {
    let name = ProjectionName.hashtags
    let hashtags: Table<TaggedPosts>  // tag ‖ 0 ‖ postId → ()
    let postTags: Table<PostTags>  // postId → tags (to unindex a deleted post)
    let tagFollows: Table<TimedMembers<UserID, String>>  // a user's followed hashtags → cursor
    let tagFollowList: Table<InOrder<UserID, String>>  // a user's followed hashtags, the latest last
    var databases: [Database] { [hashtags.database, postTags.database, tagFollows.database, tagFollowList.database] }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        hashtags = try Table(env, prefix + "hashtags")
        postTags = try Table(env, prefix + "postTags")
        tagFollows = try Table(env, prefix + "tagFollows")
        tagFollowList = try Table(env, prefix + "tagFollowList")
        handlers = Self.handlers(of: self)
    }

    /// The hashtags `user` follows, in tag order (what the home timeline merges).
    func followedTags(of user: UserID, _ txn: Transaction) throws -> [String] {
        try tagFollows.members(of: user, txn)
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.postAdded) { (e: PostAdded, _, txn) in
            // No hashtags: nothing to index (and no postTags entry to look up at deletion).
            guard !e.hashtags.isEmpty else { return }
            for tag in e.hashtags { try projection.hashtags.put((tag, e.postId), (), txn) }
            try projection.postTags.put(e.postId, e.hashtags, txn)
        }
        handlers.on(.postEdited) { (e: PostEdited, _, txn) in
            // Indexed anew: the old caption's tags leave, the new one's come.
            try projection.unindex(e.postId, txn)
            for tag in e.hashtags { try projection.hashtags.put((tag, e.postId), (), txn) }
            if !e.hashtags.isEmpty { try projection.postTags.put(e.postId, e.hashtags, txn) }
        }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in try projection.unindex(e.postId, txn) }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in try projection.unindex(e.postId, txn) }
        handlers.on(.tagFollowed) { (e: UserHashtag, envelope, txn) in
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.unfollow(e.userId, e.tag, txn)
            try projection.tagFollows.put((e.userId, e.tag), cursor, txn)
            try projection.tagFollowList.put((e.userId, cursor), e.tag, txn)
        }
        handlers.on(.tagUnfollowed) { (e: UserHashtag, _, txn) in try projection.unfollow(e.userId, e.tag, txn) }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            try projection.tagFollowList.deleteAll(in: e.userId, txn)
            try projection.tagFollows.deleteAll(in: e.userId, txn)
        }
        return handlers
    }

    /// Ends `user`'s following of `tag` (nothing if they do not follow it).
    private func unfollow(_ user: UserID, _ tag: String, _ txn: Transaction) throws {
        guard let cursor = try tagFollows.get((user, tag), txn) else { return }
        try tagFollowList.delete((user, cursor), txn)
        try tagFollows.delete((user, tag), txn)
    }

    /// Takes a deleted or removed post out of its hashtags' lists.
    private func unindex(_ post: PostID, _ txn: Transaction) throws {
        guard let tags = try postTags.get(post, txn) else { return }
        for tag in tags { try hashtags.delete((tag, post), txn) }
        try postTags.delete(post, txn)
    }
}
