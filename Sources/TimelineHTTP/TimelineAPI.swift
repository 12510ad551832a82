import Foundation
import Synchronization
import JSONModel
import MicroHTTPD
import Timeline
import OpenSSL
import TimelineFederation

/// The HTTP API of docs/spec.md over a `TimelineService`: the route table, and the thin handlers
/// that decode a request into the library's command or query (through the same `Catalogue`
/// as `timeline exec`), call the library and encode its result (with the same `JSONOutput`).
public final class TimelineAPI: Sendable {
    /// What the API allows beyond docs/spec.md's defaults.
    public struct Options: Sendable {
        /// Origins allowed to call the API from a browser (CORS); none by default.
        public var corsOrigins: Set<String> = []
        /// Sign-ups and sign-ins one client address may make per minute.
        public var accountAttemptsPerMinute = 30
        /// Requests that check the bearer's password (`POST /v1/me/password`, `POST
        /// /v1/me/email`, `DELETE /v1/me`) one session, and one client address, may make per minute.
        public var passwordChecksPerMinute = 10
        /// Emails one session, and one client address, may look up per hour (`POST /v1/me/contacts`).
        public var contactLookupsPerHour = 2_000
        /// Requests one token (or one client address without a valid token) may make to the API,
        /// `/v1` and Mastodon's alike, in five minutes (Mastodon's default: 300). The web app's
        /// files, images and health checks are not counted.
        public var requestsPerWindow = 300
        /// The server's public origin (`https://photos.example`): the URLs answers carry are made
        /// from it, and a request for another `Host` is answered 421. Without it, the origin is
        /// `http://` and the request's `Host`, which must then be `localhost` or an IP address
        /// (so no name a client sends is ever written into an answer).
        public var publicURL: String?
        /// The addresses of reverse proxies (a TLS proxy in front) whose `X-Forwarded-For` names
        /// the client's address and whose `X-Forwarded-Proto` the scheme; from anyone else
        /// both are ignored.
        public var trustedProxies: Set<String> = []
        /// Where the server's source code is (Mastodon's instance `source_url`, `timeline serve
        /// --source-url`); without it, the server's own origin (Timeline has no public
        /// repository: its licence reserves every right).
        public var sourceURL: String?
        /// The address people may write to about this server (Mastodon's instance contact
        /// email); without it, `postmaster@` the server's host (RFC 2142's mailbox).
        public var contactEmail: String?
        /// The VAPID public key (base64url) push subscriptions are told (Mastodon's `server_key`).
        public var vapidPublicKey: String?
        /// More lines for `GET /metrics` (Prometheus text), from parts the API does not own
        /// (the push worker's deliveries).
        public var moreMetrics: (@Sendable () -> String)?
        /// Event streams open at once.
        public var maxStreams = 10_000
        /// Write one JSON access-log line per request to stderr.
        public var accessLog = true
        /// Imports an Instagram export for a user (`POST /v1/me/imports`): `timeline serve` sets
        /// it (the importer is a library of its own, TimelineImport); nil: the route refuses.
        public var importInstagram: ArchiveImporter?
        /// How federation reaches other servers (fetching actors, delivering); without it the
        /// inboxes answer 503.
        public var federation: FederationClient?
        /// Where other servers' posts wait for their videos to be transcoded (`timeline serve`
        /// keeps it in DB/federation); without it a remote post's videos are left out.
        public var awaitedVideoPosts: AwaitedVideoPosts?
        /// The key of the server's own actor (`/actor`), which signs its fetches; without it
        /// `/actor` is 404.
        public var instanceActorKey: RSAKey?
        /// Authorised fetch's "secure mode" (`--federation-authorized-fetch`): the ActivityPub
        /// documents (actors, posts, comments, collections) are served to signed requests alone.
        public var authorizedFetch = false
        /// The largest archive `POST /v1/me/imports` takes (8 GiB).
        public var maxImportBytes = 8 << 30
        /// docs/spec.md's defaults.
        public init() {}
    }

