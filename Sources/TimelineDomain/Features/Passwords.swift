import Foundation
import JSONModel

// Passwords and email: `requestPasswordReset` (operators only) records
// `PasswordResetRequested`; `resetPassword` and `changePassword` record `PasswordChanged`;
// `changeEmail` records `EmailChanged`. A wrong current password counts as a failed sign-in.

/// A one-time token to set a password was issued (to the user, or by an operator for an
/// imported account that has none). Only the token's hash is recorded. One asked for by email
/// (`requestPasswordResetByEmail`, version 2) also records, sealed with the user's key, where it
/// is mailed and the nonce its token is derived from (`SignInPolicy.resetToken`): the mailer
/// recomputes the token, and after an erasure neither can be read back.
public struct PasswordResetRequested: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// Hex BLAKE2b-256 of the token; the token itself is never recorded.
    public var tokenHash: String
    /// When it expires (ms since 1970).
    public var expiresAt: Int64
    /// The (lowercased) email the token is mailed to; `nil` for an operator's token, or once the
    /// user is erased.
    public var email: String?
    /// The nonce the mailed token is derived from (`nil` as `email`).
    public var nonce: String?
    /// A `PasswordResetRequested` payload.
    public init(userId: UserID, tokenHash: String, expiresAt: Int64, email: String? = nil, nonce: String? = nil) {
        self.userId = userId
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
        self.email = email
        self.nonce = nonce
    }
}

extension PasswordResetRequested: EventPayload {
    /// New `PasswordResetRequested` events are written at version 2 (with the sealed mailing).
    package static var currentVersion: UInt8 { 2 }
    /// The aggregate `PasswordResetRequested` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `PasswordResetRequested` payload names: `userId`.
    package var users: [UserID] { [userId] }

    /// Writes a `PasswordResetRequested` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(tokenHash)
        w.int64(expiresAt)
        try sealer.seal(userId, into: &w) {
            $0.optionalString(email)
            $0.optionalString(nonce)
        }
    }

    /// Reads a stored `PasswordResetRequested` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let id = UserID(try r.string()), hash = try r.string(), expiresAt = try r.int64()
        guard opener.version >= 2 else {
            self.init(userId: id, tokenHash: hash, expiresAt: expiresAt)
            return
        }
        let mailing = try opener.personal(id, from: &r) {
            (email: try $0.optionalString(), nonce: try $0.optionalString())
        }
        self.init(userId: id, tokenHash: hash, expiresAt: expiresAt, email: mailing?.email, nonce: mailing?.nonce)
    }

    /// A one-line human summary of a `PasswordResetRequested` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "password reset token issued for \(name(userId))" + (nonce == nil ? "" : " (to be mailed)")
    }

    /// The email and the nonce are left out once the user is erased.
    package static var erasedMembers: [String] { ["email", "nonce"] }
}

/// A password was set, with a reset token (and, optionally, the account's email) or with the
/// current password. Every session and reset token the user had before it ends. Version 2 may
/// have no reset token (a change with the current password).
public struct PasswordChanged: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// The argon2id hash (never the password; redacted in every JSON form).
    public var passwordHash: String?
    /// The email (lowercased).
    public var email: String?
    /// The reset token used (now spent); `nil` when the current password was given instead.
    public var resetTokenHash: String?
    /// A `PasswordChanged` payload.
    public init(userId: UserID, passwordHash: String?, email: String?, resetTokenHash: String?) {
        self.userId = userId
        self.passwordHash = passwordHash
        self.email = email
        self.resetTokenHash = resetTokenHash
    }
}

extension PasswordChanged: EventPayload {
    /// New `PasswordChanged` events are written at version 2.
    package static var currentVersion: UInt8 { 2 }
    /// The aggregate `PasswordChanged` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `PasswordChanged` payload names: `userId`.
    package var users: [UserID] { [userId] }

    /// Writes a `PasswordChanged` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.optionalString(resetTokenHash)
        try sealer.seal(userId, into: &w) {
            $0.optionalString(passwordHash)
            $0.optionalString(email)
        }
    }

    /// Reads a stored `PasswordChanged` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        // v1 always named the reset token used; v2 may not (a change with the current password).
        let id = UserID(try r.string()), reset = opener.version == 1 ? try r.string() : try r.optionalString()
        let personal = try opener.personal(id, from: &r) {
            (hash: try $0.optionalString(), email: try $0.optionalString())
        }
        self.init(userId: id, passwordHash: personal?.hash, email: personal?.email, resetTokenHash: reset)
    }

    /// A one-line human summary of a `PasswordChanged` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) " + (resetTokenHash == nil ? "changed their password" : "set a password with a reset token")
            + (email == nil ? "" : " and email") + "; every session ended"
    }

    /// The password hash is left out once the user is erased.
    package static var erasedMembers: [String] { ["passwordHash"] }

    /// The JSON form: the fields as they are, but the password hash always `Event.redacted`
    /// (or null when there is none).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userId, forKey: .userId)
        try c.encode(Nullable(passwordHash.map { _ in Event.redacted }), forKey: .passwordHash)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encodeIfPresent(resetTokenHash, forKey: .resetTokenHash)
    }
}

