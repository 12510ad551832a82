/// Why the per-user keys could not be used. "No key" is not among them: that is an answer
/// (`KeyStore.key(for:)` returns `nil`: the user is erased), while these are failures, and
/// none of them is ever taken for an erasure.
public enum KeyStoreError: Error, CustomStringConvertible, Sendable {
    /// The key store did not answer (an I/O error, a timeout, a damaged key file): the key may
    /// well exist. The operation fails and is retried; nothing is projected as erased.
    case unreadable(key: String, reason: String)
    /// An erased user's key could not be destroyed. The erasure is committed and the user
    /// reads as erased in this process; the destruction is retried at the next write and at
    /// the next open.
    case destructionFailed(key: String, reason: String)
    /// A key could not be created or stored.
    case unwritable(key: String, reason: String)
    /// The log holds sealed personal fields, but the key store (its email pepper) is missing:
    /// opening would read every user as erased and create a new pepper.
    case missingKeyStore(location: String)

    /// What failed and why, as a sentence.
    public var description: String {
        switch self {
        case let .unreadable(key, reason):
            "cannot read key \(key) (\(reason)); it may exist, so nothing is treated as erased"
        case let .destructionFailed(key, reason):
            "cannot destroy key \(key) of an erased user (\(reason)); retried at the next write and open"
        case let .unwritable(key, reason): "cannot store key \(key): \(reason)"
        case let .missingKeyStore(location):
            "the log holds sealed personal fields but the key store (\(location)) is missing: restore the keys/ directory "
                + "beside data.mdb, or open with --accept-missing-keys (library: Options.acceptMissingKeys) to read every "
                + "user's personal fields as erased"
        }
    }
}
