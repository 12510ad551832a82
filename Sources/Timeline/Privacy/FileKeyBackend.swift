import Foundation
import Sodium

/// Keys as files `<name>.key` in a directory (owner-only). A key is written to a temporary
/// file, fsynced, linked into place (so a key file is never seen half-written, and two
/// creators cannot both win) and the directory fsynced, so a key never vanishes while the log
/// that uses it survives. Destroying overwrites with zeros, fsyncs, unlinks and fsyncs the
/// directory. Every failure is reported; a key already gone counts as destroyed.
public struct FileKeyBackend: KeyBackend {
    /// The directory holding one file per key.
    public let directory: URL
    /// `directory`'s path and a slash (a key is read on every command that seals a field: its
    /// path is joined as a string, not through `URL`).
    private let directoryPrefix: String

    /// Keys in `directory` (created if needed).
    public init(directory: URL) throws {
        self.directory = directory
        directoryPrefix = directory.path + "/"
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
    }

    /// The file names that hold keys (what a backup copies).
    public static func isKeyFile(_ name: String) -> Bool { name.hasSuffix(".key") }

    private func path(_ name: String) -> String { directoryPrefix + name + ".key" }

    private static func failure(_ what: String) -> String {
        "\(what): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// The secret in `<name>.key`, or `nil` when the file does not exist; any other failure throws.
    public func read(_ name: String) throws -> [UInt8]? {
        let fd = open(path(name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw KeyStoreError.unreadable(key: name, reason: Self.failure("open"))
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 256)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + count, $0.count - count, off_t(count)) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw KeyStoreError.unreadable(key: name, reason: Self.failure("read")) }
            if n == 0 { break }
            count += n
        }
        return Array(bytes[..<count])
    }

    /// Writes `secret` to a temporary file, syncs it and links it as `<name>.key`, so a key is never
    /// seen half-written; if another process linked one first, returns that one instead.
    public func create(_ name: String, _ secret: [UInt8]) throws -> [UInt8] {
        let temporary = path(name) + ".tmp.\(getpid()).\(Sodium.randomWord())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw KeyStoreError.unwritable(key: name, reason: Self.failure("create")) }
        defer { unlink(temporary) }
        let written = secret.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = written == secret.count && fsync(fd) == 0
        let reason = synced ? "" : Self.failure("write")
        close(fd)
        guard synced else { throw KeyStoreError.unwritable(key: name, reason: reason) }
        if link(temporary, path(name)) != 0 {
            guard errno == EEXIST else { throw KeyStoreError.unwritable(key: name, reason: Self.failure("link")) }
            // Another process won; its key is complete (it was linked after its fsync).
            guard let existing = try read(name) else {
                throw KeyStoreError.unwritable(key: name, reason: "destroyed while being created")
            }
            return existing
        }
        try syncDirectory(name)
        return secret
    }

    /// Removes `<name>.key` (already gone counts as destroyed).
    public func destroy(_ name: String) throws {
        let fd = open(path(name), O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return }  // already gone
            throw KeyStoreError.destructionFailed(key: name, reason: Self.failure("open"))
        }
        let zeros = [UInt8](repeating: 0, count: Sodium.secretKeyLength)
        let overwritten =
            zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == zeros.count && fsync(fd) == 0
        let reason = overwritten ? "" : Self.failure("overwrite")
        close(fd)
        guard overwritten else { throw KeyStoreError.destructionFailed(key: name, reason: reason) }
        guard unlink(path(name)) == 0 || errno == ENOENT else {
            throw KeyStoreError.destructionFailed(key: name, reason: Self.failure("unlink"))
        }
        try syncDirectory(name)
    }

    /// Makes a link or unlink in the directory durable.
    private func syncDirectory(_ name: String) throws {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            let reason = Self.failure("fsync \(directory.path)")
            if fd >= 0 { close(fd) }
            throw KeyStoreError.unwritable(key: name, reason: reason)
        }
        close(fd)
    }
}
