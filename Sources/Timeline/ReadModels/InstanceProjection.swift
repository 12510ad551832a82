import LMDB
import TimelineDomain

/// The instance as the operator describes it (its texts and rules), the operator's
/// announcements with each user's dismissals and reactions, and the weekly activity Mastodon's
/// `GET /api/v1/instance/activity` answers: posts, distinct users signing in and sign-ups per
/// week (Monday 00:00 UTC), kept for the last twelve weeks only (a week's row, and the
/// sign-ins counted once in it, go when a week thirteen weeks later starts), so reading it is
/// twelve lookups and the projection stays bounded. And the hashtags and posts moderators hid
/// from the trends. And every version of the terms of service, by the day (UTC) it took effect.
struct InstanceProjection: Projection {
    let name = ProjectionName.instance
    let texts: Table<InstanceTexts>
    let rules: Table<InstanceRules>
    let announcements: Table<Announcements>
    /// Dismissals (`d ‖ 0 ‖ announcement ‖ 0 ‖ user`) and reactions
    /// (`r ‖ 0 ‖ announcement ‖ 0 ‖ name ‖ 0 ‖ user` → BE(sequence)).
    let marks: Table<AnnouncementMarks>
    let weeks: Table<WeeklyActivity>
    let weeklyLogins: Table<WeeklyLogins>
    let hiddenTrends: Table<HiddenTrends>
    let termsVersions: Table<TermsVersions>
    var databases: [Database] {
        [
            texts.database, rules.database, announcements.database, marks.database, weeks.database,
            weeklyLogins.database, hiddenTrends.database, termsVersions.database
        ]
    }

    private(set) var handlers = EventHandlers()

    /// A week, in seconds.
    static let week: Int64 = 7 * 86_400
    /// How many weeks the activity keeps (Mastodon's answer has twelve).
    static let keptWeeks: Int64 = 12

    init(_ env: Environment, prefix: String) throws {
        texts = try Table(env, prefix + "instanceTexts")
        rules = try Table(env, prefix + "instanceRules")
        announcements = try Table(env, prefix + "announcements")
        marks = try Table(env, prefix + "announcementMarks")
        weeks = try Table(env, prefix + "weeklyActivity")
        weeklyLogins = try Table(env, prefix + "weeklyLogins")
        hiddenTrends = try Table(env, prefix + "hiddenTrends")
        termsVersions = try Table(env, prefix + "termsVersions")
        handlers = Self.handlers(of: self)
    }

    /// The start of the week (Monday 00:00 UTC, as Mastodon's weeks) holding `ms`, in seconds.
    static func weekStart(ms: Int64) -> Int64 {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        // 1970-01-01 was a Thursday: Mondays are 4 days off the epoch's week boundaries.
        let shifted = seconds - 4 * 86_400
        let floor = shifted >= 0 ? shifted / week : (shifted - week + 1) / week
        return floor * week + 4 * 86_400
    }

    /// Counts one more of something in the week of `timestamp`; a new week forgets the weeks
    /// that have left the kept twelve.
    private func count(at timestamp: Int64, _ txn: Transaction, _ change: (inout WeeklyActivity.Value) -> Void)
        throws
    {
        let week = Self.weekStart(ms: timestamp)
        var value = try weeks.get(week, txn)
        if value == nil {
            value = WeeklyActivity.Value(statuses: 0, logins: 0, registrations: 0)
            try forgetWeeks(before: week - (Self.keptWeeks - 1) * Self.week, txn)
        }
        change(&value!)
        try weeks.put(week, value!, txn)
    }

