import JSONModel

// OAuth 2's authorization code and client credentials grants (RFC 6749, PKCE of RFC 7636), as
// Mastodon's apps use them. A person signed in on the authorize page runs `authorizeApp`:
// `AppAuthorized` records the code's hash (the code itself is answered once), the app, the
// scopes, the exact redirect URI and the PKCE challenge; it lives ten minutes. The app redeems
// it once with `redeemAuthorization` — its secret, the same redirect URI and the PKCE
// verifier — for a session (`SignedIn` v3 naming the code, which ends it). `issueAppToken`
// (the client credentials grant) gives an app a token of its own, for what needs no person:
// signing one up (`POST /api/v1/accounts`), `GET /api/v1/apps/verify_credentials`.

/// The payload of `AppAuthorized`: a person let an app act for them.
public struct AppAuthorized: Equatable, Sendable {
    /// The person who authorized the app.
    public var userId: UserID
    /// The app's id (its `client_id`).
    public var appId: String
    /// Hex BLAKE2b-256 of the authorization code; the code itself is never recorded.
    public var codeHash: String
    /// The scopes granted.
    public var scopes: [String]
    /// The redirect URI the code was sent to: the token request must name the same.
    public var redirectURI: String
    /// The PKCE `S256` challenge (base64url SHA-256 of the app's verifier), if the app sent one.
    public var codeChallenge: String?
    /// When the code can no longer be redeemed (ms since 1970).
    public var expiresAt: Int64
    /// An `AppAuthorized` payload.
    public init(
        userId: UserID, appId: String, codeHash: String, scopes: [String], redirectURI: String, codeChallenge: String?,
        expiresAt: Int64
    ) {
        self.userId = userId
        self.appId = appId
        self.codeHash = codeHash
        self.scopes = scopes
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.expiresAt = expiresAt
    }
}

extension AppAuthorized: EventPayload {
    /// The JSON keys: the properties' names, but `redirectUri`.
    enum CodingKeys: String, CodingKey {
        case userId, appId, codeHash, scopes, redirectURI = "redirectUri", codeChallenge, expiresAt
    }

    /// The aggregate `AppAuthorized` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `AppAuthorized` payload names: `userId`.
    package var users: [UserID] { [userId] }

    /// Writes an `AppAuthorized` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(appId)
        w.string(codeHash)
        w.strings(scopes)
        w.string(redirectURI)
        w.optionalString(codeChallenge)
        w.int64(expiresAt)
    }

    /// Reads a stored `AppAuthorized` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(
            userId: UserID(try r.string()), appId: try r.string(), codeHash: try r.string(), scopes: try r.strings(),
            redirectURI: try r.string(), codeChallenge: try r.optionalString(), expiresAt: try r.int64())
    }

    /// A one-line human summary of an `AppAuthorized` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) authorized app \(appId)"
    }
}

/// The payload of `AppTokenIssued`: an app's own token (the client credentials grant).
public struct AppTokenIssued: Equatable, Sendable {
    /// The app's id.
    public var appId: String
    /// Hex BLAKE2b-256 of the token; the token itself is never recorded.
    public var tokenHash: String
    /// The scopes the token holds.
    public var scopes: [String]
    /// When it expires (ms since 1970).
    public var expiresAt: Int64
    /// An `AppTokenIssued` payload.
    public init(appId: String, tokenHash: String, scopes: [String], expiresAt: Int64) {
        self.appId = appId
        self.tokenHash = tokenHash
        self.scopes = scopes
        self.expiresAt = expiresAt
    }
}

extension AppTokenIssued: EventPayload {
    /// The aggregate `AppTokenIssued` events belong to: the app stream of `appId`.
    package var stream: String { StreamName.app(appId) }
    /// An `AppTokenIssued` payload names no user.
    package var users: [UserID] { [] }

    /// Writes an `AppTokenIssued` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(appId)
        w.string(tokenHash)
        w.strings(scopes)
        w.int64(expiresAt)
    }

    /// Reads a stored `AppTokenIssued` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(appId: try r.string(), tokenHash: try r.string(), scopes: try r.strings(), expiresAt: try r.int64())
    }

    /// A one-line human summary of an `AppTokenIssued` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "app \(appId) got a token (\(tokenHash.prefix(8))…)"
    }
}

