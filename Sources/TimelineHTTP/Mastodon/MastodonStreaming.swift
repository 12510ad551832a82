import Foundation
import JSONModel
import MicroHTTPD
import OpenSSL
import Synchronization
import Timeline

/// Mastodon's streaming API over the same live streams as `GET /v1/stream`: the user stream
/// (`update` for a post entering the home timeline, `status.update` for one edited there,
/// `notification`, `delete` for one leaving it) and its notifications alone, as Server-Sent Events (`GET /api/v1/streaming/user`,
/// `/user/notification`) or over a WebSocket (`GET /api/v1/streaming`, `MastodonWebSocket`).
/// The token comes as the `Authorization` header or, as browsers' clients must send it, as
/// `access_token` in the query or the `Sec-WebSocket-Protocol` header; it is never logged (the
/// access log names the route, not the URL).
extension MastodonAPI {
    /// What a stream carries: statuses and notifications.
    private static let reading = RouteScope.oauth(["read:statuses", "read:notifications"])

    static let streamingRoutes: [Route] = [
        now("GET", "/api/v1/streaming/health", .anyone, doc: .init("Whether streaming works.", returns: .text)) {
            _, _, _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: .bytes(Array("OK".utf8)))
        },
        now(
            "GET", "/api/v1/streaming/user", .tokenInQuery, scope: reading,
            doc: .init("The user stream as Server-Sent Events.", returns: .stream, query: ["access_token"])
        ) { api, request, entities in
            try api.mastodonEventStream(request, entities, stream: .user)
        },
        now(
            "GET", "/api/v1/streaming/user/notification", .tokenInQuery, scope: reading,
            doc: .init("The user's notifications as Server-Sent Events.", returns: .stream, query: ["access_token"])
        ) { api, request, entities in
            try api.mastodonEventStream(request, entities, stream: .notifications)
        },
        now(
            "GET", "/api/v1/streaming/direct", .tokenInQuery, scope: reading,
            doc: .init(
                "The user's conversations as Server-Sent Events: `conversation` as a direct message comes in.",
                returns: .stream, query: ["access_token"])
        ) { api, request, entities in
            try api.mastodonEventStream(request, entities, stream: .direct)
        },
        now(
            "GET", "/api/v1/streaming/list", .tokenInQuery, scope: reading,
            doc: .init(
                "A list's stream as Server-Sent Events: its members' new posts.", returns: .stream,
                query: ["list", "access_token"])
        ) { api, request, entities in
            try api.mastodonEventStream(
                request, entities, stream: .list, list: try api.streamedList(request, entities))
        },
        now(
            "GET", "/api/v1/streaming", .tokenInQuery, scope: reading,
            doc: .init(
                "The streaming endpoint: a WebSocket (Upgrade), or Server-Sent Events of `stream`.", returns: .stream,
                query: ["stream", "access_token"])
        ) { api, request, entities in
            if request.http.header("Upgrade")?.lowercased() == "websocket" {
                return try api.mastodonWebSocket(request, entities)
            }
            let name = try MastodonParams(request.http).string("stream") ?? "user"
            guard let stream = MastodonStream(rawValue: name) else {
                throw TimelineError(.notFound, "Unknown stream type")
            }
            if stream.isPublic { return try api.mastodonPublicEventStream(request, entities, stream: stream) }
            return try api.mastodonEventStream(
                request, entities, stream: stream, list: stream == .list ? try api.streamedList(request, entities) : nil
            )
        }
    ]
}

/// The streams served: the user's, its notifications alone, and one of the user's lists.
enum MastodonStream: String, Sendable {
    case user
    case notifications = "user:notification"
    /// One list's posts (the list is named beside: `list=`).
    case list
    /// The user's conversations of direct messages: a `conversation` event as a message comes in.
    case direct

