import LMDB
import TimelineDomain

/// Posts by hashtag.
struct HashtagsProjection: Projection {
    let name = ProjectionName.hashtags
    let hashtags: Table<TaggedPosts>  // tag ‖ 0 ‖ postId → ()
    let postTags: Table<PostTags>  // postId → tags (to unindex a deleted post)
    var databases: [Database] { [hashtags.database, postTags.database] }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        hashtags = try Table(env, prefix + "hashtags")
        postTags = try Table(env, prefix + "postTags")
        handlers = Self.handlers(of: self)
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
        return handlers
    }

    /// Takes a deleted or removed post out of its hashtags' lists.
    private func unindex(_ post: PostID, _ txn: Transaction) throws {
        guard let tags = try postTags.get(post, txn) else { return }
        for tag in tags { try hashtags.delete((tag, post), txn) }
        try postTags.delete(post, txn)
    }
}