/// The payload of `AppTokenRevoked`: an app revoked a token of its own (RFC 7009).
public struct AppTokenRevoked: Equatable, Sendable {
    /// The app's id.
    public var appId: String
    /// Hex BLAKE2b-256 of the token.
    public var tokenHash: String
    /// An `AppTokenRevoked` payload.
    public init(appId: String, tokenHash: String) {
        self.appId = appId
        self.tokenHash = tokenHash
    }
}

extension AppTokenRevoked: EventPayload {
    /// The aggregate `AppTokenRevoked` events belong to: the app stream of `appId`.
    package var stream: String { StreamName.app(appId) }
    /// An `AppTokenRevoked` payload names no user.
    package var users: [UserID] { [] }
    /// Writes an `AppTokenRevoked` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(appId)
        w.string(tokenHash)
    }
    /// Reads a stored `AppTokenRevoked` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(appId: try r.string(), tokenHash: try r.string())
    }
    /// A one-line human summary of an `AppTokenRevoked` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "app \(appId) revoked a token of its own (\(tokenHash.prefix(8))…)"
    }
}

/// An authorization code as deciding sees it: unredeemed, and not revoked by a password change.
package struct AuthorizationRecord: Equatable, Sendable {
    /// The person who authorized the app.
    package var user: UserID
    /// The app's id (its `client_id`).
    package var app: String
    /// The scopes granted.
    package var scopes: [String]
    /// The redirect URI the code was sent to: the token request must name the same.
    package var redirectURI: String
    /// The PKCE `S256` challenge, if the app sent one.
    package var codeChallenge: String?
    /// When the code can no longer be redeemed (ms since 1970).
    package var expiresAt: Int64

    /// The code `AppAuthorized` recorded.
    package init(_ e: AppAuthorized) {
        user = e.userId
        app = e.appId
        scopes = e.scopes
        redirectURI = e.redirectURI
        codeChallenge = e.codeChallenge
        expiresAt = e.expiresAt
    }
}

/// An app's own token as the service sees it.
package struct AppTokenRecord: Equatable, Sendable {
    /// The app's id.
    package var app: String
    /// The scopes the token holds.
    package var scopes: [String]
    /// When it expires (ms since 1970).
    package var expiresAt: Int64

    /// An app token record.
    package init(app: String, scopes: [String], expiresAt: Int64) {
        self.app = app
        self.scopes = scopes
        self.expiresAt = expiresAt
    }
}

/// How long an authorization code can be redeemed: ten minutes, as RFC 6749 advises at most.
package enum AuthorizationPolicy {
    /// Ten minutes, in ms.
    package static let codeLifetime: Int64 = 10 * 60 * 1000
}

extension Decider {
    /// `me` lets `appID` act for them with `scopes` (all of the app's when nil), its code to be
    /// sent to `redirectURI` — one the app registered, exactly.
    func authorizeApp(
        _ appID: String, redirectURI: String, scopes: String?, codeChallenge: String?, method: String?,
        by me: UserRecord
    ) throws -> Decision {
        guard IdentifierSyntax.isValid(appID), let app = try state.app(appID) else {
            throw TimelineError(.notFound, "Client authentication failed due to unknown client.", field: "client_id")
        }
        guard app.redirectURIs.contains(redirectURI) else {
            throw TimelineError.invalid("redirect_uri", "The redirect uri included is not valid.")
        }
        guard !me.suspended else { throw TimelineError(.forbidden, "this account is suspended") }
        let wanted = try scopes.map { try OAuthScope.parse($0, field: "scope") } ?? app.scopes
        for scope in wanted where !OAuthScope.allows(Set(app.scopes), scope) {
            throw TimelineError(.forbidden, "The requested scope is invalid, unknown, or malformed.", field: "scope")
        }
        if let codeChallenge {
            // Only S256: `plain` would put the verifier itself where an eavesdropper sees it.
            guard method == "S256" else {
                throw TimelineError.invalid("code_challenge_method", "code_challenge_method must be S256")
            }
            guard codeChallenge.utf8.count == 43,
                codeChallenge.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else {
                throw TimelineError.invalid("code_challenge", "code_challenge must be a base64url SHA-256 digest")
            }
        }
        guard let code = context.prepared.newToken else {
            throw TimelineError(.internal, "no authorization code was made")
        }
        let event = AppAuthorized(
            userId: me.id, appId: app.id, codeHash: context.hashToken(code),
            scopes: wanted.isEmpty ? app.scopes : wanted,
            redirectURI: redirectURI, codeChallenge: codeChallenge,
            expiresAt: context.now + AuthorizationPolicy.codeLifetime)
        return Decision(events: [.appAuthorized(event)], outcome: .success(.token(code)))
    }

