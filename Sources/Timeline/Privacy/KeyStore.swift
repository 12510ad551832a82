import Foundation
import Sodium
import Synchronization
import TimelineDomain

/// Per-user secret keys for crypto-shredding, kept **outside** the hash-chained log and outside
/// LMDB (whose freed pages keep old bytes): one 32-byte file per user in `<database>/keys/`.
/// Personal fields in the log and image blobs are sealed with their owner's key; erasing a user
/// overwrites and deletes the key file, after which those fields can never be opened again,
/// while the log's hashes (over the sealed bytes) still verify.
package final class KeyStore: PayloadKeys {
    let directory: URL
    private let cache = Mutex<[UserID: [UInt8]]>([:])
    /// The secret that keys email hashes (so a hash cannot be matched against a list of emails).
    private let pepper: [UInt8]

    init(databasePath: String) throws {
        directory = URL(fileURLWithPath: databasePath).appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let pepperFile = directory.appendingPathComponent("email-pepper")
        if let stored = FileManager.default.contents(atPath: pepperFile.path), stored.count == 32 {
            pepper = [UInt8](stored)
        } else {
            let fresh = Sodium.randomBytes(32)
            // Another process may race us: whoever creates the file first wins, and we read it back.
            FileManager.default.createFile(atPath: pepperFile.path, contents: Data(fresh), attributes: [.posixPermissions: 0o600])
            pepper = FileManager.default.contents(atPath: pepperFile.path).map { [UInt8]($0) } ?? fresh
        }
    }

    func emailHash(_ email: String) -> String { hex(Sodium.hash(pepper, Array(email.utf8))) }

    private func file(_ user: UserID) -> URL { directory.appendingPathComponent(user.rawValue + ".key") }

    /// The user's key, or `nil` if they have none (erased, or never had one).
    func key(for user: UserID) -> [UInt8]? {
        if let cached = cache.withLock({ $0[user] }) { return cached }
        guard let data = FileManager.default.contents(atPath: file(user).path), data.count == Sodium.secretKeyLength else { return nil }
        let key = [UInt8](data)
        cache.withLock { $0[user] = key }
        return key
    }

    /// The user's key, created (durably) if they have none yet.
    package func ensureKey(for user: UserID) throws -> [UInt8] {
        if let key = key(for: user) { return key }
        let key = Sodium.randomBytes(Sodium.secretKeyLength)
        let path = file(user).path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST, let existing = self.key(for: user) { return existing }  // another process won
            throw TimelineError(.internal, "cannot create the key of user \(user): errno \(errno)")
        }
        defer { close(fd) }
        let written = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == key.count, fsync(fd) == 0 else { throw TimelineError(.internal, "cannot write the key of user \(user)") }
        cache.withLock { $0[user] = key }
        return key
    }

    /// Destroys the user's key: overwritten with zeros on disk, synced, then unlinked.
    func destroyKey(for user: UserID) {
        cache.withLock { $0[user] = nil }
        let path = file(user).path
        let fd = open(path, O_WRONLY)
        if fd >= 0 {
            let zeros = [UInt8](repeating: 0, count: Sodium.secretKeyLength)
            _ = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            fsync(fd)
            close(fd)
        }
        unlink(path)
    }
}