/// A user changed their email (giving their password). The old email is free again.
public struct EmailChanged: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// Lowercased; `nil` only when read back after the user was erased.
    public var email: String?
    /// An `EmailChanged` payload.
    public init(userId: UserID, email: String?) {
        self.userId = userId
        self.email = email
    }
}

extension EmailChanged: EventPayload {
    /// The aggregate `EmailChanged` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `EmailChanged` payload names: `userId`.
    package var users: [UserID] { [userId] }

    /// Writes an `EmailChanged` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        try sealer.seal(userId, into: &w) { $0.optionalString(email) }
    }

    /// Reads a stored `EmailChanged` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let id = UserID(try r.string())
        self.init(userId: id, email: try opener.personal(id, from: &r) { try $0.optionalString() } ?? nil)
    }

    /// A one-line human summary of an `EmailChanged` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) changed their email"
    }
}

extension Decider {
    /// The token is as good as the password: only the operator gets one, and delivers it out
    /// of band (a stolen session must not be able to ask for it).
    func requestPasswordReset(_ user: String, actor: Actor) throws -> Decision {
        let target: UserID = try Validation.identifier(user, field: "user")
        try requireOperator(actor, "issue a password reset token")
        guard try state.user(target) != nil else { throw TimelineError.notFound("user", target.rawValue) }
        guard let token = context.prepared.newToken else { throw TimelineError(.internal, "no token was generated") }
        let event = PasswordResetRequested(
            userId: target, tokenHash: context.hashToken(token), expiresAt: context.now + SignInPolicy.resetLifetime)
        return Decision(events: [.passwordResetRequested(event)], outcome: .success(.token(token)))
    }

    /// "I forgot my password": a reset token for the account with `email`, to be mailed to it.
    /// Anyone may ask, and the answer never says whether the email is known: an unknown email,
    /// or an account that was sent one less than `SignInPolicy.resetInterval` ago, decides
    /// nothing and answers the same. The token is derived from a fresh nonce under the key
    /// store's secret (`SignInPolicy.resetToken`), so only its hash is recorded.
    func requestPasswordResetByEmail(_ email: String) throws -> Decision {
        let quiet = Decision(outcome: .success(.done))
        guard let email = try? Validation.email(email) else {
            throw TimelineError.invalid("email", "not an email address")
        }
        guard let user = try state.userID(email: email), try state.user(user) != nil,
            !(try state.isSuspended(user))
        else { return quiet }
        if let last = try state.lastPasswordResetRequest(user), context.now - last < SignInPolicy.resetInterval {
            return quiet
        }
        let nonce = context.newID()
        let token = SignInPolicy.resetToken(nonce: nonce, hashEmail: context.hashEmail)
        let event = PasswordResetRequested(
            userId: user, tokenHash: context.hashToken(token), expiresAt: context.now + SignInPolicy.resetLifetime,
            email: email, nonce: nonce)
        return Decision(events: [.passwordResetRequested(event)], outcome: .success(.done))
    }

    /// The reset a `resetPassword` uses, its token's hash and the normalised new email, or why
    /// the command fails.
    func passwordReset(token: String, password: String, email: String?) throws -> (
        reset: SessionRecord, hash: String, email: String?
    ) {
        let hash = context.hashToken(token)
        guard let reset = try state.passwordReset(hash: hash), reset.expiresAt > context.now,
            try state.user(reset.user) != nil
        else {
            throw TimelineError(.unauthenticated, "the reset token is not valid or has expired", field: "token")
        }
        try Validation.password(password)
        let email = try email.map(Validation.email)
        if let email, let holder = try state.userID(email: email), holder != reset.user {
            throw TimelineError(.emailTaken, "email is already registered", field: "email")
        }
        return (reset, hash, email)
    }

    func resetPassword(token: String, password: String, email: String?) throws -> Decision {
        let (reset, hash, email) = try passwordReset(token: token, password: password, email: email)
        guard let passwordHash = context.prepared.passwordHash else {
            throw TimelineError(.internal, "password was not hashed")
        }
        let event = PasswordChanged(userId: reset.user, passwordHash: passwordHash, email: email, resetTokenHash: hash)
        return Decision(events: [.passwordChanged(event)], outcome: .success(.user(reset.user)), actor: reset.user)
    }

