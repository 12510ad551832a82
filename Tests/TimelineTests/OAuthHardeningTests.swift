import Foundation
import Testing
@testable import Timeline

/// OAuth as an attacker tries it, against a real `timeline serve` over HTTP: the authorize
/// page's sign-in is a one-decision ticket (no token of any kind can stand in for it, none is
/// left behind), text on the page is escaped by Unicode scalar, redirect URIs that a browser
/// would run or cannot parse are refused, and `/oauth/revoke` ends only the client's own tokens.
@Suite struct OAuthHardeningTests {
    static let outOfBand = "urn:ietf:wg:oauth:2.0:oob"

    /// A form-urlencoded body, or a query: every byte but RFC 3986's unreserved ASCII encoded.
    static func encoded(_ fields: [String: String]) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return fields.sorted { $0.key < $1.key }.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }

    static func form(_ fields: [String: String]) -> Data { Data(encoded(fields).utf8) }

    /// The page's hidden fields (their values unescaped).
    static func hiddenFields(_ page: String) -> [String: String] {
        var fields: [String: String] = [:]
        let pattern = try! NSRegularExpression(pattern: #"<input type="hidden" name="([^"]+)" value="([^"]*)">"#)
        let text = page as NSString
        for match in pattern.matches(in: page, range: NSRange(location: 0, length: text.length)) {
            fields[text.substring(with: match.range(at: 1))] = unescape(text.substring(with: match.range(at: 2)))
        }
        return fields
    }

    /// HTML's five entities read back, by bytes: `String`'s replacing works by `Character`, and
    /// `&quot;` followed by a combining mark is no `&quot;` to it.
    static func unescape(_ html: String) -> String {
        var bytes = Array(html.utf8), out: [UInt8] = []
        let entities: [(String, UInt8)] = [
            ("&quot;", 0x22), ("&#39;", 0x27), ("&lt;", 0x3C), ("&gt;", 0x3E),
            ("&amp;", 0x26)
        ]
        var index = 0
        while index < bytes.count {
            if let (name, byte) = entities.first(where: { bytes[index...].starts(with: $0.0.utf8) }) {
                out.append(byte)
                index += name.utf8.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        bytes = out
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value the answer's `Set-Cookie` gives the cookie `name` (several are folded into one
    /// header, `, `-separated; the values here are base64url).
    static func cookie(_ reply: Reply, _ name: String) -> String? {
        guard let header = reply.header("Set-Cookie"), let range = header.range(of: name + "=") else { return nil }
        let value = header[range.upperBound...].prefix { $0 != ";" && $0 != "," }
        return value.isEmpty ? nil : String(value)
    }

    /// Whether the bytes of `text` occur in `data` (no `Character` folding).
    static func has(_ data: Data, _ text: String) -> Bool { data.range(of: Data(text.utf8)) != nil }

    /// Registers an app; its client id and secret.
    static func registerApp(
        _ api: APIClient, name: String = "An app", redirect: String = outOfBand,
        scopes: String
    ) async throws -> (id: String, secret: String) {
        let fields = ["client_name": name, "redirect_uris": redirect, "scopes": scopes]
        let reply = try await post(api, "/api/v1/apps", fields)
        try #require(reply.status == 200, "\(reply)")
        return (try #require(reply.json["client_id"] as? String), try #require(reply.json["client_secret"] as? String))
    }

    /// A token of the app's for alice (the password grant).
    static func passwordToken(
        _ api: APIClient, _ app: (id: String, secret: String),
        scope: String
    ) async throws -> String {
        let reply = try await post(
            api, "/oauth/token",
            [
                "grant_type": "password", "client_id": app.id, "client_secret": app.secret,
                "username": "alice@example.com",
                "password": "password-123", "scope": scope
            ])
        try #require(reply.status == 200 && reply.json["scope"] as? String == scope, "\(reply)")
        return try #require(reply.json["access_token"] as? String)
    }

    /// The authorization request's fields for the out-of-band redirect URI.
    static func request(_ app: String, scope: String) -> [String: String] {
        ["response_type": "code", "client_id": app, "redirect_uri": outOfBand, "scope": scope]
    }

    /// A form of the page sent with `cookies`.
    static func submit(_ api: APIClient, _ fields: [String: String], cookies: [String: String]) async throws -> Reply {
        let header = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        return try await post(api, "/oauth/authorize", fields, headers: ["Cookie": header])
    }

    /// A form posted to `path`.
    static func post(
        _ api: APIClient, _ path: String, _ fields: [String: String],
        headers: [String: String] = [:]
    ) async throws -> Reply {
        try await api.send(
            "POST", path, body: form(fields), contentType: "application/x-www-form-urlencoded",
            headers: headers)
    }

    /// The decision `fields` sent with the page's CSRF value and the sign-in's ticket.
    static func decide(
        _ api: APIClient, _ fields: [String: String], csrf: String,
        ticket: String
    ) async throws -> Reply {
        try await submit(
            api, fields.merging(["csrf": csrf, "decision": fields["decision"] ?? "authorize"]) { $1 },
            cookies: ["timeline_csrf": csrf, "timeline_authorize": ticket])
    }

    /// Alice signs in on the page for `fields`: the consent page, its CSRF value and the ticket cookie.
    static func signIn(
        _ api: APIClient,
        _ fields: [String: String]
    ) async throws -> (consent: Reply, csrf: String, ticket: String) {
        let page = try await api.get("/oauth/authorize?" + encoded(fields))
        try #require(page.status == 200, "\(page)")
        let csrf = try #require(cookie(page, "timeline_csrf"))
        let credentials = ["email": "alice@example.com", "password": "password-123"]
        let consent = try await submit(
            api, hiddenFields(page.text).merging(credentials) { $1 },
            cookies: ["timeline_csrf": csrf])
        try #require(consent.status == 200 && consent.text.contains(">Authorize<"), "\(consent)")
        let consentCSRF = try #require(hiddenFields(consent.text)["csrf"])
        #expect(cookie(consent, "timeline_csrf") == consentCSRF)
        return (consent, consentCSRF, try #require(cookie(consent, "timeline_authorize")))
    }

    /// The code an answer of the page shows (out of band), if any.
    static func shownCode(_ reply: Reply) -> String? {
        guard let range = reply.text.range(of: #"<input id="code" readonly value=""#) else { return nil }
        return String(reply.text[range.upperBound...].prefix { $0 != "\"" })
    }

    /// A token of an app's that asked only for `profile`, or a first-party session, set as the
    /// page's sign-in cookie with a CSRF pair of one's own, gets no code for an app that asks
    /// for everything — the swap of a narrow token for a full one — and is left as it was.
    @Test func noTokenStandsInForTheAuthorizePagesSignIn() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            let narrow = try await Self.registerApp(api, name: "Profile only", scopes: "profile")
            let profileToken = try await Self.passwordToken(api, narrow, scope: "profile")
            let wide = try await Self.registerApp(api, name: "Everything", scopes: "read write follow push")
            for token in [profileToken, alice.token] {
                let forged = try await Self.decide(
                    api, Self.request(wide.id, scope: "read write follow push"),
                    csrf: "chosen-by-me", ticket: token)
                #expect(Self.shownCode(forged) == nil && forged.text.contains("Your sign-in has ended"), "\(forged)")
            }
            // Neither token was touched by the attempt.
            #expect(try await api.get("/api/v1/apps/verify_credentials", bearer: profileToken).status == 200)
            #expect(try await api.get("/v1/me", bearer: alice.token).status == 200)
        }
    }

    /// Signing in on the page and leaving without a decision leaves no session: the cookie's
    /// value is no bearer token anywhere, and no `SignedIn` was recorded.
    @Test func anAbandonedSignInLeavesNoSession() async throws {
        let database = temporaryPath()
        try await withServer(database: database) { server in
            let api = server.api
            _ = try await api.signUp("alice")
            let app = try await Self.registerApp(api, scopes: "read write")
            func sessionsIssued() async throws -> Int {
                let audit = try ChildProcess(["audit", "list", "--type", "SignedIn", "--json", "--db", database])
                try #require(await audit.exitStatus(within: .seconds(60)) == 0, "\(audit.standardError)")
                return audit.standardOutput.split(separator: "\n").count
            }
            let before = try await sessionsIssued()
            let signedIn = try await Self.signIn(api, Self.request(app.id, scope: "read write"))
            #expect(try await api.get("/v1/me", bearer: signedIn.ticket).status == 401)
            #expect(try await api.get("/api/v1/accounts/verify_credentials", bearer: signedIn.ticket).status == 401)
            #expect(try await sessionsIssued() == before, "the page's sign-in recorded no SignedIn")
        }
    }

    /// The ticket is good for the request it was issued for, with the page's CSRF value, once:
    /// not for another app, not with another CSRF pair, not after signing out everywhere, not
    /// after a decision.
    @Test func theSignInTicketIsBoundAndUsedOnce() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            let app = try await Self.registerApp(api, name: "Reader", scopes: "read")
            let other = try await Self.registerApp(api, name: "Writer", scopes: "read write")
            let asked = Self.request(app.id, scope: "read")

            // Another app's request with this ticket: refused, and the ticket is spent.
            var signedIn = try await Self.signIn(api, asked)
            let elsewhere = try await Self.decide(
                api, Self.request(other.id, scope: "read write"), csrf: signedIn.csrf,
                ticket: signedIn.ticket)
            #expect(
                Self.shownCode(elsewhere) == nil && elsewhere.text.contains("Your sign-in has ended"),
                "\(elsewhere)")
            let spent = try await Self.decide(api, asked, csrf: signedIn.csrf, ticket: signedIn.ticket)
            #expect(Self.shownCode(spent) == nil, "\(spent)")

            // A CSRF pair of one's own instead of the page's: refused.
            signedIn = try await Self.signIn(api, asked)
            let ownPair = try await Self.decide(api, asked, csrf: "mine", ticket: signedIn.ticket)
            #expect(Self.shownCode(ownPair) == nil, "\(ownPair)")

            // Signing out everywhere after the sign-in ends the ticket too.
            signedIn = try await Self.signIn(api, asked)
            #expect(try await api.send("DELETE", "/v1/sessions", bearer: alice.token).status == 204)
            let afterSignOut = try await Self.decide(api, asked, csrf: signedIn.csrf, ticket: signedIn.ticket)
            #expect(
                Self.shownCode(afterSignOut) == nil && afterSignOut.text.contains("Your sign-in has ended"),
                "\(afterSignOut)")

            // The page's own decision: a code, redeemable; the ticket then does nothing more.
            signedIn = try await Self.signIn(api, asked)
            let fields = Self.hiddenFields(signedIn.consent.text).merging(["decision": "authorize"]) { $1 }
            let granted = try await Self.decide(api, fields, csrf: signedIn.csrf, ticket: signedIn.ticket)
            let code = try #require(Self.shownCode(granted), "\(granted)")
            let token = try await Self.post(
                api, "/oauth/token",
                [
                    "grant_type": "authorization_code", "client_id": app.id, "client_secret": app.secret, "code": code,
                    "redirect_uri": Self.outOfBand
                ])
            #expect(token.status == 200 && token.json["scope"] as? String == "read", "\(token)")
            let again = try await Self.decide(api, fields, csrf: signedIn.csrf, ticket: signedIn.ticket)
            #expect(Self.shownCode(again) == nil && again.text.contains("Your sign-in has ended"), "\(again)")
        }
    }

    /// A `"` or `<` followed by a combining mark (U+0301) is escaped on the authorize page — in
    /// the app's name and in the request's `state`, written into an attribute — and in a
    /// status's `content`.
    @Test func htmlIsEscapedByUnicodeScalar() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            let app = try await Self.registerApp(api, name: "Photo\"\u{301} <\u{301}b>", scopes: "read")
            let state = "x\"\u{301} autofocus onfocus=\"alert(1)"
            let asked = Self.request(app.id, scope: "read").merging(["state": state]) { $1 }
            let page = try await api.get("/oauth/authorize?" + Self.encoded(asked))
            #expect(page.status == 200)
            #expect(!Self.has(page.body, "\"\u{301}") && !Self.has(page.body, "<\u{301}"), "\(page.text)")
            #expect(Self.has(page.body, "&quot;\u{301}") && Self.has(page.body, "&lt;\u{301}b&gt;"), "\(page.text)")
            #expect(Self.hiddenFields(page.text)["state"] == state)

            let post = try await api.addPost(alice.token, caption: "a <\u{301}b onmouseover=x> \"\u{301}")
            let status = try await api.get(
                "/api/v1/statuses/\(try await server.mastodonID("post", post))", bearer: alice.token)
            let content = try #require(status.json["content"] as? String, "\(status)")
            let bytes = Data(content.utf8)
            #expect(
                !Self.has(bytes, "<\u{301}") && Self.has(bytes, "&lt;\u{301}b") && Self.has(bytes, "&quot;\u{301}"),
                "\(content)")
        }
    }

    /// `javascript:`, `data:` and the like, and URIs that do not parse, are refused as redirect
    /// URIs; an app's own scheme and an https URI with a query are not.
    @Test func redirectURIsABrowserWouldRunAreRefused() async throws {
        try await withServer { server in
            let api = server.api
            for uri in [
                "javascript:alert(document.cookie)", "JavaScript://%0aalert(1)",
                "data:text/html;base64,PHNjcmlwdD4=", "vbscript:msgbox", "http://exa%zzmple/cb",
                "https://app.example/cb?a=<b>", "://nothing", "https://",
                "https://app.example/cb#frag"
            ] {
                let reply = try await Self.post(api, "/api/v1/apps", ["client_name": "Bad", "redirect_uris": uri])
                #expect(reply.status == 422, "\(uri): \(reply)")
            }
            for uri in ["com.example.app:/oauth", "ice-cubes://oauth", "https://app.example/cb?x=1", Self.outOfBand] {
                _ = try await Self.registerApp(api, redirect: uri, scopes: "read")
            }
        }
    }

    /// `/oauth/revoke` (RFC 7009): the client must authenticate, and only its own tokens end;
    /// another's is answered 200 and stays valid.
    @Test func revokeEndsOnlyTheClientsOwnTokens() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            let first = try await Self.registerApp(api, name: "First", scopes: "read")
            let second = try await Self.registerApp(api, name: "Second", scopes: "read")
            let token = try await Self.passwordToken(api, first, scope: "read")
            func revoke(_ fields: [String: String]) async throws -> Reply {
                try await Self.post(api, "/oauth/revoke", fields)
            }
            func works(_ bearer: String) async throws -> Bool {
                try await api.get("/api/v1/accounts/verify_credentials", bearer: bearer).status == 200
            }

            let byAnother = try await revoke(["client_id": second.id, "client_secret": second.secret, "token": token])
            #expect(byAnother.status == 200, "\(byAnother)")
            #expect(try await works(token), "another client's revoke leaves the token valid")
            let anonymous = try await revoke(["token": token])
            #expect(anonymous.status == 401 && anonymous.json["error"] as? String == "invalid_client", "\(anonymous)")
            let wrongSecret = try await revoke(["client_id": first.id, "client_secret": "wrong", "token": token])
            #expect(
                wrongSecret.status == 401 && wrongSecret.json["error"] as? String == "invalid_client",
                "\(wrongSecret)")
            let session = try await revoke(["client_id": first.id, "client_secret": first.secret, "token": alice.token])
            let sessionWorks = try await works(alice.token)
            #expect(session.status == 200 && sessionWorks, "a first-party session is no client's to revoke")
            #expect(try await works(token))

            let own = try await revoke(["client_id": first.id, "client_secret": first.secret, "token": token])
            let tokenWorks = try await works(token)
            #expect(own.status == 200 && !tokenWorks, "\(own)")
            // A public client (no secret) names itself.
            let another = try await Self.passwordToken(api, first, scope: "read")
            let publicClient = try await revoke(["client_id": first.id, "token": another])
            let anotherWorks = try await works(another)
            #expect(publicClient.status == 200 && !anotherWorks, "\(publicClient)")
            // The app's own token (client credentials) is its to revoke too, and no other app's.
            let credentials = [
                "grant_type": "client_credentials", "client_id": first.id, "client_secret": first.secret,
                "scope": "read"
            ]
            let grant = try await Self.post(api, "/oauth/token", credentials)
            let appToken = try #require(grant.json["access_token"] as? String, "\(grant)")
            func appWorks() async throws -> Bool {
                try await api.get("/api/v1/apps/verify_credentials", bearer: appToken).status == 200
            }
            _ = try await revoke(["client_id": second.id, "client_secret": second.secret, "token": appToken])
            #expect(try await appWorks(), "another client's revoke leaves the app's token valid")
            let ownApp = try await revoke(["client_id": first.id, "client_secret": first.secret, "token": appToken])
            let appTokenWorks = try await appWorks()
            #expect(ownApp.status == 200 && !appTokenWorks, "\(ownApp)")
        }
    }
}
