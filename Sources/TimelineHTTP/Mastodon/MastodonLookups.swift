import JSONModel
import MicroHTTPD
import Timeline

extension Mastodon {
    /// Why an account is suggested (Mastodon's `SuggestionSourcesEnum`).
    enum SuggestionSource: String, Codable, Sendable, SchemaEnumeration {
        case featured, most_followed, most_interactions, similar_to_recently_followed, friends_of_friends
    }

    /// An account suggested to follow, with why.
    struct Suggestion: Codable, Sendable {
        var sources: [SuggestionSource]
        var account: Account
    }
}

/// What Mastodon 4.3 answers that apps read several at a time: accounts and statuses by
/// `id[]` (4.3.0), and the accounts suggested to follow (v2, and v1's plain list).
extension MastodonAPI {
    /// How many ids one request may name, as Mastodon's limit.
    static let lookupLimit = 40

    static let lookupRoutes: [Route] = [
        now(
            "GET", "/api/v1/accounts", .viewerOptional, scope: "read:accounts",
            doc: .init(
                "Several accounts by `id[]`: those in sight, in the order asked.", returns: .accounts, query: ["id[]"])
        ) { api, request, entities in
            var accounts: [Mastodon.Account] = []
            for raw in try lookupIDs(request) {
                guard
                    let profile = try mastodonFind({ () throws(TimelineError) in
                        try api.service.user(try entities.ids.user(raw), viewer: request.viewer)
                    })
                else { continue }
                accounts.append(try entities.account(profile))
            }
            return Responses.entity(200, accounts)
        },
        now(
            "GET", "/api/v1/statuses", .viewerOptional, scope: "read:statuses",
            doc: .init(
                "Several statuses by `id[]`: those in sight, in the order asked.", returns: .statuses, query: ["id[]"])
        ) { api, request, entities in
            var statuses: [Mastodon.Status] = []
            for raw in try lookupIDs(request) {
                guard
                    let status = try mastodonFind({ () throws(TimelineError) in
                        try api.mastodonStatus(try entities.ids.object(.status, raw).nativeID, request, entities).entity
                    })
                else { continue }
                statuses.append(status)
            }
            return Responses.entity(200, statuses)
        },
        now(
            "GET", "/api/v1/directory", .viewerOptional, scope: "read:accounts",
            doc: .init(
                "The profile directory: discoverable accounts, recently active (`order=active`) or new first.",
                returns: .accounts, query: ["offset", "limit", "order", "local"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let limit = try params.limit(default: 40, max: 80)
            let offset = try params.offset()
            guard let order = DirectoryOrder(rawValue: params.string("order") ?? "active") else {
                throw TimelineError.invalid("order", "order must be active or new")
            }
            // Every account here is local: `local` changes nothing until federation.
            _ = try params.bool("local")
            let page = PageRequest(limit: limit, before: offset > 0 ? String(offset) : nil)
            return Responses.entity(
                200,
                try api.service.directory(order, page, viewer: request.viewer).items.map {
                    profile throws(TimelineError) in try entities.account(profile)
                })
        },
        now(
            "GET", "/api/v2/suggestions", scope: "read",
            doc: .init(
                "Accounts to follow: followed by the people the bearer follows, the most of them first.",
                returns: .suggestions, query: ["limit"])
        ) { api, request, entities in
            Responses.entity(
                200,
                try api.mastodonSuggestions(request).map { suggestion throws(TimelineError) in
                    Mastodon.Suggestion(
                        sources: [suggestion.followedByCount > 0 ? .friends_of_friends : .most_followed],
                        account: try entities.account(suggestion.user))
                })
        },
        now(
            "GET", "/api/v1/suggestions", scope: "read",
            doc: .init("Accounts to follow (v1: the accounts alone).", returns: .accounts, query: ["limit"])
        ) { api, request, entities in
            Responses.entity(
                200,
                try api.mastodonSuggestions(request).map { suggestion throws(TimelineError) in
                    try entities.account(suggestion.user)
                })
        },
        later(
            "DELETE", "/api/v1/suggestions/{account_id}", scope: "read",
            doc: .init("Never suggests the account to the bearer again.", returns: .empty)
        ) { api, request, _ in
            let account = try MastodonIDs(api.service).user(request.parameters["account_id"])
            _ = try await api.execute(.dismissSuggestion(user: account.rawValue), request)
            return Responses.entity(200, Mastodon.Empty())
        }
    ]

    /// The `id[]` of a lookup: at most `lookupLimit` (422 beyond, as Mastodon).
    static func lookupIDs(_ request: APIRequest) throws(TimelineError) -> [String] {
        let ids = try MastodonParams(request.http).list("id")
        guard ids.count <= lookupLimit else {
            throw TimelineError.invalid("id", "at most \(lookupLimit) ids may be asked at once")
        }
        return ids
    }
}

extension TimelineAPI {
    /// The bearer's suggestions, `limit` of them (40 by default, at most 80).
    func mastodonSuggestions(_ request: APIRequest) throws(TimelineError) -> [Suggestion] {
        let limit = try MastodonParams(request.http).limit(default: 40, max: 80)
        return try service.suggestions(for: try request.requireViewer(), PageRequest(limit: limit)).items
    }
}
