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
                if case .postReported(let e) = envelope.event { reports.append((envelope.sequence, envelope.timestamp, e)) }
            }
            next = last.sequence + 1
        }
        // Only the reports that still stand in the read model, newest first.
        let standing = try read { view in try reports.filter { try view.models.posts.reportStands($0.event.reporterId, $0.event.postId, view.txn) } }
        var queue: [ReportedPost] = [], index: [PostID: Int] = [:]
        for report in standing.reversed() {
            let e = report.event
            if let at = index[e.postId] {
                queue[at].reporters.append(e.reporterId); queue[at].reasons.append(e.reason)
            } else {
                index[e.postId] = queue.count
                queue.append(ReportedPost(post: e.postId, reporters: [e.reporterId], reasons: [e.reason], newestAt: report.timestamp, hidden: false))
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
