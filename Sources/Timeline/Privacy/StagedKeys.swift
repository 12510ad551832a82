import Sodium
import Synchronization
import TimelineDomain

/// The keys a cluster writer seals with while it decides a batch inside a write transaction,
/// without any network call there: keys this process holds are used as they are; a user with
/// no key held gets a new one, staged here and stored in the bucket only after the
/// transaction (`storeStaged`); a key that must be *read* and is not held stops the decision
/// (it is noted, then fetched outside by `fetchMissed`, and the batch decided again).
final class StagedKeys: PayloadKeys {
    let keys: KeyStore
    private let staged = Mutex<[UserID: [UInt8]]>([:])
    private let missed = Mutex<Set<UserID>>([])

    init(_ keys: KeyStore) { self.keys = keys }

    func key(for user: UserID) throws(KeyStoreError) -> [UInt8]? {
        if keys.isRevoked(user) { return nil }
        if let key = keys.cachedKey(for: user) ?? staged.withLock({ $0[user] }) { return key }
        missed.withLock { _ = $0.insert(user) }
        throw .unreadable(key: KeyStore.name(user), reason: "not held by this writer yet")
    }

    func ensureKey(for user: UserID) throws -> [UInt8] {
        if keys.isRevoked(user) {
            throw KeyStoreError.unwritable(key: KeyStore.name(user), reason: "the user is erased")
        }
        if let key = keys.cachedKey(for: user) ?? staged.withLock({ $0[user] }) { return key }
        let key = Sodium.randomBytes(Sodium.secretKeyLength)
        staged.withLock { $0[user] = key }
        return key
    }

    func emailHash(_ email: String) -> String { keys.emailHash(email) }

    /// Stores the staged keys (outside any transaction); returns `false` when a user turned
    /// out to have a key already (now held), so what was sealed with the staged one must be
    /// decided again.
    func storeStaged() throws -> Bool {
        var kept = true
        for (user, key) in staged.withLock({ $0 }) where try keys.store(key, for: user) != key { kept = false }
        staged.withLock { $0 = [:] }
        return kept
    }

    /// Reads the keys a decision needed and did not find (outside any transaction); returns
    /// whether there were any (then the batch is decided again).
    func fetchMissed() throws -> Bool {
        let users = missed.withLock { users in
            defer { users = [] }
            return users
        }
        for user in users { _ = try keys.key(for: user) }
        return !users.isEmpty
    }
}
