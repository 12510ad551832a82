import Foundation

/// What lets the derived environment go unsynced safely.
///
/// A crash of a process loses none of the derived environment's writes (they are in the
/// kernel's page cache), but a crash of the machine may leave its file torn. So every process
/// that writes it first leaves a marker file `unsynced.<pid>.<uuid>` naming the boot it runs
/// in, synced to disk before its first write, and removes it once the file is synced at close.
/// A marker from another boot means the machine went down while the file was unsynced: the
/// file is then deleted before it is opened (its owner recomputes what it held).
///
/// Opening runs under an exclusive lock (`markers.lock`) held until the environment is open,
/// so two processes starting together after a reboot do not both delete the file (the second
/// would delete the one the first already maps). A marker appears whole or not at all (written
/// under another name, then renamed), and one that vanishes while it is read (its process
/// closed) is no reason to delete anything: an opener must never take another boot's marker
/// for a running process's, or it deletes the file that process maps. A process that only
/// reads leaves no marker, so reading needs no disk space.
final class UnsyncedMarker: @unchecked Sendable {
    private let directory: String
    private let path: String
    private let durable: Bool
    /// Markers left by processes of this boot that are gone (killed, crashed).
    private var leftovers: [String]
    private var openingLock: OpenLock?
    /// Whether this process's marker is on disk (guarded by `claiming`).
    private var claimed = false
    private let claiming = NSLock()

    private static let prefix = "unsynced."
    /// A marker being written (renamed to `unsynced.…` once whole): `claiming.<pid>.<uuid>`.
    private static let stagingPrefix = "claiming."

    /// Deletes a file a machine crash may have torn. Holds the opening lock until `opened(_:)`.
    init(directory: String, durable: Bool) throws(LMDBError) {
        self.directory = directory
        self.durable = durable
        let lock = try OpenLock(path: directory + "/markers.lock")
        try lock.lockExclusive()
        openingLock = lock
        let files = FileManager.default
        let boot = Self.bootID()
        let names = (try? files.contentsOfDirectory(atPath: directory)) ?? []
        let markers = names.filter { $0.hasPrefix(Self.prefix) }
        // Half-written markers of processes that died while writing them.
        for name in names where name.hasPrefix(Self.stagingPrefix) && !Self.isRunning(pid: name) {
            try? files.removeItem(atPath: directory + "/" + name)
        }
        let otherBoot = markers.contains { name in
            guard let written = Self.read(directory + "/" + name) else { return false }  // gone meanwhile
            return written != boot
        }
        if otherBoot {
            for name in ["data.mdb", "lock.mdb"] + markers { try? files.removeItem(atPath: directory + "/" + name) }
            leftovers = []
        } else {
            leftovers = markers.filter { !Self.isRunning(pid: $0) }
        }
        path = directory + "/" + Self.prefix + "\(getpid())." + UUID().uuidString
    }

    /// Once the environment is open: lets other openers in, and syncs the file so the markers
    /// that processes of this boot left behind when they died can go (kept if the sync fails,
    /// e.g. on a full disk: they are only a reason to recompute).
    func opened(_ file: MapFile) {
        openingLock?.release()
        openingLock = nil
        guard !leftovers.isEmpty, (try? file.sync()) != nil else { return }
        for name in leftovers { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
        leftovers = []
    }

    /// Before this process first writes the file: leaves its marker (fsynced with its
    /// directory when `durable`). It is written under a name no opener looks at, then renamed,
    /// so an opener never reads it half-written (an empty marker reads as another boot's).
    /// Fails with the real errno, e.g. `noSpace`.
    func claim() throws(LMDBError) {
        claiming.lock()
        defer { claiming.unlock() }
        guard !claimed else { return }
        let boot = Array(Self.bootID().utf8)
        let staging = directory + "/" + Self.stagingPrefix + "\(getpid())." + UUID().uuidString
        let fd = open(staging, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, fileMode)
        guard fd >= 0 else { throw LMDBError(code: .init(rawValue: errno), operation: "create \(staging)") }
        let written = boot.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let code = written == boot.count ? 0 : (written < 0 ? errno : ENOSPC)
        let synced = code == 0 && (!durable || Glibc.fsync(fd) == 0)
        let syncCode = errno
        close(fd)
        guard code == 0, synced else {
            unlink(staging)
            throw LMDBError(code: .init(rawValue: code != 0 ? code : syncCode), operation: "write \(staging)")
        }
        guard rename(staging, path) == 0 else {
            let renameCode = errno
            unlink(staging)
            throw LMDBError(code: .init(rawValue: renameCode), operation: "rename \(staging)")
        }
        if durable { try Self.fsync(directory) }
        claimed = true
    }

    /// At close: syncs the file and removes this process's marker.
    func release(_ file: MapFile) {
        claiming.lock()
        defer { claiming.unlock() }
        guard claimed, (try? file.sync()) != nil else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The kernel's identifier of this boot.
    private static func bootID() -> String {
        read("/proc/sys/kernel/random/boot_id") ?? "unknown"
    }

    private static func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Whether the process named in marker `name` (`unsynced.<pid>.<uuid>`, `claiming.<pid>.<uuid>`) is alive.
    private static func isRunning(pid name: String) -> Bool {
        let parts = name.split(separator: ".")
        guard parts.count >= 2, let pid = pid_t(parts[1]) else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    private static func fsync(_ path: String) throws(LMDBError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw LMDBError(code: LMDBError.Code(rawValue: errno), operation: "open \(path)") }
        defer { close(fd) }
        guard Glibc.fsync(fd) == 0 else {
            throw LMDBError(code: LMDBError.Code(rawValue: errno), operation: "fsync \(path)")
        }
    }
}
