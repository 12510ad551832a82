import Foundation
internal import CLMDB

/// One LMDB environment proper (`data.mdb` and `lock.mdb` in a directory). `Environment`
/// owns one or two of these and is the only public way in.
final class MapFile: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String
    /// Reader slots of dead processes cleared when the file was opened.
    let staleReadersClearedAtOpen: Int
    /// Whether LMDB writes this file through its map (`MDB_WRITEMAP`).
    let writesThroughMap: Bool
    /// `lock.mdb`, opened once more to give it real blocks, and kept open until LMDB's own
    /// descriptors are closed: closing any descriptor of a file drops every `fcntl` lock the
    /// process holds on it, and LMDB's lock on `lock.mdb` is what tells the next opener that
    /// the file is in use. Without it that opener initialises the lock file afresh — mutexes
    /// and reader table — under the processes using it (crashes in LMDB's mutexes, hangs,
    /// commits lost).
    private var lockFile: Int32 = -1

    /// Opens (creating if needed) the environment in directory `path` with `flags`, and clears
    /// reader slots left behind by processes that died.
    init(path: String, flags: UInt32, options: Environment.Options) throws(LMDBError) {
        self.path = path
        writesThroughMap = flags & UInt32(MDB_WRITEMAP) != 0
        try createDirectory(path)
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "env_create")
        guard let env else { throw LMDBError(code: .invalid, operation: "env_create") }
        handle = env
        do {
            try check(mdb_env_set_maxdbs(env, MDB_dbi(options.maxDatabases)), "set_maxdbs")
            try check(mdb_env_set_maxreaders(env, UInt32(options.maxReaders)), "set_maxreaders")
            try check(mdb_env_set_mapsize(env, options.mapSize), "set_mapsize")
            try check(mdb_env_open(env, path, flags | UInt32(MDB_NOTLS), fileMode), "open \(path)")
            for name in ["data.mdb", "lock.mdb"] { try restrictMode(path + "/" + name, fileMode) }
            // LMDB writes its reader table through a shared map of the lock file: give every
            // page of it real blocks, or taking a reader slot on a full disk would be a SIGBUS.
            lockFile = try openForWriting(path + "/lock.mdb")
            try reserve(lockFile, path: path + "/lock.mdb")
            var dead: Int32 = 0
            try check(mdb_reader_check(env, &dead), "reader_check")
            staleReadersClearedAtOpen = Int(dead)
            // Another process may have grown the map past our configured size: adopt it.
            try check(mdb_env_set_mapsize(env, 0), "set_mapsize")
            if writesThroughMap { _ = try? reserveMap() }  // on a full disk: tried again before writing
        } catch {
            mdb_env_close(env)
            if lockFile >= 0 { Glibc.close(lockFile) }
            throw error
        }
    }

    private var isClosed = false

    deinit { close() }

    /// Closes the environment (once; the owner makes sure no transaction is open).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        mdb_env_close(handle)
        if lockFile >= 0 { Glibc.close(lockFile) }  // only now: see `lockFile`
    }

    var mapSize: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_mapsize
    }

    /// Tells the kernel how the map is about to be read: `sequentially` reads ahead (a walk of
    /// the whole log), otherwise each fault reads one page (`MDB_NORDAHEAD`'s own advice, which
    /// LMDB also gives again whenever it maps a grown file). LMDB does not say where its map
    /// is (`me_mapaddr` is only set for a fixed map), so it is found in `/proc/self/maps`.
    /// Advice only: a failure changes nothing but speed.
    func adviseReading(sequentially: Bool) {
        guard let file = realpath(path + "/data.mdb", nil) else { return }
        let target = String(cString: file)
        free(file)
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return }
        for line in maps.split(separator: "\n") where line.hasSuffix(" " + target) {
            let bounds = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt(String($0), radix: 16) }
            guard bounds.count == 2, bounds[1] > bounds[0], let start = UnsafeMutableRawPointer(bitPattern: bounds[0])
            else { continue }
            _ = madvise(start, Int(bounds[1] - bounds[0]), sequentially ? MADV_SEQUENTIAL : MADV_RANDOM)
        }
    }

    /// Bytes of the map in use (last page used × page size).
    var usedBytes: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        return (info.me_last_pgno + 1) * Int(stat.ms_psize)
    }

    /// How far past its last used page the file has real, zero-filled blocks (0: not known yet).
    /// Touched only inside write transactions, which LMDB's writer lock serialises.
    private var allocatedEnd = 0

    /// Keeps the file allocated ahead of the pages LMDB uses, so that a commit writes only into
    /// blocks the file already has: it cannot run out of disk space halfway through its pages,
    /// and its fsync never changes the file's size or block map. (On ext4 such an fsync must
    /// also commit the filesystem journal: measured at `--scale medium`, a 16-command commit
    /// took 449 µs when the log grew the file and 305 µs when it did not.) The blocks are
    /// written with zeros (`fallocate` would leave unwritten extents, whose first write needs
    /// the same journal commit): when less than half a step (1/16 of the used size, 1–8 MiB)
    /// or less than `pending` bytes are left, up to a step (at least twice `pending`) ahead.
    /// The commit that takes a step flushes it: at most 4 MiB, ~3 ms on this machine's disk,
    /// once per as many MiB of log (some 13,000 commands).
    ///
    /// Call inside a write transaction, before committing, with an upper estimate of the bytes
    /// its commit appends: under LMDB's writer lock no other writer is writing past the end,
    /// and the pages this transaction adds there are written by its commit, after the zeros.
    /// Throws (with the real errno, `noSpace` on a full disk) when the blocks cannot be had:
    /// the caller then aborts instead of committing.
    func allocateAhead(pending: Int) throws(LMDBError) {
        let used = usedBytes
        let step = max(min(max(used / 16, 1 << 20), 8 << 20), 2 * pending)
        guard used + max(step / 2, pending) > allocatedEnd else { return }
        var status = stat()
        let fd = descriptor
        guard fd >= 0, fstat(fd, &status) == 0 else {
            throw LMDBError(code: .init(rawValue: errno), operation: "stat \(path)/data.mdb")
        }
        var offset = Int(status.st_size)
        let end = max(min(used + step, mapSize), offset)  // LMDB never writes past its map
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        while offset < end {
            let written = zeros.withUnsafeBytes {
                pwrite(fd, $0.baseAddress, min($0.count, end - offset), off_t(offset))
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                let code = written < 0 ? errno : ENOSPC
                // Give the blocks written so far back: a full disk stays usable for others.
                _ = ftruncate(fd, off_t(max(Int(status.st_size), used)))
                throw LMDBError(
                    code: .init(rawValue: code),
                    operation: "allocate \(end - Int(status.st_size)) bytes ahead in \(path)/data.mdb")
            }
            offset += written
        }
        allocatedEnd = end
    }

    /// Bytes of the map backed by real blocks (see `reserveMap`).
    private var reservedBytes = 0

    /// For a file written through its map: gives every page of the map real blocks
    /// (`posix_fallocate`), so that no write through the map can hit a hole on a full disk —
    /// which the kernel answers with SIGBUS, not an error. Throws `noSpace` (or the real
    /// errno) when the disk cannot hold the map; LMDB never writes past the map, so a full map
    /// is grown and reserved again before it is written.
    func reserveMap() throws(LMDBError) {
        let size = mapSize
        guard writesThroughMap, reservedBytes < size else { return }
        let fd = descriptor
        guard fd >= 0 else { throw LMDBError(code: .badTransaction, operation: "reserve \(path)/data.mdb: not open") }
        let rc = posix_fallocate(fd, 0, off_t(size))
        guard rc == 0 else {
            throw LMDBError(code: .init(rawValue: rc), operation: "reserve \(size) bytes for \(path)/data.mdb")
        }
        reservedBytes = size
    }

    private var descriptor: Int32 {
        var fd: Int32 = -1
        return mdb_env_get_fd(handle, &fd) == 0 ? fd : -1
    }

    func clearStaleReaders() throws(LMDBError) -> Int {
        var dead: Int32 = 0
        try check(mdb_reader_check(handle, &dead), "reader_check")
        return Int(dead)
    }

    func sync() throws(LMDBError) {
        try check(mdb_env_sync(handle, 1), "env_sync \(path)")
    }

    /// Writes a consistent copy into `data.mdb` in directory `path` (created owner-only; the
    /// file must not exist yet).
    func copy(to path: String, compact: Bool) throws(LMDBError) {
        let file = path + "/data.mdb"
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard fd >= 0 else { throw LMDBError(code: .init(rawValue: errno), operation: "create \(file)") }
        defer { Glibc.close(fd) }
        try check(mdb_env_copyfd2(handle, fd, compact ? UInt32(MDB_CP_COMPACT) : 0), "copy to \(path)")
        guard fsync(fd) == 0 else { throw LMDBError(code: .init(rawValue: errno), operation: "fsync \(file)") }
    }

    /// Sets the map size (0 adopts the size another process grew it to). Growing a file written
    /// through its map gives it real blocks for the new size, or keeps its old size and throws
    /// `noSpace`. (An adopted size that finds no blocks is reserved again before this process
    /// writes: reading needs none.)
    func setMapSize(_ size: Int) throws(LMDBError) {
        let old = mapSize
        try check(mdb_env_set_mapsize(handle, size), "set_mapsize")
        guard writesThroughMap, size != 0 else {
            if writesThroughMap { _ = try? reserveMap() }
            return
        }
        do {
            try reserveMap()
        } catch {
            _ = mdb_env_set_mapsize(handle, old)  // back to the blocks it has
            throw error
        }
    }

    /// Bytes of the map in use and bytes on its free list (free pages are reused by later
    /// writes, but a long free list makes every commit that rewrites it slower).
    func spaceInUse() throws(LMDBError) -> (used: Int, free: Int) {
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        let (rc, txn) = begin(readOnly: true)
        try check(rc, "begin read transaction")
        defer { mdb_txn_abort(txn) }
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(txn, 0, &cursor), "open the free list")  // database 0 is LMDB's free list
        defer { mdb_cursor_close(cursor) }
        var free = 0
        var key = MDB_val(), value = MDB_val()
        var op = MDB_FIRST
        // Each record is a page-number list whose first word is its length (bounded by the
        // record's own size: a damaged file must not make the sum overflow).
        let word = MemoryLayout<Int>.size
        while mdb_cursor_get(cursor, &key, &value, op) == MDB_SUCCESS {
            if value.mv_size >= word, let data = value.mv_data {
                let count = data.loadUnaligned(as: Int.self)
                guard count >= 0, count <= value.mv_size / word else {
                    throw LMDBError(code: .corrupted, operation: "read the free list of \(path)")
                }
                free += count
            }
            op = MDB_NEXT
        }
        return (usedBytes, free * Int(stat.ms_psize))
    }

    func begin(readOnly: Bool) -> (Int32, OpaquePointer?) {
        var txn: OpaquePointer?
        let rc = mdb_txn_begin(handle, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn)
        return (rc, txn)
    }
}

