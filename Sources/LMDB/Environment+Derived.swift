import Foundation
internal import CLMDB

// The derived environment's files: where it lives, how it is opened, and how it is compacted.
// When compacting is worth it is its owner's policy, passed in as a `CompactionRule`.
extension Environment {
    /// Whether a derived environment whose map has `used` bytes in use, `free` of them on its
    /// free list, is worth rewriting without them: its owner's policy, since only the owner knows
    /// what frees space in bulk (and the copy costs a read of the whole file).
    public typealias CompactionRule = @Sendable (_ used: Int, _ free: Int) -> Bool

    /// The subdirectory holding the derived environment.
    public static let derivedDirectory = "derived"

    static let derivedFlags = UInt32(MDB_NOSYNC | MDB_WRITEMAP) | noReadahead

    /// The derived environment starts with a map of at most 8 MiB: the disk gives real blocks
    /// to all of its map (see `MapFile.reserveMap`), and it doubles as it fills.
    static func derivedOptions(_ options: Options) -> Options {
        var derived = options
        derived.mapSize = min(options.mapSize, 8 << 20)
        return derived
    }
    static let openLockName = "open.lock"

    /// Opens the derived environment of the database in `path`: discards a file a machine crash
    /// may have torn, compacts it first when `options.compactDerivedData` says so and nobody
    /// else has it open, then opens it holding its open lock shared.
    static func openDerived(path: String, options: Options) throws(LMDBError) -> (
        file: MapFile, marker: UnsyncedMarker, lock: OpenLock
    ) {
        let directory = path + "/" + derivedDirectory
        try createDirectory(directory)
        // Discards a file a machine crash may have torn; keeps other openers out until open.
        let marker = try UnsyncedMarker(directory: directory, durable: options.durable)
        if let rule = options.compactDerivedData {
            _ = try? compact(directory: directory, options: options, when: rule)
        }
        let lock = try OpenLock(path: directory + "/" + openLockName)
        try lock.lockShared()
        let file = try MapFile(path: directory, flags: derivedFlags, options: derivedOptions(options))
        marker.opened(file)
        return (file, marker, lock)
    }

    /// Rewrites the derived environment of the database in `path` without its free pages, if
    /// `rule` says they are worth reclaiming and no process has it open. Returns the bytes in
    /// use before and after, or `nil` when it did nothing. Crash-safe: the compacted copy
    /// replaces the file by a rename.
    public static func compactDerivedData(
        path: String, options: Options = Options(),
        when rule: CompactionRule
    ) throws(LMDBError) -> (before: Int, after: Int)? {
        try compact(directory: path + "/" + derivedDirectory, options: options, when: rule)
    }

    private static func compact(directory: String, options: Options, when rule: CompactionRule) throws(LMDBError) -> (
        before: Int, after: Int
    )? {
        guard FileManager.default.fileExists(atPath: directory + "/data.mdb") else { return nil }
        let lock = try OpenLock(path: directory + "/" + openLockName)
        guard lock.tryLockExclusive() else { return nil }
        let staging = directory + "/compacting"
        let before: Int
        do {
            let file = try MapFile(path: directory, flags: derivedFlags, options: derivedOptions(options))
            let (used, free) = try file.spaceInUse()
            guard rule(used, free) else { return nil }
            before = used
            try? FileManager.default.removeItem(atPath: staging)
            try createDirectory(staging)
            do {
                try file.copy(to: staging, compact: true)
            } catch {
                try? FileManager.default.removeItem(atPath: staging)  // e.g. a full disk: give the space back
                throw error
            }
        }
        // Nobody maps the old file (we hold the lock exclusively): replace it, and its lock
        // file, whose reader table describes the old file.
        guard rename(staging + "/data.mdb", directory + "/data.mdb") == 0 else {
            throw LMDBError(code: LMDBError.Code(rawValue: errno), operation: "replace \(directory)/data.mdb")
        }
        try? FileManager.default.removeItem(atPath: directory + "/lock.mdb")
        try? FileManager.default.removeItem(atPath: staging)
        let after = try MapFile(path: directory, flags: derivedFlags, options: derivedOptions(options)).usedBytes
        return (before, after)
    }
}
