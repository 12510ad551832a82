import Foundation
import MicroHTTPD
import Sodium
import Timeline

/// `GET /oauth/authorize`: the page where a person lets an app act for them (RFC 6749 §4.1).
/// They sign in (Email, Password), then see the app's name and the scopes it asks for, with
/// **Authorize** and **Deny**; the code (or `access_denied`) goes with `state` to the app's
/// registered redirect URI — exactly one it registered, or the page shows the code for
/// `urn:ietf:wg:oauth:2.0:oob`. A client or redirect URI that does not check out is told on the
/// page, never redirected to.
///
/// The page is text only under a strict Content-Security-Policy (no script at all), cannot be
/// framed (`frame-ancestors 'none'`, `X-Frame-Options`), and each form carries a token that
/// must equal a `SameSite=Strict` cookie set with the page (double submit), from this origin:
/// another site can neither submit it for the person nor show it under a decoy.
///
/// The sign-in makes no session: a correct email and password give the page a ticket
/// (`AuthorizeTickets`: fifteen minutes, one decision, in memory, bound to the person, this
/// exact request and the page's CSRF value) in an `HttpOnly`, `Path=/oauth` cookie. The
/// decision needs that ticket and nothing else will do — a token of any kind in the cookie is
/// no ticket — so what the decision grants was agreed to with the password, on this page.
extension MastodonAPI {
    static let authorizeRoutes: [Route] = [
        now(
            "GET", "/oauth/authorize", .anyone,
            doc: .init(
                "The authorize page: sign in, then Authorize or Deny.", returns: .page,
                query: [
                    "response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
                    "code_challenge_method"
                ])
        ) { api, request, _ in api.authorizePage(request) },
        later(
            "POST", "/oauth/authorize", .anyone,
            doc: .init(
                "The authorize page's forms: sign-in, then the decision.", returns: .page,
                form: [
                    "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method",
                    "response_type", "csrf", "email", "password", "otp_attempt", "decision"
                ], otherStatuses: [302])
        ) { api, request, _ in await api.authorizeSubmit(request) },
        now(
            "GET", "/.well-known/oauth-authorization-server", .anyone,
            doc: .init("OAuth 2 authorization server metadata (RFC 8414).", returns: .oauthServer)
        ) { _, request, _ in
            let base = MastodonEntities.base(of: request)
            return Responses.entity(
                200,
                Mastodon.OAuthServerMetadata(
                    issuer: base, authorization_endpoint: "\(base)/oauth/authorize",
                    token_endpoint: "\(base)/oauth/token",
                    revocation_endpoint: "\(base)/oauth/revoke", app_registration_endpoint: "\(base)/api/v1/apps",
                    scopes_supported: ["read", "write", "follow", "push", "profile"] + OAuthScope.granular,
                    response_types_supported: ["code"], response_modes_supported: ["query"],
                    grant_types_supported: ["authorization_code", "password", "client_credentials"],
                    token_endpoint_auth_methods_supported: ["client_secret_post", "none"],
                    code_challenge_methods_supported: ["S256"], service_documentation: "\(base)/#/about",
                    userinfo_endpoint: "\(base)/oauth/userinfo"))
        }
    ]
}

/// What an authorization request asks, as the page carries it from form to form.
private struct AuthorizationRequest {
    var app: OAuthApp
    var redirectURI: String
    var scope: String?
    var state: String?
    var codeChallenge: String?
    var codeChallengeMethod: String?