    /// Deletes the activity of the weeks before `start`.
    private func forgetWeeks(before start: Int64, _ txn: Transaction) throws {
        let limit = WeeklyActivity.key(start)
        for database in [weeks.database, weeklyLogins.database] {
            var stale: [[UInt8]] = []
            try txn.scan(database, prefix: []) { key, _ in
                guard key.lexicographicallyPrecedes(limit) else { return false }
                stale.append(key)
                return true
            }
            for key in stale { try txn.delete(database, key) }
        }
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.instanceTextSet) { (e: InstanceTextSet, envelope, txn) in
            if e.text.isEmpty {
                try projection.texts.delete(e.field.rawValue, txn)
            } else {
                try projection.texts.put(e.field.rawValue, (e.text, envelope.timestamp), txn)
            }
            // The terms in effect on a day are the last set that day (none when cleared then).
            if e.field == .termsOfService {
                let day = TermsVersions.day(ms: envelope.timestamp)
                try e.text.isEmpty
                    ? projection.termsVersions.delete(day, txn) : projection.termsVersions.put(day, e.text, txn)
            }
        }
        handlers.on(.trendHidden) { (e: TrendDecision, _, txn) in
            try projection.hiddenTrends.put((e.kind, e.subject), (), txn)
        }
        handlers.on(.trendShown) { (e: TrendDecision, _, txn) in
            try projection.hiddenTrends.delete((e.kind, e.subject), txn)
        }
        handlers.on(.instanceRuleAdded) { (e: InstanceRuleAdded, _, txn) in
            try projection.rules.put(e.ruleId, (e.text, e.hint), txn)
        }
        handlers.on(.instanceRuleRemoved) { (e: InstanceRuleRemoved, _, txn) in
            try projection.rules.delete(e.ruleId, txn)
        }
        handlers.on(.announcementAdded) { (e: AnnouncementAdded, envelope, txn) in
            let record = AnnouncementRecord(
                id: e.announcementId, text: e.text, startsAt: e.startsAt, endsAt: e.endsAt, allDay: e.allDay,
                publishedAt: envelope.timestamp)
            try projection.announcements.put(e.announcementId, record, txn)
        }
        handlers.on(.announcementRemoved) { (e: AnnouncementRemoved, _, txn) in
            try projection.announcements.delete(e.announcementId, txn)
            for kind in ["d", "r"] {
                _ = try projection.marks.deleteAll(withPrefix: AnnouncementMarks.prefix(kind, e.announcementId), txn)
            }
        }
        handlers.on(.announcementDismissed) { (e: AnnouncementDismissed, envelope, txn) in
            try projection.marks.put(["d", e.announcementId.rawValue, e.userId.rawValue], envelope.sequence, txn)
        }
        handlers.on(.announcementReactionAdded) { (e: AnnouncementReaction, envelope, txn) in
            try projection.marks.put(
                ["r", e.announcementId.rawValue, e.name, e.userId.rawValue], envelope.sequence, txn)
        }
        handlers.on(.announcementReactionRemoved) { (e: AnnouncementReaction, _, txn) in
            try projection.marks.delete(["r", e.announcementId.rawValue, e.name, e.userId.rawValue], txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            // An erased user's dismissals and reactions go with them (a scan: erasure is rare).
            let suffix = [UInt8(0)] + Array(e.userId.rawValue.utf8)
            var mine: [[UInt8]] = []
            try txn.scan(projection.marks.database, prefix: []) { key, _ in
                if key.count > suffix.count, Array(key.suffix(suffix.count)) == suffix { mine.append(key) }
                return true
            }
            for key in mine { try txn.delete(projection.marks.database, key) }
        }
        handlers.on(.postAdded) { (_: PostAdded, envelope, txn) in
            try projection.count(at: envelope.timestamp, txn) { $0.statuses += 1 }
        }
        handlers.on(.userCreated) { (_: UserCreated, envelope, txn) in
            try projection.count(at: envelope.timestamp, txn) { $0.registrations += 1 }
        }
        handlers.on(.signedIn) { (e: SignedIn, envelope, txn) in
            // Mastodon counts the users who signed in, each once a week.
            let week = weekStart(ms: envelope.timestamp)
            let first = try !projection.weeklyLogins.contains((week, e.userId), txn)
            try projection.count(at: envelope.timestamp, txn) { if first { $0.logins += 1 } }
            if first { try projection.weeklyLogins.put((week, e.userId), (), txn) }
        }
        return handlers
    }

