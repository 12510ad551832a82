import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// Notifications (`GET /api/v1/notifications`, `/:id`): the bearer's activity, in Mastodon's
/// types only, as Pixelfed maps them — a comment on one's post, a reply and an `@mention` are
/// `mention` (with the comment, or the post, as its status), a like is `favourite`, a post of
/// an account one asked to be notified of (`follow` with `notify`) is `status`, and `follow`
/// and `follow_request` are themselves; a removal by the moderators has no Mastodon
/// type and is left out. `types[]` and `exclude_types[]` filter; pages as statuses do.
extension MastodonAPI {
    static let notificationRoutes: [Route] = [
        later(
            "POST", "/api/v1/notifications/clear", scope: "write:notifications",
            doc: .init("Dismisses every notification.", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.dismissActivity(item: nil), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        later(
            "POST", "/api/v1/notifications/{id}/dismiss", scope: "write:notifications",
            doc: .init("Dismisses one notification.", returns: .empty)
        ) { api, request, _ in
            guard let id = request.parameters["id"], IdentifierSyntax.isValid(id) else {
                throw TimelineError(.notFound, "Record not found")
            }
            _ = try await api.execute(.dismissActivity(item: id), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        // Markers: the notifications one is the activity's read marker; a home timeline
        // position is not kept here, so `home` is never answered (clients then start at the top).
        now(
            "GET", "/api/v1/markers", scope: "read:statuses",
            doc: .init("The bearer's read markers (notifications only).", returns: .markers, query: ["timeline[]"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            let wanted = try MastodonParams(request.http).list("timeline")
            guard wanted.isEmpty || wanted.contains("notifications"),
                let marker = try api.service.activityMarker(of: me)
            else {
                return Responses.entity(200, Mastodon.Markers())
            }
            return Responses.entity(200, try Mastodon.Markers.notifications(at: marker, ids: entities.ids))
        },
        later(
            "POST", "/api/v1/markers", scope: "write:statuses",
            doc: .init(
                "Moves the notifications marker.", returns: .markers,
                form: ["notifications[last_read_id]", "home[last_read_id]"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            guard
                let read = try entities.ids.cursor(
                    params.string("notifications[last_read_id]"), in: .notification, name: "notifications[last_read_id]"
                )
            else {
                return Responses.entity(200, Mastodon.Markers())
            }
            _ = try await api.execute(.markActivityRead(upTo: read), request)
            guard let marker = try api.service.activityMarker(of: try request.requireViewer()) else {
                return Responses.entity(200, Mastodon.Markers())
            }
            return Responses.entity(200, try Mastodon.Markers.notifications(at: marker, ids: entities.ids))
        },
        now(
            "GET", "/api/v1/notifications", scope: "read:notifications",
            doc: .init(
                "The bearer's notifications, newest first.", returns: .notifications,
                query: ["types[]", "exclude_types[]", "account_id"], paged: true)
        ) { api, request, entities in
            try api.mastodonNotifications(request, entities)
        },
        now(
            "GET", "/api/v1/notifications/{id}", scope: "read:notifications",
            doc: .init("One notification.", returns: .notification)
        ) { api, request, entities in
            let me = try request.requireViewer(), id = request.parameters["id"] ?? ""
            // The item itself: the first at or before it (a cursor is exclusive; `~` sorts after every id character).
            guard IdentifierSyntax.isValid(id),
                let item = try api.service.activity(of: me, PageRequest(limit: 1, before: id + "~")).items.first,
                item.id == id, let notification = try api.mastodonNotification(item, viewer: me, entities)
            else { throw TimelineError(.notFound, "Record not found") }
            return Responses.entity(200, notification)
        }
    ]
}

extension Mastodon.Markers {
    /// The notifications marker at the activity item `item`, as of now. A marker set at a
    /// time rather than an item (a number that named none) is answered as that time's first id.
    static func notifications(at item: String, ids: MastodonIDs) throws(TimelineError) -> Mastodon.Markers {
        let now = JSONOutput.timestamp(Int64(Date().timeIntervalSince1970 * 1000))
        let id =
            try mastodonFind { () throws(TimelineError) in try ids.id(.notification(item)) }
            ?? NumericID(milliseconds: PushIDGenerator.timestamp(ofPrefix: item) ?? 0, sequence: 0).description
        return Mastodon.Markers(notifications: Mastodon.Marker(last_read_id: id, version: 1, updated_at: now))
    }
}

extension TimelineAPI {
    func mastodonNotifications(_ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError)
        -> HTTPResponse
    {
        let me = try request.requireViewer()
        let params = try MastodonParams(request.http)
        let known = Set(ActivityItem.Kind.allCases.filter { $0.mastodonType != nil })
        let wanted = params.list("types"), excluded = Set(params.list("exclude_types"))
        var kinds = wanted.isEmpty ? known : known.filter { wanted.contains($0.mastodonType ?? "") }
        kinds = kinds.filter { !excluded.contains($0.mastodonType ?? "") }
        guard !kinds.isEmpty else { return Responses.entity(200, [Mastodon.Notification]()) }
        // One account's (a notification request's screen): those its request holds too, as Mastodon.
        let actor = try params.string("account_id").map { raw throws(TimelineError) in try entities.ids.user(raw) }
        return try mastodonPage(
            request, entities, in: .notification,
            { page throws(TimelineError) in try service.activity(of: me, page, kinds: kinds, from: actor) },
            object: { .notification($0.id) }
        ) { item throws(TimelineError) in try mastodonNotification(item, viewer: me, entities) }
    }

    /// An activity item as a notification, or nil when what it names is gone from the viewer's sight.
    func mastodonNotification(_ item: ActivityItem, viewer: UserID, _ entities: MastodonEntities) throws(TimelineError)
        -> Mastodon.Notification?
    {
        guard let type = item.kind.mastodonType.flatMap(Mastodon.NotificationType.init), let actor = item.actor,
            let account = try mastodonFind({ () throws(TimelineError) in try service.user(actor, viewer: viewer) })
        else { return nil }
        var status: Mastodon.Status?
        var subject = (id: "", text: "", author: viewer)  // what the filters read of the status
        if let id = item.comment,
            let comment = try mastodonFind({ () throws(TimelineError) in try service.comment(id, viewer: viewer) })
        {
            status = try entities.status(comment, author: account)
            subject = (comment.id.rawValue, comment.text, comment.author)
        } else if let id = item.post,
            let detail = try mastodonFind({ () throws(TimelineError) in
                try service.post(id, viewer: viewer, comments: PageRequest(limit: 1))
            }),
            let author = try mastodonFind({ () throws(TimelineError) in
                try service.user(detail.post.author, viewer: viewer)
            })
        {
            status = try entities.status(detail.post, author: author)
            subject = (detail.post.id.rawValue, detail.post.searchableText, detail.post.author)
        }
        if item.post != nil, status == nil { return nil }
        // The collection one was featured in, as one sees it now (gone: no notification).
        var collection: Mastodon.Collection?
        if let id = item.collection {
            guard
                let view = try mastodonFind({ () throws(TimelineError) in try service.collection(id, viewer: viewer) })
            else { return nil }
            collection = try MastodonAPI.collection(view, entities)
        }
        // The viewer's notification filters: hide leaves the notification out, warn and blur mark its status.
        if var shown = status {
            let filters = try service.filterMatching(viewer: viewer, context: .notifications)
            let verdict = filters.verdict(postId: subject.id, text: subject.text)
            if subject.author != viewer, !filters.isEmpty {
                guard !verdict.hidden else { return nil }
                shown.filtered = try entities.filterResults(verdict.shown)
                status = shown
            }
        }
        return Mastodon.Notification(
            id: try entities.ids.id(.notification(item.id)), type: type, created_at: JSONOutput.timestamp(item.at),
            account: try entities.account(account), status: Nullable(status),
            group_key: try GroupedNotificationReader.key(
                item, type: type, grouped: ["favourite", "follow", "reblog"], ids: entities.ids),
            collection: collection)
    }
}
