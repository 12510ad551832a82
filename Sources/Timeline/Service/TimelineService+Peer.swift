import LMDB
import TimelineDomain

/// One fact of the current state, as the bench's SQLite peer loads it (the same network, the
/// same fields), read from the read models.
package enum PeerRow {
    /// A user.
    case user(id: UserID, username: String, createdAt: Int64)
    /// A post.
    case post(PostRecord)
    /// `follower` follows `followee`.
    case follow(follower: UserID, followee: UserID)
    /// `user` likes `post`.
    case like(post: PostID, user: UserID)
    /// `user` bookmarked `post`.
    case bookmark(user: UserID, post: PostID)
    /// `booster` boosted `post`: the boost `id` (creation order, as posts').
    case boost(id: PostID, post: PostID, booster: UserID)
    /// `user` follows the hashtag `tag`.
    case tagFollow(user: UserID, tag: String)
    /// `post` holds the poll `poll`.
    case poll(post: PostID, poll: PollID)
}

/// The tables a home timeline page reads, for the benchmark's raw-LMDB floor: the timelines
/// (`user ‖ 0 ‖ entry` → marks), the posts, and the boosts (a boost's id → its record, which
/// starts with its post's id, length-prefixed); an entry whose marks hold `boostMark` is a boost.
package struct TimelinePageTables: Sendable {
    /// `user ‖ 0 ‖ entry id` → the entry's marks.
    package let timelines: Database
    /// A post's id → its record.
    package let posts: Database
    /// A boost's id → its record.
    package let boosts: Database
    /// The mark (a bit of an entry's first value byte) that says the entry is a boost.
    package let boostMark: UInt8
}

extension TimelineService {
    /// Calls `visit` with every user, post, follow, like, bookmark, boost, hashtag follow and
    /// post's poll, in one snapshot.
    package func forEachPeerRow(_ visit: (PeerRow) throws -> Void) throws {
        try read { view in
            let (txn, models) = (view.txn, view.models)
            try txn.scan(models.profiles.users.database, prefix: []) { _, value in
                let user = try UserRecords.decode(value)
                try visit(.user(id: user.id, username: user.username, createdAt: user.createdAt))
                return true
            }
            try txn.scan(models.posts.posts.database, prefix: []) { _, value in
                try visit(.post(try PostRecords.decode(value).record))
                return true
            }
            try txn.scan(models.follows.following.database, prefix: []) { key, _ in
                let (follower, followee) = CompositeKey.split(key)
                try visit(.follow(follower: UserID(follower), followee: UserID(followee)))
                return true
            }
            try txn.scan(models.posts.likes.database, prefix: []) { key, _ in
                let (post, user) = CompositeKey.split(key)
                try visit(.like(post: PostID(post), user: UserID(user)))
                return true
            }
            try txn.scan(models.posts.bookmarks.database, prefix: []) { key, _ in
                let (user, post) = CompositeKey.split(key)
                try visit(.bookmark(user: UserID(user), post: PostID(post)))
                return true
            }
            try txn.scan(models.boosts.boosts.database, prefix: []) { key, value in
                let boost = try BoostRecords.decode(value)
                try visit(
                    .boost(id: PostID(String(decoding: key, as: UTF8.self)), post: boost.post, booster: boost.booster))
                return true
            }
            try txn.scan(models.timeline.tagFollowers.database, prefix: []) { key, _ in
                let (tag, user) = CompositeKey.split(key)
                try visit(.tagFollow(user: UserID(user), tag: tag))
                return true
            }
            try txn.scan(models.polls.postPolls.database, prefix: []) { key, value in
                try visit(.poll(post: PostID(String(decoding: key, as: UTF8.self)), poll: PostPolls.decode(value)))
                return true
            }
        }
    }
}
