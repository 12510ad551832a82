import LMDB
import Sodium
import TimelineDomain

/// Live sessions (by token hash) and recent failed sign-ins (for rate limiting).
struct SessionsProjection: Projection {
    let name = ProjectionName.sessions
    let sessions: Database        // sessionHash → SessionRecord
    let signInFailures: Database  // emailHash ‖ 0 ‖ BE(timestamp) ‖ BE(sequence) → ()
    let passwordResets: Database  // tokenHash → SessionRecord (user, expiry)
    var databases: [Database] { [sessions, signInFailures, passwordResets] }

    init(_ env: Environment, prefix: String) throws {
        sessions = try env.database(prefix + "sessions", placement: .derived)
        signInFailures = try env.database(prefix + "signInFailures", placement: .derived)
        passwordResets = try env.database(prefix + "passwordResets", placement: .derived)
    }

    func passwordReset(hash: String, _ txn: Transaction) throws -> SessionRecord? {
        try txn.get(passwordResets, Array(hash.utf8)).map(RecordCodec.session)
    }

    /// The live session whose token hashes to `hash`. Tokens are never compared themselves:
    /// the presented token is hashed and the hash looked up; the stored key is then checked
    /// against it in constant time as well.
    func session(hash: String, _ txn: Transaction) throws -> SessionRecord? {
        let key = Array(hash.utf8)
        return try txn.withCursor(sessions) { cursor in
            guard let (found, value) = try cursor.seek(atLeast: key), Sodium.constantTimeEqual(found, key) else { return nil }
            return try RecordCodec.session(value)
        }
    }

    func failures(emailHash: String, since: Int64, _ txn: Transaction) throws -> Int {
        var count = 0
        let from = Key.prefix(emailHash) + BigEndian.bytes(UInt64(max(since, 0)))
        try txn.scan(signInFailures, prefix: Key.prefix(emailHash)) { key, _ in
            if !key.lexicographicallyPrecedes(from) { count += 1 }
            return true
        }
        return count
    }

    func apply(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .signedIn(let e):
            try txn.put(sessions, Array(e.sessionHash.utf8), RecordCodec.encode(SessionRecord(user: e.userId, expiresAt: e.expiresAt)))
        case .signedOut(let e):
            try txn.delete(sessions, Array(e.sessionHash.utf8))
        case .passwordResetRequested(let e):
            try txn.put(passwordResets, Array(e.tokenHash.utf8), RecordCodec.encode(SessionRecord(user: e.userId, expiresAt: e.expiresAt)))
        case .passwordChanged(let e):
            try txn.delete(passwordResets, Array(e.resetTokenHash.utf8))
        case .signInFailed(let e):
            let prefix = Key.prefix(e.emailHash)
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
        default:
            break
        }
    }
}
