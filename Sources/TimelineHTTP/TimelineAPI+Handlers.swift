import Foundation
import Synchronization
import MicroHTTPD
import Timeline

/// The routes with handlers of their own rather than one catalogue command or query run as the
/// route table says: sign-up (which also signs in), sign-in (throttled per address), the avatar
/// (raw bytes or one part), images and event streams (not JSON), stream tickets, and the
/// operator's readiness, metrics and OpenAPI documents.
extension TimelineAPI {
    /// `POST /v1/users`: sign-up, then sign-in (so the app has a session at once).
    func signUp(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        try throttle.admit(request.http.clientAddress)
        let input = try fields(request)
        let command = try Catalogue.command(named: "createUser", input)
        try input.refuseUnreadFields()
        guard let signUp = command.definition as? CreateUserCommand else {
            throw TimelineError(.internal, "not a sign-up")
        }
        _ = try await service.execute(command, origin: request.http.clientAddress)
        let session = try await service.execute(
            .signIn(email: signUp.email, password: signUp.password), origin: request.http.clientAddress)
        return Responses.json(201, JSONOutput.result(session))
    }

    /// `PUT /v1/me/avatar`: the bearer's profile photo, from a multipart body (its one part,
    /// `image`) or from the raw image bytes.
    func setAvatar(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        try await avatar(request, .set(try imageBody(request)))
    }

    /// `PUT /v1/me/header`: the bearer's profile header, from a multipart body (its one part,
    /// `image`) or from the raw image bytes.
    func setHeader(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        try await header(request, .set(try imageBody(request)))
    }

    /// `DELETE /v1/me/header`: removes the bearer's profile header; it takes no fields.
    func removeHeader(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        return try await header(request, .remove)
    }

    /// Sets or removes the bearer's profile header (`updateProfile` with only `header`).
    func header(_ request: APIRequest, _ update: AvatarUpdate) async throws(TimelineError) -> HTTPResponse {
        guard request.http.query.isEmpty else {
            throw TimelineError.invalid(request.http.query[0].name, "unknown field")
        }
        let result = try await execute(
            .updateProfile(username: nil, bio: nil, url: nil, header: update), request)
        return Responses.json(200, JSONOutput.result(result))
    }

    /// An image sent as a multipart body's one part, `image`, or as the raw bytes, in base64.
    private func imageBody(_ request: APIRequest) throws(TimelineError) -> String {
        let bytes: [UInt8]
        if !request.http.formParts.isEmpty {
            guard request.http.formParts.count == 1, let part = request.http.formParts.first, part.name == "image"
            else {
                throw TimelineError.invalid("image", "the multipart body must have one part, image")
            }
            bytes = part.data
        } else {
            bytes = request.http.body
        }
        guard !bytes.isEmpty else { throw TimelineError.invalid("image", "image is required") }
        return Data(bytes).base64EncodedString()
    }

    /// `DELETE /v1/me/avatar`: removes the bearer's profile photo. It takes no fields: any in
    /// the query or a JSON body is refused, as on every other route.
    func removeAvatar(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        return try await avatar(request, .remove)
    }

    /// Sets or removes the bearer's profile photo (`updateProfile` with only `avatar`).
    func avatar(_ request: APIRequest, _ update: AvatarUpdate) async throws(TimelineError) -> HTTPResponse {
        guard request.http.query.isEmpty else {
            throw TimelineError.invalid(request.http.query[0].name, "unknown field")
        }
        let result = try await execute(.updateProfile(username: nil, bio: nil, url: nil, avatar: update), request)
        return Responses.json(200, JSONOutput.result(result))
    }

    /// `POST /v1/sessions`: sign-in, throttled per client address.
    func signIn(_ request: APIRequest) async throws -> HTTPResponse {
        try throttle.admit(request.http.clientAddress)
        return try await run(command: "signIn", request, status: 201, fixed: [:], admit: nil, location: nil)
    }

