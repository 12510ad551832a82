import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// Accounts as Mastodon's apps manage them: signing up through an app, the bearer's profile
/// (`update_credentials`), who follows whom, blocks, mutes, follow requests, account search,
/// and reports.
extension MastodonAPI {
    static let accountRoutes: [Route] = [
        later(
            "POST", "/api/v1/accounts", .anyone, scope: "write:accounts",
            doc: .init(
                "Signs a person up through an app (its own token).", returns: .token,
                form: ["username", "email", "password", "agreement", "locale", "reason"])
        ) { api, request, _ in try await api.mastodonSignUp(request) },
        later(
            "PATCH", "/api/v1/accounts/update_credentials", scope: "write:accounts",
            doc: .init(
                "Changes the bearer's profile.", returns: .credentialAccount,
                form: ["note", "locked", "discoverable", "display_name"], files: ["avatar", "header"])
        ) { api, request, entities in
            try await api.mastodonUpdateCredentials(request, entities)
        },
        now(
            "GET", "/api/v1/accounts/search", .viewerOptional, scope: "read:accounts",
            doc: .init("Accounts by username prefix.", returns: .accounts, query: ["q", "limit"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let query = (params.string("q") ?? "").trimmingCharacters(in: .whitespaces)
            let prefix = query.hasPrefix("@") ? String(query.dropFirst()) : query
            let limit = min(max(Int(params.string("limit") ?? "") ?? 40, 1), 80)
            guard let name = prefix.split(separator: "@").first.map(String.init), !name.isEmpty else {
                return Responses.entity(200, [Mastodon.Account]())
            }
            let found = try api.service.searchUsers(prefix: name, PageRequest(limit: limit), viewer: request.viewer)
            return Responses.entity(200, try found.items.map(entities.account))
        },
        now(
            "GET", "/api/v1/accounts/{id}/followers", .viewerOptional, scope: "read:accounts",
            doc: .init("Who follows an account.", returns: .accounts, query: ["max_id", "limit"])
        ) { api, request, entities in
            let user: UserID = try mastodonID(request.parameters["id"])
            return try api.mastodonCursorPage(
                request, entities,
                { page throws(TimelineError) in
                    try api.service.followers(of: user, page, viewer: request.viewer)
                }, render: entities.account)
        },
        now(
            "GET", "/api/v1/accounts/{id}/following", .viewerOptional, scope: "read:accounts",
            doc: .init("Whom an account follows.", returns: .accounts, query: ["max_id", "limit"])
        ) { api, request, entities in
            let user: UserID = try mastodonID(request.parameters["id"])
            return try api.mastodonCursorPage(
                request, entities,
                { page throws(TimelineError) in
                    try api.service.following(of: user, page, viewer: request.viewer)
                }, render: entities.account)
        },
        later(
            "POST", "/api/v1/accounts/{id}/block", scope: "write:blocks",
            doc: .init("Blocks an account.", returns: .relationship)
        ) { api, request, entities in
            try await api.mastodonAccountAction(.block(user: request.parameters["id"] ?? ""), request, entities)
        },
        later(
            "POST", "/api/v1/accounts/{id}/unblock", scope: "write:blocks",
            doc: .init("Lifts a block.", returns: .relationship)
        ) { api, request, entities in
            try await api.mastodonAccountAction(.unblock(user: request.parameters["id"] ?? ""), request, entities)
        },
        later(
            "POST", "/api/v1/accounts/{id}/mute", scope: "write:mutes",
            doc: .init(
                "Mutes an account (for `duration` seconds; 0: for ever).", returns: .relationship,
                form: ["duration", "notifications"])
        ) { api, request, entities in
            // `duration` in seconds, 0 (the default) for ever, as Mastodon takes it.
            let seconds = try MastodonParams(request.http).string("duration").map { raw throws(TimelineError) in
                guard let value = Int(raw), value >= 0 else {
                    throw TimelineError.invalid("duration", "duration must be a number of seconds")
                }
                return value
            }
            return try await api.mastodonAccountAction(
                .mute(user: request.parameters["id"] ?? "", duration: seconds.flatMap { $0 == 0 ? nil : $0 }),
                request, entities)
        },
        later(
            "POST", "/api/v1/accounts/{id}/unmute", scope: "write:mutes",
            doc: .init("Lifts a mute.", returns: .relationship)
        ) { api, request, entities in
            try await api.mastodonAccountAction(.unmute(user: request.parameters["id"] ?? ""), request, entities)
        },
        now(
            "GET", "/api/v1/blocks", scope: "read:blocks",
            doc: .init("The accounts the bearer blocks.", returns: .accounts, query: ["max_id", "limit"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            return try api.mastodonCursorPage(
                request, entities, { page throws(TimelineError) in try api.service.blocked(by: me, page) },
                render: entities.account)
        },
        now(
            "GET", "/api/v1/mutes", scope: "read:mutes",
            doc: .init("The accounts the bearer mutes.", returns: .accounts, query: ["max_id", "limit"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            return try api.mastodonCursorPage(
                request, entities, { page throws(TimelineError) in try api.service.muted(by: me, page) },
                render: entities.account)
        },
        now(
            "GET", "/api/v1/follow_requests", scope: "read:follows",
            doc: .init("Who asks to follow the bearer.", returns: .accounts, query: ["max_id", "limit"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            return try api.mastodonCursorPage(
                request, entities, { page throws(TimelineError) in try api.service.followRequests(to: me, page) },
                render: entities.account)
        },
        later(
            "POST", "/api/v1/follow_requests/{id}/authorize", scope: "write:follows",
            doc: .init("Lets an account follow the bearer.", returns: .relationship)
        ) { api, request, entities in
            try await api.mastodonAccountAction(
                .approveFollowRequest(user: request.parameters["id"] ?? ""), request, entities)
        },
        later(
            "POST", "/api/v1/follow_requests/{id}/reject", scope: "write:follows",
            doc: .init("Turns down a request to follow the bearer.", returns: .relationship)
        ) { api, request, entities in
            try await api.mastodonAccountAction(
                .rejectFollowRequest(user: request.parameters["id"] ?? ""), request, entities)
        },
        later(
            "POST", "/api/v1/reports", scope: "write:reports",
            doc: .init(
                "Reports an account to the moderators.", returns: .report,
                form: ["account_id", "status_ids[]", "comment", "category", "forward"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            guard let account = params.string("account_id") else {
                throw TimelineError.invalid("account_id", "account_id is required")
            }
            let user = try entities.ids.user(account)
            let posts = try params.list("status_ids").map { raw throws(TimelineError) in
                try entities.ids.post(raw).rawValue
            }
            let comment =
                params.string("comment").flatMap { $0.isEmpty ? nil : $0 } ?? params.string("category") ?? "other"
            _ = try await api.execute(
                .reportUser(user: user.rawValue, reason: comment, posts: posts), request)
            let target = try api.service.user(user, viewer: request.viewer)
            // A report is not kept as an object of its own here: its id is its time's first number.
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            return Responses.entity(
                200,
                Mastodon.Report(
                    id: NumericID(milliseconds: now, sequence: 0).description, action_taken: false,
                    action_taken_at: Nullable(nil), category: params.string("category") ?? "other", comment: comment,
                    forwarded: false, created_at: JSONOutput.timestamp(now),
                    status_ids: params.list("status_ids"), rule_ids: [],
                    target_account: try entities.account(target)))
        }
    ]
}

extension TimelineAPI {
    /// `POST /api/v1/accounts`: a person signs up through an app holding a token of its own
    /// (`client_credentials`), and gets a token for that app (Mastodon's `Token`).
    func mastodonSignUp(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        guard let grant = request.grant, grant.user == nil, let app = grant.app, let token = request.bearer else {
            throw TimelineError(.forbidden, "This method requires an application token (client_credentials)")
        }
        let params = try MastodonParams(request.http)
        guard try params.bool("agreement") == true else {
            throw TimelineError.invalid("agreement", "Validation failed: Agreement must be accepted")
        }
        guard let username = params.string("username"), let email = params.string("email"),
            let password = params.string("password")
        else {
            throw TimelineError.invalid("username", "Validation failed: username, email and password are required")
        }
        try throttle.admit(request.http.clientAddress)
        _ = try await service.execute(
            .createUser(username: username, email: email, password: password, bio: nil, url: nil),
            origin: request.http.clientAddress)
        let result = try await service.execute(
            .signIn(
                email: email, password: password, app: app.id, appToken: token,
                scopes: grant.scopes?.joined(separator: " ")),
            origin: request.http.clientAddress)
        guard case .session(let issued, _) = result else { throw TimelineError(.internal, "no token") }
        return Responses.entity(
            200,
            Mastodon.Token(
                access_token: issued, token_type: "Bearer", scope: (grant.scopes ?? []).joined(separator: " "),
                created_at: Int(Date().timeIntervalSince1970)))
    }

    /// `PATCH /api/v1/accounts/update_credentials`: changes the profile (`mastodonUpdateProfile`)
    /// and answers the bearer's `CredentialAccount`.
    func mastodonUpdateCredentials(_ request: APIRequest, _ entities: MastodonEntities) async throws(TimelineError)
        -> HTTPResponse
    {
        let me = try await mastodonUpdateProfile(request)
        return Responses.entity(200, try entities.credentialAccount(try service.user(me, viewer: me)))
    }
}
