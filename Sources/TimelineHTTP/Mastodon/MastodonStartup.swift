import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// What apps call as they start, each answered from what the server holds: the bearer's
/// preferences, the custom emojis (none: Timeline has no emoji feature), the unread
/// notification count, removing the profile's avatar or header, deleting an unattached upload,
/// the health check, oEmbed for a public post, and OpenID Connect's userinfo.
extension MastodonAPI {
    static let startupRoutes: [Route] = [
        now(
            "GET", "/api/v1/preferences", scope: "read:accounts",
            doc: .init("The bearer's posting and reading preferences.", returns: .preferences)
        ) { api, request, _ in
            let me = try api.service.user(try request.requireViewer(), viewer: request.viewer)
            // A locked account's posts default to followers-only, as its source's `privacy` says.
            return Responses.entity(
                200,
                Mastodon.Preferences(
                    visibility: me.locked ? .private : .public, sensitive: false, language: Nullable(nil),
                    expandMedia: "default", expandSpoilers: false))
        },
        now(
            "GET", "/api/v1/custom_emojis", .anyone,
            doc: .init("The server's custom emojis: none (Timeline has no custom emojis).", returns: .customEmojis)
        ) { _, _, _ in
            Responses.entity(200, [Mastodon.CustomEmoji]())
        },
        now(
            "GET", "/api/v1/notifications/unread_count", scope: "read:notifications",
            doc: .init(
                "How many notifications are newer than the notifications marker (at most `limit`: 100 by default, "
                    + "1000 at most).", returns: .count, query: ["limit", "types[]", "exclude_types[]"])
        ) { api, request, entities in
            try api.mastodonUnreadCount(request, entities)
        },
        later(
            "DELETE", "/api/v1/profile/avatar", scope: "write:accounts",
            doc: .init("Removes the bearer's avatar.", returns: .credentialAccount)
        ) { api, request, entities in
            _ = try await api.execute(
                .updateProfile(username: nil, bio: nil, url: nil, avatar: .remove), request)
            let me = try request.requireViewer()
            return Responses.entity(200, try entities.credentialAccount(try api.service.user(me, viewer: me)))
        },
        later(
            "DELETE", "/api/v1/profile/header", scope: "write:accounts",
            doc: .init("Removes the bearer's profile header.", returns: .credentialAccount)
        ) { api, request, entities in
            _ = try await api.execute(.updateProfile(username: nil, bio: nil, url: nil, header: .remove), request)
            let me = try request.requireViewer()
            return Responses.entity(200, try entities.credentialAccount(try api.service.user(me, viewer: me)))
        },
        later(
            "DELETE", "/api/v1/media/{id}", scope: "write:media",
            doc: .init("Deletes one of the bearer's uploads that no status holds.", returns: .empty)
        ) { api, request, _ in
            // Another's media, or none, is not found; one in a status is 422, as Mastodon answers.
            let id: MediaID = try mastodonID(request.parameters["id"])
            _ = try await api.execute(.deleteMedia(media: id.rawValue), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        now(
            "GET", "/health", .anyone,
            doc: .init("Whether the server answers: `OK`.", returns: .text)
        ) { _, _, _ in
            HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
                body: .bytes(Array("OK".utf8)))
        },
        now(
            "GET", "/api/oembed", .anyone,
            doc: .init(
                "A public post, for embedding (oEmbed), by its URL.", returns: .oembed,
                query: ["url", "maxwidth", "maxheight"])
        ) { api, request, entities in
            try api.mastodonOEmbed(request, entities)
        },
        now(
            "GET", "/oauth/userinfo", scope: "profile",
            doc: .init("The bearer, as OpenID Connect's UserInfo (needs the `profile` scope).", returns: .userInfo)
        ) { api, request, entities in try api.mastodonUserInfo(request, entities) },
        now(
            "POST", "/oauth/userinfo", scope: "profile",
            doc: .init("The bearer, as OpenID Connect's UserInfo (needs the `profile` scope).", returns: .userInfo)
        ) { api, request, entities in try api.mastodonUserInfo(request, entities) }
    ]
}

extension TimelineAPI {
    /// The notifications newer than the bearer's marker (all of them without one), as the
    /// notifications list shows them (`types[]`, `exclude_types[]`; what is out of sight is not
    /// counted), up to `limit`.
    func mastodonUnreadCount(_ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError)
        -> HTTPResponse
    {
        let me = try request.requireViewer()
        let params = try MastodonParams(request.http)
        let limit = try params.limit(default: 100, max: 1000)
        let known = Set(ActivityItem.Kind.allCases.filter { $0.mastodonType != nil })
        let wanted = params.list("types"), excluded = Set(params.list("exclude_types"))
        var kinds = wanted.isEmpty ? known : known.filter { wanted.contains($0.mastodonType ?? "") }
        kinds = kinds.filter { !excluded.contains($0.mastodonType ?? "") }
        let marker = try service.activityMarker(of: me)
        var count = 0, cursor: String?
        // Newest first, down to the marker.
        reading: while !kinds.isEmpty, count < limit {
            let page = try service.activity(of: me, PageRequest(limit: 100, before: cursor), kinds: kinds)
            for item in page.items {
                if let marker, item.id <= marker { break reading }
                if try mastodonNotification(item, viewer: me, entities) != nil { count += 1 }
                if count == limit { break reading }
            }
            guard let next = page.next else { break }
            cursor = next
        }
        return Responses.entity(200, Mastodon.CountResponse(count: count))
    }

