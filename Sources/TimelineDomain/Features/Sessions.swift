import JSONModel

// Sessions: `signIn` records `SignedIn` (or `SignInFailed`, under a rate limit), `signOut`
// records `SignedOut`, `signOutEverywhere` records `SignedOutEverywhere`.

/// The payload of `SignedIn`.
public struct SignedIn: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// Hex BLAKE2b-256 of the session token; the token itself is never recorded.
    public var sessionHash: String
    /// When it expires (ms since 1970).
    public var expiresAt: Int64
    /// The OAuth app the token was issued to (v2; `nil`: a first-party session).
    public var appId: String?
    /// The scopes the token holds (v2; `nil`: a first-party session, which may do everything).
    public var scopes: [String]?
    /// The hash of the authorization code this token was issued for (v3; `AppAuthorized`),
    /// which it redeemed: a code is good for one token.
    public var authorizationHash: String?
    /// A `SignedIn` payload.
    public init(
        userId: UserID, sessionHash: String, expiresAt: Int64, appId: String? = nil, scopes: [String]? = nil,
        authorizationHash: String? = nil
    ) {
        self.userId = userId
        self.sessionHash = sessionHash
        self.expiresAt = expiresAt
        self.appId = appId
        self.scopes = scopes
        self.authorizationHash = authorizationHash
    }
}

extension SignedIn: EventPayload {
    /// New `SignedIn` events are written at version 3.
    package static var currentVersion: UInt8 { 3 }
    /// The aggregate `SignedIn` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `SignedIn` payload names: `userId`.
    package var users: [UserID] { [userId] }

    /// Writes a `SignedIn` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(sessionHash)
        w.int64(expiresAt)
        // v2 appends the app and its scopes, for an OAuth token only: a session's bytes are v1's;
        // v3 then the authorization code it redeemed, if any.
        if let appId {
            w.string(appId)
            w.strings(scopes ?? [])
            w.optionalString(authorizationHash)
        }
    }

    /// Reads a stored `SignedIn` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), sessionHash: try r.string(), expiresAt: try r.int64())
        if opener.version >= 2, !r.isAtEnd {
            appId = try r.string()
            scopes = try r.strings()
            if opener.version >= 3 { authorizationHash = try r.optionalString() }
        }
    }

    /// A one-line human summary of a `SignedIn` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) signed in (session \(sessionHash.prefix(8))…)"
    }
}

/// The payload of `SignedOut`.
public struct SignedOut: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// Hex BLAKE2b-256 of the session token; the token itself is never recorded.
    public var sessionHash: String
    /// A `SignedOut` payload.
    public init(userId: UserID, sessionHash: String) {
        self.userId = userId
        self.sessionHash = sessionHash
    }
}

extension SignedOut: EventPayload {
    /// The aggregate `SignedOut` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `SignedOut` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `SignedOut` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(sessionHash)
    }

    /// Reads a stored `SignedOut` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), sessionHash: try r.string())
    }

    /// A one-line human summary of a `SignedOut` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) signed out (session \(sessionHash.prefix(8))…)"
    }
}

/// The payload of `SignedOutEverywhere`: every session and reset token the user had until then
/// has ended (the one the command came with too).
public struct SignedOutEverywhere: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// A `SignedOutEverywhere` payload.
    public init(userId: UserID) { self.userId = userId }
}

extension SignedOutEverywhere: EventPayload {
    /// The aggregate `SignedOutEverywhere` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `SignedOutEverywhere` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `SignedOutEverywhere` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws { w.string(userId.rawValue) }
    /// Reads a stored `SignedOutEverywhere` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()))
    }
    /// A one-line human summary of a `SignedOutEverywhere` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) signed out everywhere"
    }
}

/// A failed sign-in. The email is recorded only as a keyed hash (it may not even belong to a
/// user); `userId` is set when it does. `origin` is a keyed hash of where the attempt came
/// from (the HTTP client's address; absent for local tools): failures are limited per email
/// *and* origin, so nobody can lock an owner out by failing on purpose from elsewhere.
/// Version 1 held only the email, in clear (read back as its keyed hash); version 2 holds the
/// hash and the user; version 3 adds the origin.
public struct SignInFailed: Equatable, Sendable {
    /// A keyed hash of the email tried.
    public var emailHash: String
    /// The user concerned.
    public var userId: UserID?
    /// A keyed hash of where the attempt came from (absent for local tools).
    public var origin: String?
    /// A `SignInFailed` payload.
    public init(emailHash: String, userId: UserID? = nil, origin: String? = nil) {
        self.emailHash = emailHash
        self.userId = userId
        self.origin = origin
    }

    /// What failures are counted under: the email's hash, with the origin's when known.
    public var limiterKey: String { SignInFailed.limiterKey(emailHash: emailHash, origin: origin) }

