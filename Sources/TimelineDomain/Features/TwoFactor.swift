import JSONModel

// Two-factor sign-in (RFC 6238 one-time codes, as authenticator apps make them):
// `enrollTwoFactor` records `TwoFactorEnrolled` (a new secret, not in force until confirmed),
// `confirmTwoFactor` records `TwoFactorConfirmed` (the first code's time step and the recovery
// codes' hashes), `disableTwoFactor` records `TwoFactorDisabled`; a sign-in, an OAuth
// authorization or a turning-off that a code proves records `TwoFactorCodeUsed`, so a code
// counts once.
//
// The secret is in no event and no read model: it is derived from the account's own key (the
// key that seals its personal fields) and the enrolment's nonce, which is all the log records
// (`TwoFactorSecret` in the service). Erasing the account destroys the key, and the secret with it.

/// The payload of `TwoFactorEnrolled`: a new secret for `userId`'s authenticator, waiting for
/// its first code. It replaces an unconfirmed one; it is not asked for at sign-in until confirmed.
public struct TwoFactorEnrolled: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// The random nonce the secret is derived from (with the account's key).
    public var nonce: String
    /// A `TwoFactorEnrolled` payload.
    public init(userId: UserID, nonce: String) {
        self.userId = userId
        self.nonce = nonce
    }
}

extension TwoFactorEnrolled: EventPayload {
    /// The aggregate `TwoFactorEnrolled` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `TwoFactorEnrolled` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `TwoFactorEnrolled` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(nonce)
    }
    /// Reads a stored `TwoFactorEnrolled` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), nonce: try r.string())
    }
    /// A one-line human summary of a `TwoFactorEnrolled` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) began enrolling an authenticator"
    }
}

/// The payload of `TwoFactorConfirmed`: the pending secret is in force from now, proven by a
/// first code (of time step `step`, which cannot be used again), with ten recovery codes.
public struct TwoFactorConfirmed: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// The time step (Unix time / 30 s) of the code that confirmed it.
    public var step: Int64
    /// Hex BLAKE2b-256 of each single-use recovery code; the codes are shown once, never recorded.
    public var recoveryCodeHashes: [String]
    /// A `TwoFactorConfirmed` payload.
    public init(userId: UserID, step: Int64, recoveryCodeHashes: [String]) {
        self.userId = userId
        self.step = step
        self.recoveryCodeHashes = recoveryCodeHashes
    }
}

extension TwoFactorConfirmed: EventPayload {
    /// The aggregate `TwoFactorConfirmed` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `TwoFactorConfirmed` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `TwoFactorConfirmed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.int64(step)
        w.strings(recoveryCodeHashes)
    }
    /// Reads a stored `TwoFactorConfirmed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), step: try r.int64(), recoveryCodeHashes: try r.strings())
    }
    /// A one-line human summary of a `TwoFactorConfirmed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) turned two-factor sign-in on"
    }
}

/// The payload of `TwoFactorCodeUsed`: a one-time code of `userId`'s proved a sign-in (or
/// another check) and cannot prove another: a time step's code (`step`), or a recovery code
/// (`recoveryCodeHash`), exactly one of them.
public struct TwoFactorCodeUsed: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// The time step of the authenticator's code used: it and every earlier one are spent.
    public var step: Int64?
    /// Hex BLAKE2b-256 of the recovery code used: it is spent.
    public var recoveryCodeHash: String?
    /// A `TwoFactorCodeUsed` payload.
    public init(userId: UserID, step: Int64? = nil, recoveryCodeHash: String? = nil) {
        self.userId = userId
        self.step = step
        self.recoveryCodeHash = recoveryCodeHash
    }
}

extension TwoFactorCodeUsed: EventPayload {
    /// The aggregate `TwoFactorCodeUsed` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `TwoFactorCodeUsed` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `TwoFactorCodeUsed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.u8(step == nil ? 0 : 1)
        if let step { w.int64(step) }
        w.optionalString(recoveryCodeHash)
    }
    /// Reads a stored `TwoFactorCodeUsed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let user = UserID(try r.string())
        let step = try r.u8() == 0 ? nil : try r.int64()
        self.init(userId: user, step: step, recoveryCodeHash: try r.optionalString())
    }
    /// A one-line human summary of a `TwoFactorCodeUsed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) used " + (recoveryCodeHash == nil ? "a one-time code" : "a recovery code")
    }
}

