import Foundation
import Sodium
import Synchronization
import TimelineDomain

/// Where per-user keys are kept, outside the hash-chained log and outside LMDB (whose freed
/// pages keep old bytes): files in `<database>/keys/` for a single node, a replicated
/// key-value bucket for a cluster.
public protocol KeyBackend: Sendable {
    /// The secret stored under `name`, or `nil`.
    func read(_ name: String) throws -> [UInt8]?
    /// Stores `secret` under `name` unless something is there already; returns what is
    /// stored afterwards (another writer may have won).
    func create(_ name: String, _ secret: [UInt8]) throws -> [UInt8]
    /// Destroys the secret under `name` so it cannot be read back.
    func destroy(_ name: String) throws
}

/// Per-user secret keys for crypto-shredding. Personal fields in the log and image blobs are
/// sealed with their owner's key; erasing a user destroys it, after which those fields can
/// never be opened again, while the log's hashes (over the sealed bytes) still verify.
package final class KeyStore: PayloadKeys {
    let backend: any KeyBackend
    private let cache = Mutex<[UserID: [UInt8]]>([:])
    /// The secret that keys email hashes (so a hash cannot be matched against a list of emails).
    private let pepper: [UInt8]

    init(backend: any KeyBackend) throws {
        self.backend = backend
        pepper = try backend.read("email-pepper") ?? backend.create("email-pepper", Sodium.randomBytes(32))
    }

    func emailHash(_ email: String) -> String { hex(Sodium.hash(pepper, Array(email.utf8))) }

    private func name(_ user: UserID) -> String { "user-" + user.rawValue }

    /// The user's key, or `nil` if they have none (erased, or never had one).
    func key(for user: UserID) -> [UInt8]? {
        if let cached = cache.withLock({ $0[user] }) { return cached }
        guard let key = try? backend.read(name(user)), key.count == Sodium.secretKeyLength else { return nil }
        cache.withLock { $0[user] = key }
        return key
    }

    /// The user's key, created (durably) if they have none yet.
    package func ensureKey(for user: UserID) throws -> [UInt8] {
        if let key = key(for: user) { return key }
        let key = try backend.create(name(user), Sodium.randomBytes(Sodium.secretKeyLength))
        cache.withLock { $0[user] = key }
        return key
    }

    /// Destroys the user's key (everywhere the backend keeps it).
    func destroyKey(for user: UserID) throws {
        forget(user)
        try backend.destroy(name(user))
    }

    /// Drops a cached key, e.g. when another node's erasure of the user reaches this one.
    func forget(_ user: UserID) { cache.withLock { $0[user] = nil } }
}

/// Keys as files in a directory (owner-only), written with fsync and destroyed by
/// overwriting with zeros, fsync, then unlink.
public struct FileKeyBackend: KeyBackend {
    public let directory: URL

    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name + ".key").path }

    public func read(_ name: String) throws -> [UInt8]? {
        FileManager.default.contents(atPath: path(name)).map { [UInt8]($0) }
    }

    public func create(_ name: String, _ secret: [UInt8]) throws -> [UInt8] {
        let fd = open(path(name), O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST, let existing = try read(name) { return existing }  // another process won
            throw TimelineError(.internal, "cannot create key \(name): errno \(errno)")
        }
        defer { close(fd) }
        let written = secret.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == secret.count, fsync(fd) == 0 else { throw TimelineError(.internal, "cannot write key \(name)") }
        return secret
    }

    public func destroy(_ name: String) throws {
        let fd = open(path(name), O_WRONLY)
        if fd >= 0 {
            let zeros = [UInt8](repeating: 0, count: Sodium.secretKeyLength)
            _ = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            fsync(fd)
            close(fd)
        }
        unlink(path(name))
    }
}