    /// `GET /api/oembed?url=`: a post of this server by its URL (its page `/@name/ID`, its
    /// `Note`'s id, `/#/post/ID` or `/v1/posts/ID`), if it is public and anyone may see it;
    /// anything else is 404.
    func mastodonOEmbed(_ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError) -> HTTPResponse {
        let params = try MastodonParams(request.http)
        guard let url = params.string("url") else { throw TimelineError.invalid("url", "url is missing") }
        let notFound = TimelineError(.notFound, "Record not found")
        let base = entities.base
        var id = FederationURLs(origin: base).post(ofNote: url)
        for prefix in ["\(base)/#/post/", "\(base)/v1/posts/"] where url.hasPrefix(prefix) {
            id = PostID.parse(String(url.dropFirst(prefix.count)))
        }
        guard let postID = id else { throw notFound }
        // As someone signed out sees it: a followers-only post, or one of a hidden author, is not found.
        guard
            let detail = try mastodonFind({ () throws(TimelineError) in
                try service.post(postID, viewer: nil, comments: PageRequest(limit: 1))
            }), detail.post.visibility == .public
        else { throw notFound }
        let post = detail.post
        let author = try service.user(post.author, viewer: nil)
        let account = try entities.account(author)
        let link = FederationURLs(origin: base).postPage(post.id, by: post.authorUsername)
        let width = min(max(Int(params.string("maxwidth") ?? "") ?? 400, 100), 400)
        var html = "<blockquote class=\"timeline-embed\" style=\"max-width: \(width)px\">"
        if let photo = post.media.first {
            let source = "\(base)/v1/images/\((photo.variants?.feed ?? photo.image).rawValue)"
            html += "<a href=\"\(link)\"><img src=\"\(source)\" alt=\"\(HTMLText.escape(photo.alt ?? ""))\""
            html += " style=\"max-width: 100%\"></a>"
        }
        html += MastodonEntities.html(post.caption ?? "")
        html += "<p>— <a href=\"\(account.url)\">@\(HTMLText.escape(author.username))</a>, "
        html += "<a href=\"\(link)\">\(JSONOutput.timestamp(post.createdAt).prefix(10))</a></p></blockquote>"
        return Responses.entity(
            200,
            Mastodon.OEmbed(
                type: "rich", version: "1.0", title: "New post by \(author.username)", author_name: author.username,
                author_url: account.url, provider_name: String(base.split(separator: "/").last ?? ""),
                provider_url: "\(base)/", cache_age: 86_400, html: html, width: width, height: Nullable(nil)))
    }

    /// The bearer as OpenID Connect's UserInfo, as Mastodon 4.4 answers it: only for a token
    /// that holds `profile` itself (`read` does not stand for it here).
    func mastodonUserInfo(_ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError) -> HTTPResponse {
        if let scopes = request.grant?.scopes, !scopes.contains("profile") {
            throw TimelineError(.forbidden, "This action is outside the authorized scopes")
        }
        let me = try service.user(try request.requireViewer(), viewer: request.viewer)
        let account = try entities.account(me)
        return Responses.entity(
            200,
            Mastodon.UserInfo(
                iss: "\(entities.base)/", sub: account.uri, name: account.display_name,
                preferred_username: me.username, profile: account.url, picture: account.avatar),
            headers: [("Cache-Control", "no-store")])
    }
}