    let service: TimelineService
    let options: Options
    let metrics = Metrics()
    let live: LiveStreams
    let tickets = StreamTickets()
    /// The authorize page's sign-ins (`MastodonAuthorize.swift`).
    let authorizeTickets = AuthorizeTickets()
    /// The users whose export is being made (one at a time each).
    let exports = Mutex<Set<UserID>>([])
    /// The imports running and done (`POST /v1/me/imports`).
    let imports: ImportJobs
    /// The keys of other servers' actors that signed fetches lately (authorised-fetch mode).
    let signerKeys = SignerKeys()
    /// The known remote actors fetched again lately because their recorded key did not verify a
    /// signature: forged requests in the name of a known actor cost one fetch of it a minute,
    /// however many come, while a rotated key is still taken at its first use (or a minute after
    /// a forgery, when its sender tries again).
    let keyRefetches = RecentKeys(lifetime: 60, capacity: 10_000)
    /// The signatures of the activities taken lately (a replay is refused).
    let seenSignatures = SeenSignatures()
    let throttle: Throttle
    /// The request limits of both APIs, per token and per address (`X-RateLimit-*`).
    private let requestWindows: RequestWindows
    private let passwordChecks: Throttle
    private let contactLookups: Throttle
    private let router: Router
    /// The operator's listener's routes (`answerOperations`).
    private let operationsRouter: Router

    /// The API over `service`, with `options`' limits; it follows the log for the live streams.
    public init(service: TimelineService, options: Options = Options()) {
        self.service = service
        self.options = options
        live = LiveStreams(service: service, maxStreams: options.maxStreams)
        imports = ImportJobs(directory: service.importDirectory)
        throttle = Throttle(capacity: options.accountAttemptsPerMinute, per: .seconds(60), what: "sign-ups or sign-ins")
        requestWindows = RequestWindows(limit: options.requestsPerWindow)
        passwordChecks = Throttle(capacity: options.passwordChecksPerMinute, per: .seconds(60), what: "password checks")
        contactLookups = Throttle(capacity: options.contactLookupsPerHour, per: .seconds(3600), what: "email lookups")
        router = Router(routes: Self.routes + MastodonAPI.table + ActivityPubAPI.table)
        operationsRouter = Router(routes: Self.operationsRoutes)
    }

    /// Ends the open event streams and stops following the log.
    public func stop() { live.stop() }

    // MARK: - Answering a request

    /// Answers one request: a read at once, a command later (the server's handler).
    public func answer(_ request: HTTPRequest) -> HTTPAnswer { answer(request, router) }

    /// Answers one request on the operator's own listener (`timeline serve --metrics-listen`):
    /// `GET /metrics`, `/healthz` and `/readyz`, which the public listener does not tell
    /// everyone (the metrics there are 404).
    public func answerOperations(_ request: HTTPRequest) -> HTTPAnswer { answer(request, operationsRouter) }

    private func answer(_ received: HTTPRequest, _ router: Router) -> HTTPAnswer {
        let started = ContinuousClock.now
        let request = forwarded(received)
        var label = "unmatched"
        var limits: [(name: String, value: String)] = []
        do {
            let origin = try publicOrigin(of: received)  // the proxy's own request: is it trusted?
            // Rails, and so Mastodon, takes a path with a trailing slash as without it, and its clients send some so.
            let path =
                MastodonAPI.serves(request.path) && request.path.hasSuffix("/")
                ? String(request.path.dropLast()) : request.path
            let match = router.match(method: request.method, path: path)
            let route: Route? = if case .found(let route, _) = match { route } else { nil }
            // A malformed Authorization, like an unknown token, is refused once the request is counted.
            let inQuery = route?.access == .tokenInQuery
            let sent = Result { () throws(TimelineError) in try Self.bearer(request, inQuery: inQuery) }
            let token = (try? sent.get()) ?? nil
            // Without a token, a GET another server signed for one of its actors is that account's.
            let grant =
                token.map { token in Result { () throws(TimelineError) in try service.grant(session: token) } }
                ?? signedFetchGrant(request, origin: origin).map { .success($0) }
            // A path no route serves counts as the API's it is under.
            if route?.isCounted ?? (path.hasPrefix("/v1/") || MastodonAPI.serves(path)) {
                // One window per valid token, else per address: made-up tokens all count as their sender's.
                let validToken = (try? grant?.get()) != nil ? token : nil
                let (allowed, headers) = requestWindows.take(
                    validToken.map(RequestWindows.key(token:))
                        ?? RequestWindows.key(address: request.clientAddress))
                limits = headers
                guard allowed else { throw TimelineError(.rateLimited, "Too many requests") }
            }
            switch match {
            case .notFound where Responses.wantsPage(request, path: path):
                let response = Responses.notFoundPage()
                return .now(finish(response, request, route: label, started: started, limits: limits))
            case .notFound:
                throw TimelineError(.notFound, "no such path: \(request.path.prefix(200))")
            case .methodNotAllowed(let allowed)
            where request.method == "OPTIONS" && request.header("Origin").map(options.corsOrigins.contains) == true:
                // A browser's CORS preflight, from an allowed origin (the CORS headers are added below).
                let response = Responses.empty(
                    204,
                    headers: [
                        ("Access-Control-Allow-Methods", allowed.joined(separator: ", ")),
                        ("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID"),
                        ("Access-Control-Max-Age", "600")
                    ])
                return .now(finish(response, request, route: "preflight", started: started, limits: limits))
            case .methodNotAllowed(let allowed):
                let refusal = TimelineError(.invalidArgument, "\(request.method.prefix(16)) is not allowed here")
                let response = Self.failure(
                    refusal, path: request.path, status: 405, headers: [("Allow", allowed.joined(separator: ", "))])
                return .now(finish(response, request, route: label, started: started, limits: limits))
            case let .found(route, parameters):
                label = route.template
                let bearer = try sent.get()
                let grant = try grant?.get()
                if route.access == .bearer || route.access == .tokenInQuery, grant?.user == nil {
                    throw TimelineError(
                        .unauthenticated,
                        grant == nil
                            ? "this needs Authorization: Bearer <session token>"
                            : "This method requires an authenticated user")
                }
                try route.scope.check(grant)
                let call = APIRequest(
                    http: request, parameters: parameters, bearer: bearer, grant: grant, origin: origin)
                switch route.handler {
                case .now(let handle):
                    return .now(finish(try handle(self, call), request, route: label, started: started, limits: limits))
                case .later(let handle):
                    let template = route.template
                    return .later { [self, limits] in
                        let response: HTTPResponse
                        do { response = try await handle(self, call) } catch {
                            response = Self.failure(error, path: request.path)
                        }
                        return finish(response, request, route: template, started: started, limits: limits)
                    }
                }
            }
        } catch let misdirected as Misdirected {
            // The host asked for is not repeated: nothing a client names is written back.
            let refusal = TimelineError(
                .invalidArgument, "this server is \(misdirected.origin); it does not serve that host")
            let response = Self.failure(refusal, path: request.path, status: 421)
            return .now(finish(response, request, route: label, started: started, limits: limits))
        } catch {
            return .now(
                finish(Self.failure(error, path: request.path), request, route: label, started: started, limits: limits)
            )
        }
    }

