import LMDB
import TimelineDomain

/// The home timelines, materialised by fan-out: a post is pushed into its author's and every
/// follower's timeline; a follow merges the followee's backlog; an unfollow removes it; a
/// deleted post is removed everywhere. Reads the follow graph and users' posts as they stand
/// in the same transaction (so it is applied after `follows` and `posts`).
struct TimelineProjection: Projection {
    let name = ProjectionName.timeline
    let timelines: Database  // user ‖ 0 ‖ postId → authorId
    let follows: FollowsProjection
    let posts: PostsProjection
    var databases: [Database] { [timelines] }

    init(_ env: Environment, prefix: String, follows: FollowsProjection, posts: PostsProjection) throws {
        timelines = try env.database(prefix + "timelines")
        self.follows = follows
        self.posts = posts
    }

    func apply(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .postAdded(let e):
            let author = Array(e.authorId.rawValue.utf8)
            try txn.put(timelines, Key.make(e.authorId.rawValue, e.postId.rawValue), author)
            try follows.forEachFollower(of: e.authorId, txn) { follower in
                try txn.put(timelines, Key.make(follower, e.postId.rawValue), author)
            }
        case .postDeleted(let e):
            try txn.delete(timelines, Key.make(e.authorId.rawValue, e.postId.rawValue))
            try follows.forEachFollower(of: e.authorId, txn) { follower in
                try txn.delete(timelines, Key.make(follower, e.postId.rawValue))
            }
        case .followed(let e):
            let author = Array(e.followeeId.rawValue.utf8)
            try posts.forEachPost(of: e.followeeId, txn) { post in
                try txn.put(timelines, Key.make(e.followerId.rawValue, post), author)
            }
        case .unfollowed(let e):
            try posts.forEachPost(of: e.followeeId, txn) { post in
                try txn.delete(timelines, Key.make(e.followerId.rawValue, post))
            }
        default:
            break
        }
    }
}
