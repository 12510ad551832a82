import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// The Mastodon client API (docs.joinmastodon.org, "Methods"), as Pixelfed and GoToSocial
/// speak it, over the same library: a second route table beside `/v1`'s. Its answers are
/// Mastodon's entities (`MastodonEntities`), its errors `{"error": "…"}` with Mastodon's
/// statuses (`MastodonAPI.failure`), its pages Mastodon's (`max_id`, `since_id`, `min_id`,
/// `limit`, and `Link` with `next` and `prev`).
///
/// This first part answers what an app does once it holds a token: discovery, the bearer's
/// account, accounts, their statuses, the home and hashtag timelines, a status (`routes`), and
/// the writes of `MastodonWrites.swift`. Its bearer tokens are Timeline's sessions; OAuth
/// (`/api/v1/apps`, `/oauth/…`) and scopes come next.
enum MastodonAPI {
    /// The version discovery answers: Mastodon's, which clients read to know what to call.
    static let version = "4.3.0 (compatible; Timeline 1.0)"

    /// The Mastodon API version (`api_versions.mastodon`) of the operations answered: 2, the
    /// number Mastodon 4.3.0, which `version` names, gives its API.
    static let apiVersion = 2

    /// Every route of the Mastodon API, in the order they are matched (a literal segment
    /// before a parameter: `/accounts/search` before `/accounts/{id}`).
    static let table: [Route] =
        oauthRoutes + authorizeRoutes + accountRoutes + statusRoutes + lookupRoutes + streamingRoutes + writeRoutes
        + startupRoutes + notificationPolicyRoutes + notificationRoutes + groupedNotificationRoutes + pushRoutes
        + instanceRoutes + trendRoutes + profileRoutes + annualReportRoutes
        + announcementRoutes + filterRoutes + pollRoutes + profileExtrasRoutes + listRoutes + collectionRoutes
        + conversationRoutes + scheduledStatusRoutes + followedTagRoutes + domainBlockRoutes + routes + [
            // Its own document (not one of its operations), beside /v1/openapi.json.
            Route(
                "GET", "/api/openapi.json", .anyone, scope: .none,
                .now { _, request in
                    let document = try MastodonOpenAPI.served.get()
                    return Revalidation.answer(
                        document.bytes, tag: document.tag, contentType: "application/json", request: request.http)
                }, nil)
        ]

