import LMDB

/// A user's year (Mastodon's annual report, schema 2): what kind of poster they were, their most
/// boosted, liked and commented public posts, month by month what they posted and whom they
/// followed and were followed by, and their hashtags. Computed from the read models when read.
public struct AnnualReport: Sendable, Equatable {
    /// The year (UTC).
    public var year: Int
    /// Whose report.
    public var user: UserID
    /// What kind of poster they were (Mastodon's archetypes).
    public var archetype: AnnualReportArchetype
    /// Their public post of the year boosted most (`nil`: none).
    public var mostBoosted: PostID?
    /// The one liked most, other than `mostBoosted`.
    public var mostLiked: PostID?
    /// The one commented most, other than those two.
    public var mostCommented: PostID?
    /// Twelve months, January first.
    public var months: [AnnualReportMonth]
    /// The hashtags of more than one of their posts, the most used first (at most 40).
    public var hashtags: [AnnualReportHashtag]
    /// Whether they read it (`readAnnualReport`).
    public var read: Bool
}

/// A hashtag of an annual report: how many of the year's posts carry it.
public struct AnnualReportHashtag: Sendable, Equatable {
    /// The hashtag (normalised, without `#`).
    public var name: String
    /// How many posts.
    public var count: Int
}

/// One month of an annual report.
public struct AnnualReportMonth: Sendable, Equatable {
    /// 1–12.
    public var month: Int
    /// Posts, comments and boosts made in it.
    public var statuses: Int
    /// Follows made in it that still stand.
    public var following: Int
    /// Followers gained in it who still follow.
    public var followers: Int
}

/// What kind of poster a year shows (Mastodon's archetypes, by its rules).
public enum AnnualReportArchetype: String, Sendable, Equatable, CaseIterable {
    /// Fewer than `AnnualReportArchetype.averagePerYear` posts, comments and boosts in all.
    case lurker
    /// More than twice as many boosts as posts.
    case booster
    /// Polls on more than a tenth of their posts.
    case pollster
    /// More than twice as many comments on others' posts as posts.
    case replier
    /// Anyone else: mostly their own posts.
    case oracle

    /// Mastodon's yearly average of statuses per active user (2023), under which one lurks.
    public static let averagePerYear = 113

    /// The archetype of a year with these counts (Mastodon's order of rules).
    static func of(posts: Int, replies: Int, boosts: Int, polls: Int) -> Self {
        if posts + replies + boosts < averagePerYear { return .lurker }
        if boosts > posts * 2 { return .booster }
        if Double(polls) > Double(posts) * 0.1 { return .pollster }
        if replies > posts * 2 { return .replier }
        return .oracle
    }
}

/// Where an annual report stands for its user (Mastodon's `state`).
public enum AnnualReportState: String, Sendable, Equatable {
    /// Asked for: it can be read.
    case available
    /// Not asked for yet, and it may be (a year from the account's first to now).
    case eligible
    /// Outside those years.
    case ineligible
}

extension TimelineService {
    /// The state of `user`'s report of `year`.
    public func annualReportState(_ user: UserID, year: Int) throws(TimelineError) -> AnnualReportState {
        let now = UTCCalendar.yearMonth(ms: options.clock.nowMilliseconds()).year
        return try read { view in
            guard let record = try view.user(user) else { throw TimelineError.notFound("user", user.rawValue) }
            if try view.annualReportRead(user, year) != nil { return .available }
            let first = UTCCalendar.yearMonth(ms: record.createdAt).year
            return (first...max(first, now)).contains(year) ? .eligible : .ineligible
        }
    }

    /// `user`'s report of `year`, as it stands now (`nil`: never asked for).
    public func annualReport(_ user: UserID, year: Int) throws(TimelineError) -> AnnualReport? {
        let log = self.log
        return try read { view in
            guard let read = try view.annualReportRead(user, year) else { return nil }
            return try view.annualReport(user, year: year, read: read) { sequence in
                try log.envelope(at: sequence, view.txn)?.timestamp
            }
        }
    }

    /// `user`'s reports asked for and not read yet, the latest year first (Mastodon's list).
    public func unreadAnnualReports(_ user: UserID) throws(TimelineError) -> [AnnualReport] {
        let years = try read { view in
            var years: [Int] = []
            try view.models.profileExtras.annualReports.forEachDescending(in: user, view.txn) { year, read in
                if !read, let year = Int(year) { years.append(year) }
                return true
            }
            return years
        }
        var reports: [AnnualReport] = []
        for year in years { if let report = try annualReport(user, year: year) { reports.append(report) } }
        return reports
    }
}

