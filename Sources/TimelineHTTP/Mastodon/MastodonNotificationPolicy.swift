import Foundation
import JSONModel
import MicroHTTPD
import Timeline

// Notification filtering, as Mastodon 4.3 answers it (docs.joinmastodon.org/methods/
// notifications, "v2 policy" and "requests"): the bearer's policy (`setNotificationPolicy`), and
// the notification requests it holds, one per account, whose id is the account's.

extension Mastodon {
    /// What a notification policy holds now.
    struct NotificationPolicySummary: Codable, Sendable {
        var pending_requests_count: Int
        var pending_notifications_count: Int
    }

    /// The bearer's notification policy (v2: `accept`, `filter` or `drop` per category).
    struct NotificationPolicy: Codable, Sendable {
        var for_not_following: String
        var for_not_followers: String
        var for_new_accounts: String
        var for_private_mentions: String
        var for_limited_accounts: String
        var summary: NotificationPolicySummary
    }

    /// The bearer's notification policy as Mastodon 4.3's v1 has it: whether each category is
    /// held (anything but `accept`).
    struct V1NotificationPolicy: Codable, Sendable {
        var filter_not_following: Bool
        var filter_not_followers: Bool
        var filter_new_accounts: Bool
        var filter_private_mentions: Bool
        var summary: NotificationPolicySummary
    }

    /// The notifications held from one account.
    struct NotificationRequest: Codable, Sendable {
        var id: String
        var created_at: String
        var updated_at: String
        var account: Account
        var notifications_count: String
        var last_status: Nullable<Status>
    }

    /// Whether the notifications of accepted requests are in the list (`GET …/requests/merged`).
    struct NotificationRequestsMerged: Codable, Sendable {
        var merged: Bool
    }
}

extension MastodonAPI {
    /// The policy's parameters, Mastodon's names, in `setNotificationPolicy`'s order.
    static let notificationPolicyFields = [
        "for_not_following", "for_not_followers", "for_new_accounts", "for_private_mentions", "for_limited_accounts"
    ]