    /// Checks the password given with `changePassword`, `changeEmail` or `eraseUser` (verified before
    /// deciding) against `me`'s current one. A wrong password counts as a failed sign-in for
    /// the user's email, under the same limit, so a session cannot be used to guess it.
    /// Returns the failure's decision, or `nil` when the password is right.
    func checkPassword(of me: UserRecord) throws -> Decision? {
        let emailHash = me.emailHash
        if let emailHash,
            try state.signInFailures(
                limiterKey: SignInFailed.limiterKey(emailHash: emailHash, origin: context.prepared.origin),
                since: context.now - SignInPolicy.window) >= SignInPolicy.maxFailures
        {
            throw TimelineError(.rateLimited, "too many failed password checks for this account; try again later")
        }
        if let hash = me.passwordHash, context.prepared.verifiedUser == me.id,
            context.prepared.verifiedPasswordHash == hash
        {
            return nil
        }
        return Decision(
            events: emailHash.map {
                [.signInFailed(SignInFailed(emailHash: $0, userId: me.id, origin: context.prepared.origin))]
            } ?? [],
            outcome: .failure(TimelineError(.invalidCredentials, "wrong password")))
    }

    func changePassword(_ newPassword: String, by me: UserRecord) throws -> Decision {
        try Validation.password(newPassword, field: "newPassword")
        if let failure = try checkPassword(of: me) { return failure }
        guard let hash = context.prepared.passwordHash else {
            throw TimelineError(.internal, "password was not hashed")
        }
        let event = PasswordChanged(userId: me.id, passwordHash: hash, email: nil, resetTokenHash: nil)
        return Decision(events: [.passwordChanged(event)], outcome: .success(.user(me.id)))
    }

    func changeEmail(_ email: String, by me: UserRecord) throws -> Decision {
        let email = try Validation.email(email)
        if let failure = try checkPassword(of: me) { return failure }
        guard context.hashEmail(email) != me.emailHash else { return Decision(outcome: .success(.user(me.id))) }
        if try state.userID(email: email) != nil {
            throw TimelineError(.emailTaken, "email is already registered", field: "email")
        }
        return Decision(
            events: [.emailChanged(EmailChanged(userId: me.id, email: email))], outcome: .success(.user(me.id)))
    }
}

// MARK: - Commands

/// `requestPasswordReset`: issues a one-time token to set `user`'s password. Only an operator may ask (and then delivers the token out of band): a user, or a session, is refused with `forbidden`.
package struct RequestPasswordResetCommand: OneFieldCommand {
    /// The command's public name, `requestPasswordReset`, and its one field, `user`.
    package static let name = "requestPasswordReset", field = "user"
    /// The `user` field, raw user input.
    package let value: String

    /// A `requestPasswordReset` command naming `user` `value`.
    package init(value: String) { self.value = value }

    /// Decides `requestPasswordReset` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.requestPasswordReset(value, actor: actor)
    }
}

extension Command {
    /// Issues a one-time token to set `user`'s password. Only an operator may ask (and then delivers the token out of band): a user, or a session, is refused with `forbidden`.
    public static func requestPasswordReset(user: String) -> Command {
        Command(RequestPasswordResetCommand(value: user))
    }
}

/// `requestPasswordResetByEmail`: "I forgot my password". Mails a one-hour reset link to the account with `email`, if there is one and it was not sent one in the last 10 minutes; the answer is the same either way.
package struct RequestPasswordResetByEmailCommand: OneFieldCommand {
    /// The command's public name, `requestPasswordResetByEmail`, and its one field, `email`.
    package static let name = "requestPasswordResetByEmail", field = "email"
    /// Anyone may ask: no acting user.
    package static let needsActor = false
    /// The one field is a string (an email, checked when deciding).
    package static var memberSchemas: [String: JSONSchema] { [field: .string] }
    /// The `email` field, raw user input.
    package let value: String

    /// A `requestPasswordResetByEmail` command naming `email` `value`.
    package init(value: String) { self.value = value }

    /// Decides `requestPasswordResetByEmail`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.requestPasswordResetByEmail(value)
    }
}

extension Command {
    /// "I forgot my password": mails a reset link to the account with `email`, if any (the answer never says).
    public static func requestPasswordResetByEmail(email: String) -> Command {
        Command(RequestPasswordResetByEmailCommand(value: email))
    }
}

