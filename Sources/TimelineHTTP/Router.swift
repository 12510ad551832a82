import MicroHTTPD
import Timeline

/// One request as a handler sees it: the HTTP request, its path parameters and its bearer.
struct APIRequest: Sendable {
    let http: HTTPRequest
    /// Path parameters by name (`{post}` → "post").
    let parameters: [String: String]
    /// The token of `Authorization: Bearer …` (or, on a `tokenInQuery` route, of the query or
    /// `Sec-WebSocket-Protocol`), if any.
    let bearer: String?
    /// What the bearer is and may do, once the token has been checked (nil: anonymous).
    let grant: Grant?
    /// `scheme://host[:port]` of this server as its clients reach it (`TimelineAPI.Options.publicURL`,
    /// or a checked `Host`): what the URLs in answers are made of.
    let origin: String

    /// The bearer's user (nil: anonymous, or an app's own token).
    var viewer: UserID? { grant?.user }
}

/// What a route does with a request (failures are `TimelineError`s): at once, on the server's
/// thread (reads of a snapshot), or later, as async work (commands, which wait for their
/// durable commit). Handlers are handed the API, so the route table is static data.
enum RouteHandler: Sendable {
    case now(@Sendable (TimelineAPI, APIRequest) throws -> HTTPResponse)
    case later(@Sendable (TimelineAPI, APIRequest) async throws -> HTTPResponse)
}

/// Who may call a route.
enum Access: Sendable {
    /// Anyone, and the answer is the same for all (a bearer that is sent must still be valid).
    case anyone
    /// Anyone; a bearer, if given, makes the answer the viewer's.
    case viewerOptional
    /// Only with a valid bearer.
    case bearer
    /// Only with a valid bearer, which may also come as `access_token` in the query or as
    /// `Sec-WebSocket-Protocol`: Mastodon's streaming, which browsers' `EventSource` and
    /// `WebSocket` reach without headers of their own.
    case tokenInQuery
}

/// A (method, path template), its handler and, for the API's routes, its contract. The table
/// of routes (`TimelineAPI.routes`) is the one list of what the API serves: it answers 404 and
/// 405 (with `Allow`), names each request's route in logs and metrics, and is what the
/// OpenAPI document is generated from.
struct Route: Sendable {
    let method: String
    /// E.g. `/v1/users/{user}/posts`.
    let template: String
    let access: Access
    /// What a token must hold to call it (checked by `TimelineAPI.answer`, before the handler).
    let scope: RouteScope
    let handler: RouteHandler
    /// What the route promises (nil: not part of the API, e.g. the web app's files).
    let operation: Operation?
    /// What a Mastodon API route promises (its own OpenAPI document's).
    let mastodon: MastodonDoc?
    fileprivate let segments: [Segment]

    init(
        _ method: String, _ template: String, _ access: Access, scope: RouteScope, _ handler: RouteHandler,
        _ operation: Operation?, mastodon: MastodonDoc? = nil
    ) {
        self.method = method
        self.template = template
        self.access = access
        self.scope = scope
        self.handler = handler
        self.operation = operation
        self.mastodon = mastodon
        // Split as paths are (so `/` is one empty segment and matches only `/`).
        segments = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            guard part.hasSuffix("}"), let open = part.firstIndex(of: "{") else { return .literal(String(part)) }
            let name = String(part[part.index(after: open)..<part.index(before: part.endIndex)])
            // `@{username}`: a parameter after a literal prefix (a profile's address, `/@alice`).
            return open == part.startIndex ? .parameter(name) : .prefixed(String(part[..<open]), name)
        }
    }

    /// Whether requests to it count against the request limits: everything but the web app's
    /// files and documents, images (fetched many to a page, as from a CDN) and health checks.
    /// The inboxes count (each new signer costs a fetch of its actor), per sending address.
    var isCounted: Bool {
        guard operation != nil || mastodon != nil || method == "POST" else { return false }
        return !template.hasPrefix("/v1/images/") && template != "/healthz" && template != "/readyz"
            && template != "/health"
    }

    /// The names of the template's path parameters, in order.
    var pathParameters: [String] {
        segments.compactMap {
            switch $0 {
            case .parameter(let name), .prefixed(_, let name): name
            case .literal: nil
            }
        }
    }

    /// The path parameters if `path` matches the template.
    fileprivate func parameters(of parts: [Substring]) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var found: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text): guard part == text else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                found[name] = String(part)
            case .prefixed(let prefix, let name):
                guard part.hasPrefix(prefix), part.count > prefix.count else { return nil }
                found[name] = String(part.dropFirst(prefix.count))
            }
        }
        return found
    }
}

private enum Segment: Sendable {
    case literal(String)
    case parameter(String)
    /// A parameter after a literal prefix (`@{username}`).
    case prefixed(String, String)
}

/// Finds the route of a request.
struct Router: Sendable {
    let routes: [Route]

    enum Match {
        case found(Route, parameters: [String: String])
        /// The path exists with other methods.
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    func match(method: String, path: String) -> Match {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { $0 }
        // HEAD is answered as GET (libmicrohttpd sends no body).
        let wanted = method == "HEAD" ? "GET" : method
        var allowed: [String] = []
        for route in routes {
            guard let parameters = route.parameters(of: parts) else { continue }
            if route.method == wanted { return .found(route, parameters: parameters) }
            allowed.append(route.method)
        }
        if allowed.isEmpty { return .notFound }
        if allowed.contains("GET") { allowed.append("HEAD") }
        return .methodNotAllowed(allowed: allowed)
    }
}
