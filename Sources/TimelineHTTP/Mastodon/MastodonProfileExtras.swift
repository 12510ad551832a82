import JSONModel
import MicroHTTPD
import Timeline

extension Mastodon {
    /// The accounts the bearer follows who follow one account (Mastodon's `FamiliarFollowers`).
    struct FamiliarFollowers: Codable, Sendable {
        /// The account's id.
        var id: String
        /// Those of its followers the bearer follows.
        var accounts: [Account]
    }
}

/// Pinned statuses, muted conversations, private notes, endorsements (featured accounts),
/// removing a follower and familiar followers, as Mastodon answers them (#41).
extension MastodonAPI {
    static let profileExtrasRoutes: [Route] =
        [
            later(
                "POST", "/api/v1/statuses/{id}/pin", scope: "write:accounts",
                doc: .init(
                    "Pins one of the bearer's own posts to their profile (at most 5: a sixth is 422).", returns: .status
                )
            ) { api, request, entities in
                try await api.mastodonPostAction(.pin(post: request.parameters["id"] ?? ""), request, entities)
            },
            later(
                "POST", "/api/v1/statuses/{id}/unpin", scope: "write:accounts",
                doc: .init("Unpins a post.", returns: .status)
            ) { api, request, entities in
                try await api.mastodonPostAction(.unpin(post: request.parameters["id"] ?? ""), request, entities)
            },
            later(
                "POST", "/api/v1/statuses/{id}/mute", scope: "write:mutes",
                doc: .init("Mutes a post's conversation: no notification from it reaches the bearer.", returns: .status)
            ) { api, request, entities in
                try await api.mastodonPostAction(
                    .muteConversation(post: request.parameters["id"] ?? ""), request, entities)
            },
            later(
                "POST", "/api/v1/statuses/{id}/unmute", scope: "write:mutes",
                doc: .init("Unmutes a post's conversation.", returns: .status)
            ) { api, request, entities in
                try await api.mastodonPostAction(
                    .unmuteConversation(post: request.parameters["id"] ?? ""), request, entities)
            },
            later(
                "POST", "/api/v1/accounts/{id}/note", scope: "write:accounts",
                doc: .init(
                    "Sets the bearer's private note on an account (comment; empty clears it).", returns: .relationship,
                    form: ["comment"])
            ) { api, request, entities in
                let comment = try MastodonParams(request.http).string("comment") ?? ""
                return try await api.mastodonAccountAction(
                    .setAccountNote(user: request.parameters["id"] ?? "", note: comment), request, entities)
            },
            later(
                "POST", "/api/v1/accounts/{id}/remove_from_followers", scope: "write:follows",
                doc: .init("Removes an account from the bearer's followers.", returns: .relationship)
            ) { api, request, entities in
                try await api.mastodonAccountAction(
                    .removeFromFollowers(user: request.parameters["id"] ?? ""), request, entities)
            }
        ]
        + endorsementRoutes

    /// Endorsing (4.4 also calls it pinning an account) and the lists of endorsed accounts.
    private static let endorsementRoutes: [Route] =
        ["endorse", "pin"].map { verb in
            later(
                "POST", "/api/v1/accounts/{id}/\(verb)", scope: "write:accounts",
                doc: .init("Features an account the bearer follows on their profile.", returns: .relationship)
            ) { api, request, entities in
                try await api.mastodonAccountAction(.endorse(user: request.parameters["id"] ?? ""), request, entities)
            }
        }
        + ["unendorse", "unpin"].map { verb in
            later(
                "POST", "/api/v1/accounts/{id}/\(verb)", scope: "write:accounts",
                doc: .init("Stops featuring an account.", returns: .relationship)
            ) { api, request, entities in
                try await api.mastodonAccountAction(.unendorse(user: request.parameters["id"] ?? ""), request, entities)
            }
        } + [
            now(
                "GET", "/api/v1/endorsements", scope: "read:accounts",
                doc: .init("The accounts the bearer features, the latest first.", returns: .accounts)
            ) { api, request, entities in
                let me = try request.requireViewer()
                let accounts = try api.service.endorsements(of: me, viewer: me).map(entities.account)
                return Responses.entity(200, accounts)
            },
            now(
                "GET", "/api/v1/accounts/{id}/endorsements", .viewerOptional, scope: "read:accounts",
                doc: .init("The accounts an account features, the latest first.", returns: .accounts)
            ) { api, request, entities in
                let user: UserID = try mastodonID(request.parameters["id"])
                let accounts = try api.service.endorsements(of: user, viewer: request.viewer).map(entities.account)
                return Responses.entity(200, accounts)
            },
            now(
                "GET", "/api/v1/accounts/familiar_followers", scope: "read:follows",
                doc: .init(
                    "For each account of id[], the accounts the bearer follows who follow it.",
                    returns: .familiarFollowers, query: ["id[]"])
            ) { api, request, entities in
                let me = try request.requireViewer()
                var answers: [Mastodon.FamiliarFollowers] = []
                for raw in try lookupIDs(request) {
                    // An id that names no account in sight is left out, as relationships leave it.
                    guard
                        let user = try mastodonFind({ () throws(TimelineError) in
                            let user = try entities.ids.user(raw)
                            _ = try api.service.user(user, viewer: me)
                            return user
                        })
                    else { continue }
                    let accounts = try api.service.familiarFollowers(of: user, viewer: me).map(entities.account)
                    answers.append(
                        Mastodon.FamiliarFollowers(id: try entities.ids.id(.account(user)), accounts: accounts))
                }
                return Responses.entity(200, answers)
            }
        ]
}

extension TimelineAPI {
    /// `GET /api/v1/accounts/:id/statuses?pinned=true`: the account's pinned posts as the bearer
    /// may see them, the latest pinned first (one page: at most 5).
    func mastodonPinnedStatuses(of user: UserID, _ request: APIRequest, _ entities: MastodonEntities)
        throws(TimelineError) -> HTTPResponse
    {
        let posts = try service.pinnedPosts(of: user, viewer: request.viewer)
        guard !posts.isEmpty else { return Responses.entity(200, [Mastodon.Status]()) }
        let author = try service.user(user, viewer: request.viewer)
        return Responses.entity(
            200, try posts.map { post throws(TimelineError) in try entities.status(post, author: author) })
    }
}
