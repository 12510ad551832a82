import Foundation
import MicroHTTPD
import Timeline
import TimelineDomain

// Scheduled statuses, as Mastodon answers them (docs.joinmastodon.org/methods/scheduled_statuses,
// and `scheduled_at` on POST /api/v1/statuses, which then answers a ScheduledStatus): the
// bearer's pending ones (paged by id, a Link to the next page), one, its new time (PUT changes
// `scheduled_at` only) and its cancellation. `scheduled_at` less than 5 minutes ahead is 422
// "Validation failed: Scheduled at The scheduled date must be in the future", as Mastodon says.
// Another's scheduled status is 404.

extension Mastodon {
    /// A scheduled status (`ScheduledStatus`).
    struct ScheduledStatus: Codable, Sendable {
        var id: String
        var scheduled_at: String
        var params: ScheduledStatusParams
        var media_attachments: [MediaAttachment]
    }

    /// What a scheduled status will be posted with (`ScheduledStatus.params`).
    struct ScheduledStatusParams: Codable, Sendable {
        var text: String
        var poll: ScheduledPoll?
        var media_ids: [String]?
        var sensitive: Bool?
        var spoiler_text: String?
        var visibility: String
        var in_reply_to_id: Int?
        var language: String?
        /// Deprecated in Mastodon ("can be ignored"); no app is recorded with a schedule: 0.
        var application_id: Int
        var scheduled_at: String?
        var idempotency: String?
        var with_rate_limit: Bool
    }

    /// The poll a scheduled status will carry.
    struct ScheduledPoll: Codable, Sendable {
        var options: [String]
        var expires_in: Int
        var multiple: Bool
        var hide_totals: Bool
    }
}

extension MastodonAPI {
    static let scheduledStatusRoutes: [Route] = [
        now(
            "GET", "/api/v1/scheduled_statuses", .bearer, scope: "read:statuses",
            doc: .init(
                "The bearer's scheduled statuses, the latest scheduled first.", returns: .scheduledStatuses,
                query: ["max_id", "limit"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            let (limit, bounds) = try api.mastodonPaging(request, defaultLimit: 20, maxLimit: 40)
            let before = try entities.ids.cursor(bounds.maxID, in: .scheduledPost, name: "max_id")
            let page = try api.service.scheduledPosts(of: me, PageRequest(limit: limit, before: before))
            let list = try page.items.map { s throws(TimelineError) in try api.mastodonScheduled(s, me, entities) }
            var headers: [(name: String, value: String)] = []
            if page.next != nil, let last = list.last {
                headers.append(
                    (
                        "Link",
                        "<\(entities.base)/api/v1/scheduled_statuses?limit=\(limit)&max_id=\(last.id)>; rel=\"next\""
                    ))
            }
            return Responses.entity(200, list, headers: headers)
        },
        now(
            "GET", "/api/v1/scheduled_statuses/{id}", .bearer, scope: "read:statuses",
            doc: .init("One of the bearer's scheduled statuses.", returns: .scheduledStatus)
        ) { api, request, entities in
            let me = try request.requireViewer()
            let scheduled = try api.service.scheduledPost(ScheduledPostID(request.parameters["id"] ?? ""), viewer: me)
            return Responses.entity(200, try api.mastodonScheduled(scheduled, me, entities))
        },
        later(
            "PUT", "/api/v1/scheduled_statuses/{id}", .bearer, scope: "write:statuses",
            doc: .init("Moves a scheduled status to another time.", returns: .scheduledStatus, form: ["scheduled_at"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            let id = request.parameters["id"] ?? ""
            let params = try MastodonParams(request.http)
            guard let at = params.string("scheduled_at") else {
                throw TimelineError.invalid("scheduled_at", "Validation failed: Scheduled at can't be blank")
            }
            _ = try await mastodonScheduling { () async throws(TimelineError) in
                try await api.execute(.reschedulePost(scheduledPost: id, scheduledAt: at), request)
            }
            let scheduled = try api.service.scheduledPost(ScheduledPostID(id), viewer: me)
            return Responses.entity(200, try api.mastodonScheduled(scheduled, me, entities))
        },
        later(
            "DELETE", "/api/v1/scheduled_statuses/{id}", .bearer, scope: "write:statuses",
            doc: .init("Cancels a scheduled status.", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.cancelScheduledPost(scheduledPost: request.parameters["id"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        }
    ]

    /// Runs a scheduling command, its `scheduledAt` refusal in Mastodon's words (422 on `scheduled_at`).
    static func mastodonScheduling(_ run: () async throws(TimelineError) -> CommandResult) async throws(TimelineError)
        -> CommandResult
    {
        do { return try await run() } catch {
            guard error.field == "scheduledAt" else { throw error }
            throw TimelineError.invalid("scheduled_at", "Validation failed: Scheduled at \(error.message)")
        }
    }
}

extension TimelineAPI {
    /// `scheduled` as Mastodon's `ScheduledStatus`, for its author `me`.
    func mastodonScheduled(_ scheduled: ScheduledPost, _ me: UserID, _ entities: MastodonEntities)
        throws(TimelineError) -> Mastodon.ScheduledStatus
    {
        let draft = scheduled.draft
        // No visibility given: as the author's lock will say (read now).
        var followers = draft.visibility == .followers
        if draft.visibility == nil { followers = try service.user(me, viewer: me).locked }
        let poll = draft.poll.map {
            Mastodon.ScheduledPoll(
                options: $0.options, expires_in: $0.expiresIn, multiple: $0.multiple, hide_totals: $0.hideTotals)
        }
        let mediaIDs = try draft.media.map { m throws(TimelineError) in try entities.ids.id(.media(m)) }
        return Mastodon.ScheduledStatus(
            id: try entities.ids.id(.scheduledPost(scheduled.id)),
            scheduled_at: JSONOutput.timestamp(scheduled.publishAt),
            params: Mastodon.ScheduledStatusParams(
                text: draft.caption ?? "", poll: poll, media_ids: mediaIDs, sensitive: draft.sensitive,
                spoiler_text: draft.warning ?? "", visibility: followers ? "private" : "public", in_reply_to_id: nil,
                language: nil, application_id: 0, scheduled_at: nil, idempotency: nil, with_rate_limit: false),
            media_attachments: try scheduled.media.map { m throws(TimelineError) in try entities.media(m) })
    }

    /// `POST /api/v1/statuses` with `scheduled_at`: the post scheduled (`schedulePost`), answered
    /// as a `ScheduledStatus`. A scheduled reply is refused (422): a comment is never scheduled.
    func mastodonScheduleStatus(
        _ command: Command, _ request: APIRequest, _ entities: MastodonEntities
    ) async throws(TimelineError) -> HTTPResponse {
        let me = try request.requireViewer()
        let result = try await MastodonAPI.mastodonScheduling { () async throws(TimelineError) in
            try await execute(command, request)
        }
        guard case .created(let id) = result else { throw TimelineError(.internal, "schedulePost made no schedule") }
        let scheduled = try service.scheduledPost(ScheduledPostID(id), viewer: me)
        return Responses.entity(200, try mastodonScheduled(scheduled, me, entities))
    }
}
