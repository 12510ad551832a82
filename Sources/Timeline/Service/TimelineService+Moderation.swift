import Foundation
import TimelineDomain

/// A post in the operator's report queue (`timeline moderation list`).
public struct ReportedPost: Equatable, Sendable {
    /// The reported post.
    public var post: PostID
    /// Who reported it, the newest report first (one report per reporter).
    public var reporters: [UserID]
    /// Each reporter's reason, in the order of `reporters`.
    public var reasons: [String]
    /// When the newest report was made (milliseconds since 1970).
    public var newestAt: Int64
    /// Whether the reports hide the post from everyone but its author: `Options.hideAfterReports`
    /// of them count (see `Options.reportMinimumAccountAge`).
    public var hidden: Bool
    /// How many distinct users reported the post.
    public var count: Int { reporters.count }
}

extension TimelineService {
    /// The report queue: every post with standing reports (one per reporter; reports go with a
    /// deleted or removed post or an erased reporter, and stop standing when the operator
    /// dismisses them): the posts its reports hide first, then the most recently reported
    /// first. Operators act on it with
    /// `execute(.removePost(post:reason:), as: .operator)` and
    /// `execute(.dismissReports(post:), as: .operator)`.
    public func reportQueue() throws(TimelineError) -> [ReportedPost] {
        var reports: [(sequence: UInt64, timestamp: Int64, event: PostReported)] = []
        var next: UInt64 = 1
        while true {
            let batch = try events(from: next, limit: 1000)
            guard let last = batch.last else { break }
            for envelope in batch {
                if case .postReported(let e) = envelope.event {
                    reports.append((envelope.sequence, envelope.timestamp, e))
                }
            }
            next = last.sequence + 1
        }
        // Only the reports that still stand in the read model, newest first.
        let standing = try read { view in
            try reports.filter { try view.models.posts.reportStands($0.event.reporterId, $0.event.postId, view.txn) }
        }
        var queue: [ReportedPost] = [], index: [PostID: Int] = [:]
        for report in standing.reversed() {
            let e = report.event
            if let at = index[e.postId] {
                queue[at].reporters.append(e.reporterId)
                queue[at].reasons.append(e.reason)
            } else {
                index[e.postId] = queue.count
                queue.append(
                    ReportedPost(
                        post: e.postId, reporters: [e.reporterId], reasons: [e.reason], newestAt: report.timestamp,
                        hidden: false))
            }
        }
        try read { view in
            for index in queue.indices {
                queue[index].hidden = try view.post(queue[index].post).map { try view.hides($0, from: nil) } ?? false
            }
        }
        // Stable: among the hidden, and among the rest, the newest reported first.
        return queue.filter(\.hidden) + queue.filter { !$0.hidden }
    }
}

/// An account in the moderators' queue: its standing reports.
public struct ReportedAccount: Equatable, Sendable {
    /// The reported account.
    public var user: UserID
    /// Its username.
    public var username: String
    /// Who reported it, the newest report first (one standing report per reporter).
    public var reporters: [UserID]
    /// Each reporter's reason, in the order of `reporters`.
    public var reasons: [String]
    /// The account's posts the reports name (each once, the newest report's first).
    public var posts: [PostID]
    /// When the newest report was made (ms since 1970).
    public var newestAt: Int64
    /// Whether the account is suspended.
    public var suspended: Bool
    /// How many distinct users reported it.
    public var count: Int { reporters.count }
}

/// The moderators' queue: reported posts and reported accounts.
public struct ModerationQueue: Equatable, Sendable {
    /// Posts with standing reports (`reportQueue()`), each with the post as it stands.
    public var posts: [(report: ReportedPost, post: Post?)]
    /// Accounts with standing reports, the most recently reported first.
    public var accounts: [ReportedAccount]

    /// Equal when the same reports and posts are listed the same way.
    public static func == (a: ModerationQueue, b: ModerationQueue) -> Bool {
        a.posts.map(\.report) == b.posts.map(\.report) && a.posts.map(\.post) == b.posts.map(\.post)
            && a.accounts == b.accounts
    }
}

extension TimelineService {
    /// Accounts with standing reports (`reportUser`), the most recently reported first.
    public func accountReportQueue() throws(TimelineError) -> [ReportedAccount] {
        try read { view in
            var byUser: [UserID: ReportedAccount] = [:]
            var reports: [(user: UserID, reporter: UserID, report: UserReportRecord)] = []
            try view.txn.scan(view.models.profiles.userReports.database, prefix: []) { key, value in
                let (user, reporter) = Key.split(key)
                reports.append((UserID(user), UserID(reporter), try UserReports.decode(value)))
                return true
            }
            for entry in reports.sorted(by: { $0.report.at > $1.report.at }) {
                guard let record = try view.user(entry.user) else { continue }
                var account =
                    byUser[entry.user]
                    ?? ReportedAccount(
                        user: entry.user, username: record.username, reporters: [], reasons: [],
                        posts: [], newestAt: entry.report.at, suspended: record.suspended)
                account.reporters.append(entry.reporter)
                account.reasons.append(entry.report.reason)
                for post in entry.report.posts where !account.posts.contains(post) {
                    if try view.post(post) != nil { account.posts.append(post) }
                }
                byUser[entry.user] = account
            }
            return byUser.values.sorted { ($0.newestAt, $0.user) > ($1.newestAt, $1.user) }
        }
    }

    /// The moderators' queue (`GET /v1/admin/reports`), for `moderator`, who must hold the
    /// role (`forbidden` otherwise). Posts are shown whatever hides them (reports, followers
    /// only): a moderator judges them.
    public func moderationQueue(for moderator: UserID) throws(TimelineError) -> ModerationQueue {
        guard try read({ try $0.user(moderator)?.moderator }) == true else {
            throw TimelineError(.forbidden, "only a moderator can read the report queue")
        }
        let posts = try reportQueue()
        let shown = try read { view in
            let present = Presenter(try view.privacy(for: nil))
            return posts.map { report in (report: report, post: try? present.post(report.post)) }
        }
        return ModerationQueue(posts: shown, accounts: try accountReportQueue())
    }
}
