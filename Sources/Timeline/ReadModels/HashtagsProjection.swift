import LMDB
import TimelineDomain

/// Posts by hashtag.
struct HashtagsProjection: Projection {
    let name = ProjectionName.hashtags
    let hashtags: Database  // tag ‖ 0 ‖ postId → ()
    let postTags: Database  // postId → tags (to unindex a deleted post)
    var databases: [Database] { [hashtags, postTags] }

    init(_ env: Environment, prefix: String) throws {
        hashtags = try env.database(prefix + "hashtags", placement: .derived)
        postTags = try env.database(prefix + "postTags", placement: .derived)
    }

    func apply(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .postAdded(let e) where !e.hashtags.isEmpty:
            for tag in e.hashtags { try txn.put(hashtags, Key.make(tag, e.postId.rawValue), []) }
            var w = ByteWriter()
            w.strings(e.hashtags)
            try txn.put(postTags, Array(e.postId.rawValue.utf8), w.bytes)
        case .postAdded:
            break  // no hashtags: nothing to index (and no postTags entry to look up at deletion)
        case .postDeleted(let e):
            guard let stored = try txn.get(postTags, Array(e.postId.rawValue.utf8)) else { return }
            var r = ByteReader(stored)
            for tag in try r.strings() { try txn.delete(hashtags, Key.make(tag, e.postId.rawValue)) }
            try txn.delete(postTags, Array(e.postId.rawValue.utf8))
        // Not this projection's concern:
        case .userCreated, .profileUpdated, .signedIn, .signedOut, .signInFailed, .commentAdded, .commentDeleted,
             .likeAdded, .likeRemoved, .followed, .unfollowed, .postReported, .userErased, .passwordResetRequested,
             .passwordChanged, .emailChanged:
            break
        }
    }
}
