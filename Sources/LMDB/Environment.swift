import Foundation
internal import CLMDB

/// An open LMDB environment (a directory holding `data.mdb` and `lock.mdb`).
///
/// Transactions are only reachable inside `read { }` and `write { }` closures, so no
/// transaction or pointer into the map can outlive its scope. The environment is opened with
/// `MDB_NOTLS`, so read transactions may be used from any thread; write transactions run on the
/// thread that called `write`.
public final class Environment: @unchecked Sendable {
    /// How the environment is opened.
    public struct Options: Sendable {
        /// Initial map size in bytes; the map grows by itself when full.
        public var mapSize: Int = 64 << 20
        /// The map never grows past this size; a write that needs more fails with `mapFull`.
        public var maxMapSize: Int = 1 << 40
        public var maxDatabases: Int = 64
        public var maxReaders: Int = 1024
        /// `false` opens with `MDB_NOSYNC`: commits are not fsynced (tests, bulk loads).
        public var durable: Bool = true
        public init() {}
    }

    let handle: OpaquePointer
    public let path: String
    public let options: Options
    private let gate = ResizeGate()
    private let openedDatabases = NSLock()
    private var databases: [String: Database] = [:]
    /// Reader slots of dead processes cleared when the environment was opened.
    public private(set) var staleReadersClearedAtOpen = 0

    /// Opens (creating if needed) the environment in directory `path`, and clears reader slots
    /// left behind by processes that died.
    public init(path: String, options: Options = Options()) throws(LMDBError) {
        self.path = path
        self.options = options
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw LMDBError(code: .permissionDenied, operation: "create directory \(path)")
        }
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "env_create")
        guard let env else { throw LMDBError(code: .invalid, operation: "env_create") }
        handle = env
        do {
            try check(mdb_env_set_maxdbs(env, MDB_dbi(options.maxDatabases)), "set_maxdbs")
            try check(mdb_env_set_maxreaders(env, UInt32(options.maxReaders)), "set_maxreaders")
            try check(mdb_env_set_mapsize(env, options.mapSize), "set_mapsize")
            var flags = UInt32(MDB_NOTLS)
            if !options.durable { flags |= UInt32(MDB_NOSYNC) }
            try check(mdb_env_open(env, path, flags, 0o644), "open \(path)")
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

    deinit { mdb_env_close(handle) }

    /// The current map size in bytes.
    public var mapSize: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_mapsize
    }

    /// Bytes of the map in use (last page used × page size).
    public var usedBytes: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        return (info.me_last_pgno + 1) * Int(stat.ms_psize)
    }

    /// Clears reader slots of dead processes; returns how many were cleared.
    @discardableResult
    public func clearStaleReaders() throws(LMDBError) -> Int {
        var dead: Int32 = 0
        try check(mdb_reader_check(handle, &dead), "reader_check")
        return Int(dead)
    }

    /// Flushes the map to disk (needed only when opened with `durable: false`).
    public func sync() throws(LMDBError) {
        try check(mdb_env_sync(handle, 1), "env_sync")
    }

    /// Writes a consistent copy of the environment into directory `path` (which must exist and
    /// be empty), compacting free pages when `compact` is set. Safe while writers run.
    public func copy(to path: String, compact: Bool = true) throws(LMDBError) {
        try check(mdb_env_copy2(handle, path, compact ? UInt32(MDB_CP_COMPACT) : 0), "copy to \(path)")
    }

    /// Opens (creating if needed) the named database. Handles are cached for the environment's life.
    public func database(_ name: String, flags: Database.Flags = []) throws -> Database {
        openedDatabases.lock()
        defer { openedDatabases.unlock() }
        if let db = databases[name] { return db }
        let db = try write { txn in try txn.openDatabase(name, flags: flags) }
        databases[name] = db
        return db
    }

    /// Forgets cached handles of databases dropped with `Transaction.drop(_:)`.
    public func forget(_ names: some Sequence<String>) {
        openedDatabases.lock()
        defer { openedDatabases.unlock() }
        for name in names { databases[name] = nil }
    }

    /// Runs `body` in a read-only transaction that sees one consistent snapshot.
    public func read<R>(_ body: (Transaction) throws -> R) throws -> R {
        gate.enterReader()
        defer { gate.leaveReader() }
        var txn: OpaquePointer?
        var rc = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn)
        if rc == MDB_MAP_RESIZED {
            // Another process grew the map: adopt its size, then retry.
            gate.leaveReader()
            try adoptGrownMap()
            gate.enterReader()
            rc = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn)
        }
        try check(rc, "begin read transaction")
        let transaction = Transaction(txn!, writable: false)
        defer {
            transaction.invalidate()
            mdb_txn_abort(txn)
        }
        return try body(transaction)
    }

    /// Runs `body` in a write transaction and commits it (fsynced when durable) if `body` returns.
    /// When the map is full the transaction is rolled back, the map doubled (up to
    /// `maxMapSize`) and `body` run again, so `body` must not have effects outside the
    /// transaction that a second run would repeat wrongly.
    public func write<R>(_ body: (Transaction) throws -> R) throws -> R {
        while true {
            do {
                return try writeOnce(body)
            } catch let error as LMDBError where error.code == .mapFull {
                try grow()
            } catch let error as LMDBError where error.code == .mapResized {
                try adoptGrownMap()
            }
        }
    }

    private func writeOnce<R>(_ body: (Transaction) throws -> R) throws -> R {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(handle, nil, 0, &txn), "begin write transaction")
        let transaction = Transaction(txn!, writable: true)
        let result: R
        do {
            result = try body(transaction)
        } catch {
            transaction.invalidate()
            mdb_txn_abort(txn)
            throw error
        }
        transaction.invalidate()
        try check(mdb_txn_commit(txn), "commit")
        return result
    }

    /// Doubles the map (bounded by `maxMapSize`) while no transaction of this process is open.
    private func grow() throws(LMDBError) {
        let current = mapSize
        guard current < options.maxMapSize else {
            throw LMDBError(code: .mapFull, operation: "grow map past its limit of \(options.maxMapSize) bytes")
        }
        let next = min(current * 2, options.maxMapSize)
        try gate.exclusively { () throws(LMDBError) in
            try check(mdb_env_set_mapsize(handle, next), "set_mapsize")
        }
    }

    private func adoptGrownMap() throws(LMDBError) {
        try gate.exclusively { () throws(LMDBError) in
            try check(mdb_env_set_mapsize(handle, 0), "set_mapsize")
        }
    }
}

/// Lets many readers in at once, but the map size can only change while none is inside.
final class ResizeGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var readers = 0
    private var resizing = false

    func enterReader() {
        condition.lock()
        while resizing { condition.wait() }
        readers += 1
        condition.unlock()
    }

    func leaveReader() {
        condition.lock()
        readers -= 1
        if readers == 0 { condition.broadcast() }
        condition.unlock()
    }

    func exclusively(_ body: () throws(LMDBError) -> Void) throws(LMDBError) {
        condition.lock()
        resizing = true
        while readers > 0 { condition.wait() }
        defer {
            resizing = false
            condition.broadcast()
            condition.unlock()
        }
        try body()
    }
}
