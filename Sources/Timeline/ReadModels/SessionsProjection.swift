import LMDB
import Sodium
import TimelineDomain

/// Live sessions (OAuth apps' tokens among them) and reset tokens (by token hash), recent
/// failed sign-ins (for rate limiting), the registered OAuth apps, their unredeemed
/// authorization codes and their own tokens.
///
/// A password change (with a reset token or the current password) ends every session and
/// every reset token its user had: each record keeps the log sequence of the event that issued
/// it, the user's last change is kept by sequence too, and a record issued before it is no
/// longer valid. Both come from the log alone, so a rebuild revokes exactly the same ones.
struct SessionsProjection: Projection {
    let name = ProjectionName.sessions
    let sessions: Table<IssuedRecords>
    let signInFailures: Table<SignInFailures>
    let passwordResets: Table<IssuedRecords>
    let credentialChanges: Table<CredentialChanges>
    /// userId → when they last asked for a reset by email (ms): one mail per account per
    /// `SignInPolicy.resetInterval`.
    let resetRequests: Table<CredentialChanges>
    let apps: Table<OAuthApps>
    let authorizations: Table<Authorizations>
    let appTokens: Table<AppTokens>
    /// Push subscriptions by their token's hash, and each user's (to erase them, and to know who has any).
    let pushSubscriptions: Table<PushSubscriptions>
    let pushByUser: Table<Members<UserID, String>>
    /// Each user's two-factor sign-in: its enrolment's nonce (never the secret), whether it is
    /// confirmed, the last time step used and the unused recovery codes' hashes.
    let twoFactor: Table<TwoFactorRecords>
    var databases: [Database] {
        [
            sessions.database, signInFailures.database, passwordResets.database, credentialChanges.database,
            resetRequests.database, apps.database,
            authorizations.database, appTokens.database, pushSubscriptions.database, pushByUser.database,
            twoFactor.database
        ]
    }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        sessions = try Table(env, prefix + "sessions")
        signInFailures = try Table(env, prefix + "signInFailures")
        passwordResets = try Table(env, prefix + "passwordResets")
        credentialChanges = try Table(env, prefix + "credentialChanges")
        resetRequests = try Table(env, prefix + "passwordResetRequests")
        apps = try Table(env, prefix + "oauthApps")
        authorizations = try Table(env, prefix + "oauthAuthorizations")
        appTokens = try Table(env, prefix + "oauthAppTokens")
        pushSubscriptions = try Table(env, prefix + "pushSubscriptions")
        pushByUser = try Table(env, prefix + "pushByUser")
        twoFactor = try Table(env, prefix + "twoFactor")
        handlers = Self.handlers(of: self)
    }

    /// Forgets the push subscription of the token with this hash.
    private func forgetPushSubscription(_ sessionHash: String, _ txn: Transaction) throws {
        guard let subscription = try pushSubscriptions.get(sessionHash, txn) else { return }
        try pushSubscriptions.delete(sessionHash, txn)
        try pushByUser.delete((subscription.user, sessionHash), txn)
    }

    /// The unredeemed authorization code with this hash, unless a password change revoked it.
    func authorization(hash: String, _ txn: Transaction) throws -> AuthorizationRecord? {
        guard let stored = try authorizations.get(hash, txn) else { return nil }
        if let changed = try credentialChanges.get(stored.record.user, txn), stored.issuedAt <= changed { return nil }
        return stored.record
    }

    /// The app token with this hash (expired or not).
    func appToken(hash: String, _ txn: Transaction) throws -> AppTokenRecord? {
        let key = Array(hash.utf8)
        return try txn.withCursor(appTokens.database) { cursor -> AppTokenRecord? in
            guard let (found, value) = try cursor.seek(atLeast: key), Sodium.constantTimeEqual(found, key) else {
                return nil
            }
            return try AppTokens.decode(value)
        }
    }

    /// The reset token with this hash, unless a password change revoked it (expired or not).
    func passwordReset(hash: String, _ txn: Transaction) throws -> SessionRecord? {
        guard let stored = try passwordResets.get(hash, txn) else { return nil }
        return try unrevoked(stored, txn)
    }

    /// The session whose token hashes to `hash`, unless it was ended (expired or not). Tokens
    /// are never compared themselves: the presented token is hashed and the hash looked up; the
    /// stored key is then checked against it in constant time as well.
    func session(hash: String, _ txn: Transaction) throws -> SessionRecord? {
        let key = IssuedRecords.key(hash)
        let stored = try txn.withCursor(sessions.database) { cursor -> IssuedRecords.Value? in
            guard let (found, value) = try cursor.seek(atLeast: key), Sodium.constantTimeEqual(found, key) else {
                return nil
            }
            return try IssuedRecords.decode(value)
        }
        return try stored.flatMap { try unrevoked($0, txn) }
    }

    /// The record, unless its user changed their password after it was issued.
    private func unrevoked(_ stored: IssuedRecords.Value, _ txn: Transaction) throws -> SessionRecord? {
        guard let changed = try credentialChanges.get(stored.record.user, txn) else { return stored.record }
        return stored.issuedAt > changed ? stored.record : nil
    }

    func failures(limiterKey: String, since: Int64, _ txn: Transaction) throws -> Int {
        var count = 0
        let from = SignInFailures.start(limiterKey, at: since)
        try txn.scan(signInFailures.database, prefix: SignInFailures.prefix(limiterKey)) { key, _ in
            if !key.lexicographicallyPrecedes(from) { count += 1 }
            return true
        }
        return count
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.signedIn) { (e: SignedIn, envelope, txn) in
            // A code is good for one token.
            if let redeemed = e.authorizationHash { try projection.authorizations.delete(redeemed, txn) }
            let session = SessionRecord(user: e.userId, expiresAt: e.expiresAt, app: e.appId, scopes: e.scopes)
            try projection.sessions.put(e.sessionHash, (session, envelope.sequence), txn)
        }
        handlers.on(.signedOut) { (e: SignedOut, _, txn) in
            try projection.sessions.delete(e.sessionHash, txn)
            try projection.forgetPushSubscription(e.sessionHash, txn)
        }
        handlers.on(.pushSubscribed) { (e: PushSubscribed, _, txn) in
            try projection.forgetPushSubscription(e.sessionHash, txn)
            // An erased user's subscription reads back without its keys: nothing to push to.
            guard let endpoint = e.endpoint, let p256dh = e.p256dh, let auth = e.auth else { return }
            let subscription = PushSubscriptionRecord(
                user: e.userId, endpoint: endpoint, p256dh: p256dh, auth: auth,
                standard: e.standard, alerts: e.alerts, policy: e.policy)
            try projection.pushSubscriptions.put(e.sessionHash, subscription, txn)
            try projection.pushByUser.put((e.userId, e.sessionHash), (), txn)
        }
        handlers.on(.pushUnsubscribed) { (e: PushUnsubscribed, _, txn) in
            try projection.forgetPushSubscription(e.sessionHash, txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            try projection.resetRequests.delete(e.userId, txn)
            try projection.twoFactor.delete(e.userId, txn)
            for hash in try projection.pushByUser.deleteAll(in: e.userId, txn) {
                try projection.pushSubscriptions.delete(hash, txn)
            }
        }
        handlers.on(.passwordResetRequested) { (e: PasswordResetRequested, envelope, txn) in
            let reset = SessionRecord(user: e.userId, expiresAt: e.expiresAt)
            try projection.passwordResets.put(e.tokenHash, (reset, envelope.sequence), txn)
            if e.nonce != nil { try projection.resetRequests.put(e.userId, UInt64(envelope.timestamp), txn) }
        }
        handlers.on(.passwordChanged) { (e: PasswordChanged, envelope, txn) in
            if let used = e.resetTokenHash { try projection.passwordResets.delete(used, txn) }
            try projection.credentialChanges.put(e.userId, envelope.sequence, txn)
        }
        handlers.on(.signedOutEverywhere) { (e: SignedOutEverywhere, envelope, txn) in
            // Every session and reset token issued before this event ends, as at a password change.
            try projection.credentialChanges.put(e.userId, envelope.sequence, txn)
        }
        handlers.on(.userSuspended) { (e: AccountDecision, envelope, txn) in
            // A suspension ends them too (and the suspended user cannot sign in again).
            try projection.credentialChanges.put(e.userId, envelope.sequence, txn)
        }
        handlers.on(.signInFailed) { (e: SignInFailed, envelope, txn) in
            // Forget failures that have left the window, then record this one.
            let cutoff = SignInFailures.start(e.limiterKey, at: envelope.timestamp - SignInPolicy.window)
            var stale: [[UInt8]] = []
            try txn.scan(projection.signInFailures.database, prefix: SignInFailures.prefix(e.limiterKey)) { key, _ in
                guard key.lexicographicallyPrecedes(cutoff) else { return false }
                stale.append(key)
                return true
            }
            for key in stale { try txn.delete(projection.signInFailures.database, key) }
            try projection.signInFailures.put((e.limiterKey, envelope.timestamp, envelope.sequence), (), txn)
        }
        handlers.on(.twoFactorEnrolled) { (e: TwoFactorEnrolled, _, txn) in
            try projection.twoFactor.put(e.userId, TwoFactorRecord(nonce: e.nonce), txn)
        }
        handlers.on(.twoFactorConfirmed) { (e: TwoFactorConfirmed, _, txn) in
            guard var factor = try projection.twoFactor.get(e.userId, txn) else { return }
            factor.confirmed = true
            factor.lastStep = max(factor.lastStep, e.step)
            factor.recoveryCodeHashes = e.recoveryCodeHashes
            try projection.twoFactor.put(e.userId, factor, txn)
        }
        handlers.on(.twoFactorCodeUsed) { (e: TwoFactorCodeUsed, _, txn) in
            guard var factor = try projection.twoFactor.get(e.userId, txn) else { return }
            if let step = e.step { factor.lastStep = max(factor.lastStep, step) }
            if let used = e.recoveryCodeHash { factor.recoveryCodeHashes.removeAll { $0 == used } }
            try projection.twoFactor.put(e.userId, factor, txn)
        }
        handlers.on(.twoFactorDisabled) { (e: TwoFactorDisabled, _, txn) in
            try projection.twoFactor.delete(e.userId, txn)
        }
        handlers.on(.appRegistered) { (e: AppRegistered, _, txn) in
            try projection.apps.put(e.appId, AppRecord(e), txn)
        }
        handlers.on(.appAuthorized) { (e: AppAuthorized, envelope, txn) in
            try projection.authorizations.put(e.codeHash, (AuthorizationRecord(e), envelope.sequence), txn)
        }
        handlers.on(.appTokenIssued) { (e: AppTokenIssued, _, txn) in
            let token = AppTokenRecord(app: e.appId, scopes: e.scopes, expiresAt: e.expiresAt)
            try projection.appTokens.put(e.tokenHash, token, txn)
        }
        handlers.on(.appTokenRevoked) { (e: AppTokenRevoked, _, txn) in
            try projection.appTokens.delete(e.tokenHash, txn)
        }
        return handlers
    }
}