    // MARK: - Reads

    /// The server's rules, in the order they were added.
    func ruleList(_ txn: Transaction) throws -> [InstanceRuleRecord] {
        var list: [InstanceRuleRecord] = []
        try txn.scan(rules.database, prefix: []) { key, value in
            let (text, hint) = try InstanceRules.decode(value)
            list.append(InstanceRuleRecord(id: RuleID(String(decoding: key, as: UTF8.self)), text: text, hint: hint))
            return true
        }
        return list
    }

    /// Every announcement not removed, oldest first.
    func announcementList(_ txn: Transaction) throws -> [AnnouncementRecord] {
        var list: [AnnouncementRecord] = []
        try txn.scan(announcements.database, prefix: []) { _, value in
            list.append(try Announcements.decode(value))
            return true
        }
        return list
    }

    /// The reactions to `id`, one per emoji, in the order each was first given; each emoji's
    /// users in the order they reacted.
    func reactions(to id: AnnouncementID, _ txn: Transaction) throws -> [AnnouncementReactionRecord] {
        var byName: [String: [(sequence: UInt64, user: UserID)]] = [:]
        let prefix = AnnouncementMarks.prefix("r", id)
        try txn.scan(marks.database, prefix: prefix) { key, value in
            let rest = key[prefix.count...].split(separator: 0, omittingEmptySubsequences: false)
            guard rest.count == 2 else { return true }
            let name = String(decoding: rest[0], as: UTF8.self), user = UserID(String(decoding: rest[1], as: UTF8.self))
            byName[name, default: []].append((try AnnouncementMarks.decode(value), user))
            return true
        }
        return byName.map { name, users in
            (
                first: users.map(\.sequence).min() ?? 0,
                record: AnnouncementReactionRecord(
                    name: name, users: users.sorted { $0.sequence < $1.sequence }.map(\.user))
            )
        }.sorted { $0.first < $1.first }.map(\.record)
    }

    /// Whether `user` dismissed `id`.
    func dismissed(_ id: AnnouncementID, by user: UserID, _ txn: Transaction) throws -> Bool {
        try marks.contains(["d", id.rawValue, user.rawValue], txn)
    }
}