    /// The request's own parameters as hidden fields.
    var hiddenFields: String {
        [
            ("client_id", app.id), ("redirect_uri", redirectURI), ("scope", scope), ("state", state),
            ("code_challenge", codeChallenge),
            ("code_challenge_method", codeChallengeMethod), ("response_type", "code")
        ]
        .compactMap { name, value in
            value.map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(HTMLText.escape($0))\">" }
        }
        .joined(separator: "\n")
    }

    /// What a ticket is bound to: every parameter of the request, as the page carries them.
    var binding: String {
        AuthorizeTickets.binding([app.id, redirectURI, scope, state, codeChallenge, codeChallengeMethod])
    }

    /// The scopes asked (the app's own when none were).
    var scopes: [String] {
        scope.map { $0.split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init) } ?? app.scopes
    }

    /// `redirectURI` with `parameters` added to its query; nil if it does not parse (the
    /// request is checked against `OAuthRedirect.isAllowed` before: never, in fact).
    func redirect(_ parameters: [(String, String?)]) -> String? {
        guard var components = URLComponents(string: redirectURI) else { return nil }
        components.queryItems =
            (components.queryItems ?? [])
            + parameters.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        // `+` is a space in a form-encoded query: encode it, as every client decodes it so.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string
    }
}

/// A page's refusal: what the person is told (the app is not redirected to).
private struct PageError: Error {
    let status: Int
    let message: String
}

extension TimelineAPI {
    /// The page: always the sign-in. A ticket the browser still holds was a sign-in left
    /// without a decision: it ends here.
    func authorizePage(_ request: APIRequest) -> HTTPResponse {
        do {
            let params = try MastodonParams(request.http)
            let asked = try authorizationRequest(params)
            var page = AuthorizePage.signIn(asked, csrf: AuthorizePage.newCSRF(), message: nil)
            if let ticket = request.http.cookie(AuthorizePage.ticketCookie) {
                authorizeTickets.end(ticket)
                page.headers.append(("Set-Cookie", AuthorizePage.endTicketCookie))
            }
            return page
        } catch let error as PageError {
            return AuthorizePage.problem(error.status, error.message)
        } catch {
            return AuthorizePage.problem(400, "This authorization request is not valid.")
        }
    }

    /// A form of the page: the sign-in (`email`, `password`), or the decision (`decision`),
    /// which needs the ticket the sign-in gave this page.
    func authorizeSubmit(_ request: APIRequest) async -> HTTPResponse {
        do {
            let params = try MastodonParams(request.http)
            let csrf = try AuthorizePage.checkForm(request.http, params)
            let asked = try authorizationRequest(params)
            if let decision = params.string("decision") {
                // The ticket is used up by any decision that presents it, whatever follows.
                let ticket = request.http.cookie(AuthorizePage.ticketCookie)
                    .flatMap { authorizeTickets.redeem($0, request: asked.binding, csrf: csrf) }
                guard let ticket, try service.lastCredentialChange(of: ticket.user) == ticket.credentials else {
                    var page = AuthorizePage.signIn(
                        asked, csrf: AuthorizePage.newCSRF(),
                        message: "Your sign-in has ended: sign in again.")
                    page.headers.append(("Set-Cookie", AuthorizePage.endTicketCookie))
                    return page
                }
                var answer = try await decide(decision, asked, user: ticket.user, request)
                answer.headers.append(("Set-Cookie", AuthorizePage.endTicketCookie))
                return answer
            }
            guard let email = params.string("email"), let password = params.string("password") else {
                return AuthorizePage.signIn(
                    asked, csrf: AuthorizePage.newCSRF(), message: "Enter your email and password.")
            }
            let result: CommandResult
            do {
                try throttle.admit(request.http.clientAddress)
                let code = params.string("otp_attempt").flatMap { $0.isEmpty ? nil : $0 }
                result = try await service.execute(
                    .checkSignIn(email: email, password: password, code: code),
                    origin: request.http.clientAddress)
            } catch {
                guard AuthorizePage.toldOnSignIn.contains(error.code) else { throw error }
                // A code asked for, or a wrong one: the form asks for it (and the password again).
                let asksCode = error.code == .twoFactorRequired || error.field == "code"
                let message =
                    switch error.code {
                    case .twoFactorRequired: "Enter the code from your authenticator app (or a recovery code)."
                    case .invalidCredentials where asksCode: "Wrong or used code."
                    case .invalidCredentials: "Wrong email or password."
                    default: error.message
                    }
                return AuthorizePage.signIn(
                    asked, csrf: AuthorizePage.newCSRF(), message: message, askingCodeOf: asksCode ? email : nil)
            }
            guard case .user(let profile) = result else { throw TimelineError(.internal, "no user") }
            let consentCSRF = AuthorizePage.newCSRF()
            let credentials = try service.lastCredentialChange(of: profile.id)
            let ticket = authorizeTickets.issue(
                for: profile.id, credentials: credentials, request: asked.binding,
                csrf: consentCSRF)
            var page = AuthorizePage.consent(asked, csrf: consentCSRF)
            page.headers.append(
                (
                    "Set-Cookie",
                    "\(AuthorizePage.ticketCookie)=\(ticket); Path=/oauth; HttpOnly; "
                        + "SameSite=Strict; Max-Age=\(AuthorizeTickets.lifetimeSeconds)"
                ))
            return page
        } catch let error as PageError {
            return AuthorizePage.problem(error.status, error.message)
        } catch let error as TimelineError {
            // What the request got wrong is 400; a full disk, a limit or a fault keeps its own status.
            guard [.forbidden, .invalidArgument, .notFound].contains(error.code) else {
                return AuthorizePage.problem(error.code.http.status, error.message)
            }
            return AuthorizePage.problem(400, error.message)
        } catch {
            return AuthorizePage.problem(500, "Something went wrong; try again.")
        }
    }