/// A session or reset token by its token's hash → the record and the log sequence that issued it.
enum IssuedRecords: TableLayout {
    static func key(_ hash: String) -> [UInt8] { Array(hash.utf8) }
    static func encode(_ value: (record: SessionRecord, issuedAt: UInt64)) -> [UInt8] {
        RecordCodec.encode(value.record, issuedAt: value.issuedAt)
    }
    static func decode(_ bytes: [UInt8]) throws -> (record: SessionRecord, issuedAt: UInt64) {
        try RecordCodec.session(bytes)
    }
}

/// A failed sign-in, `limiterKey ‖ 0 ‖ BE(timestamp) ‖ BE(sequence)` → nothing: a prefix scan of
/// `limiterKey ‖ 0` walks one limiter's failures oldest first.
enum SignInFailures: TableLayout {
    static func key(_ failure: (limiterKey: String, timestamp: Int64, sequence: UInt64)) -> [UInt8] {
        start(failure.limiterKey, at: failure.timestamp) + BigEndian.bytes(failure.sequence)
    }
    static func encode(_: Void) -> [UInt8] { [] }
    static func decode(_: [UInt8]) {}

    /// The prefix of one limiter's failures.
    static func prefix(_ limiterKey: String) -> [UInt8] { CompositeKey.prefix(limiterKey) }
    /// The first key of `limiterKey`'s failures at or after `timestamp`.
    static func start(_ limiterKey: String, at timestamp: Int64) -> [UInt8] {
        prefix(limiterKey) + BigEndian.bytes(UInt64(max(timestamp, 0)))
    }
}

