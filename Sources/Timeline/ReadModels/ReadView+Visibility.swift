import LMDB
import TimelineDomain

/// Who may see what: followers-only posts, reports that hide a post, blocks that keep users
/// apart, and suspended accounts, gone for everyone else.
extension ReadView {
    /// Whether reports hide `post` from `viewer` (`DecisionState.hides` at this view's
    /// `ReportPolicy`). Hiding is decided when reading, from the reports the read models
    /// keep: the thresholds are settings, not part of the models.
    func hides(_ post: PostRecord, from viewer: UserID?) throws -> Bool {
        try hides(post, from: viewer, threshold: reports.hideAfter)
    }

    /// `not_found` unless `viewer` may see post `id` (`isShown`).
    func requireVisiblePost(_ id: PostID, viewer: UserID?) throws {
        guard let stored = try storedPost(Array(id.rawValue.utf8)), try isShown(stored, to: viewer)
        else { throw TimelineError.notFound("post", id.rawValue) }
    }

    /// Whether `viewer` may see the stored post (`DecisionState.hides`' rule, on the record's
    /// bytes): reports do not hide it from them (read only for a post with enough standing
    /// reports to reach the threshold) and, when `checkingRelations`, its author is not
    /// suspended, no block stands between its author and them and, for a followers-only post,
    /// they follow its author. Its author always may. A timeline holds only posts of whom its
    /// owner follows, and leaves out suspended authors by its own list, so it checks no relation.
    func isShown(_ stored: PostReadings, to viewer: UserID?, checkingRelations: Bool = true) throws -> Bool {
        if let viewer, stored.isAuthor(viewer) { return true }
        if checkingRelations {
            if try models.profiles.isSuspended(stored.author, txn) { return false }
            if stored.fields.followersOnly {
                guard let viewer, try follows(viewer, stored.author) else { return false }
            }
        }
        let threshold = reports.hideAfter
        if stored.fields.standingReports >= threshold, try countedReports(stored.id, upTo: threshold) >= threshold { return false }
        return try !checkingRelations || !hidden(stored.author, from: viewer)
    }

    /// Whether `user` is kept out of `viewer`'s lists, search and activity: they are suspended,
    /// or one of them blocks the other.
    func hidden(_ user: UserID, from viewer: UserID?) throws -> Bool {
        guard viewer != user else { return false }
        if try models.profiles.isSuspended(user, txn) { return true }
        guard let viewer else { return false }
        return try models.follows.blockedEitherWay(viewer, user, txn)
    }
}
