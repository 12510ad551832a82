import Foundation
import MicroHTTPD
import Timeline

/// Mastodon's push subscription (`/api/v1/push/subscription`): one per token, its endpoint and
/// keys (`subscription[endpoint]`, `subscription[keys][p256dh]`, `subscription[keys][auth]`,
/// `subscription[standard]`), the alerts wanted (`data[alerts][mention]`, …) and the policy
/// (`data[policy]`, or `policy` as Mastodon's PUT documents it); answered as Mastodon's `WebPushSubscription`, whose `server_key` is this
/// server's VAPID public key.
extension MastodonAPI {
    static let pushRoutes: [Route] = [
        later(
            "POST", "/api/v1/push/subscription", scope: "push",
            doc: .init(
                "Subscribes this token to push notifications (replacing its subscription).", returns: .pushSubscription,
                form: [
                    "subscription[endpoint]", "subscription[keys][p256dh]", "subscription[keys][auth]",
                    "subscription[standard]",
                    "data[policy]"
                ] + PushAlert.all.map { "data[alerts][\($0)]" })
        ) { api, request, _ in
            let params = try MastodonParams(request.http)
            guard let endpoint = params.string("subscription[endpoint]"),
                let p256dh = params.string("subscription[keys][p256dh]"),
                let auth = params.string("subscription[keys][auth]")
            else {
                throw TimelineError.invalid(
                    "subscription", "subscription[endpoint] and subscription[keys] are required")
            }
            let alerts = try PushAlert.all.filter { alert throws(TimelineError) in
                try params.bool("data[alerts][\(alert)]") == true
            }
            _ = try await api.execute(
                .subscribePush(
                    endpoint: endpoint, p256dh: p256dh, auth: auth,
                    standard: try params.bool("subscription[standard]") ?? false, alerts: alerts,
                    policy: params.string("data[policy]") ?? params.string("policy")), request)
            return try api.mastodonPushSubscription(request)
        },
        now(
            "GET", "/api/v1/push/subscription", scope: "push",
            doc: .init("This token's push subscription.", returns: .pushSubscription)
        ) { api, request, _ in
            try api.mastodonPushSubscription(request)
        },
        later(
            "PUT", "/api/v1/push/subscription", scope: "push",
            doc: .init(
                "Changes the alerts and policy of this token's push subscription.", returns: .pushSubscription,
                form: ["data[policy]", "policy"] + PushAlert.all.map { "data[alerts][\($0)]" })
        ) { api, request, _ in
            guard let token = request.bearer, let current = try api.service.pushSubscription(session: token) else {
                throw TimelineError(.notFound, "Record not found")
            }
            let params = try MastodonParams(request.http)
            var alerts = Set(current.alerts)
            for alert in PushAlert.all {
                switch try params.bool("data[alerts][\(alert)]") {
                case true?: alerts.insert(alert)
                case false?: alerts.remove(alert)
                case nil: break
                }
            }
            _ = try await api.execute(
                .subscribePush(
                    endpoint: current.endpoint, p256dh: current.p256dh, auth: current.auth,
                    standard: current.standard, alerts: PushAlert.all.filter(alerts.contains),
                    policy: params.string("data[policy]") ?? params.string("policy") ?? current.policy.rawValue),
                request)
            return try api.mastodonPushSubscription(request)
        },
        later(
            "DELETE", "/api/v1/push/subscription", scope: "push",
            doc: .init("Ends this token's push subscription.", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.unsubscribePush, request)
            return Responses.entity(200, Mastodon.Empty())
        }
    ]
}

extension TimelineAPI {
    /// Mastodon's alerts for its administrators (a sign-up, a report): Timeline pushes neither,
    /// so a subscription's are always false.
    static let adminAlerts = ["admin.sign_up", "admin.report"]

    /// The bearer's subscription as Mastodon's `WebPushSubscription` (404 without one).
    func mastodonPushSubscription(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        guard let token = request.bearer, let subscription = try service.pushSubscription(session: token) else {
            throw TimelineError(.notFound, "Record not found")
        }
        return Responses.entity(
            200,
            Mastodon.WebPushSubscription(
                id: try MastodonIDs(service).id(.pushSubscription(subscription.sessionHash)),
                endpoint: subscription.endpoint,
                standard: subscription.standard,
                alerts: Dictionary(
                    uniqueKeysWithValues: PushAlert.all.map { ($0, subscription.alerts.contains($0)) }
                        + Self.adminAlerts.map { ($0, false) }),
                policy: subscription.policy.rawValue, server_key: options.vapidPublicKey ?? ""))
    }
}
