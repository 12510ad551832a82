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

    /// A hashtag featured on a profile (Mastodon's `FeaturedTag`).
    struct FeaturedTag: Codable, Sendable {
        /// Its numeric id.
        var id: String
        /// The hashtag, without `#`.
        var name: String
        /// The hashtag's page.
        var url: String
        /// How many of the owner's posts (that the reader may see) carry it, as text.
        var statuses_count: String
        /// The day of the newest of them (`YYYY-MM-DD`), or null.
        var last_status_at: Nullable<String>
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
        + endorsementRoutes + featuredTagRoutes

    /// Featured hashtags: the bearer's (listed, added by name, removed by id, suggested) and an
    /// account's.
    private static let featuredTagRoutes: [Route] = [
        now(
            "GET", "/api/v1/featured_tags", scope: "read:accounts",
            doc: .init("The hashtags the bearer features, in the order featured.", returns: .featuredTags)
        ) { api, request, entities in
            let me = try request.requireViewer()
            return Responses.entity(200, try api.mastodonFeaturedTags(of: me, viewer: me, entities))
        },
        later(
            "POST", "/api/v1/featured_tags", scope: "write:accounts",
            doc: .init(
                "Features a hashtag (name) on the bearer's profile; at most 10.", returns: .featuredTag, form: ["name"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            let tag = try Validation.singleHashtag(try MastodonParams(request.http).string("name") ?? "")
            _ = try await api.execute(.featureTag(tag: tag), request)
            guard
                let featured = try api.mastodonFeaturedTags(of: me, viewer: me, entities).first(where: {
                    $0.name == tag
                })
            else { throw TimelineError(.internal, "the featured tag is not listed") }
            return Responses.entity(200, featured)
        },
        later(
            "DELETE", "/api/v1/featured_tags/{id}", scope: "write:accounts",
            doc: .init("Stops featuring a hashtag of the bearer's.", returns: .empty)
        ) { api, request, _ in
            let me = try request.requireViewer()
            // `user#tag`: another's featured tag is as unknown as one that never was.
            let native = request.parameters["id"] ?? ""
            guard let mark = native.firstIndex(of: "#"), native[..<mark] == me.rawValue[...] else {
                throw TimelineError.notFound("featured tag", native)
            }
            _ = try await api.execute(.unfeatureTag(tag: String(native[native.index(after: mark)...])), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        now(
            "GET", "/api/v1/featured_tags/suggestions", scope: "read:accounts",
            doc: .init("Hashtags of the bearer's own posts not featured yet, the most used first.", returns: .tags)
        ) { api, request, entities in
            let me = try request.requireViewer()
            let tags = try api.service.featuredTagSuggestions(for: me).map { name in
                Mastodon.Tag(
                    id: name, name: name, url: entities.tagURL(name), history: [], following: false)
            }
            return Responses.entity(200, tags)
        },
        now(
            "GET", "/api/v1/accounts/{id}/featured_tags", .viewerOptional, scope: "read:accounts",
            doc: .init("The hashtags an account features, in the order featured.", returns: .featuredTags)
        ) { api, request, entities in
            let user: UserID = try mastodonID(request.parameters["id"])
            return Responses.entity(200, try api.mastodonFeaturedTags(of: user, viewer: request.viewer, entities))
        }
    ]

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
    /// `user`'s featured hashtags as Mastodon's `FeaturedTag`s, as `viewer` may see them.
    func mastodonFeaturedTags(of user: UserID, viewer: UserID?, _ entities: MastodonEntities) throws(TimelineError)
        -> [Mastodon.FeaturedTag]
    {
        var answers: [Mastodon.FeaturedTag] = []
        for summary in try service.featuredTags(of: user, viewer: viewer) {
            let day = summary.lastPostAt.map { String(JSONOutput.timestamp($0).prefix(10)) }
            answers.append(
                Mastodon.FeaturedTag(
                    id: try entities.ids.id(.featuredTag(user: user, tag: summary.tag)), name: summary.tag,
                    url: entities.tagURL(summary.tag), statuses_count: String(summary.postCount),
                    last_status_at: Nullable(day)))
        }
        return answers
    }

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