    /// Answers one request, waiting for it if it is answered later (for callers that are async anyway).
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        await answer(request).response()
    }

    /// The response for a failure: its status from the error's code (or `status`, for a refusal
    /// that no code's status says, such as 405 or 421), in the body of the API `path` belongs to
    /// (the Mastodon API's are its own).
    static func failure(
        _ error: any Error, path: String = "", status: Int? = nil,
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        let failure = error as? TimelineError ?? TimelineError(.internal, "\(error)")
        let retry = failure.code == .rateLimited ? [(name: "Retry-After", value: "60")] : []
        if MastodonAPI.serves(path) { return MastodonAPI.failure(failure, status: status, headers: retry + headers) }
        return Responses.error(failure, status: status, headers: retry + headers)
    }

    /// The answer to a refusal the HTTP server makes on its own (a malformed request, a body too
    /// large, the server stopping): the body in the shape of the API the request's path belongs
    /// to, and that API's request-limit headers, the refused request counted against its
    /// client's window like any other (`HTTPServer.Options.refusal`).
    public func serverRefusal(_ refused: Refused) -> (body: [UInt8], headers: [(String, String)]) {
        let code: TimelineError.Code =
            switch refused.status {
            case 413: .payloadTooLarge
            case 400..<500: .invalidArgument
            default: .internal
            }
        let response = Self.failure(TimelineError(code, refused.message), path: refused.path, status: refused.status)
        guard case .bytes(let body) = response.body else { return ([], []) }
        guard refused.path.hasPrefix("/v1/") || MastodonAPI.serves(refused.path) else { return (body, []) }
        let limits = requestWindows.take(RequestWindows.key(address: refused.client)).headers
        return (body, limits.map { ($0.name, $0.value) })
    }

    /// Adds the headers every response carries (and the Mastodon API's `limits`), and records
    /// the request in the metrics and the access log.
    private func finish(
        _ response: HTTPResponse, _ request: HTTPRequest, route: String, started: ContinuousClock.Instant,
        limits: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        var response = Compression.apply(response, for: request)
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        response.headers += limits
        if let origin = request.header("Origin"), options.corsOrigins.contains(origin) {
            response.headers += [
                ("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
                (
                    "Access-Control-Expose-Headers",
                    "Link, Location, ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset"
                )
            ]
        }
        let elapsed = ContinuousClock.now - started
        metrics.record(route: route, status: response.status, duration: elapsed)
        if options.accessLog {
            AccessLog.write(method: request.method, route: route, status: response.status, duration: elapsed)
        }
        return response
    }

    /// The token of `Authorization: Bearer <token>` (the scheme in any case; nil without the
    /// header), or on a route that takes it there, of `access_token` in the query or
    /// `Sec-WebSocket-Protocol`.
    static func bearer(_ request: HTTPRequest, inQuery: Bool = false) throws(TimelineError) -> String? {
        guard let header = request.header("Authorization") else {
            guard inQuery else { return nil }
            return request.query.first(where: { $0.name == "access_token" })?.value
                ?? request.header("Sec-WebSocket-Protocol")?.split(separator: ",").first
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw TimelineError(.unauthenticated, "Authorization must be Bearer <session token>")
        }
        return String(parts[1])
    }

    // MARK: - Handlers shared by many routes

    /// Runs the command `name` as the bearer and answers `status` with its result (nothing for
    /// 204); `admit` may refuse the request once it is read, before it runs; `location` gives
    /// the `Location` header of what the command made.
    func run(
        command name: String, _ request: APIRequest, status: Int, fixed: [String: String],
        admit: (@Sendable (TimelineAPI, APIRequest) throws -> Void)?,
        location: (@Sendable (CommandResult) -> String?)?
    ) async throws -> HTTPResponse {
        let input = try fields(request, fixed)
        let command = try Catalogue.command(named: name, input)
        try input.refuseUnreadFields()
        try admit?(self, request)
        let result = try await execute(command, request)
        guard status != 204 else { return Responses.empty() }
        let headers = location.flatMap { $0(result) }.map { [(name: "Location", value: $0)] } ?? []
        return Responses.json(status, JSONOutput.result(result), headers: headers)
    }

    /// Runs `command` as the request's bearer (anonymous without one), from its client's address.
    func execute(_ command: Command, _ request: APIRequest) async throws(TimelineError) -> CommandResult {
        if request.viewer != nil,
            let text = (command.definition as? AddPostCommand)?.caption
                ?? (command.definition as? AddCommentCommand)?.text
        {
            await resolveMentionedHandles(in: text, FederationURLs(origin: request.origin))
        }
        return try await service.execute(
            command, as: request.bearer.map { .session($0) } ?? .anonymous, origin: request.http.clientAddress)
    }

    /// Answers the query `name` for the bearer (if any), with a `Link` header for the next
    /// page; `admit` may refuse the request once its fields are read, before it is answered.
    func answer(
        query name: String, _ request: APIRequest, fixed: [String: String],
        admit: (@Sendable (TimelineAPI, APIRequest, JSONInput) throws -> Void)?
    ) throws -> HTTPResponse {
        let input = try fields(request, fixed)
        let query = try Catalogue.query(named: name, input)
        try input.refuseUnreadFields()
        try admit?(self, request, input)
        let result = try query.answer(service, viewer: request.viewer)
        if case .posts(let page) = result {
            // The timeline's and every list's answer: written from the records' bytes.
            let link = page.next.map { Self.nextLink(request.http, next: $0) }
            return Responses.json(
                200, bytes: JSONOutput.postPageBytes(page), headers: link.map { [(name: "Link", value: $0)] } ?? [])
        }
        var answer = JSONOutput.answer(result)
        // SPEC's HTTP shapes: a post detail says `likedByViewer` only with a bearer (exec's
        // `post` query always says it).
        if request.viewer == nil { answer = answer.removing("likedByViewer") }
        // The unread count is notification data: a token without `read:notifications` (a
        // `profile` one reading GET /v1/me) is not told it.
        if let scopes = request.grant?.scopes, !OAuthScope.allows(Set(scopes), "read:notifications") {
            answer = answer.removing("unreadActivity")
        }
        let link = answer["next"]?.string.map { Self.nextLink(request.http, next: $0) }
        return Responses.json(200, answer, headers: link.map { [(name: "Link", value: $0)] } ?? [])
    }

    /// Takes one password check for the request's session and client address (before the
    /// command spends argon2id's work on it).
    func admitPasswordCheck(_ request: APIRequest) throws(TimelineError) {
        try passwordChecks.admit("address:" + request.http.clientAddress, "session:" + (request.bearer ?? ""))
    }

    /// Takes as many email lookups as the request asks for, for its session and client address.
    func admitContactLookups(_ request: APIRequest, _ input: JSONInput) throws(TimelineError) {
        // A request over the size cap is refused by the query itself, and costs nothing.
        let emails = try input.strings("emails")
        guard emails.count <= TimelineService.maxContactEmails else { return }
        try contactLookups.admit(
            "address:" + request.http.clientAddress, "session:" + (request.bearer ?? ""), cost: emails.count)
    }
}
