import Foundation

/// What lets the derived environment go unsynced safely.
///
/// A crash of a process loses none of the derived environment's writes (they are in the
/// kernel's page cache), but a crash of the machine may leave its file torn. So every process
/// that opens it leaves a marker file `unsynced.<pid>.<uuid>` naming the boot it runs in,
/// synced to disk before its first write, and removes it once the file is synced at close. A
/// marker from another boot means the machine went down while the file was unsynced: the file
/// is then deleted before it is opened (its owner recomputes what it held).
///
/// Opening runs under an exclusive lock (`markers.lock`) held until the environment is open,
/// so two processes starting together after a reboot do not both delete the file (the second
/// would delete the one the first already maps).
final class UnsyncedMarker {
    private let directory: String
    private let path: String
    /// Markers left by processes of this boot that are gone (killed, crashed).
    private let leftovers: [String]
    private var openingLock: OpenLock?

    private static let prefix = "unsynced."

    /// Deletes a file a machine crash may have torn, then leaves this process's marker (fsynced
    /// when `durable`). Holds the opening lock until `opened(_:)`.
    init(directory: String, durable: Bool) throws(LMDBError) {
        self.directory = directory
        let lock = try OpenLock(path: directory + "/markers.lock")
        try lock.lockExclusive()
        openingLock = lock
        let files = FileManager.default
        let boot = Self.bootID()
        let markers = ((try? files.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(Self.prefix) }
        if markers.contains(where: { Self.read(directory + "/" + $0) != boot }) {
            for name in ["data.mdb", "lock.mdb"] + markers { try? files.removeItem(atPath: directory + "/" + name) }
            leftovers = []
        } else {
            leftovers = markers.filter { !Self.isRunning(pid: $0) }
        }
        path = directory + "/" + Self.prefix + "\(getpid())." + UUID().uuidString
        guard files.createFile(atPath: path, contents: Data(boot.utf8)) else {
            throw LMDBError(code: .permissionDenied, operation: "create \(path)")
        }
        if durable {
            try Self.fsync(path)
            try Self.fsync(directory)
        }
    }

    /// Once the environment is open: lets other openers in, and syncs the file so the markers
    /// that processes of this boot left behind when they died can go.
    func opened(_ file: MapFile) throws(LMDBError) {
        openingLock?.release()
        openingLock = nil
        guard !leftovers.isEmpty else { return }
        try file.sync()
        for name in leftovers { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
    }

    /// At close: syncs the file and removes this process's marker.
    func release(_ file: MapFile) {
        guard (try? file.sync()) != nil else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The kernel's identifier of this boot.
    private static func bootID() -> String {
        read("/proc/sys/kernel/random/boot_id") ?? "unknown"
    }

    private static func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// Whether the process named in marker `name` (`unsynced.<pid>.<uuid>`) is alive.
    private static func isRunning(pid name: String) -> Bool {
        let parts = name.split(separator: ".")
        guard parts.count >= 2, let pid = pid_t(parts[1]) else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    private static func fsync(_ path: String) throws(LMDBError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw LMDBError(code: LMDBError.Code(rawValue: errno), operation: "open \(path)") }
        defer { close(fd) }
        guard Glibc.fsync(fd) == 0 else { throw LMDBError(code: LMDBError.Code(rawValue: errno), operation: "fsync \(path)") }
    }
}