    /// The key failures from `emailHash` and `origin` are counted under.
    public static func limiterKey(emailHash: String, origin: String?) -> String {
        origin.map { emailHash + "@" + $0 } ?? emailHash
    }
}

extension SignInFailed: EventPayload {
    /// New `SignInFailed` events are written at version 3.
    package static var currentVersion: UInt8 { 3 }
    /// The aggregate `SignInFailed` events belong to: the signIn stream of `emailHash: emailHash`.
    package var stream: String { StreamName.signIn(emailHash: emailHash) }
    /// Every user a `SignInFailed` payload names.
    package var users: [UserID] { userId.map { [$0] } ?? [] }

    /// Writes a `SignInFailed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(emailHash)
        w.optionalString(userId?.rawValue)
        w.optionalString(origin)
    }

    /// Reads a stored `SignInFailed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        if opener.version == 1 {
            self.init(emailHash: opener.emailHash(try r.string()))
        } else {
            self.init(
                emailHash: try r.string(), userId: try r.optionalString().map(UserID.init),
                origin: opener.version >= 3 ? try r.optionalString() : nil)
        }
    }

    /// A one-line human summary of a `SignInFailed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "failed sign-in" + (userId.map { " for \(name($0))" } ?? " (unknown email \(emailHash.prefix(8))…)")
    }
}

extension Decider {
    /// A failed sign-in is recorded (for audit and the rate limit) only for an address some
    /// account could have, and at most `SignInPolicy.maxFailures` times per email per window:
    /// past that every try is refused with `rate_limited` and appends nothing. An address no
    /// account can have is answered like any wrong one and recorded nowhere.
    /// `app`: the OAuth app asking (its id, secret and the scopes it asks for), whose token
    /// this is (Mastodon's password grant).
    /// `hasCode`: the sign-in gave a one-time code (`prepare` checked it), which an account
    /// with two-factor sign-in needs.
    func signIn(
        email raw: String, hasCode: Bool = false, app: (id: String, credential: AppCredential, scopes: String?)? = nil
    ) throws -> Decision {
        let client = try app.map { try authenticatedApp($0.id, $0.credential, scopes: $0.scopes) }
        let user: UserID
        let codeUsed: [Event]
        switch try verifiedSignIn(email: raw, hasCode: hasCode) {
        case .failure(let refused): return refused.decision
        case .success(let verified): (user, codeUsed) = verified
        }
        guard let token = context.prepared.newToken else { throw TimelineError(.internal, "no session token was made") }
        let event = SignedIn(
            userId: user, sessionHash: context.hashToken(token),
            expiresAt: context.now + context.sessionLifetime, appId: client?.app.id, scopes: client?.scopes)
        return Decision(
            events: [.signedIn(event)] + codeUsed, outcome: .success(.session(token: token, user: user)), actor: user)
    }

    /// Checks an email and password as `signIn` does — the same failure limit, a failure
    /// recorded the same — but starts no session: answers the user and appends nothing. For a
    /// page that needs the person's say-so once (the OAuth authorize page), where a session
    /// left behind by an abandoned flow would be a live credential nobody asked for.
    /// A one-time code it spends is recorded, as at a sign-in.
    func checkSignIn(email raw: String, hasCode: Bool = false) throws -> Decision {
        switch try verifiedSignIn(email: raw, hasCode: hasCode) {
        case .failure(let refused): return refused.decision
        case .success(let (user, codeUsed)):
            return Decision(events: codeUsed, outcome: .success(.user(user)), actor: user)
        }
    }

    /// The user whose email is `raw` and whose password `prepare` verified, with the events of
    /// the one-time code it spent (`secondFactor`), or the decision that refuses the attempt
    /// (recording it, under the failure limit).
    private func verifiedSignIn(email raw: String, hasCode: Bool) throws -> Result<(UserID, [Event]), RefusedSignIn> {
        guard let email = try? Validation.email(raw) else {
            throw TimelineError(.invalidCredentials, "wrong email or password")
        }
        let emailHash = context.hashEmail(email)
        let failures = try state.signInFailures(
            limiterKey: SignInFailed.limiterKey(emailHash: emailHash, origin: context.prepared.origin),
            since: context.now - SignInPolicy.window)
        guard failures < SignInPolicy.maxFailures else {
            throw TimelineError(
                .rateLimited, "too many failed sign-ins for this email from here; try again later", field: "email")
        }
        guard let user = context.prepared.verifiedUser, try state.userID(email: email) == user else {
            let failed = SignInFailed(
                emailHash: emailHash, userId: try state.userID(email: email),
                origin: context.prepared.origin)
            let refusal = TimelineError(.invalidCredentials, "wrong email or password")
            return .failure(
                RefusedSignIn(
                    decision: Decision(
                        events: [.signInFailed(failed)],
                        outcome: .failure(refusal))))
        }
        guard try state.user(user)?.suspended != true else {
            throw TimelineError(.forbidden, "this account is suspended")
        }
        return try secondFactor(of: user, hasCode: hasCode, emailHash: emailHash).map { (user, $0) }
    }