/// The mode of every file of a database: the owner's alone (the read models hold every
/// account's email and password hash in clear).
let fileMode: mode_t = 0o600
/// The mode of a database's directories.
let directoryMode: mode_t = 0o700

/// Creates the directory `path` (and its parents) if needed, owner-only; an existing one is
/// made owner-only. Fails with the real errno.
func createDirectory(_ path: String) throws(LMDBError) {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
        prefix += "/" + component
        if mkdir(prefix, directoryMode) != 0, errno != EEXIST {
            throw LMDBError(code: .init(rawValue: errno), operation: "create directory \(prefix)")
        }
    }
    try restrictMode(path, directoryMode)
}

/// Sets `path`'s permission bits to `mode` unless they are already at most that (a file of
/// another owner is left as it is: only its owner may change it).
func restrictMode(_ path: String, _ mode: mode_t) throws(LMDBError) {
    var status = stat()
    guard stat(path, &status) == 0 else {
        if errno == ENOENT { return }
        throw LMDBError(code: .init(rawValue: errno), operation: "stat \(path)")
    }
    guard status.st_mode & 0o777 & ~mode != 0, status.st_uid == geteuid() else { return }
    guard chmod(path, mode) == 0 else { throw LMDBError(code: .init(rawValue: errno), operation: "chmod \(path)") }
}

/// Opens the file at `path` for reading and writing (the caller closes it).
func openForWriting(_ path: String) throws(LMDBError) -> Int32 {
    let fd = open(path, O_RDWR | O_CLOEXEC)
    guard fd >= 0 else { throw LMDBError(code: .init(rawValue: errno), operation: "open \(path)") }
    return fd
}

/// Gives every byte of the open file `fd` (at `path`) real blocks (see `MapFile.reserveMap`).
func reserve(_ fd: Int32, path: String) throws(LMDBError) {
    var status = stat()
    guard fstat(fd, &status) == 0 else { throw LMDBError(code: .init(rawValue: errno), operation: "stat \(path)") }
    guard status.st_size > 0 else { return }
    let rc = posix_fallocate(fd, 0, status.st_size)
    guard rc == 0 else {
        throw LMDBError(code: .init(rawValue: rc), operation: "reserve \(status.st_size) bytes for \(path)")
    }
}

/// Whether the filesystem holding `path` has (next to) no free blocks left.
func filesystemIsFull(_ path: String) -> Bool {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return false }
    return UInt64(info.f_bavail) * UInt64(info.f_frsize) < 1 << 20
}