    static let routes: [Route] = [
        now(
            "GET", "/api/v1/instance", .anyone,
            doc: .init("This server (Mastodon's v1 instance).", returns: .instanceV1)
        ) { api, request, _ in try api.mastodonInstance(request, v2: false) },
        now(
            "GET", "/api/v2/instance", .anyone,
            doc: .init("This server (Mastodon's v2 instance).", returns: .instanceV2)
        ) { api, request, _ in try api.mastodonInstance(request, v2: true) },
        now(
            "GET", "/api/v1/accounts/verify_credentials", .bearer, scope: "profile",
            doc: .init("The bearer's own account, with its source.", returns: .credentialAccount)
        ) { api, request, entities in
            let me = try api.service.user(try request.requireViewer(), viewer: request.viewer)
            return Responses.entity(200, try entities.credentialAccount(me))
        },
        now(
            "GET", "/api/v1/accounts/lookup", .viewerOptional, scope: "read:accounts",
            doc: .init("An account by its username.", returns: .account, query: ["acct"])
        ) { api, request, entities in
            guard let acct = request.http.query.first(where: { $0.name == "acct" })?.value else {
                throw TimelineError.invalid("acct", "Missing acct")
            }
            // `name`, `name@this-server`, or another server's `name@host` (a remote account's username).
            let handle = acct.hasPrefix("@") ? String(acct.dropFirst()) : acct
            let ours = "@" + FederationURLs(origin: request.origin).domain
            let name = handle.lowercased().hasSuffix(ours) ? String(handle.dropLast(ours.count)) : handle
            return Responses.entity(
                200, try entities.account(try api.service.user(named: name, viewer: request.viewer)))
        },
        now(
            "GET", "/api/v1/accounts/{id}/statuses", .viewerOptional, scope: "read:statuses",
            doc: .init(
                "An account's posts and boosts, newest first (exclude_reblogs: its posts only; pinned=true: its pinned "
                    + "posts, the latest pinned first).", returns: .statuses,
                query: ["only_media", "exclude_replies", "exclude_reblogs", "pinned"], paged: true)
        ) { api, request, entities in
            let user: UserID = try mastodonID(request.parameters["id"])
            let params = try MastodonParams(request.http)
            if try params.bool("pinned") == true {
                return try api.mastodonPinnedStatuses(of: user, request, entities)
            }
            let excludeReblogs = try params.bool("exclude_reblogs") ?? false
            return try api.mastodonPage(request, entities) { page throws(TimelineError) in
                excludeReblogs
                    ? try api.service.posts(by: user, page, viewer: request.viewer)
                    : try api.service.postsAndBoosts(by: user, page, viewer: request.viewer)
            }
        },
        now(
            "GET", "/api/v1/accounts/{id}", .viewerOptional, scope: "read:accounts",
            doc: .init("An account.", returns: .account)
        ) { api, request, entities in
            Responses.entity(
                200,
                try entities.account(
                    try api.service.user(try mastodonID(request.parameters["id"]), viewer: request.viewer))
            )
        },
        now(
            "GET", "/api/v1/timelines/home", .bearer, scope: "read:statuses",
            doc: .init("The home timeline, newest first.", returns: .statuses, paged: true)
        ) { api, request, entities in
            let user = try request.requireViewer()
            return try api.mastodonPage(request, entities) { page throws(TimelineError) in
                try api.service.timeline(of: user, page)
            }
        },
        now(
            "GET", "/api/v1/timelines/tag/{hashtag}", .viewerOptional, scope: "read:statuses",
            doc: .init("The posts of a hashtag, newest first.", returns: .statuses, paged: true)
        ) { api, request, entities in
            let tag = request.parameters["hashtag"] ?? ""
            return try api.mastodonPage(request, entities) { page throws(TimelineError) in
                try api.service.hashtag(tag, page, viewer: request.viewer)
            }
        },
        now(
            "GET", "/api/v1/statuses/{id}", .viewerOptional, scope: "read:statuses",
            doc: .init("A status: a post, or a comment.", returns: .status)
        ) { api, request, entities in
            Responses.entity(200, try api.mastodonStatus(request.parameters["id"] ?? "", request, entities).entity)
        }
    ]

    /// A route answered at once with the request's entities, for a token holding `scope` (none
    /// needed for discovery).
    static func now(
        _ method: String, _ template: String, _ access: Access = .bearer, scope: RouteScope = .none,
        doc: MastodonDoc,
        _ answer: @escaping @Sendable (TimelineAPI, APIRequest, MastodonEntities) throws -> HTTPResponse
    ) -> Route {
        let space = MastodonIDs.space(ofTemplate: template)
        return Route(
            method, template, access, scope: scope,
            .now { api, request in
                let entities = MastodonEntities(request, api.service)
                return try answer(api, try entities.ids.native(request, space: space), entities)
            }, nil, mastodon: doc)
    }

    /// A route that runs a command, for a token holding `scope`.
    static func later(
        _ method: String, _ template: String, _ access: Access = .bearer, scope: RouteScope = .none,
        doc: MastodonDoc,
        _ answer: @escaping @Sendable (TimelineAPI, APIRequest, MastodonEntities) async throws -> HTTPResponse
    )
        -> Route
    {
        let space = MastodonIDs.space(ofTemplate: template)
        return Route(
            method, template, access, scope: scope,
            .later { api, request in
                let entities = MastodonEntities(request, api.service)
                return try await answer(api, try entities.ids.native(request, space: space), entities)
            }, nil, mastodon: doc)
    }

    /// Whether `path` is the Mastodon API's (its failures are answered its way).
    static func serves(_ path: String) -> Bool { path.hasPrefix("/api/") || path.hasPrefix("/oauth/") }