/// An OAuth app's id (its client_id) → the app (its secret only as a hash).
enum OAuthApps: TableLayout {
    static func key(_ id: String) -> [UInt8] { Array(id.utf8) }
    static func encode(_ app: AppRecord) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(app.id)
        w.string(app.name)
        w.optionalString(app.website)
        w.strings(app.redirectURIs)
        w.strings(app.scopes)
        w.string(app.secretHash)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> AppRecord {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown app record version") }
        return AppRecord(
            AppRegistered(
                appId: try r.string(), name: try r.string(), website: try r.optionalString(),
                redirectURIs: try r.strings(), scopes: try r.strings(), secretHash: try r.string()))
    }
}

/// An authorization code's hash → what it grants and the log sequence that issued it.
enum Authorizations: TableLayout {
    static func key(_ hash: String) -> [UInt8] { Array(hash.utf8) }
    static func encode(_ value: (record: AuthorizationRecord, issuedAt: UInt64)) -> [UInt8] {
        let r = value.record
        var w = ByteWriter()
        w.u8(1)
        w.string(r.user.rawValue)
        w.string(r.app)
        w.strings(r.scopes)
        w.string(r.redirectURI)
        w.optionalString(r.codeChallenge)
        w.int64(r.expiresAt)
        w.int64(Int64(bitPattern: value.issuedAt))
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> (record: AuthorizationRecord, issuedAt: UInt64) {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown authorization record version") }
        let record = AuthorizationRecord(
            AppAuthorized(
                userId: UserID(try r.string()), appId: try r.string(), codeHash: "", scopes: try r.strings(),
                redirectURI: try r.string(), codeChallenge: try r.optionalString(), expiresAt: try r.int64()))
        return (record, UInt64(bitPattern: try r.int64()))
    }
}

/// An app token's hash → its app, scopes and expiry.
enum AppTokens: TableLayout {
    static func key(_ hash: String) -> [UInt8] { Array(hash.utf8) }
    static func encode(_ token: AppTokenRecord) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(token.app)
        w.strings(token.scopes)
        w.int64(token.expiresAt)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> AppTokenRecord {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown app token record version") }
        return AppTokenRecord(app: try r.string(), scopes: try r.strings(), expiresAt: try r.int64())
    }
}

/// A token's hash → its push subscription (the endpoint and keys as the event opened them).
enum PushSubscriptions: TableLayout {
    static func key(_ hash: String) -> [UInt8] { Array(hash.utf8) }
    static func encode(_ s: PushSubscriptionRecord) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(s.user.rawValue)
        w.string(s.endpoint)
        w.string(s.p256dh)
        w.string(s.auth)
        w.u8(s.standard ? 1 : 0)
        w.strings(s.alerts)
        w.string(s.policy.rawValue)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> PushSubscriptionRecord {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown push subscription record version") }
        let user = UserID(try r.string()), endpoint = try r.string(), p256dh = try r.string(), auth = try r.string()
        let standard = try r.u8() == 1, alerts = try r.strings()
        guard let policy = PushPolicy(rawValue: try r.string()) else {
            throw CorruptRecord(message: "unknown push policy")
        }
        return PushSubscriptionRecord(
            user: user, endpoint: endpoint, p256dh: p256dh, auth: auth, standard: standard, alerts: alerts,
            policy: policy)
    }
}

/// userId → the log sequence of the user's last `PasswordChanged` (big-endian).
enum CredentialChanges: TableLayout {
    static func key(_ id: UserID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ sequence: UInt64) -> [UInt8] { BigEndian.bytes(sequence) }
    static func decode(_ bytes: [UInt8]) throws -> UInt64 {
        guard let sequence = BigEndian.uint64(bytes) else {
            throw CorruptRecord(message: "a credential change is not 8 bytes")
        }
        return sequence
    }
}

/// userId → their two-factor sign-in (`TwoFactorRecord`): the enrolment's nonce, whether it is
/// confirmed, the last time step used and the unused recovery codes' hashes.
enum TwoFactorRecords: TableLayout {
    static func key(_ id: UserID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ factor: TwoFactorRecord) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(factor.nonce)
        w.u8(factor.confirmed ? 1 : 0)
        w.int64(factor.lastStep)
        w.strings(factor.recoveryCodeHashes)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> TwoFactorRecord {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown two-factor record version") }
        return TwoFactorRecord(
            nonce: try r.string(), confirmed: try r.u8() == 1, lastStep: try r.int64(),
            recoveryCodeHashes: try r.strings())
    }
}