    /// Redeems the authorization `code` for a session: by the app it was issued to (its secret),
    /// with the same redirect URI and, when a PKCE challenge was given, the verifier whose
    /// `S256` is it (`prepared.pkceChallenge`). Any mismatch is `invalid_credentials`, as
    /// OAuth's `invalid_grant` says no more.
    func redeemAuthorization(_ code: String, app appID: String, secret: String?, redirectURI: String) throws -> Decision
    {
        let refused = TimelineError(
            .invalidCredentials,
            "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client."
        )
        let codeHash = context.hashToken(code)
        guard let grant = try state.authorization(hash: codeHash), grant.expiresAt > context.now, grant.app == appID,
            grant.redirectURI == redirectURI
        else { throw refused }
        if let secret {
            _ = try authenticatedApp(appID, secret: secret, scopes: nil)
        } else if grant.codeChallenge == nil {
            // A public client (no secret) must have proven itself with PKCE.
            throw TimelineError.unknownClient
        }
        if let challenge = grant.codeChallenge, context.prepared.pkceChallenge != challenge { throw refused }
        guard try state.user(grant.user)?.suspended == false else { throw refused }
        guard let token = context.prepared.newToken else { throw TimelineError(.internal, "no token was made") }
        let event = SignedIn(
            userId: grant.user, sessionHash: context.hashToken(token), expiresAt: context.now + context.sessionLifetime,
            appId: grant.app, scopes: grant.scopes, authorizationHash: codeHash)
        return Decision(
            events: [.signedIn(event)], outcome: .success(.session(token: token, user: grant.user)), actor: grant.user)
    }

    /// Revokes `token` for the app `appID` (RFC 7009): the app proves itself with its secret, or
    /// — a public client, which redeemed its code with PKCE and no secret — names itself; an
    /// unknown app or a wrong secret is `invalid_credentials`. Only a live token issued to that
    /// app ends: another's (a first-party session, another app's) is answered the same, as
    /// the RFC answers an unknown one, and stays valid — an app that got hold of a token it
    /// was not given cannot end it.
    func revokeToken(_ token: String, app appID: String, secret: String?) throws -> Decision {
        let client: AppRecord
        if let secret {
            client = try authenticatedApp(appID, secret: secret, scopes: nil).app
        } else {
            guard IdentifierSyntax.isValid(appID), let app = try state.app(appID) else {
                throw TimelineError.unknownClient
            }
            client = app
        }
        let hash = context.hashToken(token)
        // The app's own token (client credentials), live: it ends.
        if let own = try state.appToken(hash: hash), own.app == client.id, own.expiresAt > context.now {
            return Decision(
                events: [.appTokenRevoked(AppTokenRevoked(appId: client.id, tokenHash: hash))],
                outcome: .success(.changed(true)))
        }
        guard let session = try state.session(hash: hash), session.expiresAt > context.now, session.app == client.id
        else { return Decision(events: [], outcome: .success(.changed(false))) }
        return Decision(
            events: [.signedOut(SignedOut(userId: session.user, sessionHash: hash))],
            outcome: .success(.changed(true)), actor: session.user)
    }

    /// A token of the app's own (the client credentials grant): no person's, so it reads what
    /// anyone may and signs people up.
    func issueAppToken(app appID: String, secret: String, scopes: String?) throws -> Decision {
        let client = try authenticatedApp(appID, secret: secret, scopes: scopes)
        guard let token = context.prepared.newToken else { throw TimelineError(.internal, "no token was made") }
        let event = AppTokenIssued(
            appId: client.app.id, tokenHash: context.hashToken(token), scopes: client.scopes,
            expiresAt: context.now + context.sessionLifetime)
        return Decision(events: [.appTokenIssued(event)], outcome: .success(.token(token)))
    }
}

// MARK: - Commands

