import Foundation
import Sodium
import Synchronization
import TimelineDomain

/// Where per-user keys are kept, outside the hash-chained log and outside LMDB (whose freed
/// pages keep old bytes): files in `<database>/keys/` for a single node, a replicated
/// key-value bucket for a cluster.
public protocol KeyBackend: Sendable {
    /// The secret stored under `name`, or `nil` when there is none. Throws when the store
    /// cannot tell (an I/O error, a timeout): never `nil` for "could not read".
    func read(_ name: String) throws -> [UInt8]?
    /// Stores `secret` under `name` unless something is there already; returns what is
    /// stored afterwards (another writer may have won). Durable when it returns.
    func create(_ name: String, _ secret: [UInt8]) throws -> [UInt8]
    /// Destroys the secret under `name` so it cannot be read back; a secret already gone
    /// counts as destroyed. Throws when it may still be there.
    func destroy(_ name: String) throws
}

/// Per-user secret keys for crypto-shredding. Personal fields in the log and image blobs are
/// sealed with their owner's key; erasing a user destroys it, after which those fields can
/// never be opened again, while the log's hashes (over the sealed bytes) still verify.
package final class KeyStore: PayloadKeys {
    static let pepperName = "email-pepper"

    let backend: any KeyBackend
    private let cache = Mutex<[UserID: [UInt8]]>([:])
    /// Users the log says are erased: they read as erased in this process even while their
    /// key's destruction is still pending (or failing).
    private let revoked = Mutex<Set<UserID>>([])
    /// Whether some erased user's key may still need destroying (see `EventLog.finishErasures`).
    let owesDestructions = Mutex(true)
    /// The secret that keys email hashes (so a hash cannot be matched against a list of emails).
    private let pepper: [UInt8]

    /// Opens the key store, creating its email pepper if it has none.
    init(backend: any KeyBackend) throws {
        self.backend = backend
        pepper = try backend.read(Self.pepperName) ?? backend.create(Self.pepperName, Sodium.randomBytes(32))
    }

    func emailHash(_ email: String) -> String { hex(Sodium.hash(pepper, Array(email.utf8))) }

    /// The name `user`'s key is stored under in the backend (and named by in errors).
    static func name(_ user: UserID) -> String { "user-" + user.rawValue }

    /// The user's key, or `nil` if they have none (erased, or never had one). Throws
    /// `KeyStoreError.unreadable` when the store could not be read: that is never an erasure.
    func key(for user: UserID) throws(KeyStoreError) -> [UInt8]? {
        if revoked.withLock({ $0.contains(user) }) { return nil }
        if let cached = cache.withLock({ $0[user] }) { return cached }
        let stored: [UInt8]?
        do {
            stored = try backend.read(Self.name(user))
        } catch {
            throw error as? KeyStoreError ?? .unreadable(key: Self.name(user), reason: "\(error)")
        }
        // All zeros: a destruction was interrupted after overwriting the key.
        guard let stored, stored.contains(where: { $0 != 0 }) else { return nil }
        guard stored.count == Sodium.secretKeyLength else {
            throw .unreadable(
                key: Self.name(user), reason: "the stored key has \(stored.count) bytes, not \(Sodium.secretKeyLength)")
        }
        cache.withLock { $0[user] = stored }
        return stored
    }

    /// The key if this process already holds it (no I/O).
    func cachedKey(for user: UserID) -> [UInt8]? { cache.withLock { $0[user] } }

    /// Remembers a key read or created elsewhere (outside a transaction).
    func adopt(_ key: [UInt8], for user: UserID) { cache.withLock { $0[user] = key } }

    /// The user's key, created (durably) if they have none yet.
    package func ensureKey(for user: UserID) throws -> [UInt8] {
        if let key = try key(for: user) { return key }
        if isRevoked(user) { throw KeyStoreError.unwritable(key: Self.name(user), reason: "the user is erased") }
        return try store(Sodium.randomBytes(Sodium.secretKeyLength), for: user)
    }

    /// Stores `key` as the user's unless they have one already; returns the one stored.
    func store(_ key: [UInt8], for user: UserID) throws -> [UInt8] {
        let stored: [UInt8]
        do {
            stored = try backend.create(Self.name(user), key)
        } catch {
            throw error as? KeyStoreError ?? .unwritable(key: Self.name(user), reason: "\(error)")
        }
        cache.withLock { $0[user] = stored }
        return stored
    }

    func isRevoked(_ user: UserID) -> Bool { revoked.withLock { $0.contains(user) } }

    /// Marks the user as erased in this process (their fields read as erased from now on).
    func revoke(_ user: UserID) {
        revoked.withLock { _ = $0.insert(user) }
        cache.withLock { $0[user] = nil }
    }

    /// Destroys the user's key (everywhere the backend keeps it).
    func destroyKey(for user: UserID) throws(KeyStoreError) {
        revoke(user)
        do {
            try backend.destroy(Self.name(user))
        } catch {
            throw .destructionFailed(key: Self.name(user), reason: "\(error)")
        }
    }
}