    func signOut(_ token: String) throws -> Decision {
        let hash = context.hashToken(token)
        guard let session = try state.session(hash: hash), session.expiresAt > context.now else {
            throw TimelineError(.unauthenticated, "the session is not valid")
        }
        return Decision(
            events: [.signedOut(SignedOut(userId: session.user, sessionHash: hash))], outcome: .success(.done),
            actor: session.user)
    }

    /// Ends every session and reset token of `me`, wherever it was signed in ("log out of all
    /// sessions"): after a lost phone, or to start afresh.
    func signOutEverywhere(by me: UserRecord) throws -> Decision {
        Decision(events: [.signedOutEverywhere(SignedOutEverywhere(userId: me.id))], outcome: .success(.done))
    }
}

/// A refused sign-in: the decision that records it.
struct RefusedSignIn: Error {
    let decision: Decision
}

// MARK: - Commands

/// `signOut`: ends the session with this token.
package struct SignOutCommand: OneFieldCommand {
    /// The command's public name, `signOut`, and its one field, `session`.
    package static let name = "signOut", field = "session"
    /// The `needsActor` field.
    package static let needsActor = false
    /// The `session` field, raw user input.
    package let value: String

    /// A `signOut` command naming `session` `value`.
    package init(value: String) { self.value = value }

    /// Decides `signOut` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.signOut(value)
    }
}

extension Command {
    /// Ends the session with this token.
    public static func signOut(session: String) -> Command { Command(SignOutCommand(value: session)) }
}

/// `signIn`: starts a session (answers its token, shown once).
package struct SignInCommand: CommandDefinition {
    /// The command's public name, `signIn`.
    package static let name = "signIn"
    /// The `needsActor` field.
    package static let needsActor = false
    /// The `email` field.
    package let email: String
    /// The `password` field.
    package let password: String
    /// For an OAuth app's token (Mastodon's password grant, or a sign-up through an app): its
    /// id, its secret or its own token (`issueAppToken`), and the scopes asked.
    package let app: String?
    /// The `clientSecret` field.
    package let clientSecret: String?
    /// The `appToken` field.
    package let appToken: String?
    /// The `scopes` field.
    package let scopes: String?
    /// The `code` field: a one-time code from the account's authenticator, or a recovery code.
    package let code: String?

    /// A `signIn` command with these fields.
    package init(
        email: String, password: String, app: String? = nil, clientSecret: String? = nil, appToken: String? = nil,
        scopes: String? = nil, code: String? = nil
    ) {
        self.email = email
        self.password = password
        self.app = app
        self.clientSecret = clientSecret
        self.appToken = appToken
        self.scopes = scopes
        self.code = code
    }

    /// Reads `signIn`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        email = try fields.string("email")
        password = try fields.string("password")
        app = try fields.optionalString("app")
        clientSecret = try fields.optionalString("clientSecret")
        appToken = try fields.optionalString("appToken")
        scopes = try fields.optionalString("scopes")
        code = try fields.optionalString("code")
    }

    /// Writes `signIn`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("email", email)
        fields.set("password", password)
        fields.set("app", app)
        fields.set("clientSecret", clientSecret)
        fields.set("appToken", appToken)
        fields.set("scopes", scopes)
        fields.set("code", code)
    }

    /// Decides `signIn` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.signIn(
            email: email, hasCode: code != nil,
            app: app.map { ($0, appToken.map(AppCredential.token) ?? .secret(clientSecret ?? ""), scopes) })
    }
}

extension Command {
    /// Starts a session (answers its token, shown once).
    public static func signIn(email: String, password: String) -> Command {
        Command(SignInCommand(email: email, password: password))
    }

    /// Starts a session for an account with two-factor sign-in: `code` is a one-time code
    /// from its authenticator, or one of its recovery codes.
    public static func signIn(email: String, password: String, code: String) -> Command {
        Command(SignInCommand(email: email, password: password, code: code))
    }

    /// Issues an OAuth app's token for a person's email and password (Mastodon's password
    /// grant): `app` and `clientSecret` authenticate the app, `scopes` (space-separated; all
    /// of the app's when nil) are what the token may do; `code`, a one-time code, for an
    /// account with two-factor sign-in.
    public static func signIn(
        email: String, password: String, app: String, clientSecret: String, scopes: String?, code: String? = nil
    ) -> Command {
        Command(
            SignInCommand(
                email: email, password: password, app: app, clientSecret: clientSecret, scopes: scopes, code: code))
    }

