import LMDB
import TimelineDomain

/// Reads of the profile extras (`ProfileExtrasProjection`): pinned posts, endorsements, notes,
/// muted conversations and familiar followers, each through the one privacy policy.
extension ReadView {
    /// `user`'s pinned posts that `viewer` may see on a profile, the latest pinned first (none
    /// across a block either way: `Privacy` hides the posts on the `profile` surface).
    func pinnedPosts(of user: UserID, viewer: UserID?) throws -> [Post] {
        try requireUser(user)
        let present = Presenter(try privacy(for: viewer))
        return try models.profileExtras.pinned(by: user, txn).compactMap { try present.listedPost($0, on: .profile) }
    }

    /// The accounts `user` endorses that `viewer` may see, the latest endorsed first: nothing
    /// when `user` is out of `viewer`'s sight (a block either way, a suspension).
    func endorsements(of user: UserID, viewer: UserID?) throws -> [Profile] {
        try requireUser(user)
        if user != viewer, try hidden(user, from: viewer) { return [] }
        return try models.profileExtras.endorsed(by: user, txn).compactMap { try listed($0, viewer: viewer) }
    }

    /// The accounts `viewer` follows who follow `user`, that `viewer` may see (none when `user`
    /// is out of their sight), the newest follow of `viewer`'s first.
    func familiarFollowers(of user: UserID, viewer: UserID) throws -> [Profile] {
        try requireUser(user)
        guard user != viewer, try !hidden(user, from: viewer) else { return [] }
        var familiar: [UserID] = []
        try models.follows.followingInOrder.forEachDescending(in: viewer, txn) { _, followee in
            if followee != user, try models.follows.follows(followee, user, txn) { familiar.append(followee) }
            return true
        }
        return try familiar.compactMap { try listed($0, viewer: viewer) }
    }
}
