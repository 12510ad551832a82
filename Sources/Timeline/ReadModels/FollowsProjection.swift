import LMDB
import TimelineDomain

/// The follow graph in both directions.
struct FollowsProjection: Projection {
    let name = ProjectionName.follows
    let followers: Table<UserEdges>  // followee ‖ 0 ‖ follower → ()
    let following: Table<UserEdges>  // follower ‖ 0 ‖ followee → ()
    var databases: [Database] { [followers.database, following.database] }

    init(_ env: Environment, prefix: String) throws {
        followers = try Table(env, prefix + "followers")
        following = try Table(env, prefix + "following")
    }

    func follows(_ follower: UserID, _ followee: UserID, _ txn: Transaction) throws -> Bool {
        try following.contains((follower, followee), txn)
    }

    /// Calls `body` with each follower of `user`.
    func forEachFollower(of user: UserID, _ txn: Transaction, _ body: (String) throws -> Void) throws {
        try txn.forEachID(in: followers.database, under: user.rawValue, body)
    }

    func apply(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .followed(let e):
            try followers.put((e.followeeId, e.followerId), (), txn)
            try following.put((e.followerId, e.followeeId), (), txn)
        case .unfollowed(let e):
            try followers.delete((e.followeeId, e.followerId), txn)
            try following.delete((e.followerId, e.followeeId), txn)
        // Not this projection's concern:
        // (Erasure emits the unfollows first, so nothing is left to do here.)
        case .userCreated, .profileUpdated, .signedIn, .signedOut, .signInFailed, .postAdded, .postDeleted,
             .commentAdded, .commentDeleted, .likeAdded, .likeRemoved, .postReported, .userErased,
             .passwordResetRequested, .passwordChanged, .emailChanged, .bookmarked, .unbookmarked:
            break
        }
    }
}
