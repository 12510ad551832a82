import LMDB
import TimelineDomain

/// The follow graph in both directions.
struct FollowsProjection: Projection {
    let name = ProjectionName.follows
    let followers: Database  // followee ‖ 0 ‖ follower → ()
    let following: Database  // follower ‖ 0 ‖ followee → ()
    var databases: [Database] { [followers, following] }

    init(_ env: Environment, prefix: String) throws {
        followers = try env.database(prefix + "followers", placement: .derived)
        following = try env.database(prefix + "following", placement: .derived)
    }

    func follows(_ follower: UserID, _ followee: UserID, _ txn: Transaction) throws -> Bool {
        try txn.contains(following, Key.make(follower.rawValue, followee.rawValue))
    }

    /// Calls `body` with each follower of `user`.
    func forEachFollower(of user: UserID, _ txn: Transaction, _ body: (String) throws -> Void) throws {
        try txn.forEachID(in: followers, under: user.rawValue, body)
    }

    func apply(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .followed(let e):
            try txn.put(followers, Key.make(e.followeeId.rawValue, e.followerId.rawValue), [])
            try txn.put(following, Key.make(e.followerId.rawValue, e.followeeId.rawValue), [])
        case .unfollowed(let e):
            try txn.delete(followers, Key.make(e.followeeId.rawValue, e.followerId.rawValue))
            try txn.delete(following, Key.make(e.followerId.rawValue, e.followeeId.rawValue))
        // Not this projection's concern:
        // (Erasure emits the unfollows first, so nothing is left to do here.)
        case .userCreated, .profileUpdated, .signedIn, .signedOut, .signInFailed, .postAdded, .postDeleted,
             .commentAdded, .commentDeleted, .likeAdded, .likeRemoved, .postReported, .userErased,
             .passwordResetRequested, .passwordChanged, .emailChanged:
            break
        }
    }
}
