import LMDB
import Sodium
import TimelineDomain

/// Live sessions and reset tokens (by token hash) and recent failed sign-ins (for rate
/// limiting).
///
/// A password change (with a reset token or the current password) ends every session and
/// every reset token its user had: each record keeps the log sequence of the event that issued
/// it, the user's last change is kept by sequence too, and a record issued before it is no
/// longer valid. Both come from the log alone, so a rebuild revokes exactly the same ones.
struct SessionsProjection: Projection {
    let name = ProjectionName.sessions
    let sessions: Database           // sessionHash → SessionRecord, issued at
    let signInFailures: Database     // emailHash ‖ 0 ‖ BE(timestamp) ‖ BE(sequence) → ()
    let passwordResets: Database     // tokenHash → SessionRecord (user, expiry), issued at
    let credentialChanges: Database  // userId → BE(sequence of the user's last PasswordChanged)
    var databases: [Database] { [sessions, signInFailures, passwordResets, credentialChanges] }

    init(_ env: Environment, prefix: String) throws {
        sessions = try env.database(prefix + "sessions", placement: .derived)
        signInFailures = try env.database(prefix + "signInFailures", placement: .derived)
        passwordResets = try env.database(prefix + "passwordResets", placement: .derived)
        credentialChanges = try env.database(prefix + "credentialChanges", placement: .derived)
    }

    /// The reset token with this hash, unless a password change revoked it (expired or not).
    func passwordReset(hash: String, _ txn: Transaction) throws -> SessionRecord? {
        guard let stored = try txn.get(passwordResets, Array(hash.utf8)) else { return nil }
        return try unrevoked(RecordCodec.session(stored), txn)
    }

    /// The session whose token hashes to `hash`, unless it was ended (expired or not). Tokens
    /// are never compared themselves: the presented token is hashed and the hash looked up; the
    /// stored key is then checked against it in constant time as well.
    func session(hash: String, _ txn: Transaction) throws -> SessionRecord? {
        let key = Array(hash.utf8)
        let stored = try txn.withCursor(sessions) { cursor -> (record: SessionRecord, issuedAt: UInt64)? in
            guard let (found, value) = try cursor.seek(atLeast: key), Sodium.constantTimeEqual(found, key) else { return nil }
            return try RecordCodec.session(value)
        }
        return try stored.flatMap { try unrevoked($0, txn) }
    }

    /// The record, unless its user changed their password after it was issued.
    private func unrevoked(_ stored: (record: SessionRecord, issuedAt: UInt64), _ txn: Transaction) throws -> SessionRecord? {
        guard let changed = try txn.get(credentialChanges, Array(stored.record.user.rawValue.utf8)).flatMap(BigEndian.uint64) else {
            return stored.record
        }
        return stored.issuedAt > changed ? stored.record : nil
    }

    func failures(limiterKey: String, since: Int64, _ txn: Transaction) throws -> Int {
        var count = 0
        let from = Key.prefix(limiterKey) + BigEndian.bytes(UInt64(max(since, 0)))
        try txn.scan(signInFailures, prefix: Key.prefix(limiterKey)) { key, _ in
            if !key.lexicographicallyPrecedes(from) { count += 1 }
            return true
        }
        return count
    }

    func apply(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .signedIn(let e):
            let record = SessionRecord(user: e.userId, expiresAt: e.expiresAt)
            try txn.put(sessions, Array(e.sessionHash.utf8), RecordCodec.encode(record, issuedAt: envelope.sequence))
        case .signedOut(let e):
            try txn.delete(sessions, Array(e.sessionHash.utf8))
        case .passwordResetRequested(let e):
            let record = SessionRecord(user: e.userId, expiresAt: e.expiresAt)
            try txn.put(passwordResets, Array(e.tokenHash.utf8), RecordCodec.encode(record, issuedAt: envelope.sequence))
        case .passwordChanged(let e):
            if let used = e.resetTokenHash { try txn.delete(passwordResets, Array(used.utf8)) }
            try txn.put(credentialChanges, Array(e.userId.rawValue.utf8), BigEndian.bytes(envelope.sequence))
        case .signInFailed(let e):
            let prefix = Key.prefix(e.limiterKey)
            // Forget failures that have left the window, then record this one.
            let cutoff = prefix + BigEndian.bytes(UInt64(max(envelope.timestamp - SignInPolicy.window, 0)))
            var stale: [[UInt8]] = []
            try txn.scan(signInFailures, prefix: prefix) { key, _ in
                guard key.lexicographicallyPrecedes(cutoff) else { return false }
                stale.append(key)
                return true
            }
            for key in stale { try txn.delete(signInFailures, key) }
            try txn.put(signInFailures, prefix + BigEndian.bytes(UInt64(max(envelope.timestamp, 0))) + BigEndian.bytes(envelope.sequence), [])
        // Not this projection's concern:
        // (An erased user's sessions cannot resolve: their user record is gone.)
        case .userCreated, .profileUpdated, .postAdded, .postImageProcessed, .postDeleted, .commentAdded, .commentDeleted, .likeAdded,
             .likeRemoved, .followed, .unfollowed, .postReported, .userErased, .emailChanged, .bookmarked, .unbookmarked, .blocked, .unblocked:
            break
        }
    }
}