/// The payload of `TwoFactorDisabled`: `userId` signs in with their password alone again (the
/// secret and the recovery codes are forgotten).
public struct TwoFactorDisabled: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// A `TwoFactorDisabled` payload.
    public init(userId: UserID) { self.userId = userId }
}

extension TwoFactorDisabled: EventPayload {
    /// The aggregate `TwoFactorDisabled` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `TwoFactorDisabled` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `TwoFactorDisabled` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws { w.string(userId.rawValue) }
    /// Reads a stored `TwoFactorDisabled` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()))
    }
    /// A one-line human summary of a `TwoFactorDisabled` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) turned two-factor sign-in off"
    }
}

/// A user's two-factor sign-in as deciding sees it.
package struct TwoFactorRecord: Equatable, Sendable {
    /// The enrolment's nonce (the secret is derived from it and the account's key).
    package var nonce: String
    /// Whether a first code confirmed it: only then does sign-in ask for a code.
    package var confirmed: Bool
    /// The latest time step whose code was used (none at or before it is good again).
    package var lastStep: Int64
    /// The hashes of the recovery codes not used yet.
    package var recoveryCodeHashes: [String]

    /// A record with these fields.
    package init(nonce: String, confirmed: Bool = false, lastStep: Int64 = 0, recoveryCodeHashes: [String] = []) {
        self.nonce = nonce
        self.confirmed = confirmed
        self.lastStep = lastStep
        self.recoveryCodeHashes = recoveryCodeHashes
    }
}

/// What the service found of a one-time code before deciding (`Prepared.secondFactor`): the
/// enrolment it was checked against, and the time step it matched or the hash of the recovery
/// code it is (neither: it matched nothing). Deciding accepts it only if that enrolment is
/// still the user's and the code is still unspent.
package struct SecondFactorCheck: Equatable, Sendable {
    /// The nonce of the enrolment the code was checked against.
    package var nonce: String
    /// The time step of the authenticator's code it matched.
    package var step: Int64?
    /// The hash of the recovery code it is (any well-formed one: deciding looks it up).
    package var recoveryCodeHash: String?

    /// A check with these findings.
    package init(nonce: String, step: Int64? = nil, recoveryCodeHash: String? = nil) {
        self.nonce = nonce
        self.step = step
        self.recoveryCodeHash = recoveryCodeHash
    }
}

/// Two-factor sign-in's fixed terms.
package enum TwoFactorPolicy {
    /// How many recovery codes a confirmation gives.
    package static let recoveryCodeCount = 10

    /// A recovery code's normal form, which its hash is of: lower case, without the dashes and
    /// spaces it is shown or typed with; `nil` when it is not 16 base32 letters and digits.
    package static func normalizedRecoveryCode(_ typed: String) -> String? {
        let normal = typed.lowercased().filter { $0 != "-" && $0 != " " }
        guard normal.count == 16, normal.allSatisfy({ ("a"..."z").contains($0) || ("2"..."7").contains($0) }) else {
            return nil
        }
        return normal
    }
}

extension Decider {
    /// Starts enrolling an authenticator for `me`: a new secret (replacing one not yet
    /// confirmed), answered once with its QR code; `conflict` when two-factor sign-in is on.
    func enrollTwoFactor(by me: UserRecord) throws -> Decision {
        if try state.twoFactor(me.id)?.confirmed == true {
            throw TimelineError(.conflict, "two-factor sign-in is on already: turn it off first")
        }
        guard let nonce = context.prepared.newToken else { throw TimelineError(.internal, "no nonce was made") }
        return Decision(
            events: [.twoFactorEnrolled(TwoFactorEnrolled(userId: me.id, nonce: nonce))],
            outcome: .success(.twoFactorEnrollment(me.id)))
    }