    /// `POST /v1/password-resets`: "I forgot my password". Always 202 once the request is
    /// well-formed and admitted: whether a mail goes out is never said.
    func forgotPassword(_ request: APIRequest) async throws -> HTTPResponse {
        try throttle.admit(request.http.clientAddress)
        _ = try await run(
            command: "requestPasswordResetByEmail", request, status: 204, fixed: [:], admit: nil, location: nil)
        return Responses.empty(202)
    }

    /// `POST /v1/password`: sets a new password with a mailed reset token (every session ends).
    func setForgottenPassword(_ request: APIRequest) async throws -> HTTPResponse {
        try throttle.admit(request.http.clientAddress)
        return try await run(command: "resetPassword", request, status: 204, fixed: [:], admit: nil, location: nil)
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
        guard case .image(let image) = try query.answer(service, viewer: request.viewer) else {
            throw TimelineError(.internal, "not an image")
        }
        let tag = "\"\(image.id.rawValue)\""
        let askedForVariant = request.http.query.contains { $0.name == "variant" }
        let lasting = !askedForVariant || image.id.rawValue != request.parameters["image"]
        // A followers-only post's photo is answered to its viewer alone: no shared cache keeps it.
        // An upload not yet posted is its uploader's alone, and revalidated each time: if it is
        // deleted unposted, no cache goes on answering it.
        let scope = image.restricted ? "private" : "public"
        let cacheControl =
            image.unposted
            ? "private, no-cache"
            : lasting ? "\(scope), max-age=31536000, immutable" : "\(scope), no-cache"
        let caching = [(name: "ETag", value: tag), (name: "Cache-Control", value: cacheControl)]
        // If-None-Match compares weakly (RFC 9110 §13.1.2): `W/"…"` matches too.
        if let wanted = request.http.header("If-None-Match"),
            wanted.split(separator: ",").contains(where: { candidate in
                let trimmed = candidate.trimmingCharacters(in: .whitespaces)
                return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
            })
        {
            return Responses.empty(304, headers: caching)
        }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", image.mediaType.rawValue)] + caching, body: .bytes(image.bytes))
    }