    /// Matched before `notificationRoutes` (whose `/api/v1/notifications/{id}` would take `requests`).
    static let notificationPolicyRoutes: [Route] = [
        now(
            "GET", "/api/v2/notifications/policy", scope: "read:notifications",
            doc: .init("The bearer's notification filtering policy.", returns: .notificationPolicy)
        ) { api, request, _ in
            Responses.entity(200, try api.mastodonNotificationPolicy(request))
        },
        later(
            "PATCH", "/api/v2/notifications/policy", scope: "write:notifications",
            doc: .init(
                "Sets the bearer's notification filtering policy (accept, filter or drop per category).",
                returns: .notificationPolicy, form: notificationPolicyFields)
        ) { api, request, _ in
            let params = try MastodonParams(request.http)
            let given = notificationPolicyFields.map { params.string($0) }
            _ = try await api.execute(
                .setNotificationPolicy(
                    forNotFollowing: given[0], forNotFollowers: given[1], forNewAccounts: given[2],
                    forPrivateMentions: given[3], forLimitedAccounts: given[4]), request)
            return Responses.entity(200, try api.mastodonNotificationPolicy(request))
        },
        now(
            "GET", "/api/v1/notifications/policy", scope: "read:notifications",
            doc: .init("The bearer's notification filtering policy (v1: booleans).", returns: .v1NotificationPolicy)
        ) { api, request, _ in
            Responses.entity(200, try api.mastodonNotificationPolicy(request).v1)
        },
        later(
            "PUT", "/api/v1/notifications/policy", scope: "write:notifications",
            doc: .init(
                "Sets the bearer's notification filtering policy (v1: true is filter, false accept).",
                returns: .v1NotificationPolicy,
                form: ["filter_not_following", "filter_not_followers", "filter_new_accounts", "filter_private_mentions"]
            )
        ) { api, request, _ in
            let params = try MastodonParams(request.http)
            func action(_ name: String) throws(TimelineError) -> String? {
                guard let raw = params.string(name) else { return nil }
                switch raw.lowercased() {
                case "true", "1", "on": return "filter"
                case "false", "0", "off": return "accept"
                default: throw TimelineError.invalid(name, "\(name) must be a boolean")
                }
            }
            _ = try await api.execute(
                .setNotificationPolicy(
                    forNotFollowing: try action("filter_not_following"),
                    forNotFollowers: try action("filter_not_followers"),
                    forNewAccounts: try action("filter_new_accounts"),
                    forPrivateMentions: try action("filter_private_mentions")), request)
            return Responses.entity(200, try api.mastodonNotificationPolicy(request).v1)
        },
        now(
            "GET", "/api/v1/notifications/requests/merged", scope: "read:notifications",
            doc: .init(
                "Whether the notifications of accepted requests are in the list (always: accepting merges them at once).",
                returns: .notificationRequestsMerged)
        ) { _, request, _ in
            _ = try request.requireViewer()
            return Responses.entity(200, Mastodon.NotificationRequestsMerged(merged: true))
        },
        later(
            "POST", "/api/v1/notifications/requests/accept", scope: "write:notifications",
            doc: .init("Accepts several notification requests (`id[]`).", returns: .empty, form: ["id[]"])
        ) { api, request, entities in
            try await api.answerNotificationRequests(request, entities, accept: true)
        },
        later(
            "POST", "/api/v1/notifications/requests/dismiss", scope: "write:notifications",
            doc: .init("Dismisses several notification requests (`id[]`).", returns: .empty, form: ["id[]"])
        ) { api, request, entities in
            try await api.answerNotificationRequests(request, entities, accept: false)
        },
        now(
            "GET", "/api/v1/notifications/requests", scope: "read:notifications",
            doc: .init(
                "The bearer's notification requests: the notifications their policy holds, by account.",
                returns: .notificationRequests, paged: true)
        ) { api, request, entities in
            let me = try request.requireViewer()
            return try api.mastodonCursorPage(
                request, entities, { page throws(TimelineError) in try api.service.notificationRequests(of: me, page) }
            ) { held throws(TimelineError) in try api.mastodonNotificationRequest(held, viewer: me, entities) }
        },
        now(
            "GET", "/api/v1/notifications/requests/{id}", scope: "read:notifications",
            doc: .init("One notification request (its id is the account's).", returns: .notificationRequest)
        ) { api, request, entities in
            let me = try request.requireViewer()
            let account: UserID = try mastodonID(request.parameters["id"])
            let held = try api.service.notificationRequest(of: me, from: account)
            guard let entity = try api.mastodonNotificationRequest(held, viewer: me, entities) else {
                throw TimelineError(.notFound, "Record not found")
            }
            return Responses.entity(200, entity)
        },
        later(
            "POST", "/api/v1/notifications/requests/{id}/accept", scope: "write:notifications",
            doc: .init("Lets the account's notifications through, those held and those to come.", returns: .empty)
        ) { api, request, _ in
            let account: UserID = try mastodonID(request.parameters["id"])
            _ = try await api.execute(.acceptNotificationRequest(account: account.rawValue), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        later(
            "POST", "/api/v1/notifications/requests/{id}/dismiss", scope: "write:notifications",
            doc: .init("Discards the notifications held from the account.", returns: .empty)
        ) { api, request, _ in
            let account: UserID = try mastodonID(request.parameters["id"])
            _ = try await api.execute(.dismissNotificationRequest(account: account.rawValue), request)
            return Responses.entity(200, Mastodon.Empty())
        }
    ]
}

extension Mastodon.NotificationPolicy {
    /// The v1 form: a category is filtered unless accepted.
    var v1: Mastodon.V1NotificationPolicy {
        Mastodon.V1NotificationPolicy(
            filter_not_following: for_not_following != "accept", filter_not_followers: for_not_followers != "accept",
            filter_new_accounts: for_new_accounts != "accept",
            filter_private_mentions: for_private_mentions != "accept",
            summary: summary)
    }
}

extension TimelineAPI {
    /// The bearer's policy as Mastodon's v2 entity.
    func mastodonNotificationPolicy(_ request: APIRequest) throws(TimelineError) -> Mastodon.NotificationPolicy {
        let view = try service.notificationPolicy(of: try request.requireViewer())
        let policy = view.policy
        return Mastodon.NotificationPolicy(
            for_not_following: policy.forNotFollowing.rawValue, for_not_followers: policy.forNotFollowers.rawValue,
            for_new_accounts: policy.forNewAccounts.rawValue, for_private_mentions: policy.forPrivateMentions.rawValue,
            for_limited_accounts: policy.forLimitedAccounts.rawValue,
            summary: .init(
                pending_requests_count: min(view.pendingRequests, 100),
                pending_notifications_count: view.pendingNotifications))
    }

    /// A request as Mastodon's entity (its id the account's, as the account entity gives it), or
    /// nil when its account is gone from the viewer's sight.
    func mastodonNotificationRequest(_ held: NotificationRequest, viewer: UserID, _ entities: MastodonEntities)
        throws(TimelineError) -> Mastodon.NotificationRequest?
    {
        guard
            let profile = try mastodonFind({ () throws(TimelineError) in try service.user(held.account, viewer: viewer)
            })
        else { return nil }
        let account = try entities.account(profile)
        // The newest held notification's status (a mention's, a like's post), when it has one.
        let last = try mastodonNotification(held.last, viewer: viewer, entities)
        return Mastodon.NotificationRequest(
            id: account.id, created_at: JSONOutput.timestamp(held.createdAt),
            updated_at: JSONOutput.timestamp(held.updatedAt), account: account,
            notifications_count: String(held.count), last_status: last?.status ?? Nullable(nil))
    }

    /// `POST …/requests/accept` and `…/dismiss`: each `id[]` that names a held request is
    /// answered; the others are passed over, as Mastodon does.
    func answerNotificationRequests(_ request: APIRequest, _ entities: MastodonEntities, accept: Bool)
        async throws(TimelineError) -> HTTPResponse
    {
        _ = try request.requireViewer()
        for raw in try MastodonParams(request.http).list("id") {
            do {
                let account = try entities.ids.user(raw)
                _ = try await execute(
                    accept
                        ? .acceptNotificationRequest(account: account.rawValue)
                        : .dismissNotificationRequest(account: account.rawValue), request)
            } catch  where error.code == .notFound {
                continue
            }
        }
        return Responses.entity(200, Mastodon.Empty())
    }
}