/// `authorizeApp`: the acting user lets an OAuth app act for them; answers the authorization
/// code (shown once, redeemable once, for ten minutes).
package struct AuthorizeAppCommand: CommandDefinition {
    /// The command's public name, `authorizeApp`.
    package static let name = "authorizeApp"
    /// The `app` field.
    package let app: String
    /// The `redirectURI` field.
    package let redirectURI: String
    /// The `scopes` field.
    package let scopes: String?
    /// The `codeChallenge` field.
    package let codeChallenge: String?
    /// The `codeChallengeMethod` field.
    package let codeChallengeMethod: String?

    /// A `authorizeApp` command with these fields.
    package init(
        app: String, redirectURI: String, scopes: String?, codeChallenge: String?, codeChallengeMethod: String?
    ) {
        self.app = app
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
    }

    /// Reads `authorizeApp`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        app = try fields.string("app")
        redirectURI = try fields.string("redirectUri")
        scopes = try fields.optionalString("scopes")
        codeChallenge = try fields.optionalString("codeChallenge")
        codeChallengeMethod = try fields.optionalString("codeChallengeMethod")
    }

    /// Writes `authorizeApp`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("app", app)
        fields.set("redirectUri", redirectURI)
        fields.set("scopes", scopes)
        fields.set("codeChallenge", codeChallenge)
        fields.set("codeChallengeMethod", codeChallengeMethod)
    }

    /// Decides `authorizeApp` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) {
            try decider.authorizeApp(
                app, redirectURI: redirectURI, scopes: scopes, codeChallenge: codeChallenge,
                method: codeChallengeMethod, by: $0)
        }
    }
}

/// `redeemAuthorization`: an app exchanges an authorization code for the person's token.
package struct RedeemAuthorizationCommand: CommandDefinition {
    /// The command's public name, `redeemAuthorization`.
    package static let name = "redeemAuthorization"
    /// The `needsActor` field.
    package static let needsActor = false
    /// The `code` field.
    package let code: String
    /// The `app` field.
    package let app: String
    /// The app's secret; a public client leaves it out and must have used PKCE.
    package let clientSecret: String?
    /// The `redirectURI` field.
    package let redirectURI: String
    /// PKCE's verifier, when the authorization carried a challenge.
    package let codeVerifier: String?

    /// A `redeemAuthorization` command with these fields.
    package init(code: String, app: String, clientSecret: String?, redirectURI: String, codeVerifier: String?) {
        self.code = code
        self.app = app
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.codeVerifier = codeVerifier
    }

    /// Reads `redeemAuthorization`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        code = try fields.string("code")
        app = try fields.string("app")
        clientSecret = try fields.optionalString("clientSecret")
        redirectURI = try fields.string("redirectUri")
        codeVerifier = try fields.optionalString("codeVerifier")
    }

    /// Writes `redeemAuthorization`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("code", code)
        fields.set("app", app)
        fields.set("clientSecret", clientSecret)
        fields.set("redirectUri", redirectURI)
        fields.set("codeVerifier", codeVerifier)
    }

    /// Decides `redeemAuthorization` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.redeemAuthorization(code, app: app, secret: clientSecret, redirectURI: redirectURI)
    }
}

/// `issueAppToken`: an app's own token, for its id and secret (the client credentials grant).
package struct IssueAppTokenCommand: CommandDefinition {
    /// The command's public name, `issueAppToken`.
    package static let name = "issueAppToken"
    /// The `needsActor` field.
    package static let needsActor = false
    /// The `app` field.
    package let app: String
    /// The `clientSecret` field.
    package let clientSecret: String
    /// The `scopes` field.
    package let scopes: String?

    /// A `issueAppToken` command with these fields.
    package init(app: String, clientSecret: String, scopes: String?) {
        self.app = app
        self.clientSecret = clientSecret
        self.scopes = scopes
    }

    /// Reads `issueAppToken`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        app = try fields.string("app")
        clientSecret = try fields.string("clientSecret")
        scopes = try fields.optionalString("scopes")
    }

    /// Writes `issueAppToken`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("app", app)
        fields.set("clientSecret", clientSecret)
        fields.set("scopes", scopes)
    }

    /// Decides `issueAppToken` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.issueAppToken(app: app, secret: clientSecret, scopes: scopes)
    }
}