    /// Authorize (the code to the redirect URI, or shown for out-of-band) or deny (`access_denied`).
    /// It runs as the ticket's user (`Caller.user`): the ticket, not a session, is what the
    /// person's password proved here.
    private func decide(
        _ decision: String, _ asked: AuthorizationRequest, user: UserID,
        _ request: APIRequest
    ) async throws -> HTTPResponse {
        guard decision == "authorize" else {
            return AuthorizePage.redirect(
                asked,
                [
                    ("error", "access_denied"),
                    ("error_description", "The resource owner or authorization server denied the request."),
                    ("state", asked.state)
                ])
        }
        let result = try await service.execute(
            .authorizeApp(
                app: asked.app.id, redirectURI: asked.redirectURI, scopes: asked.scope,
                codeChallenge: asked.codeChallenge, codeChallengeMethod: asked.codeChallengeMethod),
            as: .user(user.rawValue), origin: request.http.clientAddress)
        guard case .token(let code) = result else { throw TimelineError(.internal, "no code") }
        if asked.redirectURI == OAuthRedirect.outOfBand { return AuthorizePage.showCode(code, app: asked.app) }
        return AuthorizePage.redirect(asked, [("code", code), ("state", asked.state)])
    }

    /// The authorization request in `params`, checked: a known app, and a redirect URI it
    /// registered (the only one, when none is named).
    private func authorizationRequest(_ params: MastodonParams) throws -> AuthorizationRequest {
        guard let id = params.string("client_id"), let app = try service.app(id) else {
            throw PageError(status: 400, message: "Client authentication failed due to unknown client.")
        }
        guard
            let redirectURI = params.string("redirect_uri")
                ?? (app.redirectURIs.count == 1 ? app.redirectURIs[0] : nil),
            app.redirectURIs.contains(redirectURI), OAuthRedirect.isAllowed(redirectURI)
        else {
            throw PageError(status: 400, message: "The redirect uri included is not valid.")
        }
        guard params.string("response_type") == "code" else {
            throw PageError(status: 400, message: "The authorization server does not support this response type.")
        }
        return AuthorizationRequest(
            app: app, redirectURI: redirectURI, scope: params.string("scope").flatMap { $0.isEmpty ? nil : $0 },
            state: params.string("state"), codeChallenge: params.string("code_challenge"),
            codeChallengeMethod: params.string("code_challenge_method"))
    }
}