    /// A failure as Mastodon answers it: `{"error": "…"}`, 401 without a valid token, 403, 404,
    /// 422 for what the request got wrong, 429 past a limit (or `status`, for a refusal that no
    /// code's status says, such as 405).
    static func failure(_ error: TimelineError, status: Int? = nil, headers: [(name: String, value: String)] = [])
        -> HTTPResponse
    {
        let byCode =
            switch error.code {
            // A file that is no image is a validation failure there, as a bad field is.
            case .invalidArgument, .usernameTaken, .emailTaken, .unsupportedMediaType: 422
            default: error.code.http.status
            }
        // "Not found" in Mastodon's words: the library's names the native id, which this API never shows.
        let message = error.code == .notFound ? "Record not found" : error.message
        return Responses.entity(status ?? byCode, Mastodon.Error(error: message), headers: headers)
    }
}

extension Responses {
    /// A Mastodon entity (or a list of them) as the JSON answer, its members sorted as every
    /// answer's are.
    static func entity(_ status: Int, _ value: some Encodable, headers: [(name: String, value: String)] = [])
        -> HTTPResponse
    {
        do {
            return json(status, bytes: try JSONValueEncoder.bytes(value), headers: headers)
        } catch {
            // Only a `JSONValue` encoded outside `JSONValueEncoder` fails: a defect, answered as one.
            return json(500, bytes: JSONWriter.bytes(["error": .string("\(error)")]))
        }
    }
}

/// What `lookup` finds, or nil when it names nothing the viewer can see (`not_found`): the
/// one failure that means "absent". Any other error (a storage failure, `internal`) is thrown,
/// so it is answered as itself (500), never as a missing record (404).
func mastodonFind<Value>(_ lookup: () throws(TimelineError) -> Value) throws(TimelineError) -> Value? {
    do {
        return try lookup()
    } catch  where error.code == .notFound {
        return nil
    }
}

/// A route's `{id}` as one of ours: the route's wrapper (`MastodonAPI.now`, `later`) has put
/// the native id of the number the client sent in its place (`MastodonIDs.native(_:space:)`).
func mastodonID<ID: Identifier>(_ raw: String?) throws(TimelineError) -> ID {
    guard let raw, let id = ID.parse(raw) else { throw TimelineError(.notFound, "Record not found") }
    return id
}

extension APIRequest {
    /// The bearer's user (`unauthenticated` without one).
    func requireViewer() throws(TimelineError) -> UserID {
        guard let viewer else { throw TimelineError(.unauthenticated, "The access token is invalid") }
        return viewer
    }
}

extension TimelineAPI {
    /// `GET /api/v1/instance` and `/api/v2/instance`: what this server is and allows.
    func mastodonInstance(_ request: APIRequest, v2: Bool) throws(TimelineError) -> HTTPResponse {
        let host = String(request.origin.split(separator: "/").last ?? "localhost")
        // The streaming URL is this server's, `wss` behind a TLS proxy.
        let streaming = MastodonEntities.base(of: request).replacingOccurrences(
            of: "http", with: "ws", options: .anchored)
        typealias Configuration = Mastodon.Configuration
        let media = Configuration.MediaAttachments(
            supported_mime_types: MediaType.allCases.map(\.rawValue), image_size_limit: ImageUpload.maxBytes,
            image_matrix_limit: 50_000_000, video_size_limit: 0, video_frame_rate_limit: 0, video_matrix_limit: 0)
        let statuses = Configuration.Statuses(
            max_characters: Validation.maxCaption, max_media_attachments: MediaPolicy.maxPerPost,
            characters_reserved_per_url: 23)
        let configuration = Configuration(
            urls: .init(streaming: streaming), accounts: .init(max_featured_tags: 0, max_pinned_statuses: 0),
            statuses: statuses, media_attachments: media,
            polls: .init(
                max_options: PollLimits.maxOptions, max_characters_per_option: PollLimits.maxCharactersPerOption,
                min_expiration: PollLimits.minExpiration, max_expiration: PollLimits.maxExpiration),
            translation: .init(enabled: false), vapid: .init(public_key: options.vapidPublicKey ?? ""))
        let texts = try mastodonInstanceTexts()
        let description = texts.description ?? "Timeline: a photo-sharing social network."
        let base = MastodonEntities.base(of: request)
        let icon = "\(base)/app/icon.svg"
        // The operator's address (`timeline instance set`, else `--contact-email`), or the mailbox
        // RFC 2142 says every mail domain has.
        let email =
            texts.email ?? options.contactEmail ?? "postmaster@\(host.split(separator: ":").first ?? "localhost")"
        if v2 {
            return Responses.entity(
                200,
                Mastodon.Instance(
                    domain: host, title: texts.title ?? "Timeline", version: MastodonAPI.version,
                    api_versions: .init(mastodon: MastodonAPI.apiVersion), source_url: options.sourceURL ?? "\(base)/",
                    description: description, usage: .init(users: .init(active_month: 0)), thumbnail: .init(url: icon),
                    icon: [.init(src: "\(base)/app/icon-192.png", size: "192x192")], languages: ["en"],
                    configuration: configuration,
                    registrations: .init(enabled: true, approval_required: false, message: Nullable(nil)),
                    contact: .init(email: email, account: Nullable(nil)), rules: texts.rules))
        }
        return Responses.entity(
            200,
            Mastodon.V1Instance(
                uri: host, title: texts.title ?? "Timeline", short_description: description, description: description,
                email: email,
                version: MastodonAPI.version, urls: .init(streaming_api: streaming),
                stats: .init(user_count: 0, status_count: 0, domain_count: 1), thumbnail: icon, languages: ["en"],
                registrations: true, approval_required: false, invites_enabled: false, configuration: configuration,
                contact_account: Nullable(nil), rules: texts.rules))
    }

