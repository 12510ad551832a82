import TimelineDomain

/// One of the instance's texts as the operator last set it.
public struct InstanceText: Sendable, Equatable {
    /// The text (plain).
    public var text: String
    /// When the operator set it (ms since 1970).
    public var updatedAt: Int64
}

/// An announcement as one user (or nobody) sees it.
public struct AnnouncementView: Sendable, Equatable {
    /// One emoji's reactions: how many, and whether the viewer is among them.
    public struct Reaction: Sendable, Equatable {
        /// The emoji.
        public var name: String
        /// How many users reacted with it.
        public var count: Int
        /// Whether the viewer did (`nil` without a viewer).
        public var me: Bool?
    }

    /// The announcement.
    public var record: AnnouncementRecord
    /// Whether the viewer dismissed it (`nil` without a viewer).
    public var read: Bool?
    /// Its reactions, one per emoji, in the order each was first given.
    public var reactions: [Reaction]
}

/// What happened on the server in one week.
public struct WeekActivity: Sendable, Equatable {
    /// The week's start: Monday 00:00 UTC, in seconds since 1970.
    public var week: Int64
    /// Posts made in it.
    public var statuses: Int64
    /// Distinct users who signed in during it.
    public var logins: Int64
    /// Accounts made in it.
    public var registrations: Int64
}

extension TimelineService {
    /// One of the instance's texts (`nil`: not set).
    public func instanceText(_ field: InstanceTextField) throws(TimelineError) -> InstanceText? {
        try read { view in
            try view.models.instance.texts.get(field.rawValue, view.txn).map {
                InstanceText(text: $0.text, updatedAt: $0.updatedAt)
            }
        }
    }

    /// The server's rules, in the order the operator added them.
    public func instanceRules() throws(TimelineError) -> [InstanceRuleRecord] {
        try read { view in try view.models.instance.ruleList(view.txn) }
    }

    /// The announcements, newest first, as `viewer` sees them: whether they read each, and the
    /// reactions. Those whose end has passed are left out unless `includeEnded`.
    public func announcements(viewer: UserID?, includeEnded: Bool = false) throws(TimelineError) -> [AnnouncementView] {
        let now = options.clock.nowMilliseconds()
        return try read { view in
            let instance = view.models.instance
            return try instance.announcementList(view.txn).reversed().compactMap { record -> AnnouncementView? in
                if !includeEnded, let ends = record.endsAt, ends <= now { return nil }
                let reactions = try instance.reactions(to: record.id, view.txn).map { reaction in
                    AnnouncementView.Reaction(
                        name: reaction.name, count: reaction.users.count,
                        me: viewer.map { reaction.users.contains($0) })
                }
                let read = try viewer.map { viewer in try instance.dismissed(record.id, by: viewer, view.txn) }
                return AnnouncementView(record: record, read: read, reactions: reactions)
            }
        }
    }

    /// The last twelve weeks' activity, this week first (weeks with nothing are zeros).
    public func instanceActivity() throws(TimelineError) -> [WeekActivity] {
        let thisWeek = InstanceProjection.weekStart(ms: options.clock.nowMilliseconds())
        return try read { view in
            try (0..<InstanceProjection.keptWeeks).map { back in
                let week = thisWeek - back * InstanceProjection.week
                let counts = try view.models.instance.weeks.get(week, view.txn)
                return WeekActivity(
                    week: week, statuses: counts?.statuses ?? 0, logins: counts?.logins ?? 0,
                    registrations: counts?.registrations ?? 0)
            }
        }
    }
}
