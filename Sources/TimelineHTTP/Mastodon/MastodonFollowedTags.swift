import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// Followed hashtags and the public streams (#41), as Mastodon has them: `GET /api/v1/tags/:name`
/// (a `Tag` with the bearer's `following` and `featuring`), `POST …/follow`, `…/unfollow`,
/// `…/feature`, `…/unfeature` (a tag's id is its name here: hashtags have no other id),
/// `GET /api/v1/followed_tags` (the latest followed first, paged by `max_id` with a `Link`), and
/// the public and hashtag streams over Server-Sent Events (`/api/v1/streaming/public`,
/// `/public/local`, `/hashtag?tag=`, `/hashtag/local?tag=`; over the WebSocket too, as
/// `public`, `public:local`, `hashtag`, `hashtag:local`). Since Mastodon 4.2 these streams need
/// a user's token (no public or app token), as here; they carry only what anyone may see.
extension MastodonAPI {
    /// What the public streams carry: statuses.
    private static let readingStatuses = RouteScope.oauth(["read:statuses"])

    static let followedTagRoutes: [Route] = [
        now(
            "GET", "/api/v1/tags/{name}", .viewerOptional, scope: "read:statuses",
            doc: .init(
                "A hashtag, with its last seven days and whether the bearer follows and features it.", returns: .tag)
        ) { api, request, entities in
            Responses.entity(200, try api.mastodonTag(try tagName(request), viewer: request.viewer, entities))
        },
        changingTag(
            "follow", scope: "write:follows", { .followTag(tag: $0) },
            doc: "Follows a hashtag: its public posts come into the home timeline."),
        changingTag(
            "unfollow", scope: "write:follows", { .unfollowTag(tag: $0) },
            doc: "Stops following a hashtag (nothing when not followed)."),
        changingTag(
            "feature", scope: "write:accounts", { .featureTag(tag: $0) },
            doc: "Features a hashtag on the bearer's profile; at most 10."),
        changingTag(
            "unfeature", scope: "write:accounts", { .unfeatureTag(tag: $0) },
            doc: "Stops featuring a hashtag (nothing when not featured)."),
        now(
            "GET", "/api/v1/followed_tags", scope: "read:follows",
            doc: .init(
                "The hashtags the bearer follows, the latest followed first.", returns: .tags,
                query: ["max_id", "limit"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            return try api.mastodonCursorPage(
                request, entities, limits: (100, 200),
                { page throws(TimelineError) in try api.service.followedTags(of: me, page) },
                render: { tag throws(TimelineError) in try api.mastodonTag(tag, viewer: me, entities) })
        },
        now(
            "GET", "/api/v1/streaming/public", .tokenInQuery, scope: readingStatuses,
            doc: .init("Every public post as Server-Sent Events.", returns: .stream, query: ["access_token"])
        ) { api, request, entities in
            try api.mastodonPublicEventStream(request, entities, stream: .public)
        },
        now(
            "GET", "/api/v1/streaming/public/local", .tokenInQuery, scope: readingStatuses,
            doc: .init(
                "Every public post of this server as Server-Sent Events.", returns: .stream, query: ["access_token"])
        ) { api, request, entities in
            try api.mastodonPublicEventStream(request, entities, stream: .publicLocal)
        },
        now(
            "GET", "/api/v1/streaming/public/remote", .tokenInQuery, scope: readingStatuses,
            doc: .init(
                "Every public post of other servers that came in here, as Server-Sent Events.", returns: .stream,
                query: ["access_token"])
        ) { api, request, entities in
            try api.mastodonPublicEventStream(request, entities, stream: .publicRemote)
        },
        now(
            "GET", "/api/v1/streaming/hashtag", .tokenInQuery, scope: readingStatuses,
            doc: .init(
                "A hashtag's public posts as Server-Sent Events.", returns: .stream, query: ["tag", "access_token"])
        ) { api, request, entities in
            try api.mastodonPublicEventStream(request, entities, stream: .hashtag)
        },
        now(
            "GET", "/api/v1/streaming/hashtag/local", .tokenInQuery, scope: readingStatuses,
            doc: .init(
                "A hashtag's public posts of this server as Server-Sent Events.", returns: .stream,
                query: ["tag", "access_token"])
        ) { api, request, entities in
            try api.mastodonPublicEventStream(request, entities, stream: .hashtagLocal)
        }
    ]

    /// `POST /api/v1/tags/{name}/<action>`: runs `command` on the named hashtag (one of the
    /// bearer's kept hashtags, `HashtagSet`), answering the tag as it stands then.
    private static func changingTag(
        _ action: String, scope: RouteScope, _ command: @escaping @Sendable (String) -> Command, doc: String
    ) -> Route {
        later("POST", "/api/v1/tags/{name}/" + action, scope: scope, doc: .init(doc, returns: .tag)) {
            api, request, entities in
            let tag = try tagName(request)
            _ = try await api.execute(command(tag), request)
            return Responses.entity(200, try api.mastodonTag(tag, viewer: request.viewer, entities))
        }
    }

    /// The hashtag a route names (`{name}`, with or without `#`): 404 for what is not one, as
    /// Mastodon answers a tag it cannot find.
    private static func tagName(_ request: APIRequest) throws(TimelineError) -> String {
        let raw = request.parameters["name"] ?? ""
        guard let tag = try? Validation.singleHashtag(raw) else { throw TimelineError.notFound("tag", raw) }
        return tag
    }
}

extension TimelineAPI {
    /// The hashtag `tag` as Mastodon's `Tag`: its uses of the last seven days, and, for a bearer,
    /// whether they follow and feature it (`following` false without one; `featuring` only with one).
    func mastodonTag(_ tag: String, viewer: UserID?, _ entities: MastodonEntities) throws(TimelineError)
        -> Mastodon.Tag
    {
        var answer = entities.tag(tag, history: try service.tagHistory(tag))
        if let viewer {
            answer.following = try service.followsTag(viewer, tag)
            answer.featuring = try service.featuresTag(viewer, tag)
        }
        return answer
    }

    /// The name a public stream has in a WebSocket's events (`["public"]`, `["hashtag", tag]`);
    /// a hashtag stream needs its tag (400, as Mastodon's "No tag for stream provided").
    func publicStreamName(_ stream: MastodonStream, tag: String?) throws(TimelineError) -> [String] {
        guard stream.isHashtag else { return [stream.rawValue] }
        guard let raw = tag, !raw.isEmpty else { throw TimelineError.invalid("tag", "No tag for stream provided") }
        return [stream.rawValue, Validation.hashtag(raw.hasPrefix("#") ? String(raw.dropFirst()) : raw)]
    }

    /// Server-Sent Events of a public or hashtag stream (`tag=` for a hashtag's): `update`,
    /// `status.update`, `delete`, for the bearer (their blocks, mutes and `public` filters).
    func mastodonPublicEventStream(_ request: APIRequest, _ entities: MastodonEntities, stream: MastodonStream)
        throws(TimelineError) -> HTTPResponse
    {
        let owner = try streamingOwner(request)
        let name = try publicStreamName(stream, tag: try MastodonParams(request.http).string("tag"))
        let format = LiveFormat(
            greeting: Array(":)\n\n".utf8), heartbeat: Array(":thump\n\n".utf8), readsHome: false,
            extra: mastodonPublicEncoder(
                entities, viewer: owner.user, stream: stream, tag: name.count > 1 ? name[1] : nil
            ) {
                event, payload in Array("event: \(event)\ndata: \(payload)\n\n".utf8)
            }
        ) { _, _ in nil }
        let events = try live.open(for: owner.user, session: owner.session, after: nil, format: format)
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                ("X-Accel-Buffering", "no")
            ], body: .stream(events))
    }