    /// Issues an OAuth app's token for a person who just signed up through it: the app proves
    /// itself with its own token (`issueAppToken`) instead of its secret.
    public static func signIn(email: String, password: String, app: String, appToken: String, scopes: String?)
        -> Command
    {
        Command(SignInCommand(email: email, password: password, app: app, appToken: appToken, scopes: scopes))
    }
}

/// `checkSignIn`: checks an email and password as `signIn` does, starting no session (the
/// OAuth authorize page's sign-in); answers the user.
package struct CheckSignInCommand: CommandDefinition {
    /// The command's public name, `checkSignIn`.
    package static let name = "checkSignIn"
    /// The `needsActor` field.
    package static let needsActor = false
    /// The `email` field.
    package let email: String
    /// The `password` field.
    package let password: String
    /// The `code` field: a one-time code, for an account with two-factor sign-in.
    package let code: String?

    /// A `checkSignIn` command with these fields.
    package init(email: String, password: String, code: String? = nil) {
        self.email = email
        self.password = password
        self.code = code
    }

    /// Reads `checkSignIn`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        email = try fields.string("email")
        password = try fields.string("password")
        code = try fields.optionalString("code")
    }

    /// Writes `checkSignIn`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("email", email)
        fields.set("password", password)
        fields.set("code", code)
    }

    /// Decides `checkSignIn` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.checkSignIn(email: email, hasCode: code != nil)
    }
}

extension Command {
    /// Checks a person's email and password as `signIn` does (the same limit; a failure is
    /// recorded the same) without starting a session: answers the user, appends nothing.
    public static func checkSignIn(email: String, password: String, code: String? = nil) -> Command {
        Command(CheckSignInCommand(email: email, password: password, code: code))
    }
}

/// `signOutEverywhere`: ends every session of the acting user, this one too, and their reset tokens.
package struct SignOutEverywhereCommand: CommandDefinition {
    /// The command's public name, `signOutEverywhere`.
    package static let name = "signOutEverywhere"

    /// A `signOutEverywhere` command with these fields.
    package init() {}
    /// Reads `signOutEverywhere`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {}
    /// Writes `signOutEverywhere`'s fields.
    package func encode(to fields: inout CommandJSON) {}

    /// Decides `signOutEverywhere` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.signOutEverywhere(by: $0) }
    }
}

extension Command {
    /// Ends every session of the acting user, this one too, and their reset tokens.
    public static var signOutEverywhere: Command { Command(SignOutEverywhereCommand()) }
}

// MARK: - JSON Schemas of the payloads

extension SignedIn {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "Version 3 adds the authorization code an OAuth token redeemed; a first-party session is encoded exactly "
        + "as version 1."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "appId": "The OAuth app the token was issued to (absent for a first-party session).",
        "scopes": "The scopes the token holds (absent for a first-party session, which may do everything).",
        "authorizationHash": "The hash of the authorization code (AppAuthorized) this token redeemed."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "sessionHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$"),
        "authorizationHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$")
    ]
    /// Rules across members.
    public static let schemaKeywords: [String: JSONValue] = [
        "dependentRequired": ["appId": ["scopes"], "scopes": ["appId"], "authorizationHash": ["appId"]]
    ]
}

extension SignedOut {
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "sessionHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$")
    ]
}

extension SignInFailed {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "The email is recorded only as a keyed hash (hex), with the user's id when the email belongs to one, and a "
        + "keyed hash of the attempt's origin when known: failures are limited per email and origin."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "origin": "Keyed hash (hex) of where the attempt came from (an HTTP client's address); absent for local tools."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "emailHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$"),
        "origin": JSONSchema.string(pattern: "^[0-9a-f]{64}$")
    ]
}

// MARK: - JSON Schemas of the commands

extension CheckSignInCommand {
    /// The caller proves itself by the command's own fields: no `as` or `session`.
    package static let schemaTakesCaller = false
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Checks an email and password as signIn does (the same failure limit; a failure recorded as SignInFailed) "
        + "without starting a session: answers the user and appends nothing (the OAuth authorize page's sign-in)."
}

extension SignInCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "app": "An OAuth app's client_id: the token is that app's (Mastodon's password grant).",
        "clientSecret": "The app's client secret.",
        "scopes": "The scopes asked, space-separated (all of the app's when absent).",
        "appToken": "Instead of clientSecret: the app's own token (issueAppToken), for a person who just signed "
            + "up through it.",
        "code": "A one-time code from the account's authenticator (or one of its recovery codes): needed when the "
            + "account has two-factor sign-in on (without it: 401 two_factor_required)."
    ]
    /// Rules across fields.
    package static let schemaKeywords: [String: JSONValue] = [
        "dependentRequired": ["app": ["clientSecret"], "clientSecret": ["app"], "scopes": ["app"]]
    ]
}

extension SignOutCommand {
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "session": JSONSchema.string
    ]
}
