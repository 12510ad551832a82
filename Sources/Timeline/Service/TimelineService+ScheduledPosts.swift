import Foundation
import TimelineDomain

/// A pending scheduled post as its author reads it: the post as it will be, its photos, and when.
public struct ScheduledPost: Sendable, Equatable {
    /// The schedule's id.
    public var id: ScheduledPostID
    /// When it is published (ms since 1970).
    public var publishAt: Int64
    /// The post as scheduled (caption, place, warning, visibility, poll).
    public var draft: PostScheduled
    /// Its photos, in order, as uploaded.
    public var media: [MediaAttachment]
}

/// Scheduled posts: the author's list and each one, and their publication at their time.
extension TimelineService {
    /// `viewer`'s pending scheduled posts, the latest scheduled first (paged by id).
    public func scheduledPosts(of viewer: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError)
        -> Page<ScheduledPost>
    {
        let page = try page.validated()
        return try read { view in
            try view.pageDescending(view.models.scheduledPosts.owned, in: viewer, page) { id, _ in
                try view.scheduledPost(id).map { try view.scheduled($0) }
            }
        }
    }

    /// `viewer`'s pending scheduled post `id` (`not_found` for anyone else's, or one published
    /// or cancelled).
    public func scheduledPost(_ id: ScheduledPostID, viewer: UserID) throws(TimelineError) -> ScheduledPost {
        try read { view in
            guard let record = try view.scheduledPost(id), record.author == viewer else {
                throw TimelineError.notFound("scheduledPost", id.rawValue)
            }
            return try view.scheduled(record)
        }
    }

    /// When the soonest pending scheduled post is due (ms since 1970; `nil`: none).
    public func nextScheduledPostDue() throws(TimelineError) -> Int64? {
        try read { try $0.models.scheduledPosts.due.soonest($0.txn) }
    }

    /// The service's time now (ms since 1970), from its clock.
    public func now() -> Int64 { options.clock.nowMilliseconds() }

    /// Publishes every scheduled post due now (`publishScheduledPost`, as the operator), soonest
    /// first; answers the posts published. One another publisher (a second node, a second
    /// attempt) published first is `not_found` and skipped: each is published once. Another
    /// failure is reported in `failures` and the rest go on.
    @discardableResult
    public func publishDueScheduledPosts(failures: (ScheduledPostID, TimelineError) -> Void = { _, _ in })
        async throws(TimelineError) -> [PostID]
    {
        var published: [PostID] = []
        var tried = Set<ScheduledPostID>()
        while true {
            let now = options.clock.nowMilliseconds()
            let due = try read { try $0.models.scheduledPosts.due.due(at: now, limit: 64, $0.txn) }
                .filter { !tried.contains($0) }
            guard !due.isEmpty else { return published }
            for id in due {
                tried.insert(id)
                do {
                    if case .post(let post) = try await execute(
                        .publishScheduledPost(scheduledPost: id.rawValue), as: .operator)
                    {
                        published.append(post.id)
                    }
                } catch  where error.code == .notFound && error.message.contains(id.rawValue) {
                    continue  // published or cancelled meanwhile
                } catch {
                    failures(id, error)
                }
            }
        }
    }
}

extension ReadView {
    /// `record` as its author reads it.
    func scheduled(_ record: ScheduledPostRecord) throws -> ScheduledPost {
        ScheduledPost(
            id: record.id, publishAt: record.publishAt, draft: record.draft,
            media: try record.draft.media.compactMap { try models.posts.media.get($0, txn)?.albumItem.attachment })
    }
}

/// Publishes scheduled posts at their time: a `DueTimeScheduler` of the one job
/// `DueTimeScheduler.Job.scheduledPosts`, which reads the soonest due time from the scheduled
/// posts' projection. It keeps no state of its own: a restart reads the projection again, and
/// publishes at once what came due while it was down. In a cluster every node runs one: the
/// publication command is decided against the replicated log, so one node's succeeds and the
/// others' find the schedule done (`not_found`, nothing appended). (`timeline serve` runs the
/// job in its one scheduler, beside the polls' end pushes.)
public final class ScheduledPostPublisher: Sendable {
    private let scheduler: DueTimeScheduler

    /// A publisher for `service`; `log` is told of failures.
    public init(service: TimelineService, log: @escaping @Sendable (String) -> Void = { _ in }) {
        scheduler = DueTimeScheduler(service: service, jobs: [.scheduledPosts(service, log: log)], log: log)
    }

    /// Starts publishing (what is overdue at once).
    public func start() { scheduler.start() }

    /// Stops publishing and waits for a publication in flight.
    public func stop() async { await scheduler.stop() }
}