/// An instance text's field name → the text and when it was set (ms).
enum InstanceTexts: TableLayout {
    static func key(_ field: String) -> [UInt8] { Array(field.utf8) }
    static func encode(_ value: (text: String, updatedAt: Int64)) -> [UInt8] {
        var w = ByteWriter()
        w.string(value.text)
        w.int64(value.updatedAt)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> (text: String, updatedAt: Int64) {
        var r = ByteReader(bytes)
        return (try r.string(), try r.int64())
    }
}

/// The day (`YYYY-MM-DD`, UTC) a version of the terms of service took effect → its text.
enum TermsVersions: TableLayout {
    static func key(_ day: String) -> [UInt8] { Array(day.utf8) }
    static func encode(_ text: String) -> [UInt8] { Array(text.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The UTC day holding `ms` (ms since 1970), as `YYYY-MM-DD`.
    static func day(ms: Int64) -> String { String(JSONOutput.timestamp(ms).prefix(10)) }
}

/// A rule's id (time-ordered, so key order is the order rules were added) → its text and hint.
enum InstanceRules: TableLayout {
    static func key(_ id: RuleID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ value: (text: String, hint: String)) -> [UInt8] {
        var w = ByteWriter()
        w.string(value.text)
        w.string(value.hint)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> (text: String, hint: String) {
        var r = ByteReader(bytes)
        return (try r.string(), try r.string())
    }
}

/// An announcement's id → the announcement.
enum Announcements: TableLayout {
    static func key(_ id: AnnouncementID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ a: AnnouncementRecord) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(a.id.rawValue)
        w.string(a.text)
        w.u8((a.startsAt == nil ? 0 : 1) | (a.endsAt == nil ? 0 : 2) | (a.allDay ? 4 : 0))
        if let startsAt = a.startsAt { w.int64(startsAt) }
        if let endsAt = a.endsAt { w.int64(endsAt) }
        w.int64(a.publishedAt)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> AnnouncementRecord {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown announcement record version") }
        let id = AnnouncementID(try r.string()), text = try r.string(), flags = try r.u8()
        let starts = flags & 1 != 0 ? try r.int64() : nil
        let ends = flags & 2 != 0 ? try r.int64() : nil
        return AnnouncementRecord(
            id: id, text: text, startsAt: starts, endsAt: ends, allDay: flags & 4 != 0, publishedAt: try r.int64())
    }
}

/// A user's mark on an announcement, its parts joined by 0 bytes → the log sequence that made it.
enum AnnouncementMarks: TableLayout {
    static func key(_ parts: [String]) -> [UInt8] { Array(parts.joined(separator: "\u{0}").utf8) }
    static func encode(_ sequence: UInt64) -> [UInt8] { BigEndian.bytes(sequence) }
    static func decode(_ bytes: [UInt8]) throws -> UInt64 {
        guard let sequence = BigEndian.uint64(bytes) else { throw CorruptRecord(message: "bad announcement mark") }
        return sequence
    }
    /// The prefix of one kind of mark (`d`, `r`) on one announcement.
    static func prefix(_ kind: String, _ id: AnnouncementID) -> [UInt8] { key([kind, id.rawValue]) + [0] }
}

/// A week's start (seconds, big-endian so weeks sort in time) → what happened in it.
enum WeeklyActivity: TableLayout {
    /// A week's counts.
    struct Value: Equatable {
        var statuses: Int64
        var logins: Int64
        var registrations: Int64
    }
    static func key(_ week: Int64) -> [UInt8] { BigEndian.bytes(UInt64(max(week, 0))) }
    static func encode(_ value: Value) -> [UInt8] {
        var w = ByteWriter()
        w.int64(value.statuses)
        w.int64(value.logins)
        w.int64(value.registrations)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> Value {
        var r = ByteReader(bytes)
        return Value(statuses: try r.int64(), logins: try r.int64(), registrations: try r.int64())
    }
}

/// A hashtag or post hidden from the trends, `kind ‖ 0 ‖ subject` → nothing.
enum HiddenTrends: TableLayout {
    static func key(_ entry: (kind: TrendKind, subject: String)) -> [UInt8] {
        Array(entry.kind.rawValue.utf8) + [0] + Array(entry.subject.utf8)
    }
    static func encode(_: Void) -> [UInt8] { [] }
    static func decode(_: [UInt8]) {}
}

/// A user who signed in during a week, `BE(week) ‖ user` → nothing: each counts once a week.
enum WeeklyLogins: TableLayout {
    static func key(_ entry: (week: Int64, user: UserID)) -> [UInt8] {
        WeeklyActivity.key(entry.week) + Array(entry.user.rawValue.utf8)
    }
    static func encode(_: Void) -> [UInt8] { [] }
    static func decode(_: [UInt8]) {}
}

extension ReadView {
    func instanceText(_ field: InstanceTextField) throws -> String {
        try models.instance.texts.get(field.rawValue, txn)?.text ?? ""
    }
    func instanceRules() throws -> [InstanceRuleRecord] { try models.instance.ruleList(txn) }
    func announcement(_ id: AnnouncementID) throws -> AnnouncementRecord? {
        try models.instance.announcements.get(id, txn)
    }
    func announcementDismissed(_ id: AnnouncementID, by user: UserID) throws -> Bool {
        try models.instance.dismissed(id, by: user, txn)
    }
    func announcementReactions(_ id: AnnouncementID) throws -> [AnnouncementReactionRecord] {
        try models.instance.reactions(to: id, txn)
    }
    func trendHidden(_ kind: TrendKind, _ subject: String) throws -> Bool {
        try models.instance.hiddenTrends.contains((kind, subject), txn)
    }
}