/// `revokeToken`: an app ends a token issued to it (RFC 7009), proving itself with its secret
/// (a public client: none); another's token is left as it is.
package struct RevokeTokenCommand: CommandDefinition {
    /// The command's public name, `revokeToken`.
    package static let name = "revokeToken"
    /// The `needsActor` field.
    package static let needsActor = false
    /// The `token` field.
    package let token: String
    /// The `app` field.
    package let app: String
    /// The `clientSecret` field.
    package let clientSecret: String?

    /// A `revokeToken` command with these fields.
    package init(token: String, app: String, clientSecret: String?) {
        self.token = token
        self.app = app
        self.clientSecret = clientSecret
    }

    /// Reads `revokeToken`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        token = try fields.string("token")
        app = try fields.string("app")
        clientSecret = try fields.optionalString("clientSecret")
    }

    /// Writes `revokeToken`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("token", token)
        fields.set("app", app)
        fields.set("clientSecret", clientSecret)
    }

    /// Decides `revokeToken` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.revokeToken(token, app: app, secret: clientSecret)
    }
}

extension Command {
    /// The OAuth app `app` (with its `clientSecret`; a public client, nil) revokes `token`
    /// (RFC 7009): `changed(true)` when it was a live token of that app, which ends;
    /// `changed(false)` for any other, which is left as it is.
    public static func revokeToken(token: String, app: String, clientSecret: String?) -> Command {
        Command(RevokeTokenCommand(token: token, app: app, clientSecret: clientSecret))
    }

    /// Lets the OAuth app `app` act for the acting user with `scopes` (space-separated; all of
    /// the app's when nil), the code going to `redirectURI` (one the app registered); with a
    /// PKCE `codeChallenge` (`codeChallengeMethod` S256). Answers the authorization code.
    public static func authorizeApp(
        app: String, redirectURI: String, scopes: String? = nil, codeChallenge: String? = nil,
        codeChallengeMethod: String? = nil
    ) -> Command {
        Command(
            AuthorizeAppCommand(
                app: app, redirectURI: redirectURI, scopes: scopes, codeChallenge: codeChallenge,
                codeChallengeMethod: codeChallengeMethod))
    }

    /// Exchanges an authorization code for a token of the person who authorized `app`.
    public static func redeemAuthorization(
        code: String, app: String, clientSecret: String?, redirectURI: String,
        codeVerifier: String? = nil
    ) -> Command {
        Command(
            RedeemAuthorizationCommand(
                code: code, app: app, clientSecret: clientSecret, redirectURI: redirectURI, codeVerifier: codeVerifier))
    }

    /// Issues `app` a token of its own (the client credentials grant).
    public static func issueAppToken(app: String, clientSecret: String, scopes: String? = nil) -> Command {
        Command(IssueAppTokenCommand(app: app, clientSecret: clientSecret, scopes: scopes))
    }
}

// MARK: - JSON Schemas of the payloads

extension AppAuthorized {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A person let an OAuth app act for them: the authorization code only as a hash, redeemable once for ten "
        + "minutes."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "codeChallenge": "PKCE S256 challenge."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "codeHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$"),
        "codeChallenge": JSONSchema.string(pattern: "^[A-Za-z0-9_-]{43}$")
    ]
}

extension AppTokenIssued {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "An OAuth app's own token (the client credentials grant), only as a hash."
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "tokenHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$")
    ]
}

extension AppTokenRevoked {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "An OAuth app revoked a token of its own (RFC 7009), named only by its hash."
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "tokenHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$")
    ]
}

// MARK: - JSON Schemas of the commands

extension AuthorizeAppCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "The acting user lets an OAuth app act for them; answers the authorization code."
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "scopes": "Space-separated (default: the app's)."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "codeChallengeMethod": JSONSchema.constant("S256")
    ]
}

extension IssueAppTokenCommand {
    /// The caller proves itself by the command's own fields: no `as` or `session`.
    package static let schemaTakesCaller = false
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "An app's own token (the client credentials grant)."
}

extension RedeemAuthorizationCommand {
    /// The caller proves itself by the command's own fields: no `as` or `session`.
    package static let schemaTakesCaller = false
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "An app exchanges an authorization code for the person's token (a public client sends no secret and must "
        + "have used PKCE)."
}

extension RevokeTokenCommand {
    /// The caller proves itself by the command's own fields: no `as` or `session`.
    package static let schemaTakesCaller = false
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "An OAuth app ends a token issued to it (RFC 7009): changed true when it did; any other token (unknown, "
        + "ended, another app's or a first-party session) is left as it is, changed false."
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "app": "The OAuth app's client_id.",
        "clientSecret": "The app's client secret; a public client leaves it out."
    ]
}
