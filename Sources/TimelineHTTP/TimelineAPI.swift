import Foundation
import MicroHTTPD
import Timeline

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
        /// Event streams open at once.
        public var maxStreams = 10_000
        /// Write one JSON access-log line per request to stderr.
        public var accessLog = true
        public init() {}
    }

    let service: TimelineService
    let options: Options
    let metrics = Metrics()
    let live: LiveStreams
    private let tickets = StreamTickets()
    private let throttle: Throttle
    private let passwordChecks: Throttle
    private let contactLookups: Throttle
    private let router: Router
    /// The operator's listener's routes (`answerOperations`).
    private let operationsRouter: Router

    public init(service: TimelineService, options: Options = Options()) {
        self.service = service
        self.options = options
        live = LiveStreams(service: service, maxStreams: options.maxStreams)
        throttle = Throttle(capacity: options.accountAttemptsPerMinute, per: .seconds(60), what: "sign-ups or sign-ins")
        passwordChecks = Throttle(capacity: options.passwordChecksPerMinute, per: .seconds(60), what: "password checks")
        contactLookups = Throttle(capacity: options.contactLookupsPerHour, per: .seconds(3600), what: "email lookups")
        router = Router(routes: Self.routes)
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

    private func answer(_ request: HTTPRequest, _ router: Router) -> HTTPAnswer {
        let started = ContinuousClock.now
        var label = "unmatched"
        do {
            switch router.match(method: request.method, path: request.path) {
            case .notFound:
                throw TimelineError(.notFound, "no such path: \(request.path.prefix(200))")
            case .methodNotAllowed(let allowed) where request.method == "OPTIONS" && request.header("Origin").map(options.corsOrigins.contains) == true:
                // A browser's CORS preflight, from an allowed origin (the CORS headers are added below).
                let response = Responses.empty(204, headers: [("Access-Control-Allow-Methods", allowed.joined(separator: ", ")),
                                                              ("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID"),
                                                              ("Access-Control-Max-Age", "600")])
                return .now(finish(response, request, route: "preflight", started: started))
            case .methodNotAllowed(let allowed):
                let refusal = TimelineError(.invalidArgument, "\(request.method.prefix(16)) is not allowed here")
                let response = Responses.error(refusal, status: 405, headers: [("Allow", allowed.joined(separator: ", "))])
                return .now(finish(response, request, route: label, started: started))
            case let .found(route, parameters):
                label = route.template
                let bearer = try Self.bearer(request)
                let viewer = try bearer.map { token throws(TimelineError) in try service.userID(session: token) }
                if route.access == .bearer, viewer == nil {
                    throw TimelineError(.unauthenticated, "this needs Authorization: Bearer <session token>")
                }
                let call = APIRequest(http: request, parameters: parameters, bearer: bearer, viewer: viewer)
                switch route.handler {
                case .now(let handle):
                    return .now(finish(try handle(self, call), request, route: label, started: started))
                case .later(let handle):
                    let template = route.template
                    return .later { [self] in
                        let response: HTTPResponse
                        do { response = try await handle(self, call) } catch { response = Self.failure(error) }
                        return finish(response, request, route: template, started: started)
                    }
                }
            }
        } catch {
            return .now(finish(Self.failure(error), request, route: label, started: started))
        }
    }

    /// Answers one request, waiting for it if it is answered later (for callers that are async anyway).
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        await answer(request).response()
    }

    /// The response for a failure: its status from the error's code.
    static func failure(_ error: any Error) -> HTTPResponse {
        let failure = error as? TimelineError ?? TimelineError(.internal, "\(error)")
        return Responses.error(failure, headers: failure.code == .rateLimited ? [("Retry-After", "60")] : [])
    }

    /// Adds the headers every response carries, and records the request in the metrics and
    /// the access log.
    private func finish(_ response: HTTPResponse, _ request: HTTPRequest, route: String, started: ContinuousClock.Instant) -> HTTPResponse {
        var response = response
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        if let origin = request.header("Origin"), options.corsOrigins.contains(origin) {
            response.headers += [("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
                                 ("Access-Control-Expose-Headers", "Link, Location, ETag, Retry-After")]
        }
        let elapsed = ContinuousClock.now - started
        metrics.record(route: route, status: response.status, duration: elapsed)
        if options.accessLog { AccessLog.write(method: request.method, route: route, status: response.status, duration: elapsed) }
        return response
    }

    /// The token of `Authorization: Bearer <token>` (nil without the header).
    static func bearer(_ request: HTTPRequest) throws(TimelineError) -> String? {
        guard let header = request.header("Authorization") else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw TimelineError(.unauthenticated, "Authorization must be Bearer <session token>")
        }
        return String(parts[1])
    }

    // MARK: - Handlers shared by many routes

    /// The request's fields for the catalogue: its JSON body (or multipart parts), its path
    /// parameters (a `{user}` given as `@username` resolved to the id) and its query
    /// parameters, plus `fixed` ones the route sets itself (the bearer's id, …). A field
    /// given twice is refused.
    func fields(_ request: APIRequest, _ fixed: [String: String] = [:]) throws(TimelineError) -> JSONInput {
        var object = try Self.body(request.http)
        var text = Set<String>()
        func add(_ name: String, _ value: String) throws(TimelineError) {
            guard object[name] == nil else { throw TimelineError.invalid(name, "\(name) is given twice") }
            object[name] = value
            text.insert(name)
        }
        for (name, value) in request.http.query { try add(name, value) }
        for (name, value) in request.parameters {
            try add(name, name == "user" && value.hasPrefix("@") ? try service.userID(named: String(value.dropFirst())).rawValue : value)
        }
        for (name, value) in fixed { try add(name, value) }
        return JSONInput(object: object, textFields: text)
    }

    /// Refuses any query parameter (or body field), for the routes that take none.
    func refuseAnyField(_ request: APIRequest) throws(TimelineError) {
        try fields(request).refuseUnreadFields()
    }

    /// A JSON object body, or the parts of a `multipart/form-data` body (the `image` part as
    /// base64, as the catalogue's `image` field expects; a `location` part is a JSON object as text, as
    /// the catalogue's `location` field is an object); nothing for an empty body.
    static func body(_ request: HTTPRequest) throws(TimelineError) -> [String: Any] {
        if !request.formParts.isEmpty {
            var object: [String: Any] = [:]
            for part in request.formParts {
                guard object[part.name] == nil else { throw TimelineError.invalid(part.name, "the part \(part.name.prefix(64)) is given twice") }
                // Only `image` is binary: another part is text even when a client sends it as a
                // file (a `caption` with a filename is its text, not its base64).
                if part.name == "image" {
                    object[part.name] = Data(part.data).base64EncodedString()
                } else if part.name == "location" {
                    do {
                        object[part.name] = try JSONInput.body(part.data)
                    } catch {
                        throw TimelineError.invalid("location", "the part location must be a JSON object {latitude, longitude, name?}")
                    }
                } else {
                    guard let text = String(validating: part.data, as: UTF8.self) else {
                        throw TimelineError.invalid(part.name, "the part \(part.name.prefix(64)) is not UTF-8 text")
                    }
                    object[part.name] = text
                }
            }
            return object
        }
        guard !request.body.isEmpty else { return [:] }
        let type = request.header("Content-Type")?.lowercased() ?? ""
        guard type.hasPrefix("application/json") else {
            throw TimelineError(.unsupportedMediaType, "the body must be application/json (or multipart/form-data for uploads)")
        }
        return try JSONInput.body(request.body)
    }

    /// Runs the command `name` as the bearer and answers `status` with its result (nothing for
    /// 204); `admit` may refuse the request once it is read, before it runs; `location` gives
    /// the `Location` header of what the command made.
    func run(command name: String, _ request: APIRequest, status: Int, fixed: [String: String],
             admit: (@Sendable (TimelineAPI, APIRequest) throws -> Void)?,
             location: (@Sendable (CommandResult) -> String?)?) async throws -> HTTPResponse {
        let input = try fields(request, fixed)
        let command = try Catalogue.command(named: name, input)
        try input.refuseUnreadFields()
        try admit?(self, request)
        let result = try await service.execute(command, as: request.bearer.map { .session($0) } ?? .anonymous,
                                               origin: request.http.clientAddress)
        guard status != 204 else { return Responses.empty() }
        let headers = location.flatMap { $0(result) }.map { [(name: "Location", value: $0)] } ?? []
        return Responses.json(status, JSONOutput.result(result), headers: headers)
    }

    /// Answers the query `name` for the bearer (if any), with a `Link` header for the next
    /// page; `admit` may refuse the request once its fields are read, before it is answered.
    func answer(query name: String, _ request: APIRequest, fixed: [String: String],
                admit: (@Sendable (TimelineAPI, APIRequest, JSONInput) throws -> Void)?) throws -> HTTPResponse {
        let input = try fields(request, fixed)
        let query = try Catalogue.query(named: name, input)
        try input.refuseUnreadFields()
        try admit?(self, request, input)
        let result = try query.answer(service, viewer: request.viewer)
        if case .posts(let page) = result {
            // The timeline's and every list's answer: written from the records' bytes.
            let link = page.next.map { Self.nextLink(request.http, next: $0) }
            return Responses.json(200, bytes: JSONOutput.postPageBytes(page), headers: link.map { [(name: "Link", value: $0)] } ?? [])
        }
        var answer = JSONOutput.answer(result)
        // SPEC's HTTP shapes: a post detail says `likedByViewer` only with a bearer (exec's
        // `post` query always says it).
        if request.viewer == nil { answer["likedByViewer"] = nil }
        let link = (answer["next"] as? String).map { Self.nextLink(request.http, next: $0) }
        return Responses.json(200, answer, headers: link.map { [(name: "Link", value: $0)] } ?? [])
    }

    /// `<path?…&before=next&limit=n>; rel="next"` (SPEC's form: the limit always named, the
    /// default when the request gave none), keeping the request's other query parameters.
    /// Only called once the query was read, so a `limit` given is a valid one.
    static func nextLink(_ request: HTTPRequest, next: String) -> String {
        let limit = request.query.last { $0.name == "limit" }?.value ?? String(PageRequest.defaultLimit)
        let kept = request.query.filter { $0.name != "before" && $0.name != "limit" }
        // Every page of every list has a link: when no part needs percent-encoding (ids,
        // limits and plain paths never do), it is joined as it is.
        let path = request.path
        if path.hasPrefix("/"), !path.hasSuffix("/"), !path.contains("//"), isUnreserved(path, allowingSlash: true),
           isUnreserved(next), isUnreserved(limit),
           kept.allSatisfy({ isUnreserved($0.name) && isUnreserved($0.value) }) {
            let others = kept.map { $0.name + "=" + $0.value + "&" }.joined()
            return "<" + path + "?" + others + "before=" + next + "&limit=" + limit + ">; rel=\"next\""
        }
        var items = URLComponents()
        items.queryItems = kept.map { URLQueryItem(name: $0.name, value: $0.value) }
            + [URLQueryItem(name: "before", value: next), URLQueryItem(name: "limit", value: limit)]
        let query = items.percentEncodedQuery ?? ""
        let segments = path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? String($0) }
        return "</\(segments.joined(separator: "/"))?\(query)>; rel=\"next\""
    }

    /// Whether `text` is only RFC 3986's unreserved characters (and `/`, when allowed), which
    /// a URL's path and query carry as they are; an empty path segment or text is not.
    private static func isUnreserved(_ text: String, allowingSlash: Bool = false) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
            case UInt8(ascii: "/"): allowingSlash
            default: false
            }
        }
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
        try contactLookups.admit("address:" + request.http.clientAddress, "session:" + (request.bearer ?? ""), cost: emails.count)
    }

    // MARK: - Routes with handlers of their own

    /// `POST /v1/users`: sign-up, then sign-in (so the app has a session at once).
    func signUp(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        try throttle.admit(request.http.clientAddress)
        let input = try fields(request)
        let command = try Catalogue.command(named: "createUser", input)
        try input.refuseUnreadFields()
        guard let signUp = command.definition as? CreateUserCommand else { throw TimelineError(.internal, "not a sign-up") }
        _ = try await service.execute(command, origin: request.http.clientAddress)
        let session = try await service.execute(.signIn(email: signUp.email, password: signUp.password), origin: request.http.clientAddress)
        return Responses.json(201, JSONOutput.result(session))
    }

    /// `PUT /v1/me/avatar`: the bearer's profile photo, from a multipart body (its one part,
    /// `image`) or from the raw image bytes.
    func setAvatar(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        let bytes: [UInt8]
        if !request.http.formParts.isEmpty {
            guard request.http.formParts.count == 1, let part = request.http.formParts.first, part.name == "image" else {
                throw TimelineError.invalid("image", "the multipart body must have one part, image")
            }
            bytes = part.data
        } else {
            bytes = request.http.body
        }
        guard !bytes.isEmpty else { throw TimelineError.invalid("image", "image is required") }
        return try await avatar(request, .set(Data(bytes).base64EncodedString()))
    }

    /// `DELETE /v1/me/avatar`: removes the bearer's profile photo. It takes no fields: any in
    /// the query or a JSON body is refused, as on every other route.
    func removeAvatar(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        return try await avatar(request, .remove)
    }

    /// Sets or removes the bearer's profile photo (`updateProfile` with only `avatar`).
    func avatar(_ request: APIRequest, _ update: AvatarUpdate) async throws(TimelineError) -> HTTPResponse {
        guard request.http.query.isEmpty else { throw TimelineError.invalid(request.http.query[0].name, "unknown field") }
        let result = try await service.execute(.updateProfile(username: nil, bio: nil, url: nil, avatar: update),
                                               as: request.bearer.map { .session($0) } ?? .anonymous, origin: request.http.clientAddress)
        return Responses.json(200, JSONOutput.result(result))
    }

    /// `POST /v1/sessions`: sign-in, throttled per client address.
    func signIn(_ request: APIRequest) async throws -> HTTPResponse {
        try throttle.admit(request.http.clientAddress)
        return try await run(command: "signIn", request, status: 201, fixed: [:], admit: nil, location: nil)
    }

    /// `GET /v1/images/{image}[?variant=full|feed|thumb]`: the bytes; content-addressed, so
    /// cached forever (the ETag is the id of the image answered, the variant's with `variant`).
    /// A `variant` that answers the image asked for may be a stand-in (an old post's image,
    /// before `timeline media reprocess` gives it variants): that answer is revalidated instead.
    func image(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        let input = try fields(request)
        let query = try Catalogue.query(named: "image", input)
        try input.refuseUnreadFields()
        // Still there (an erased owner's images are gone), and which variant answers.
        guard case .image(let image) = try query.answer(service, viewer: request.viewer) else { throw TimelineError(.internal, "not an image") }
        let tag = "\"\(image.id.rawValue)\""
        let askedForVariant = request.http.query.contains { $0.name == "variant" }
        let lasting = !askedForVariant || image.id.rawValue != request.parameters["image"]
        let caching = [(name: "ETag", value: tag), (name: "Cache-Control", value: lasting ? "public, max-age=31536000, immutable" : "public, no-cache")]
        // If-None-Match compares weakly (RFC 9110 §13.1.2): `W/"…"` matches too.
        if let wanted = request.http.header("If-None-Match"), wanted.split(separator: ",").contains(where: { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
        }) {
            return Responses.empty(304, headers: caching)
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", image.mediaType.rawValue)] + caching, body: .bytes(image.bytes))
    }

    /// `GET /v1/stream`: Server-Sent Events for the bearer, or for the user of a single-use
    /// `?ticket=` (browsers' EventSource cannot send headers).
    func stream(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        var owner: (user: UserID, session: String)?
        if let viewer = request.viewer, let bearer = request.bearer { owner = (viewer, bearer) }
        for (name, value) in request.http.query {
            guard name == "ticket" else { throw TimelineError.invalid(name, "unknown query parameter \(name.prefix(64))") }
            // A ticket is worth what its session is: `live.open` refuses one whose session ended.
            let ticket = try tickets.redeem(value)
            owner = (ticket.user, ticket.session)
        }
        guard let owner else { throw TimelineError(.unauthenticated, "the stream needs a bearer or a ticket") }
        var resumeAfter: UInt64?
        if let last = request.http.header("Last-Event-ID") {
            guard let sequence = UInt64(last) else { throw TimelineError.invalid("Last-Event-ID", "Last-Event-ID must be an event id of this stream") }
            resumeAfter = sequence
        }
        let stream = try live.open(for: owner.user, session: owner.session, after: resumeAfter)
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                                                   ("X-Accel-Buffering", "no")], body: .stream(stream))
    }

    /// `POST /v1/stream/tickets`: a ticket for one `GET /v1/stream?ticket=`, valid 60 s, as
    /// long as the session lives.
    func streamTicket(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        guard let viewer = request.viewer, let session = request.bearer else { throw TimelineError(.unauthenticated, "a ticket needs a bearer") }
        guard try Self.body(request.http).isEmpty, request.http.query.isEmpty else { throw TimelineError.invalid("body", "a ticket takes no fields") }
        return Responses.json(201, ["ticket": try tickets.issue(for: viewer, session: session), "expiresIn": StreamTickets.lifetimeSeconds])
    }

    /// `GET /readyz`: ready once the read models have applied the whole log.
    func ready(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        let lag = try service.lastSequence() - (try service.appliedSequence())
        return lag == 0 ? Responses.json(200, ["status": "ready"]) : Responses.json(503, ["status": "catching up", "behind": lag])
    }

    /// `GET /metrics` in Prometheus' text format.
    func metricsText(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        let head = try service.lastSequence(), applied = try service.appliedSequence()
        let text = metrics.render(logSequence: head, projectionLag: head - applied, openStreams: live.openCount,
                                  batchSizes: service.commitBatchSizes())
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: .bytes(Array(text.utf8)))
    }

    /// `GET /v1/openapi.json`: the document generated from the route table.
    func openAPI(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: .bytes(try OpenAPI.bytes()))
    }
}