/// The page's HTML, cookies and checks.
private enum AuthorizePage {
    static let ticketCookie = "timeline_authorize"
    static let csrfCookie = "timeline_csrf"
    /// The `Set-Cookie` that drops the ticket's cookie.
    static let endTicketCookie = "\(ticketCookie)=; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=0"
    /// The sign-in failures the form tells about (and is shown again).
    static let toldOnSignIn: Set<TimelineError.Code> = [
        .invalidCredentials, .twoFactorRequired, .rateLimited, .forbidden, .invalidArgument
    ]

    static func newCSRF() -> String { Sodium.randomToken(24) }

    /// Refuses a form not sent by this page: its token must equal the page's cookie, and a
    /// browser's `Origin` (when sent) must be this server. Answers the token.
    static func checkForm(_ http: HTTPRequest, _ params: MastodonParams) throws -> String {
        if let origin = http.header("Origin"), origin != "http://" + (http.header("Host") ?? ""),
            origin != "https://" + (http.header("Host") ?? "")
        {
            throw PageError(status: 403, message: "This form was sent from another site.")
        }
        guard let sent = params.string("csrf"), let kept = http.cookie(csrfCookie),
            Sodium.constantTimeEqual(Array(sent.utf8), Array(kept.utf8))
        else {
            throw PageError(status: 403, message: "This form has expired: open the app's sign-in again.")
        }
        return sent
    }

    /// `askingCodeOf`: the email of an account with two-factor sign-in, whose password was
    /// right: the form asks for its one-time code (and the password again: it is never
    /// written into a page).
    static func signIn(
        _ asked: AuthorizationRequest, csrf: String, message: String?, askingCodeOf email: String? = nil
    ) -> HTTPResponse {
        let emailValue = email.map { " value=\"\(HTMLText.escape($0))\"" } ?? ""
        let codeField =
            email == nil
            ? ""
            : """
            <div class="field"><label for="otp_attempt">Code</label><input id="otp_attempt" name="otp_attempt" \
            autocomplete="one-time-code" inputmode="numeric" required autofocus></div>
            """
        return page(
            title: "Sign in to authorize \(asked.app.name)", csrf: csrf, formAction: nil,
            body: """
                <h1>Sign in</h1>
                <p><strong>\(HTMLText.escape(asked.app.name))</strong> would like to use your Timeline account.</p>
                \(message.map { "<p class=\"error\" role=\"alert\">\(HTMLText.escape($0))</p>" } ?? "")
                <form method="post" action="/oauth/authorize">
                \(asked.hiddenFields)
                <input type="hidden" name="csrf" value="\(csrf)">
                <div class="field"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required\(email == nil ? " autofocus" : "")\(emailValue)></div>
                <div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
                \(codeField)
                <button class="primary" type="submit">Sign in</button>
                </form>
                """)
    }

    static func consent(_ asked: AuthorizationRequest, csrf: String) -> HTTPResponse {
        let scopes = asked.scopes.map {
            "<li><code>\(HTMLText.escape($0))</code> — \(HTMLText.escape(describe($0)))</li>"
        }.joined()
        return page(
            title: "Authorize \(asked.app.name)", csrf: csrf, formAction: asked.redirectURI,
            body: """
                <h1>Authorize <span id="app-name">\(HTMLText.escape(asked.app.name))</span>?</h1>
                <p>It asks to:</p>
                <ul id="scopes">\(scopes)</ul>
                \(asked.app.website.map { "<p class=\"muted\">\(HTMLText.escape($0))</p>" } ?? "")
                <form method="post" action="/oauth/authorize">
                \(asked.hiddenFields)
                <input type="hidden" name="csrf" value="\(csrf)">
                <button class="primary" type="submit" name="decision" value="authorize">Authorize</button>
                <button type="submit" name="decision" value="deny">Deny</button>
                </form>
                """)
    }

    static func showCode(_ code: String, app: OAuthApp) -> HTTPResponse {
        page(
            title: "Authorization code", csrf: nil, formAction: nil,
            body: """
                <h1>Authorization code</h1>
                <p>Copy this code and paste it into <strong>\(HTMLText.escape(app.name))</strong>:</p>
                <p><input id="code" readonly value="\(HTMLText.escape(code))" aria-label="Authorization code"></p>
                """)
    }