    /// Puts `me`'s pending secret in force, proven by a first code from the authenticator;
    /// answers the ten recovery codes (shown once).
    func confirmTwoFactor(by me: UserRecord) throws -> Decision {
        guard let pending = try state.twoFactor(me.id), !pending.confirmed else {
            throw TimelineError(.conflict, "no authenticator waits for its first code: enrol one first")
        }
        guard let check = context.prepared.secondFactor, check.nonce == pending.nonce, let step = check.step,
            step > pending.lastStep
        else {
            throw TimelineError(.invalidCredentials, "the code is not the authenticator's", field: "code")
        }
        guard let codes = context.prepared.recoveryCodes, codes.count == TwoFactorPolicy.recoveryCodeCount else {
            throw TimelineError(.internal, "no recovery codes were made")
        }
        let hashes = try codes.map { code in
            guard let normal = TwoFactorPolicy.normalizedRecoveryCode(code) else {
                throw TimelineError(.internal, "a recovery code made is not well-formed")
            }
            return context.hashToken(normal)
        }
        let confirmed = TwoFactorConfirmed(userId: me.id, step: step, recoveryCodeHashes: hashes)
        return Decision(events: [.twoFactorConfirmed(confirmed)], outcome: .success(.recoveryCodes(codes)))
    }

    /// Turns `me`'s two-factor sign-in off: needs their password and a code (or a recovery code).
    func disableTwoFactor(by me: UserRecord) throws -> Decision {
        guard let factor = try state.twoFactor(me.id), factor.confirmed else {
            throw TimelineError(.conflict, "two-factor sign-in is off")
        }
        if let failure = try checkPassword(of: me) { return failure }
        guard try spentCode(of: me.id, factor) != nil else { return try wrongCode(me.id, emailHash: me.emailHash) }
        return Decision(events: [.twoFactorDisabled(TwoFactorDisabled(userId: me.id))], outcome: .success(.done))
    }

    /// For a sign-in whose password `user`'s was: the events a one-time code adds (it is spent),
    /// or `nil` when the account has no two-factor sign-in. Refuses with `two_factor_required`
    /// (appending nothing) when the sign-in gave no code (`hasCode` false), and with a recorded
    /// failure, counted with wrong passwords, when the code is wrong or spent.
    func secondFactor(of user: UserID, hasCode: Bool, emailHash: String) throws -> Result<[Event], RefusedSignIn> {
        guard let factor = try state.twoFactor(user), factor.confirmed else { return .success([]) }
        guard hasCode else {
            throw TimelineError(
                .twoFactorRequired, "this account signs in with a one-time code from its authenticator too",
                field: "code")
        }
        guard let used = try spentCode(of: user, factor) else {
            return .failure(RefusedSignIn(decision: try wrongCode(user, emailHash: emailHash)))
        }
        return .success([.twoFactorCodeUsed(used)])
    }

    /// The code `prepare` checked, as the event that spends it, when it is good for `factor`:
    /// checked against this enrolment, and a time step after the last one used or an unused
    /// recovery code.
    private func spentCode(of user: UserID, _ factor: TwoFactorRecord) throws -> TwoFactorCodeUsed? {
        guard let check = context.prepared.secondFactor, check.nonce == factor.nonce else { return nil }
        if let step = check.step, step > factor.lastStep { return TwoFactorCodeUsed(userId: user, step: step) }
        if let hash = check.recoveryCodeHash, factor.recoveryCodeHashes.contains(hash) {
            return TwoFactorCodeUsed(userId: user, recoveryCodeHash: hash)
        }
        return nil
    }

    /// A wrong or spent code: refused with `invalid_credentials` on `code`, and recorded as a
    /// failed sign-in (codes are limited as passwords are).
    private func wrongCode(_ user: UserID, emailHash: String?) throws -> Decision {
        Decision(
            events: emailHash.map {
                [.signInFailed(SignInFailed(emailHash: $0, userId: user, origin: context.prepared.origin))]
            } ?? [],
            outcome: .failure(TimelineError(.invalidCredentials, "wrong or spent one-time code", field: "code")))
    }
}