    /// Every public post (`MastodonPublicStreams`), this server's and the others' that came in.
    case `public`
    /// Every public post of this server.
    case publicLocal = "public:local"
    /// Every public post of other servers that came in here (#43).
    case publicRemote = "public:remote"
    /// One hashtag's public posts (the tag is named beside: `tag=`).
    case hashtag
    /// One hashtag's public posts of this server.
    case hashtagLocal = "hashtag:local"

    /// Whether it is a public or hashtag stream, fed by the events themselves, not the home's updates.
    var isPublic: Bool { self == .public || self == .publicLocal || self == .publicRemote || isHashtag }
    /// Whose posts a public stream carries: this server's alone (`true`), the others' alone
    /// (`false`), or every one (`nil`).
    var local: Bool? {
        switch self {
        case .publicLocal, .hashtagLocal: true
        case .publicRemote: false
        default: nil
        }
    }
    /// Whether it is a hashtag's stream.
    var isHashtag: Bool { self == .hashtag || self == .hashtagLocal }

    /// Whether `update` belongs on this stream (a list's only its members' posts: the encoder
    /// checks the author; the direct stream only conversations, and only it; a public one's come
    /// from `publicLiveUpdates`).
    func carries(_ update: LiveUpdate) -> Bool {
        if isPublic { return false }
        if case .conversation = update { return self == .direct }
        if self == .direct { return false }
        if case .activity = update { return self != .list }
        return self != .notifications
    }
}

extension TimelineAPI {
    /// The bearer of a streaming request (the route's `tokenInQuery` access and scope have
    /// admitted it).
    func streamingOwner(_ request: APIRequest) throws(TimelineError) -> (user: UserID, session: String) {
        guard let token = request.bearer else { throw TimelineError(.unauthenticated, "Error: Missing access token") }
        return (try request.requireViewer(), token)
    }

    /// The bearer's list a `list` stream names (`list=`, its id): 404 for none, or another's.
    func streamedList(_ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError) -> ListID {
        let id = try entities.ids.list(try MastodonParams(request.http).string("list"))
        _ = try service.list(id, viewer: try request.requireViewer())
        return id
    }

    /// Server-Sent Events of `stream` (of `list`, for a list's): `event: update|notification|delete`,
    /// the entity (or the status id) as `data`.
    func mastodonEventStream(
        _ request: APIRequest, _ entities: MastodonEntities, stream: MastodonStream, list: ListID? = nil
    ) throws(TimelineError) -> HTTPResponse {
        let owner = try streamingOwner(request)
        let format = LiveFormat(
            greeting: Array(":)\n\n".utf8), heartbeat: Array(":thump\n\n".utf8),
            encode: mastodonEncoder(entities, viewer: owner.user, stream: stream, list: list) { event, payload in
                Array("event: \(event)\ndata: \(payload)\n\n".utf8)
            })
        let events = try live.open(for: owner.user, session: owner.session, after: nil, format: format)
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                ("X-Accel-Buffering", "no")
            ], body: .stream(events))
    }

    /// What a live update is on a Mastodon stream (`list`'s, for a list's), written by
    /// `frame(event, payload)`. The user stream leaves out the posts of the members of the
    /// viewer's exclusive lists, as the home timeline does; a list's stream carries its members'
    /// posts only (the home stream's: followed, not muted, not blocked, visible).
    func mastodonEncoder(
        _ entities: MastodonEntities, viewer: UserID, stream: MastodonStream, list: ListID? = nil,
        frame: @escaping @Sendable (String, String) -> [UInt8]
    ) -> @Sendable (UInt64, LiveUpdate) -> [UInt8]? {
        let entities = entities.reading(as: viewer)  // the stream's owner, whom its token names
        return { [self] _, update in
            guard stream.carries(update) else { return nil }
            switch update {
            case .post(let post), .edited(let post):
                // A frame cannot answer an error: one that fails to render (its author out of
                // sight, or a read failing) is left out of the stream, as an unseen one is.
                if stream == .list {
                    guard let list, (try? service.listHolds(list, post.author, viewer: viewer)) == true else {
                        return nil
                    }
                } else if (try? service.leavesHome(post.author, of: viewer)) != false {
                    return nil
                }
                // The owner's home filters were applied (`liveUpdates`): a warned post carries them.
                // A boost's (`post.boost`) is the boost, a status of its own.
                guard let author = try? service.user(post.author, viewer: viewer),
                    let status = try? post.boost.map({ boost throws(TimelineError) in
                        try entities.status(
                            boostOf: post, booster: try service.user(boost.by, viewer: viewer), author: author)
                    }) ?? entities.status(post, author: author)
                else { return nil }
                let event = if case .edited = update { "status.update" } else { "update" }
                guard let text = try? JSONValueEncoder.bytes(status) else { return nil }
                return frame(event, String(decoding: text, as: UTF8.self))
            case .activity(let item):
                guard let notification = try? mastodonNotification(item, viewer: viewer, entities),
                    let text = try? JSONValueEncoder.bytes(notification)
                else { return nil }
                return frame("notification", String(decoding: text, as: UTF8.self))
            case .removed(let post):
                // Deleting a post keeps its number: the id clients hold is the one answered here.
                guard let id = try? entities.ids.id(.post(post)) else { return nil }
                return frame("delete", id)
            case .unboosted(let boost, let author):
                // The reblog's own status id, where its update showed (judged as `post` above).
                if stream == .list {
                    guard let list, (try? service.listHolds(list, author, viewer: viewer)) == true else { return nil }
                } else if (try? service.leavesHome(author, of: viewer)) != false {
                    return nil
                }
                guard let id = try? entities.ids.id(.boost(boost)) else { return nil }
                return frame("delete", id)
            case .conversation(let conversation):
                guard let entity = try? mastodonConversation(conversation, viewer: viewer, entities),
                    let text = try? JSONValueEncoder.bytes(entity)
                else { return nil }
                return frame("conversation", String(decoding: text, as: UTF8.self))
            }
        }
    }
}