    /// `GET /v1/stream`: Server-Sent Events for the bearer, or for the user of a single-use
    /// `?ticket=` (browsers' EventSource cannot send headers).
    func stream(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        var owner: (user: UserID, session: String)?
        if let viewer = request.viewer, let bearer = request.bearer { owner = (viewer, bearer) }
        for (name, value) in request.http.query {
            guard name == "ticket" else {
                throw TimelineError.invalid(name, "unknown query parameter \(name.prefix(64))")
            }
            // A ticket is worth what its session is: `live.open` refuses one whose session ended.
            let ticket = try tickets.redeem(value)
            owner = (ticket.user, ticket.session)
        }
        guard let owner else { throw TimelineError(.unauthenticated, "the stream needs a bearer or a ticket") }
        var resumeAfter: UInt64?
        if let last = request.http.header("Last-Event-ID") {
            guard let sequence = UInt64(last) else {
                throw TimelineError.invalid("Last-Event-ID", "Last-Event-ID must be an event id of this stream")
            }
            resumeAfter = sequence
        }
        // The members of the user's exclusive lists leave the stream, as they leave the timeline.
        let viewer = owner.user, service = self.service, timeline = LiveFormat.timeline
        let format = LiveFormat(greeting: timeline.greeting, heartbeat: timeline.heartbeat) { sequence, update in
            if case .post(let post) = update, (try? service.leavesHome(post.author, of: viewer)) != false { return nil }
            return timeline.encode(sequence, update)
        }
        let stream = try live.open(for: owner.user, session: owner.session, after: resumeAfter, format: format)
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                ("X-Accel-Buffering", "no")
            ], body: .stream(stream))
    }

    /// `GET /v1/me/export`: the bearer's data as a zip archive, streamed as it is made (by a
    /// thread of its own, at the pace the client reads: photos are read one at a time and at
    /// most `exportBuffer` bytes wait for the client). One export per user at a time.
    func export(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        guard let viewer = request.viewer else { throw TimelineError(.unauthenticated, "an export needs a bearer") }
        try refuseAnyField(request)
        guard exports.withLock({ $0.insert(viewer).inserted }) else {
            throw TimelineError(.rateLimited, "an export of this account is being made; try again when it is done")
        }
        let stream = EventStream(maxBuffered: 2 * Self.exportBuffer)
        Thread.detachNewThread { [self] in
            defer {
                stream.close()
                _ = exports.withLock { $0.remove(viewer) }
            }
            // A failure (the client went away, the server is stopping) ends the archive short.
            try? service.export(user: viewer) { bytes in
                var offset = 0
                while offset < bytes.count {
                    while stream.bufferedBytes > Self.exportBuffer {
                        guard !stream.isGone else { throw TimelineError(.internal, "the client went away") }
                        usleep(2_000)
                    }
                    let end = min(bytes.count, offset + (64 << 10))
                    guard stream.send(Array(bytes[offset..<end])) else {
                        throw TimelineError(.internal, "the client went away")
                    }
                    offset = end
                }
            }
        }
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "application/zip"), ("Cache-Control", "no-store"),
                ("Content-Disposition", "attachment; filename=\"timeline-export.zip\"")
            ],
            body: .stream(stream))
    }

    /// The most bytes of an export waiting for its client.
    static let exportBuffer = 512 << 10

    /// `POST /v1/stream/tickets`: a ticket for one `GET /v1/stream?ticket=`, valid 60 s, as
    /// long as the session lives.
    func streamTicket(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        guard let viewer = request.viewer, let session = request.bearer else {
            throw TimelineError(.unauthenticated, "a ticket needs a bearer")
        }
        guard try Self.body(request.http).members.isEmpty, request.http.query.isEmpty else {
            throw TimelineError.invalid("body", "a ticket takes no fields")
        }
        return Responses.json(
            201,
            JSONOutput.streamTicket(
                try tickets.issue(for: viewer, session: session), expiresIn: StreamTickets.lifetimeSeconds))
    }

    /// `GET /readyz`: ready once the read models have applied the whole log.
    func ready(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        let lag = try service.lastSequence() - (try service.appliedSequence())
        return lag == 0
            ? Responses.json(200, JSONOutput.health("ready"))
            : Responses.json(503, JSONOutput.health("catching up", behind: lag))
    }

    /// `GET /metrics` in Prometheus' text format.
    func metricsText(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        let head = try service.lastSequence(), applied = try service.appliedSequence()
        let text =
            metrics.render(
                logSequence: head, projectionLag: head - applied, openStreams: live.openCount,
                batchSizes: service.commitBatchSizes())
            + (options.moreMetrics?() ?? "")
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: .bytes(Array(text.utf8)))
    }

    /// `GET /v1/openapi.json`: the document generated from the route table, revalidated by its `ETag`.
    func openAPI(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        let document = try OpenAPI.served.get()
        return Revalidation.answer(
            document.bytes, tag: document.tag, contentType: "application/json", request: request.http)
    }

    /// `GET /v1/me/push`: the bearer token's push subscription, and the key to subscribe with.
    /// `GET /v1/me/two-factor`: whether the bearer's two-factor sign-in is on.
    func twoFactorStatus(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        guard let user = request.viewer else { throw TimelineError(.unauthenticated, "sign in first") }
        return Responses.json(200, JSONOutput.twoFactorStatus(try service.twoFactorStatus(of: user)))
    }

    func pushSubscription(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        try refuseAnyField(request)
        guard let token = request.bearer, let subscription = try service.pushSubscription(session: token) else {
            throw TimelineError(.notFound, "this token has no push subscription")
        }
        return Responses.json(200, JSONOutput.pushSubscription(subscription, serverKey: options.vapidPublicKey ?? ""))
    }
}
