import TimelineDomain

/// One of the instance's texts as the operator last set it.
public struct InstanceText: Sendable, Equatable {
    /// The text (plain).
    public var text: String
    /// When the operator set it (ms since 1970).
    public var updatedAt: Int64
}

/// One version of the terms of service: those that took effect on a day.
public struct TermsOfServiceVersion: Sendable, Equatable {
    /// The day (UTC, `YYYY-MM-DD`) it took effect: the operator set it then.
    public var effectiveDate: String
    /// The text (plain).
    public var text: String
    /// The day the next version took effect (`nil`: this one is in effect).
    public var succeededBy: String?
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

/// How much the server holds: what NodeInfo's `usage` and Mastodon's instance `stats` tell.
public struct InstanceUsage: Sendable, Equatable {
    /// Local accounts (erased ones are gone; other servers' accounts seen here are not counted).
    public var users: Int
    /// Local posts standing (deleted ones are gone), of every visibility.
    public var posts: Int
}

extension TimelineService {
    /// The local accounts and posts there are now (each table's entry count: no scan).
    public func instanceUsage() throws(TimelineError) -> InstanceUsage {
        try read { view in
            InstanceUsage(
                users: try view.txn.statistics(view.models.profiles.users.database).entries
                    - view.txn.statistics(view.models.federation.remoteUsers.database).entries,
                posts: try view.txn.statistics(view.models.posts.posts.database).entries)
        }
    }

    /// One of the instance's texts (`nil`: not set).
    public func instanceText(_ field: InstanceTextField) throws(TimelineError) -> InstanceText? {
        try read { view in
            try view.models.instance.texts.get(field.rawValue, view.txn).map {
                InstanceText(text: $0.text, updatedAt: $0.updatedAt)
            }
        }
    }

    /// The version of the terms of service that took effect on `day` (`YYYY-MM-DD`), or the one
    /// in effect now when `day` is `nil`; `nil` when none took effect that day (or none is set).
    public func termsOfService(on day: String? = nil) throws(TimelineError) -> TermsOfServiceVersion? {
        try read { view in
            // Terms cleared since their last version are in effect no more.
            if day == nil,
                try view.models.instance.texts.get(InstanceTextField.termsOfService.rawValue, view.txn) == nil
            {
                return nil
            }
            // A handful of versions at most: read them all, in day order.
            var versions: [(day: String, text: String)] = []
            try view.txn.scan(view.models.instance.termsVersions.database, prefix: []) { key, value in
                versions.append((String(decoding: key, as: UTF8.self), TermsVersions.decode(value)))
                return true
            }
            guard let index = day.map({ day in versions.firstIndex { $0.day == day } }) ?? versions.indices.last
            else { return nil }
            let next = versions.index(after: index)
            return TermsOfServiceVersion(
                effectiveDate: versions[index].day, text: versions[index].text,
                succeededBy: next < versions.endIndex ? versions[next].day : nil)
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
