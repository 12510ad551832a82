import LMDB
import TimelineDomain

/// Posts by hashtag.
struct HashtagsProjection: Projection {
    let name = ProjectionName.hashtags
    let hashtags: Table<TaggedPosts>  // tag ‖ 0 ‖ postId → ()
    let postTags: Table<PostTags>     // postId → tags (to unindex a deleted post)
    var databases: [Database] { [hashtags.database, postTags.database] }

    init(_ env: Environment, prefix: String) throws {
        hashtags = try Table(env, prefix + "hashtags")
        postTags = try Table(env, prefix + "postTags")
    }

    /// Takes a deleted or removed post out of its hashtags' lists.
    private func unindex(_ post: PostID, _ txn: Transaction) throws {
        guard let tags = try postTags.get(post, txn) else { return }
        for tag in tags { try hashtags.delete((tag, post), txn) }
        try postTags.delete(post, txn)
    }

    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .postAdded(let e) where !e.hashtags.isEmpty:
            for tag in e.hashtags { try hashtags.put((tag, e.postId), (), txn) }
            try postTags.put(e.postId, e.hashtags, txn)
        case .postAdded:
            break  // no hashtags: nothing to index (and no postTags entry to look up at deletion)
        case .postEdited(let e):
            // Indexed anew: the old caption's tags leave, the new one's come.
            try unindex(e.postId, txn)
            for tag in e.hashtags { try hashtags.put((tag, e.postId), (), txn) }
            if !e.hashtags.isEmpty { try postTags.put(e.postId, e.hashtags, txn) }
        case .postDeleted(let e):
            try unindex(e.postId, txn)
        case .postRemoved(let e):
            try unindex(e.postId, txn)
        case .userCreated, .profileUpdated, .signedIn, .signedOut, .signedOutEverywhere, .signInFailed, .postPlaced,
             .postImageProcessed, .commentAdded, .commentDeleted, .likeAdded, .likeRemoved, .followed,
             .unfollowed, .postReported, .reportsDismissed, .userErased, .passwordResetRequested,
             .passwordChanged, .emailChanged, .bookmarked, .unbookmarked, .blocked, .unblocked, .muted, .unmuted, .activityRead, .postMarkedSensitive,
             .followRequested, .followRequestRejected, .followRequestWithdrawn, .postNotificationsOn, .postNotificationsOff, .mediaUploaded, .mediaUpdated, .mediaDeleted,
             .roleGranted, .roleRevoked, .userReported, .userReportsDismissed, .userSuspended, .userUnsuspended,
             .appRegistered, .appAuthorized, .appTokenIssued, .activityDismissed, .pushSubscribed, .pushUnsubscribed: break
        }
    }
}