/// `resetPassword`: sets a password (and optionally the email) with a reset token. Ends every session and every other reset token of the user.
package struct ResetPasswordCommand: CommandDefinition {
    /// The command's public name, `resetPassword`.
    package static let name = "resetPassword"
    /// The `needsActor` field.
    package static let needsActor = false
    /// The `token` field.
    package let token: String
    /// The `password` field.
    package let password: String
    /// The `email` field.
    package let email: String?

    /// A `resetPassword` command with these fields.
    package init(token: String, password: String, email: String?) {
        self.token = token
        self.password = password
        self.email = email
    }

    /// Reads `resetPassword`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        token = try fields.string("token")
        password = try fields.string("password")
        email = try fields.optionalString("email")
    }

    /// Writes `resetPassword`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("token", token)
        fields.set("password", password)
        fields.set("email", email)
    }

    /// Decides `resetPassword` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.resetPassword(token: token, password: password, email: email)
    }

    /// Checks what deciding `resetPassword` will check, before argon2id is spent on it.
    package func precheck<State: DecisionState>(_ decider: Decider<State>) throws {
        _ = try decider.passwordReset(token: token, password: password, email: email)
    }
}

extension Command {
    /// Sets a password (and optionally the email) with a reset token. Ends every session and every other reset token of the user.
    public static func resetPassword(token: String, password: String, email: String?) -> Command {
        Command(ResetPasswordCommand(token: token, password: password, email: email))
    }
}

/// `changePassword`: changes the acting user's password; needs the current one. Ends every session (this one too) and every reset token of the user.
package struct ChangePasswordCommand: CommandDefinition {
    /// The command's public name, `changePassword`.
    package static let name = "changePassword"
    /// The `currentPassword` field.
    package let currentPassword: String
    /// The `newPassword` field.
    package let newPassword: String

    /// A `changePassword` command with these fields.
    package init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }

    /// Reads `changePassword`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        currentPassword = try fields.string("currentPassword")
        newPassword = try fields.string("newPassword")
    }

    /// Writes `changePassword`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("currentPassword", currentPassword)
        fields.set("newPassword", newPassword)
    }

    /// Decides `changePassword` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.changePassword(newPassword, by: $0) }
    }
}

extension Command {
    /// Changes the acting user's password; needs the current one. Ends every session (this one too) and every reset token of the user.
    public static func changePassword(currentPassword: String, newPassword: String) -> Command {
        Command(ChangePasswordCommand(currentPassword: currentPassword, newPassword: newPassword))
    }
}

/// `changeEmail`: changes the acting user's email; needs their password.
package struct ChangeEmailCommand: CommandDefinition {
    /// The command's public name, `changeEmail`.
    package static let name = "changeEmail"
    /// The `password` field.
    package let password: String
    /// The `email` field.
    package let email: String

    /// A `changeEmail` command with these fields.
    package init(password: String, email: String) {
        self.password = password
        self.email = email
    }

    /// Reads `changeEmail`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        password = try fields.string("password")
        email = try fields.string("email")
    }

    /// Writes `changeEmail`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("password", password)
        fields.set("email", email)
    }

    /// Decides `changeEmail` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.changeEmail(email, by: $0) }
    }
}

extension Command {
    /// Changes the acting user's email; needs their password.
    public static func changeEmail(password: String, email: String) -> Command {
        Command(ChangeEmailCommand(password: password, email: email))
    }
}

// MARK: - JSON Schemas of the payloads

extension PasswordResetRequested {
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "tokenHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$"),
        "email": JSONSchema.string.with("maxLength", 254)
    ]
}

extension PasswordChanged {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A password set with a reset token (resetTokenHash, spent) or with the current password (no "
        + "resetTokenHash); every session and reset token the user had before it ends. passwordHash and email "
        + "are sealed with the user's key; passwordHash is always redacted in JSON; both are absent once the "
        + "user is erased."
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "resetTokenHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$"),
        "email": JSONSchema.string.with("maxLength", 254),
        "passwordHash": JSONSchema(["anyOf": [JSONSchema.constant(.string(Event.redacted)).json, JSONSchema.null.json]])
    ]
}

extension EmailChanged {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A user changed their email, giving their password; the old email is free again. The email is sealed with "
        + "the user's key: in JSON it appears in clear, or is absent once the user is erased (the envelope then "
        + "has \"erased\": true)."
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "email": JSONSchema.string.with("maxLength", 254)
    ]
}

// MARK: - JSON Schemas of the commands

extension ChangeEmailCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Changes the acting user's email; a wrong password gives invalid_credentials, an email held by someone "
        + "else email_taken."
}

extension ChangePasswordCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Changes the acting user's password; a wrong currentPassword gives invalid_credentials. Ends every session "
        + "(this one too) and every reset token of the user."
}
