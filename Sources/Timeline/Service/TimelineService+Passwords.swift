import Foundation
import Sodium
import TimelineDomain

/// Passwords and session tokens: argon2id hashing and verification on the password threads,
/// with every limit a password attempt is under checked before argon2id's work is spent on it.
extension TimelineService {
    /// Checks `command` as deciding it will, then hashes its new `password`: argon2id's cost is
    /// spent only on a command that can succeed.
    func precheckAndHash(_ command: Command, _ password: String, _ prepared: inout Prepared) async throws(TimelineError)
    {
        let context = decisionContext()
        try read { view in try precheck(command, state: view, context: context) }
        prepared.passwordHash = try await hashPassword(password)
    }

    /// Refuses with `rate_limited` a password attempt for the account of `emailHash` from
    /// `origin` once it has failed `SignInPolicy.maxFailures` times in the window: such an
    /// attempt would be refused by deciding, so it is not worth argon2id's work.
    static func refuseOverFailureLimit(
        emailHash: String, origin: String?, _ view: ReadView, now: Int64, field: String? = nil
    ) throws {
        let failures = try view.signInFailures(
            limiterKey: SignInFailed.limiterKey(emailHash: emailHash, origin: origin),
            since: now - SignInPolicy.window)
        guard failures < SignInPolicy.maxFailures else {
            throw TimelineError(
                .rateLimited, "too many failed password checks for this account from here; try again later",
                field: field)
        }
    }

    /// argon2id of `password` at the configured cost, on the password threads.
    func hashPassword(_ password: String) async throws(TimelineError) -> String {
        let hash = options.hashPassword, cost = options.passwordCost
        guard let hashed = try await passwordWork.run({ hash(password, cost) }) else {
            throw TimelineError(.internal, "password hashing ran out of memory")
        }
        return hashed
    }

    /// For `signIn`: verifies `password` against the stored hash of the user with `email` (a
    /// decoy's when there is none, so timing does not tell) and, when it matches, records the
    /// user and a new session token. An attempt over the failure limit costs no argon2 work.
    func verifySignIn(email: String, password: String, origin: String?, _ prepared: inout Prepared)
        async throws(TimelineError)
    {
        let email = email.lowercased()
        let stored = try read { view -> UserRecord? in
            if let valid = try? Validation.email(email) {
                try Self.refuseOverFailureLimit(
                    emailHash: registry.hashEmail(valid), origin: origin, view, now: options.clock.nowMilliseconds(),
                    field: "email")
            }
            return try view.userID(email: email).flatMap { try view.user($0) }
        }
        // Verify against a decoy when the email is unknown, so timing does not tell.
        let hash = stored?.passwordHash ?? decoyPasswordHash
        let verify = options.verifyPassword
        let matches = try await passwordWork.run { verify(password, hash) }
        if matches, let stored, stored.passwordHash != nil {
            prepared.verifiedUser = stored.id
            prepared.newToken = Self.newToken()
        }
    }

    /// For `changePassword`, `changeEmail` and `eraseUser`: verifies `password` against the
    /// acting user's stored hash and records whom and which hash it matched. A caller that is
    /// not a live session or user costs no argon2 work (deciding then refuses it), nor does one
    /// over the failure limit.
    func verifyPassword(_ password: String, of actor: Actor, origin: String?, _ prepared: inout Prepared)
        async throws(TimelineError)
    {
        let now = options.clock.nowMilliseconds()
        let user = try read { view -> UserRecord? in
            let user = try Self.actingUser(actor, view, now: now).flatMap { try view.user($0) }
            if let emailHash = user?.emailHash {
                try Self.refuseOverFailureLimit(emailHash: emailHash, origin: origin, view, now: now)
            }
            return user
        }
        let verify = options.verifyPassword
        guard let user, let hash = user.passwordHash, try await passwordWork.run({ verify(password, hash) }) else {
            return
        }
        prepared.verifiedUser = user.id
        prepared.verifiedPasswordHash = hash
    }

    /// The user `actor` acts as (a live session's, at `now`), or `nil` (deciding then refuses).
    static func actingUser(_ actor: Actor, _ view: ReadView, now: Int64) throws -> UserID? {
        switch actor {
        case .user(let id): return id
        case .session(let hash):
            guard let session = try view.session(hash: hash), session.expiresAt > now else { return nil }
            return session.user
        case .operator, .anonymous: return nil
        }
    }

    /// A new session token: 256 random bits, base64url.
    static func newToken() -> String { Sodium.randomToken(32) }

    /// Hex BLAKE2b of a session token: sessions are stored and looked up by it, never by the token.
    static func hashToken(_ token: String) -> String { hex(Sodium.hash(Array(token.utf8))) }
}

extension TimelineService {
    /// The token of a reset mailed by `requestPasswordResetByEmail`, recomputed from its nonce
    /// under the key store's secret (`SignInPolicy.resetToken`): for the mailer, which never
    /// stores it.
    public func passwordResetToken(nonce: String) -> String {
        SignInPolicy.resetToken(nonce: nonce, hashEmail: registry.hashEmail)
    }

    /// Whether the reset token with this hash can still set a password (issued, unspent, not
    /// revoked by a later password change, not expired).
    public func passwordResetIsOpen(tokenHash: String) throws(TimelineError) -> Bool {
        let now = options.clock.nowMilliseconds()
        return try read { view in try view.passwordReset(hash: tokenHash).map { $0.expiresAt > now } ?? false }
    }
}