extension TimelineAPI {
    /// `GET /api/v1/streaming` upgraded to a WebSocket (RFC 6455): `stream=user` in the query
    /// subscribes at once, and `{"type": "subscribe"|"unsubscribe", "stream": "user"|"user:notification"}`
    /// messages change what is sent. Each event is Mastodon's `{"stream": [name], "event",
    /// "payload"}` with the entity as a JSON string in `payload`, once per subscribed stream
    /// that carries it.
    func mastodonWebSocket(_ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError) -> HTTPResponse {
        guard request.http.header("Sec-WebSocket-Version") == "13", let key = request.http.header("Sec-WebSocket-Key"),
            Data(base64Encoded: key)?.count == 16
        else {
            throw TimelineError.invalid(
                "Sec-WebSocket-Key", "a WebSocket handshake needs Sec-WebSocket-Version 13 and a key")
        }
        let owner = try streamingOwner(request)
        let subscribed = Mutex<Set<MastodonStream>>([])
        // The lists subscribed to, by the id the client gave (each stream's name is `["list", id]`).
        let lists = Mutex<[String: ListID]>([:])
        // The public and hashtag streams subscribed to, by their names (`["hashtag", tag]`).
        let publicStreams = Mutex<Set<[String]>>([])
        if let name = try MastodonParams(request.http).string("stream") {
            guard let stream = MastodonStream(rawValue: name) else {
                throw TimelineError(.notFound, "Unknown stream type")
            }
            if stream.isPublic {
                let name = try publicStreamName(stream, tag: try MastodonParams(request.http).string("tag"))
                publicStreams.withLock { _ = $0.insert(name) }
            } else if stream == .list {
                let id = try streamedList(request, entities)
                let raw = try MastodonParams(request.http).string("list") ?? ""
                lists.withLock { $0[raw] = id }
            } else {
                subscribed.withLock { _ = $0.insert(stream) }
            }
        }
        let encoders = [MastodonStream.user, .notifications, .direct].map { stream in
            (
                stream,
                mastodonEncoder(entities, viewer: owner.user, stream: stream) { event, payload in
                    let message = Mastodon.StreamingEvent(stream: [stream.rawValue], event: event, payload: payload)
                    return WebSocket.textFrame(
                        String(decoding: (try? JSONValueEncoder.bytes(message)) ?? [], as: UTF8.self))
                }
            )
        }
        let viewer = owner.user
        let publicFrames: @Sendable (UInt64, EventEnvelope) -> [UInt8]? = { [self] sequence, event in
            var frames: [UInt8] = []
            for name in publicStreams.withLock({ $0 }).sorted(by: { $0.joined() < $1.joined() }) {
                let encode = mastodonPublicEncoder(
                    entities, viewer: viewer, stream: MastodonStream(rawValue: name[0]) ?? .public,
                    tag: name.count > 1 ? name[1] : nil
                ) {
                    event, payload in
                    let message = Mastodon.StreamingEvent(stream: name, event: event, payload: payload)
                    return WebSocket.textFrame(
                        String(decoding: (try? JSONValueEncoder.bytes(message)) ?? [], as: UTF8.self))
                }
                frames += encode(sequence, event) ?? []
            }
            return frames.isEmpty ? nil : frames
        }
        let format = LiveFormat(greeting: [], heartbeat: WebSocket.pingFrame, extra: publicFrames) {
            [self] sequence, update in
            let streams = subscribed.withLock { $0 }
            var frames = encoders.filter { streams.contains($0.0) }.compactMap { $0.1(sequence, update) }
            for (raw, id) in lists.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
                let encode = mastodonEncoder(entities, viewer: viewer, stream: .list, list: id) { event, payload in
                    let message = Mastodon.StreamingEvent(stream: ["list", raw], event: event, payload: payload)
                    return WebSocket.textFrame(
                        String(decoding: (try? JSONValueEncoder.bytes(message)) ?? [], as: UTF8.self))
                }
                if let frame = encode(sequence, update) { frames.append(frame) }
            }
            return frames.isEmpty ? nil : frames.flatMap { $0 }
        }
        let socket = WebSocket { [self] _, text in
            guard let message = try? JSONDecoder().decode(Mastodon.StreamingCommand.self, from: Data(text.utf8)),
                let type = message.type, let stream = message.stream.flatMap(MastodonStream.init)
            else { return }
            if stream.isPublic {
                // A hashtag stream without its tag subscribes to nothing.
                guard let name = try? publicStreamName(stream, tag: message.tag) else { return }
                publicStreams.withLock {
                    if type == "subscribe" { $0.insert(name) } else if type == "unsubscribe" { $0.remove(name) }
                }
                return
            }
            if stream == .list {
                // Only the bearer's own list: another id subscribes to nothing.
                guard let raw = message.list, let id = try? entities.ids.list(raw),
                    (try? service.list(id, viewer: viewer)) != nil
                else { return }
                lists.withLock {
                    if type == "subscribe" { $0[raw] = id } else if type == "unsubscribe" { $0[raw] = nil }
                }
                return
            }
            subscribed.withLock {
                if type == "subscribe" { $0.insert(stream) } else if type == "unsubscribe" { $0.remove(stream) }
            }
        }
        _ = try live.open(for: owner.user, session: owner.session, after: nil, format: format, stream: socket.outbound)
        var headers: [(name: String, value: String)] = [
            ("Upgrade", "websocket"), ("Sec-WebSocket-Accept", Self.webSocketAccept(key))
        ]
        if let offered = request.http.header("Sec-WebSocket-Protocol")?.split(separator: ",").first {
            headers.append(("Sec-WebSocket-Protocol", offered.trimmingCharacters(in: .whitespaces)))
        }
        return HTTPResponse(status: 101, headers: headers, body: .upgrade(socket))
    }

    /// RFC 6455's `Sec-WebSocket-Accept` for a client's key.
    static func webSocketAccept(_ key: String) -> String {
        Data(Digest.sha1(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }
}
