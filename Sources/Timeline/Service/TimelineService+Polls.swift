import TimelineDomain

/// A poll on a post, as a viewer reads it (Mastodon's `Poll`): its options with their counts
/// (hidden while `hideTotals` and not `expired`), whether it has ended, and the viewer's own
/// vote.
public struct Poll: Sendable, Equatable {
    /// The poll.
    public let id: PollID
    /// The post it is on.
    public let post: PostID
    /// The options, in order.
    public let options: [String]
    /// Each option's votes, in order; `nil` while the totals are hidden (`hideTotals`, until
    /// the poll ends), as Mastodon answers them.
    public let counts: [Int]?
    /// Whether a voter may choose several options.
    public let multiple: Bool
    /// Whether the counts stay hidden until it ends.
    public let hideTotals: Bool
    /// When it ends (ms since 1970).
    public let expiresAt: Int64
    /// Whether it has ended (judged at the time of the read: nothing is written when it ends).
    public let expired: Bool
    /// How many votes were cast (an option chosen counts one; a multiple-choice voter counts
    /// once per option).
    public let votesCount: Int
    /// How many accounts voted.
    public let votersCount: Int
    /// The options the viewer chose, by index (empty: not voted); `nil` without a viewer.
    public let ownVotes: [Int]?
    /// Whether the viewer voted; `nil` without a viewer.
    public var voted: Bool? { ownVotes.map { !$0.isEmpty } }
}

/// A `poll` notification: a poll the user made or voted in ended.
public struct PollEnd: Sendable, Equatable {
    /// The notification's id (`PollSet.endItemID`), which sorts with the activity items by time.
    public let item: String
    /// The poll that ended.
    public let poll: PollID
    /// When it ended (ms since 1970).
    public let at: Int64
}

extension TimelineService {
    /// The poll `id` as `viewer` reads it: `not_found` when it is gone, or its post is out of the
    /// viewer's sight (`Privacy` on `post`: a followers-only post, a block either way, …).
    public func poll(_ id: PollID, viewer: UserID?) throws(TimelineError) -> Poll {
        try read { view in
            guard let stored = try view.models.polls.polls.get(id, view.txn) else {
                throw TimelineError.notFound("poll", id.rawValue)
            }
            try view.requireVisiblePost(stored.record.post, viewer: viewer)
            return try view.present(stored, viewer: viewer)
        }
    }

    /// The poll on `post` as `viewer` reads it, if it has one (`not_found` for a post out of the
    /// viewer's sight).
    public func poll(of post: PostID, viewer: UserID?) throws(TimelineError) -> Poll? {
        try read { view in
            try view.requireVisiblePost(post, viewer: viewer)
            guard let id = try view.models.polls.postPolls.get(post, view.txn),
                let stored = try view.models.polls.polls.get(id, view.txn)
            else { return nil }
            return try view.present(stored, viewer: viewer)
        }
    }

    /// The `poll` notifications `user` has now — each poll they made or voted in that has ended —
    /// newest first, before `cursor` (an activity item id), at most `limit`. Nothing is written
    /// when a poll ends: the time of the read decides which are due. Whether the viewer may
    /// still see each poll's post is the caller's to judge, as for any activity item.
    public func pollEnds(of user: UserID, before cursor: String?, limit: Int) throws(TimelineError) -> [PollEnd] {
        try read { view in
            try view.models.polls.endedPolls(of: user, before: cursor, now: view.now, limit: limit, view.txn).map {
                PollEnd(item: $0.item, poll: $0.poll, at: PushIDGenerator.timestamp(ofPrefix: $0.item) ?? 0)
            }
        }
    }
}

extension ReadView {
    /// A stored poll as `viewer` reads it now.
    func present(_ stored: StoredPoll, viewer: UserID?) throws -> Poll {
        let record = stored.record
        let expired = now >= record.expiresAt
        let own = try viewer.map { try models.polls.votes.get((record.id, $0), txn) ?? [] }
        return Poll(
            id: record.id, post: record.post, options: record.options,
            counts: record.hideTotals && !expired ? nil : stored.counts, multiple: record.multiple,
            hideTotals: record.hideTotals, expiresAt: record.expiresAt, expired: expired,
            votesCount: stored.counts.reduce(0, +), votersCount: stored.voters, ownVotes: own)
    }
}
