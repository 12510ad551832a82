import Foundation
internal import CLMDB

/// One LMDB environment proper (`data.mdb` and `lock.mdb` in a directory). `Environment`
/// owns one or two of these and is the only public way in.
final class MapFile: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String
    /// Reader slots of dead processes cleared when the file was opened.
    let staleReadersClearedAtOpen: Int

    /// Opens (creating if needed) the environment in directory `path` with `flags`, and clears
    /// reader slots left behind by processes that died.
    init(path: String, flags: UInt32, options: Environment.Options) throws(LMDBError) {
        self.path = path
        try createDirectory(path)
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "env_create")
        guard let env else { throw LMDBError(code: .invalid, operation: "env_create") }
        handle = env
        do {
            try check(mdb_env_set_maxdbs(env, MDB_dbi(options.maxDatabases)), "set_maxdbs")
            try check(mdb_env_set_maxreaders(env, UInt32(options.maxReaders)), "set_maxreaders")
            try check(mdb_env_set_mapsize(env, options.mapSize), "set_mapsize")
            try check(mdb_env_open(env, path, flags | UInt32(MDB_NOTLS), 0o644), "open \(path)")
            var dead: Int32 = 0
            try check(mdb_reader_check(env, &dead), "reader_check")
            staleReadersClearedAtOpen = Int(dead)
            // Another process may have grown the map past our configured size: adopt it.
            try check(mdb_env_set_mapsize(env, 0), "set_mapsize")
        } catch {
            mdb_env_close(env)
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
    }

    var mapSize: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_mapsize
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

    /// Keeps the file allocated ahead of the pages LMDB uses, so that the fsync of a commit
    /// that appends pages never changes the file's size or block map. On ext4 such an fsync
    /// must also commit the filesystem journal: measured at `--scale medium`, a 16-command
    /// commit took 449 µs when the log grew the file and 305 µs when it did not. The blocks are
    /// written with zeros (`fallocate` would leave unwritten extents, whose first write needs
    /// the same journal commit): when less than half a step (1/16 of the used size, 1–8 MiB)
    /// is left, up to a step ahead. The commit that takes a step flushes it: at most 4 MiB,
    /// ~3 ms on this machine's disk, once per as many MiB of log (some 13,000 commands).
    ///
    /// Call inside a write transaction, before committing: under LMDB's writer lock no other
    /// writer is writing past the end, and the pages this transaction adds there are written
    /// by its commit, after the zeros. Best effort: a failure (a full disk) is left to the
    /// commit, which reports it if LMDB's own pages do not fit.
    func allocateAhead() {
        let used = usedBytes
        let step = min(max(used / 16, 1 << 20), 8 << 20)
        guard used + step / 2 > allocatedEnd else { return }
        var status = stat()
        let fd = descriptor
        guard fd >= 0, fstat(fd, &status) == 0 else { return }
        var offset = Int(status.st_size)
        let end = max(used + step, offset)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        while offset < end {
            let written = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, min($0.count, end - offset), off_t(offset)) }
            guard written > 0 else { break }
            offset += written
        }
        allocatedEnd = end  // even after a failure: the next try waits for another half step
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

    func copy(to path: String, compact: Bool) throws(LMDBError) {
        try check(mdb_env_copy2(handle, path, compact ? UInt32(MDB_CP_COMPACT) : 0), "copy to \(path)")
    }

    /// Sets the map size (0 adopts the size another process grew it to).
    func setMapSize(_ size: Int) throws(LMDBError) {
        try check(mdb_env_set_mapsize(handle, size), "set_mapsize")
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
        // Each record is a page-number list whose first word is its length.
        while mdb_cursor_get(cursor, &key, &value, op) == MDB_SUCCESS {
            if value.mv_size >= MemoryLayout<Int>.size, let data = value.mv_data {
                free += data.loadUnaligned(as: Int.self)
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

/// Creates the directory `path` (and its parents) if needed.
func createDirectory(_ path: String) throws(LMDBError) {
    do {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
        throw LMDBError(code: .permissionDenied, operation: "create directory \(path)")
    }
}