// MARK: - Commands

/// `enrollTwoFactor`: starts enrolling an authenticator app for the acting user.
package struct EnrollTwoFactorCommand: CommandDefinition {
    /// The command's public name, `enrollTwoFactor`.
    package static let name = "enrollTwoFactor"

    /// An `enrollTwoFactor` command.
    package init() {}
    /// Reads `enrollTwoFactor`'s fields (none).
    package init(_ fields: some CommandFields) throws(TimelineError) {}
    /// Writes `enrollTwoFactor`'s fields (none).
    package func encode(to fields: inout CommandJSON) {}

    /// Decides `enrollTwoFactor` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.enrollTwoFactor(by: $0) }
    }
}

/// `confirmTwoFactor`: puts the enrolled authenticator in force with its first code.
package struct ConfirmTwoFactorCommand: OneFieldCommand {
    /// The command's public name, `confirmTwoFactor`, and its one field, `code`.
    package static let name = "confirmTwoFactor", field = "code"
    /// The `code` field: the authenticator's six digits.
    package let value: String

    /// A `confirmTwoFactor` command with the code `value`.
    package init(value: String) { self.value = value }

    /// Decides `confirmTwoFactor` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.confirmTwoFactor(by: $0) }
    }
}

/// `disableTwoFactor`: turns the acting user's two-factor sign-in off.
package struct DisableTwoFactorCommand: CommandDefinition {
    /// The command's public name, `disableTwoFactor`.
    package static let name = "disableTwoFactor"
    /// The `password` field: the acting user's password.
    package let password: String
    /// The `code` field: a code from the authenticator, or a recovery code.
    package let code: String

    /// A `disableTwoFactor` command with these fields.
    package init(password: String, code: String) {
        self.password = password
        self.code = code
    }

    /// Reads `disableTwoFactor`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        password = try fields.string("password")
        code = try fields.string("code")
    }

    /// Writes `disableTwoFactor`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("password", password)
        fields.set("code", code)
    }

    /// Decides `disableTwoFactor` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.disableTwoFactor(by: $0) }
    }
}

extension Command {
    /// Starts enrolling an authenticator app for the acting user (answers its secret, its
    /// `otpauth://` URI and a QR code of it, once).
    public static var enrollTwoFactor: Command { Command(EnrollTwoFactorCommand()) }

    /// Puts the enrolled authenticator in force with its first `code` (answers ten recovery
    /// codes, once).
    public static func confirmTwoFactor(code: String) -> Command { Command(ConfirmTwoFactorCommand(value: code)) }

    /// Turns two-factor sign-in off, with the acting user's `password` and a `code` from the
    /// authenticator (or a recovery code).
    public static func disableTwoFactor(password: String, code: String) -> Command {
        Command(DisableTwoFactorCommand(password: password, code: code))
    }
}

// MARK: - JSON Schemas of the payloads

extension TwoFactorEnrolled {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A new authenticator secret, pending until confirmed: only its nonce is recorded (the secret is derived from it "
        + "and the account's own key, destroyed when the account is erased)."
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = ["nonce": JSONSchema.string.with("minLength", 16)]
}

extension TwoFactorConfirmed {
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "step": JSONSchema.integer.with("minimum", 0),
        "recoveryCodeHashes": JSONSchema.array(of: JSONSchema.string(pattern: "^[0-9a-f]{64}$"))
    ]
}

extension TwoFactorCodeUsed {
    /// Rules across members.
    public static let schemaKeywords: [String: JSONValue] = [
        "oneOf": [["required": ["step"]], ["required": ["recoveryCodeHash"]]]
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "step": JSONSchema.integer.with("minimum", 0),
        "recoveryCodeHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$")
    ]
}

// MARK: - JSON Schemas of the commands

extension ConfirmTwoFactorCommand {
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["code": JSONSchema.string.with("minLength", 1)]
}

extension DisableTwoFactorCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "code": "A code from the authenticator, or one of the recovery codes."
    ]
}