    static func problem(_ status: Int, _ message: String) -> HTTPResponse {
        var response = page(
            title: "Authorization failed", csrf: nil, formAction: nil,
            body: """
                <h1>Authorization failed</h1>
                <p class="error" role="alert">\(HTMLText.escape(message))</p>
                """)
        response.status = status
        return response
    }

    /// 302 to the app's redirect URI with `parameters` (`code` or `error`, and `state`).
    static func redirect(_ asked: AuthorizationRequest, _ parameters: [(String, String?)]) -> HTTPResponse {
        if asked.redirectURI == OAuthRedirect.outOfBand { return problem(403, "You denied the authorization.") }
        guard let location = asked.redirect(parameters) else {
            return problem(400, "The redirect uri included is not valid.")
        }
        return HTTPResponse(
            status: 302,
            headers: [
                ("Location", location), ("Cache-Control", "no-store"),
                ("Referrer-Policy", "no-referrer")
            ])
    }

    /// A page: no script, styles from the web app, forms only to this server (and, for the
    /// decision, the redirect its answer goes to — browsers hold a form's redirect to
    /// `form-action` too), never in a frame, never cached; with a fresh CSRF cookie.
    private static func page(title: String, csrf: String?, formAction: String?, body: String) -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLText.escape(title)) · Timeline</title><link rel="stylesheet" href="/app/app.css"></head>
            <body><main class="authorize card">
            \(body)
            </main></body></html>
            """
        let target = formAction.flatMap(cspSource).map { " " + $0 } ?? ""
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            (
                "Content-Security-Policy",
                "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'\(target); "
                    + "frame-ancestors 'none'; base-uri 'none'"
            ),
            // `same-origin`: no other site learns the page's URL, and the browser still tells the
            // forms' Origin (under `no-referrer` it sends `Origin: null`).
            ("X-Frame-Options", "DENY"), ("Referrer-Policy", "same-origin"),
            ("Cross-Origin-Opener-Policy", "same-origin")
        ]
        if let csrf {
            headers.append(("Set-Cookie", "\(csrfCookie)=\(csrf); Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=900"))
        }
        return HTTPResponse(status: 200, headers: headers, body: .bytes(Array(html.utf8)))
    }

    /// The CSP source of a redirect URI: its origin (`https://app.example`), or its scheme for
    /// an app's own (`com.example.app:`).
    private static func cspSource(_ uri: String) -> String? {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
        else { return nil }
        guard scheme == "http" || scheme == "https", let host = components.host,
            !host.contains(where: { $0 == ";" || $0 == " " || $0 == "'" })
        else {
            return scheme == "urn" ? nil : scheme + ":"
        }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// What a scope lets the app do, in words.
    private static func describe(_ scope: String) -> String {
        switch scope {
        case "read": "read your account's data"
        case "write": "change your account's data: post, comment, like, edit"
        case "follow": "follow, block and mute accounts"
        case "push": "send you push notifications"
        case "profile": "read your profile only"
        default:
            scope.hasPrefix("read:")
                ? "read your \(scope.dropFirst(5))"
                : scope.hasPrefix("write:") ? "change your \(scope.dropFirst(6))" : scope
        }
    }
}

/// Text for HTML: the five characters that could end an element or attribute, escaped.
/// By Unicode scalar, never by `Character`: a `"` or `<` followed by a combining mark is one
/// `Character` that equals neither, yet the browser still reads the `"` (or `<`) in it.
enum HTMLText {
    static func escape(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": escaped.append(contentsOf: "&quot;".unicodeScalars)
            case "'": escaped.append(contentsOf: "&#39;".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}

extension HTTPRequest {
    /// The value of the cookie `name`, if the request sent it.
    func cookie(_ name: String) -> String? {
        guard let header = header("Cookie") else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == name { return String(parts[1]) }
        }
        return nil
    }
}
