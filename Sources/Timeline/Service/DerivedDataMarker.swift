import Foundation
import LMDB
import Synchronization

/// Guards the read models against a machine crash.
///
/// The read models live in the never-fsynced derived environment (`<db>/derived/`). A crash
/// of a process loses none of its writes (they are in the kernel's page cache), but a crash of
/// the machine may leave the derived file torn. So every process that writes leaves a marker
/// file naming the boot it runs in, synced to disk before its first write, and removes it once
/// the derived data is synced at close. A marker from another boot means the machine went down
/// while derived data was unsynced: the derived environment is then deleted before it is
/// opened, and the service recomputes the read models from the durable log.
///
/// From reading the markers until the environment is open, a process holds an exclusive
/// `flock` on `derived/markers.lock`, so two processes starting together after a reboot do not
/// both delete the file (the second would delete the one the first already uses).
final class DerivedDataMarker: Sendable {
    private let directory: String
    private let path: String
    /// Markers left by processes of this boot that are gone (killed, crashed).
    private let leftovers: [String]
    private let lock: Mutex<Int32?>

    private static let prefix = "unsynced."

    /// Run before the environment is opened: deletes derived data a machine crash may have
    /// torn, then leaves this process's marker (fsynced when `durable`). Call `opened(_:)`
    /// once the environment is open.
    init(databasePath: String, durable: Bool) throws {
        let directory = databasePath + "/" + Environment.derivedDirectory
        self.directory = directory
        let files = FileManager.default
        try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fd = open(directory + "/markers.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        lock = Mutex(fd)
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        let boot = Self.bootID()
        let markers = (try files.contentsOfDirectory(atPath: directory)).filter { $0.hasPrefix(Self.prefix) }
        if markers.contains(where: { Self.read(directory + "/" + $0) != boot }) {
            for name in ["data.mdb", "lock.mdb"] + markers { try? files.removeItem(atPath: directory + "/" + name) }
            leftovers = []
        } else {
            leftovers = markers.filter { !Self.isRunning(pid: $0) }
        }
        path = directory + "/" + Self.prefix + "\(getpid())." + UUID().uuidString
        guard files.createFile(atPath: path, contents: Data(boot.utf8)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        if durable {
            try Self.fsync(path)
            try Self.fsync(directory)
        }
    }

    deinit { releaseLock() }

    /// Once the environment is open: lets other openers in, and syncs the derived data so the
    /// markers that processes of this boot left behind when they died can go.
    func opened(_ environment: Environment) throws {
        releaseLock()
        guard !leftovers.isEmpty else { return }
        try environment.sync()
        for name in leftovers { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
    }

    private func releaseLock() {
        lock.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    /// At close: syncs the derived data and removes this process's marker.
    func release(_ environment: Environment) {
        guard (try? environment.sync()) != nil else { return }
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

    private static func fsync(_ path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        guard Glibc.fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
