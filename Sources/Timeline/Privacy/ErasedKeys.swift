import Foundation
import LMDB
import Synchronization
import TimelineDomain

/// Finishing erasures: the log says who is erased, so a key whose destruction was cut short
/// (a crash between the `UserErased` commit and the destruction, a failing disk, a key bucket
/// out of reach) is destroyed later — at the next write, at the next open — never forgotten.
extension EventLog {
    private static let erasuresScannedKey = Array("erasedKeysScanned".utf8)

    /// Destroys the key of every erased user listed in `keysToDestroy`, then removes the ones
    /// destroyed from the list. Every listed user reads as erased in this process from now on,
    /// even if their destruction fails (it is thrown, and retried at the next call).
    /// Does nothing unless an erasure was committed or a destruction failed since the last call.
    func finishErasures(_ environment: Environment) throws {
        guard
            keys.owesDestructions.withLock({ owed in
                defer { owed = false }
                return owed
            })
        else { return }
        do {
            try destroyListedKeys(environment)
        } catch {
            keys.owesDestructions.withLock { $0 = true }
            throw error
        }
    }

    /// `finishErasures`, reporting a failure on stderr instead of throwing (after a commit,
    /// when the erasure itself has succeeded and the destruction will be retried).
    func finishErasuresReporting(_ environment: Environment) {
        do {
            try finishErasures(environment)
        } catch {
            reportProblem("erasure not finished: \(error)")
        }
    }

    private func destroyListedKeys(_ environment: Environment) throws {
        let table = keysToDestroy
        let pending = try environment.read { txn in
            var users: [UserID] = []
            try txn.withCursor(table) { cursor in
                var entry = try cursor.first()
                while let (key, _) = entry {
                    users.append(UserID(String(decoding: key, as: UTF8.self)))
                    entry = try cursor.next()
                }
            }
            return users
        }
        guard !pending.isEmpty else { return }
        var destroyed: [UserID] = []
        var failure: KeyStoreError?
        for user in pending {
            do {
                try keys.destroyKey(for: user)
                destroyed.append(user)
            } catch {
                keys.revoke(user)
                failure = failure ?? error
            }
        }
        if !destroyed.isEmpty {
            try environment.write { txn in
                for user in destroyed { _ = try txn.delete(table, Array(user.rawValue.utf8)) }
            }
        }
        if let failure { throw failure }
    }

    /// Once per database (it predates `keysToDestroy`): lists every user the log says is
    /// erased, so a key a crash left behind before this version is destroyed too.
    func listErasedUsersOnce(_ environment: Environment) throws {
        let meta = self.meta, table = keysToDestroy, log = self.log
        guard try environment.read({ txn in try txn.get(meta, Self.erasuresScannedKey) }) == nil else { return }
        try environment.write { txn in
            guard try txn.get(meta, Self.erasuresScannedKey) == nil else { return }
            try txn.withCursor(log) { cursor in
                var entry = try cursor.first()
                while let (_, value) = entry {
                    let envelope = try EnvelopeCodec.decode(value, keys: KeyProbe())
                    if case .userErased(let e) = envelope.event {
                        try txn.put(table, Array(e.userId.rawValue.utf8), [1])
                    }
                    entry = try cursor.next()
                }
            }
            try txn.put(meta, Self.erasuresScannedKey, [1])
        }
    }

    /// Whether the log holds a field sealed with a user's key (or an email hash keyed with the
    /// pepper). Scans until the first one: at once for any log this version wrote.
    static func holdsSealedFields(_ environment: Environment, _ log: Database) throws -> Bool {
        try environment.read { txn in
            try txn.withCursor(log) { cursor in
                let probe = KeyProbe()
                var entry = try cursor.first()
                while let (_, value) = entry {
                    _ = try EnvelopeCodec.decode(value, keys: probe)
                    if probe.asked { return true }
                    entry = try cursor.next()
                }
                return false
            }
        }
    }
}

/// Keys that answer "none" without touching any store, and note whether they were asked.
private final class KeyProbe: PayloadKeys {
    private let wasAsked = Mutex(false)
    var asked: Bool { wasAsked.withLock { $0 } }
    func key(for user: UserID) throws(KeyStoreError) -> [UInt8]? {
        wasAsked.withLock { $0 = true }
        return nil
    }
    func ensureKey(for user: UserID) throws -> [UInt8] {
        throw KeyStoreError.unwritable(key: KeyStore.name(user), reason: "probe")
    }
    func emailHash(_ email: String) -> String {
        wasAsked.withLock { $0 = true }
        return ""
    }
}