    /// A page of statuses as Mastodon pages: newest first, `limit` (default 20, at most 40),
    /// `max_id` (older than), `since_id` (newer than, the newest first) and `min_id` (the ones
    /// right after it, answered newest first), with a `Link` header of `next` (older) and
    /// `prev` (newer).
    func mastodonPage(
        _ request: APIRequest, _ entities: MastodonEntities,
        _ read: (PageRequest) throws(TimelineError) -> Page<Post>
    ) throws(TimelineError) -> HTTPResponse {
        try mastodonPage(
            // A boost is numbered as itself (its id is the timeline's cursor), its post beside it.
            request, entities, read, object: { post in post.boost.map { .boost($0.id) } ?? .post(post.id) },
            alsoNumbered: { post in
                [.account(post.author)] + post.media.map { .media(MediaID($0.id)) }
                    + (post.boost.map { [.post(post.id), .account($0.by)] } ?? [])
            },
            render: statuses(request, entities))
    }

    /// Makes a page's posts statuses (a boost's, `Post.boost`, with its booster), each author read once.
    func statuses(_ request: APIRequest, _ entities: MastodonEntities) -> (Post) throws(TimelineError) -> Mastodon
        .Status?
    {
        var authors: [UserID: Profile] = [:]
        return { post throws(TimelineError) -> Mastodon.Status? in
            if authors[post.author] == nil {
                authors[post.author] = try self.service.user(
                    post.author, viewer: request.viewer, countingUnread: false)
            }
            guard let author = authors[post.author] else { return nil }
            if let boost = post.boost {
                if authors[boost.by] == nil {
                    authors[boost.by] = try self.service.user(boost.by, viewer: request.viewer, countingUnread: false)
                }
                guard let booster = authors[boost.by] else { return nil }
                return try entities.status(boostOf: post, booster: booster, author: author)
            }
            return try entities.status(post, author: author)
        }
    }

