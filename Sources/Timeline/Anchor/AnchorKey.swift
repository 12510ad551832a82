import Foundation
import Sodium

/// Where the service signs its anchor checkpoints: an Ed25519 secret key file and the anchor
/// file the checkpoints are appended to, both outside the database directory (an attacker who
/// can rewrite the database files must not be able to rewrite the anchor with them).
public struct AnchorOptions: Sendable, Equatable {
    /// The secret key file, made by `AnchorKey.create(at:)` (`timeline anchor init`).
    public var keyPath: String
    /// The anchor file of signed checkpoints (default: the key's path + `.checkpoints`).
    public var checkpointsPath: String

    /// Signs with the key at `keyPath`, into `checkpointsPath` (default: the key's path + `.checkpoints`).
    public init(keyPath: String, checkpointsPath: String? = nil) {
        self.keyPath = keyPath
        self.checkpointsPath = checkpointsPath ?? keyPath + ".checkpoints"
    }

    /// Refuses a key or anchor file inside the database directory `databasePath`.
    public func checkOutside(databasePath: String) throws(TimelineError) {
        let database = Self.resolved(databasePath)
        for (path, field) in [(keyPath, "anchorKey"), (checkpointsPath, "anchorLog")] {
            let resolved = Self.resolved(path)
            if resolved == database || resolved.hasPrefix(database + "/") {
                throw TimelineError.invalid(
                    field,
                    "\(path) is inside the database directory \(databasePath): keep the anchor where whoever can rewrite the database cannot"
                )
            }
        }
    }

    /// An absolute path with `..` and the symbolic links of its existing part resolved.
    private static func resolved(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let directory = url.deletingLastPathComponent().resolvingSymlinksInPath()
        return directory.appendingPathComponent(url.lastPathComponent).resolvingSymlinksInPath().path
    }
}

/// An Ed25519 signing key for anchor checkpoints, kept in an owner-only file.
public struct AnchorKey: Sendable {
    let secretKey: [UInt8]
    /// The public key: what verifiers need (`timeline audit verify --anchor-public-key`).
    public let publicKey: [UInt8]

    /// The public key in hex.
    public var publicKeyHex: String { hex(publicKey) }

    /// The path of the public key file written beside the secret key file at `path`.
    public static func publicKeyPath(for path: String) -> String { path + ".pub" }

    /// Creates a new key at `path` (mode 0600; it must not exist yet) and its public key, in
    /// hex, at `path.pub`; both are fsynced with their directory.
    @discardableResult
    public static func create(at path: String) throws(TimelineError) -> AnchorKey {
        guard !FileManager.default.fileExists(atPath: publicKeyPath(for: path)) else {
            throw TimelineError(.conflict, "\(publicKeyPath(for: path)) already exists")
        }
        let (publicKey, secretKey) = Sodium.signingKeyPair()
        try writeNew(path, secretKey, mode: 0o600)
        try writeNew(publicKeyPath(for: path), Array((hex(publicKey) + "\n").utf8), mode: 0o644)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let fd = open(directory, O_RDONLY | O_DIRECTORY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
        return AnchorKey(secretKey: secretKey, publicKey: publicKey)
    }

    /// Loads the key file at `path`.
    public static func load(from path: String) throws(TimelineError) -> AnchorKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TimelineError.invalid(
                "anchorKey", "cannot read the anchor key \(path) (create one with `timeline anchor init --key \(path)`)"
            )
        }
        let secretKey = [UInt8](data)
        guard let publicKey = Sodium.signingPublicKey(of: secretKey) else {
            throw TimelineError.invalid(
                "anchorKey",
                "\(path) is not an anchor key (\(secretKey.count) bytes, expected \(Sodium.signingSecretKeyLength))")
        }
        return AnchorKey(secretKey: secretKey, publicKey: publicKey)
    }

    /// A public key given as hex, or as the path of a file holding it in hex.
    public static func publicKey(_ hexOrPath: String) throws(TimelineError) -> [UInt8] {
        var text = hexOrPath
        if unhex(text) == nil, let data = FileManager.default.contents(atPath: hexOrPath) {
            text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let key = unhex(text), key.count == Sodium.signingPublicKeyLength else {
            throw TimelineError.invalid(
                "anchorPublicKey",
                "\(hexOrPath) is neither a public key in hex (\(2 * Sodium.signingPublicKeyLength) digits) nor a file holding one"
            )
        }
        return key
    }

    private static func writeNew(_ path: String, _ bytes: [UInt8], mode: mode_t) throws(TimelineError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard fd >= 0 else {
            let code = errno
            throw TimelineError(
                code == EEXIST ? .conflict : .invalidArgument,
                "cannot create \(path): \(String(cString: strerror(code)))", field: code == EEXIST ? nil : "anchorKey")
        }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            throw TimelineError(.internal, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
