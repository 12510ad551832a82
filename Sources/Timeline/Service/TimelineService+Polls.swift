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

/// A poll that ended, and everyone its end is told to: its author and each voter (those erased
/// since are not). What the push worker turns into `poll` pushes.
public struct EndedPoll: Sendable, Equatable {
    /// The notification's id (the same for every participant).
    public let item: String
    /// The poll.
    public let poll: PollID
    /// Its author.
    public let author: UserID
    /// When it ended (ms since 1970).
    public let at: Int64
    /// Its author and voters who have its `poll` notification.
    public let participants: [UserID]
}

extension TimelineService {
    /// The polls that ended after `after` and at or before `through` (ms since 1970), soonest
    /// first, with their participants; and the log sequence the read models had applied in the
    /// same snapshot (a vote applied after it is not counted here: see `pollEnd(madeBy:)`).
    public func pollsEnded(after: Int64, through: Int64) throws(TimelineError) -> (
        sequence: UInt64, polls: [EndedPoll]
    ) {
        try read { view in
            let polls = view.models.polls
            let ended = try polls.polls(endingAfter: after, through: through, view.txn).compactMap {
                id -> EndedPoll? in
                guard let stored = try polls.polls.get(id, view.txn) else { return nil }
                let item = stored.endItemID
                let participants = try ([stored.record.author] + polls.votes.members(of: id, view.txn)).filter {
                    try polls.ends.contains(($0, item), view.txn)
                }
                return EndedPoll(
                    item: item, poll: id, author: stored.record.author, at: stored.record.expiresAt,
                    participants: participants)
            }
            return (try view.models.checkpoint(.activity, view.txn), ended)
        }
    }

    /// When the soonest poll ending after `after` ends (ms since 1970; `nil`: none).
    public func nextPollEnd(after: Int64) throws(TimelineError) -> Int64? {
        try read { try $0.models.polls.nextEnd(after: after, $0.txn) }
    }

    /// The poll end whose participant `envelope` made someone (a vote's voter, a poll's author),
    /// if the poll still stands as the event set it: what the push worker tells that participant
    /// when the poll has already ended for it (a vote applied after the end was planned).
    public func pollEnd(madeBy envelope: EventEnvelope) throws(TimelineError) -> (user: UserID, poll: EndedPoll)? {
        let (id, user): (PollID, UserID)
        switch envelope.event {
        case .pollVoted(let e): (id, user) = (e.pollId, e.userId)
        case .pollSet(let e): (id, user) = (e.pollId, e.authorId)
        default: return nil
        }
        return try read { view in
            guard let stored = try view.models.polls.polls.get(id, view.txn),
                try view.models.polls.ends.contains((user, stored.endItemID), view.txn)
            else { return nil }
            return (
                user,
                EndedPoll(
                    item: stored.endItemID, poll: id, author: stored.record.author, at: stored.record.expiresAt,
                    participants: [user])
            )
        }
    }

    /// `user`'s `poll` notification `item` as their activity shows it now: `nil` when it is not
    /// theirs, not yet due, or its poll or post is gone or out of their sight (the feed's rule,
    /// `ReadView.pollEndItem`).
    public func pollEndItem(_ item: String, for user: UserID) throws(TimelineError) -> ActivityItem? {
        try read { view in
            guard let id = try view.models.polls.ends.get((user, item), view.txn),
                let at = PushIDGenerator.timestamp(ofPrefix: item), at <= view.now
            else { return nil }
            return try view.pollEndItem(item, of: id, try view.privacy(for: user))
        }
    }

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