    /// A page of any list paged by sortable ids, as `mastodonPage(_:_:_:)` pages statuses:
    /// its items are numbered in `space`, `object` names what an item's id numbers (its native
    /// id is the list's cursor), and `render` makes an item's entity, or nil to leave it out.
    /// The ids of the items and of what `alsoNumbered` names of each are read in one snapshot.
    func mastodonPage<Item, Entity: Encodable>(
        _ request: APIRequest, _ entities: MastodonEntities, in space: NumberedObject.Space = .status,
        _ read: (PageRequest) throws(TimelineError) -> Page<Item>, object: (Item) -> NumberedObject,
        alsoNumbered: (Item) -> [NumberedObject] = { _ in [] }, render: (Item) throws(TimelineError) -> Entity?
    ) throws(TimelineError) -> HTTPResponse {
        let (limit, bounds) = try mastodonPaging(request, defaultLimit: 20, maxLimit: 40)
        // The bounds a client sends are numbers; the list is read by its native ids.
        let ids = entities.ids
        let maxID = try ids.cursor(bounds.maxID, in: space, name: "max_id")
        let sinceID = try ids.cursor(bounds.sinceID, in: space, name: "since_id")
        let minID = try ids.cursor(bounds.minID, in: space, name: "min_id")
        let items: [Item]
        if let minID {
            // The ones right after `min_id`, read upwards from it (`PageRequest.after`).
            items = try read(PageRequest(limit: limit, before: maxID, after: minID)).items
        } else if let sinceID {
            // The newest ones, down to `since_id`: the first page, cut where it reaches it.
            items = Array(
                try read(PageRequest(limit: limit, before: maxID)).items.prefix { object($0).nativeID > sinceID })
        } else {
            items = try read(PageRequest(limit: limit, before: maxID)).items
        }
        try ids.prefetch(items.flatMap { [object($0)] + alsoNumbered($0) })
        var entitiesList: [Entity] = []
        for item in items { if let entity = try render(item) { entitiesList.append(entity) } }
        // `prev` names the newest item and `next` the oldest, whether or not they are shown.
        var links: [String] = []
        let path = entities.base + request.http.path
        if let last = items.last {
            links.append("<\(path)?limit=\(limit)&max_id=\(try ids.id(object(last)))>; rel=\"next\"")
        }
        if let first = items.first {
            links.append("<\(path)?limit=\(limit)&min_id=\(try ids.id(object(first)))>; rel=\"prev\"")
        }
        return Responses.entity(
            200, entitiesList, headers: links.isEmpty ? [] : [("Link", links.joined(separator: ", "))])
    }

    /// A page of a list in an order of its own, paged by an opaque cursor, as Mastodon pages
    /// these by ids of its own (follows, blocks, mutes, requests, likers: `limit` 40 by default,
    /// at most 80; bookmarks, in the order they were saved: statuses, 20 and 40): `max_id` is
    /// the cursor, with a `Link` to the `next` page.
    func mastodonCursorPage<Item, Entity: Encodable>(
        _ request: APIRequest, _ entities: MastodonEntities, limits: (default: Int, max: Int) = (40, 80),
        _ read: (PageRequest) throws(TimelineError) -> Page<Item>, render: (Item) throws(TimelineError) -> Entity?
    ) throws(TimelineError) -> HTTPResponse {
        let (limit, bounds) = try mastodonPaging(request, defaultLimit: limits.default, maxLimit: limits.max)
        let page = try read(PageRequest(limit: limit, before: bounds.maxID))
        var list: [Entity] = []
        for item in page.items { if let entity = try render(item) { list.append(entity) } }
        let link = page.next.map { "<\(entities.base + request.http.path)?limit=\(limit)&max_id=\($0)>; rel=\"next\"" }
        return Responses.entity(200, list, headers: link.map { [("Link", $0)] } ?? [])
    }

    /// The paging parameters of a request: `limit` (a positive number, capped), `max_id`,
    /// `since_id`, `min_id`; what else it carries is the route's.
    func mastodonPaging(_ request: APIRequest, defaultLimit: Int, maxLimit: Int) throws(TimelineError)
        -> (limit: Int, bounds: (maxID: String?, sinceID: String?, minID: String?))
    {
        var limit = defaultLimit, maxID: String?, sinceID: String?, minID: String?
        for (name, value) in request.http.query {
            switch name {
            case "limit": limit = try MastodonParams.limit(value, default: defaultLimit, max: maxLimit)
            case "max_id": maxID = value
            case "since_id": sinceID = value
            case "min_id": minID = value
            default: break  // Mastodon ignores what it does not know.
            }
        }
        return (limit, (maxID, sinceID, minID))
    }
}