    /// What an event is on the public stream `stream` (one hashtag's, with `tag`) for `viewer`
    /// (`TimelineService.publicLiveUpdates`; this server's posts alone, or the others', as the
    /// stream says), written by `frame(event, payload)`.
    func mastodonPublicEncoder(
        _ entities: MastodonEntities, viewer: UserID, stream: MastodonStream, tag: String?,
        frame: @escaping @Sendable (String, String) -> [UInt8]
    ) -> @Sendable (UInt64, EventEnvelope) -> [UInt8]? {
        let entities = entities.reading(as: viewer)
        return { [self] _, event in
            guard let updates = try? service.publicLiveUpdates(for: event, viewer: viewer, tag: tag) else { return nil }
            var bytes: [UInt8] = []
            for update in updates {
                switch update {
                case .post(let post), .edited(let post):
                    if let local = stream.local, post.authorUsername.contains("@") == local { continue }
                    // One that fails to render (its author out of sight) is left out, as an unseen one is.
                    guard let author = try? service.user(post.author, viewer: viewer),
                        let status = try? entities.status(post, author: author),
                        let text = try? JSONValueEncoder.bytes(status)
                    else { continue }
                    let name = if case .edited = update { "status.update" } else { "update" }
                    bytes += frame(name, String(decoding: text, as: UTF8.self))
                case .removed(let post):
                    guard let id = try? entities.ids.id(.post(post)) else { continue }
                    bytes += frame("delete", id)
                case .activity, .conversation, .unboosted: continue
                }
            }
            return bytes.isEmpty ? nil : bytes
        }
    }
}
