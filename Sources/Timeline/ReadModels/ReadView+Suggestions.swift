import LMDB
import TimelineDomain

/// Finding people to follow: friends of friends (`suggestions`) and contacts by email
/// (`findContacts`). Both read the follow graph and the profiles as they stand; neither keeps
/// a table of its own.
extension ReadView {
    /// How much of the graph `suggestions` walks: the viewer's most recent follows, and the
    /// most recent follows of each of them. At most 200 × 500 edges, whatever the graph.
    static let suggestionFolloweesSampled = 200
    static let suggestionFollowsPerFollowee = 500
    /// How many accounts the fallback (`popularSuggestions`) reads, at most.
    static let suggestionAccountsSampled = 10_000

    /// People followed by the people `user` follows, ranked by how many of them (most first,
    /// then by user id), without `user`, those `user` follows, anyone blocked either way and
    /// those `user` dismissed (`dismissSuggestion`).
    /// When none of them is left to suggest (a new account follows nobody), the first page is
    /// `popularSuggestions` instead.
    func suggestions(for user: UserID, _ request: PageRequest) throws -> Page<Suggestion> {
        try requireUser(user)
        // Ranked, not ordered by a cursor: there is no "right after" page.
        guard request.after == nil else { throw TimelineError.invalid("after", "this list is not paged by after") }
        let after = try request.before.map(SuggestionCursor.init(parsing:))
        // Count, for every user the sampled followees follow, how many of them do, keeping the
        // first three (the viewer's most recent follows first) to name.
        var counts: [String: (count: Int, via: [UserID])] = [:]
        var followees: [UserID] = []
        let following = models.follows.followingInOrder
        try following.forEachDescending(in: user, txn) { _, followee in
            followees.append(followee)
            return followees.count < Self.suggestionFolloweesSampled
        }
        for followee in followees {
            var walked = 0
            try following.forEachDescending(in: followee, txn) { _, followed in
                let candidate = followed.rawValue
                counts[candidate, default: (0, [])].count += 1
                if counts[candidate]!.via.count < 3 { counts[candidate]!.via.append(followee) }
                walked += 1
                return walked < Self.suggestionFollowsPerFollowee
            }
        }
        // Rank, then filter lazily: only the candidates a page reaches are checked.
        let ranked = counts.map { (cursor: SuggestionCursor(count: $0.value.count, user: $0.key), via: $0.value.via) }
            .filter { candidate in after.map { candidate.cursor.comesAfter($0) } ?? true }
            .sorted { $1.cursor.comesAfter($0.cursor) }
        let present = Presenter(try privacy(for: user))
        var items: [Suggestion] = []
        var last: SuggestionCursor?
        for (cursor, via) in ranked {
            let id = UserID(cursor.user)
            guard id != user, try !follows(user, id), try !hidden(id, from: user),
                try !dismissedSuggestion(user, id), let record = try self.user(id)
            else { continue }
            if items.count == request.limit { return Page(items: items, next: last?.text) }
            items.append(
                Suggestion(
                    user: try present.profile(record), followedByCount: cursor.count,
                    followedBy: try via.map(present.username)))
            last = cursor
        }
        if items.isEmpty && after == nil { return try popularSuggestions(for: user, limit: request.limit) }
        return Page(items: items, next: nil)
    }

    /// The fallback for someone whose follows suggest nobody: the public accounts (not locked,
    /// not suspended) with the most followers, then the most posts, then by user id, among those
    /// who have either; without `user`, those `user` follows and anyone blocked either way. One
    /// page (`followedByCount` 0, nobody named), reading at most `suggestionAccountsSampled`
    /// accounts.
    func popularSuggestions(for user: UserID, limit: Int) throws -> Page<Suggestion> {
        var candidates: [UserRecord] = []
        var read = 0
        try txn.scan(models.profiles.users.database, prefix: []) { _, value in
            let record = try UserRecords.decode(value)
            if !record.locked && !record.suspended && record.followerCount + record.postCount > 0 {
                candidates.append(record)
            }
            read += 1
            return read < Self.suggestionAccountsSampled
        }
        candidates.sort {
            ($0.followerCount, $0.postCount, $1.id.rawValue) > ($1.followerCount, $1.postCount, $0.id.rawValue)
        }
        let present = Presenter(try privacy(for: user))
        var items: [Suggestion] = []
        for record in candidates where items.count < limit {
            guard record.id != user, try !follows(user, record.id), try !hidden(record.id, from: user),
                try !isSuspended(record.id), try !dismissedSuggestion(user, record.id)
            else { continue }
            items.append(Suggestion(user: try present.profile(record), followedByCount: 0, followedBy: []))
        }
        return Page(items: items, next: nil)
    }

    /// The discoverable users among `emails`, as `viewer` sees them, in the emails' order (each
    /// once), without `viewer` and anyone blocked either way. An email no account can have,
    /// an unknown one and a non-discoverable user's all answer the same: nothing.
    func findContacts(_ emails: [String], viewer: UserID) throws -> [Profile] {
        try requireUser(viewer)
        let present = Presenter(try privacy(for: viewer))
        var seen: Set<UserID> = []
        var items: [Profile] = []
        for raw in emails {
            // The same normalisation and index as sign-in's lookup.
            guard let email = try? Validation.email(raw), let id = try userID(email: email), let record = try user(id),
                record.discoverable, id != viewer, try !hidden(id, from: viewer), seen.insert(id).inserted
            else { continue }
            items.append(try present.profile(record))
        }
        return items
    }
}

/// A position in the suggestions' order: `count` descending, then user id ascending. Its text
/// form, the page cursor, is `<count>:<user id>`.
struct SuggestionCursor: Equatable {
    let count: Int
    let user: String

    init(count: Int, user: String) {
        self.count = count
        self.user = user
    }

    init(parsing text: String) throws(TimelineError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count <= 9, let count = Int(parts[0]), count > 0,
            let id = UserID.parse(String(parts[1]))
        else { throw TimelineError.invalid("before", "before is not a valid cursor") }
        self.init(count: count, user: id.rawValue)
    }

    var text: String { "\(count):\(user)" }

    /// Whether this position comes after `other` in the order.
    func comesAfter(_ other: SuggestionCursor) -> Bool {
        count < other.count || (count == other.count && user > other.user)
    }
}