extension ReadView {
    /// Computes `user`'s report of `year`; `followTime` gives the time of the event at a log sequence.
    fileprivate func annualReport(
        _ user: UserID, year: Int, read: Bool, followTime: (UInt64) throws -> Int64?
    ) throws -> AnnualReport {
        var months = (1...12).map { AnnualReportMonth(month: $0, statuses: 0, following: 0, followers: 0) }
        /// The month index (0–11) of `ms` in the year, `nil` outside it.
        func month(_ ms: Int64) -> Int? {
            let date = UTCCalendar.yearMonth(ms: ms)
            return date.year == year ? date.month - 1 : nil
        }
        func isBefore(_ ms: Int64) -> Bool { UTCCalendar.yearMonth(ms: ms).year < year }
        var posts: [PostRecord] = [], polls = 0, replies = 0, boosts = 0
        var tags: [String: Int] = [:]
        // Newest first, stopping at the first item of an earlier year (ids are time-ordered).
        try models.posts.postsByUser.forEachDescending(in: user, txn) { id, _ in
            guard let post = try self.post(id) else { return true }
            if isBefore(post.createdAt) { return false }
            guard let index = month(post.createdAt) else { return true }
            months[index].statuses += 1
            posts.append(post)
            if try poll(ofPost: id) != nil { polls += 1 }
            for tag in Set(post.hashtags) { tags[tag, default: 0] += 1 }
            return true
        }
        try models.posts.commentsByUser.forEachDescending(in: user, txn) { id, _ in
            guard let comment = try self.comment(id) else { return true }
            if isBefore(comment.createdAt) { return false }
            guard let index = month(comment.createdAt) else { return true }
            months[index].statuses += 1
            if let post = try self.post(comment.post), post.author != user { replies += 1 }
            return true
        }
        try models.boosts.byUser.forEachDescending(in: user, txn) { id, _ in
            guard let boost = try models.boosts.boost(id, txn) else { return true }
            if isBefore(boost.createdAt) { return false }
            guard let index = month(boost.createdAt) else { return true }
            months[index].statuses += 1
            boosts += 1
            return true
        }
        // Follows that still stand, by when they were made (their cursor is the event's sequence).
        for (table, keyPath) in [
            (models.follows.followingInOrder, \AnnualReportMonth.following),
            (models.follows.followersInOrder, \AnnualReportMonth.followers)
        ] {
            try table.forEachDescending(in: user, txn) { cursor, _ in
                guard let sequence = UInt64(cursor, radix: 16), let time = try followTime(sequence) else { return true }
                if isBefore(time) { return false }
                if let index = month(time) { months[index][keyPath: keyPath] += 1 }
                return true
            }
        }
        // Top posts: public ones only, each chosen once (Mastodon's order: boosts, likes, comments).
        let shown = posts.filter { $0.visibility == .public }
        var chosen: Set<PostID> = []
        func top(_ score: (PostRecord) throws -> Int) rethrows -> PostID? {
            let best = try shown.filter { !chosen.contains($0.id) }.max { try score($0) < score($1) }
            if let best { chosen.insert(best.id) }
            return best?.id
        }
        let mostBoosted = try top { try storedPost(Array($0.id.rawValue.utf8))?.fields.boostCount ?? 0 }
        let mostLiked = top(\.likeCount), mostCommented = top(\.commentCount)
        let hashtags = tags.filter { $0.value > 1 }.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(40)
        return AnnualReport(
            year: year, user: user,
            archetype: .of(posts: posts.count, replies: replies, boosts: boosts, polls: polls),
            mostBoosted: mostBoosted, mostLiked: mostLiked, mostCommented: mostCommented, months: months,
            hashtags: hashtags.map { AnnualReportHashtag(name: $0.key, count: $0.value) }, read: read)
    }
}

/// What `GET /v1/me/annual-reports/{year}` answers: a year's state for its user and, once asked
/// for, the report.
public struct AnnualReportAnswer: Sendable, Equatable {
    /// The year (UTC).
    public var year: Int
    /// Where it stands (`available` once asked for).
    public var state: AnnualReportState
    /// The report (`nil` until asked for).
    public var report: AnnualReport?
}

extension TimelineService {
    /// `user`'s report of `year` with its state (`annualReportState`, `annualReport`).
    public func annualReportAnswer(_ user: UserID, year: Int) throws(TimelineError) -> AnnualReportAnswer {
        AnnualReportAnswer(
            year: year, state: try annualReportState(user, year: year), report: try annualReport(user, year: year))
    }
}
