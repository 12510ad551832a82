import LMDB
import TimelineDomain

/// Who may see what: followers-only posts and locked accounts' posts, reports that hide a post, blocks that keep users
/// apart, mutes, and suspended accounts, gone for everyone else. The rules are `Privacy`'s
/// (TimelineDomain); this view answers what they read, from its own lists where it can.
extension ReadView {
    /// The privacy policy for `viewer` over this view: their active mutes (`activeMutes`) and
    /// this view's `ReportPolicy`. Hiding is decided when reading, from the reports the read
    /// models keep: the thresholds are settings, not part of the models.
    func privacy(for viewer: UserID?) throws -> Privacy<ReadView> {
        Privacy(viewer: viewer, mutes: try activeMutes(of: viewer), reportThreshold: reports.hideAfter, state: self)
    }

    /// Whether reports hide `post` from `viewer` (`DecisionState.hides` at this view's
    /// `ReportPolicy`).
    func hides(_ post: PostRecord, from viewer: UserID?) throws -> Bool {
        try hides(post, from: viewer, threshold: reports.hideAfter)
    }

    /// `not_found` unless `viewer` may see post `id` (`Privacy.mayShow(post:on:)` on `post`).
    func requireVisiblePost(_ id: PostID, viewer: UserID?) throws {
        guard let stored = try storedPost(Array(id.rawValue.utf8)),
            try privacy(for: viewer).mayShow(post: stored, on: .post)
        else { throw TimelineError.notFound("post", id.rawValue) }
    }

    /// Whether `user` is kept out of `viewer`'s lists and search (`Privacy.mayShow(account:on:)`
    /// on `search`): they are suspended, or one of them blocks the other.
    func hidden(_ user: UserID, from viewer: UserID?) throws -> Bool {
        let policy = Privacy(viewer: viewer, mutes: [], reportThreshold: reports.hideAfter, state: self)
        return try !policy.mayShow(account: user, on: .search)
    }

    /// Whether a moderator suspended `user`, from the profiles' list of suspended users.
    func isSuspended(_ user: UserID) throws -> Bool { try models.profiles.isSuspended(user, txn) }

    /// Whether `user`'s account is locked (its posts are for its followers), from their profile
    /// record as it stands now.
    func isLocked(_ user: UserID) throws -> Bool { try models.profiles.isLocked(user, txn) }

    /// Whether one of `a` and `b` blocks the other, or the other's server (`blockAccountDomain`).
    func blockedEitherWay(_ a: UserID, _ b: UserID) throws -> Bool {
        try models.follows.blockedEitherWay(a, b, txn) || models.federation.hidesDomain(of: b, from: a, txn)
            || models.federation.hidesDomain(of: a, from: b, txn)
    }
}

/// A stored record answers the policy from its bytes: the author compared as bytes, the
/// followers-only flag, and its standing reports as the bound on those that count.
extension PostReadings: PostFacts {
    var isFollowersOnly: Bool { fields.followersOnly }
    var isDirect: Bool { fields.addressees != nil }
    func mayBeHiddenByReports(threshold: Int) -> Bool { fields.standingReports >= threshold }
}
