import Foundation
import Synchronization
internal import CLMDB

/// An open LMDB store: a directory holding the *primary* LMDB environment (`data.mdb`,
/// `lock.mdb`) and, when `Options.derivedData` is set, a second one in `derived/` for data
/// that can be recomputed from the primary.
///
/// The derived environment is never fsynced and is written through its map
/// (`MDB_NOSYNC | MDB_WRITEMAP`): its writes cost no I/O on the commit path, survive a crash of
/// the process (they are in the page cache) but not necessarily a crash of the machine, after
/// which its owner must recompute it. A transaction spans both: each `Database` handle knows
/// where it lives. Writes commit the primary first (durably), then the derived one, so the
/// derived data is never ahead of the primary; reads open the derived snapshot first, so what
/// they see of the primary is at least as new.
///
/// Transactions are only reachable inside `read { }` and `write { }` closures, so no
/// transaction or pointer into the map can outlive its scope. The environments are opened with
/// `MDB_NOTLS`, so read transactions may be used from any thread; write transactions run on the
/// thread that called `write`.
public final class Environment: @unchecked Sendable {
    /// How the environment is opened.
    public struct Options: Sendable {
        /// Initial map size in bytes; the map grows by itself when full. (The derived map starts
        /// at 8 MiB at most: the disk holds real blocks for all of it.)
        public var mapSize: Int = 64 << 20
        /// The map never grows past this size; a write that needs more fails with `mapFull`.
        public var maxMapSize: Int = 1 << 40
        /// Named databases per environment. A blue/green rebuild opens a second generation of
        /// every read-model table beside the live one, so this is more than twice the tables
        /// (about 100 of them with #41's features: 256 would have left too little room).
        public var maxDatabases: Int = 512
        /// Reader slots: the most read transactions open at once (threads and processes together).
        public var maxReaders: Int = 1024
        /// `false` opens with `MDB_NOSYNC`: commits are not fsynced (tests, bulk loads).
        public var durable: Bool = true
        /// Also open the never-fsynced environment in `derived/` for `.derived` databases.
        public var derivedData: Bool = false
        /// When opening alone, first compact the derived environment if this rule says its free
        /// space is worth reclaiming (see `compactDerivedData(path:options:when:)`); `nil`
        /// never does.
        public var compactDerivedData: CompactionRule?
        /// The defaults.
        public init() {}
    }

    private let primary: MapFile
    private let derived: MapFile?
    /// Held shared while the derived environment is open (see `compactDerivedData`).
    private let derivedLock: OpenLock?
    /// This process's claim that the derived environment may be unsynced (see `UnsyncedMarker`).
    private let marker: UnsyncedMarker?
    /// The directory the environment was opened at.
    public let path: String
    /// The options it was opened with.
    public let options: Options
    private let gate = TransactionGate()
    /// Opened database handles, by placement and name. Never held across a transaction.
    private let databases = Mutex<[Database.Placement: [String: Database]]>([:])
    /// Dead processes' readers cleared when the environment was opened.
    public let staleReadersClearedAtOpen: Int

    /// Opens (creating if needed) the environment in directory `path`, and clears reader slots
    /// left behind by processes that died.
    public init(path: String, options: Options = Options()) throws(LMDBError) {
        self.path = path
        self.options = options
        primary = try MapFile(
            path: path, flags: Self.noReadahead | (options.durable ? 0 : UInt32(MDB_NOSYNC)), options: options)
        if options.derivedData {
            let opened = try Self.openDerived(path: path, options: options)
            marker = opened.marker
            derivedLock = opened.lock
            derived = opened.file
        } else {
            marker = nil
            derivedLock = nil
            derived = nil
        }
        staleReadersClearedAtOpen = max(primary.staleReadersClearedAtOpen, derived?.staleReadersClearedAtOpen ?? 0)
    }

    private var files: [MapFile] { [primary] + (derived.map { [$0] } ?? []) }

    /// Both maps are opened without readahead (`MADV_RANDOM`). With readahead, the kernel (6.x,
    /// ext4) caches a faulted page in a large folio with its neighbours, and writeback then
    /// writes the whole folio for one changed 4 KiB page: at `--scale medium`, 16 clients
    /// made the disk write 0.6–1.4 GB/s and reached 1.6–2.4k commands/s; without readahead
    /// it wrote ~40 MB/s and they reached 6.5–7.4k, and a lone command's `fdatasync` writes
    /// pages, not folios (docs/performance.md). B-tree lookups are random
    /// reads, which readahead does not help.
    static let noReadahead = UInt32(MDB_NORDAHEAD)

    deinit { close() }

    /// Syncs the derived environment and closes both, once no transaction of this process is
    /// open; afterwards every use fails with `badTransaction`. (LMDB's locks are per process:
    /// an environment must be closed before the same database is opened again in this process.)
    public func close() {
        gate.close {
            if let derived { marker?.release(derived) }
            for file in files { file.close() }
            derivedLock?.release()
        }
    }

    /// Runs `body` unless the environment is closed (and keeps it from closing meanwhile).
    private func using<R>(_ body: () throws(LMDBError) -> R) throws(LMDBError) -> R {
        try gate.enter()
        defer { gate.leave() }
        return try body()
    }

    /// The current map size in bytes (of the primary environment; 0 once closed).
    public var mapSize: Int { (try? using { primary.mapSize }) ?? 0 }

    /// Bytes of the maps in use (last page used × page size, both environments; 0 once closed).
    public var usedBytes: Int { (try? using { files.reduce(0) { $0 + $1.usedBytes } }) ?? 0 }

    /// Clears reader slots of dead processes; returns how many dead readers were cleared (a
    /// reader holds a slot in each environment, counted once).
    @discardableResult
    public func clearStaleReaders() throws(LMDBError) -> Int {
        try using { () throws(LMDBError) in
            var cleared = 0
            for file in files { cleared = max(cleared, try file.clearStaleReaders()) }
            return cleared
        }
    }

    /// Runs `body`, a walk over much of the database in key order (verifying or replaying the
    /// whole log, whose indexes follow it), with the kernel reading ahead in both maps, which
    /// are otherwise read page by page (`noReadahead`). Scans may overlap; the last to end
    /// restores the advice.
    public func readingSequentially<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        // The gate is held only while advising (`body`'s writes may need it to grow the map).
        func advise(_ sequentially: Bool) {
            _ = try? using { for file in files { file.adviseReading(sequentially: sequentially) } }
        }
        if sequentialScans.withLock({
            $0 += 1
            return $0 == 1
        }) {
            advise(true)
        }
        defer {
            if sequentialScans.withLock({
                $0 -= 1
                return $0 == 0
            }) {
                advise(false)
            }
        }
        return try body()
    }

    /// Scans running in `readingSequentially`.
    private let sequentialScans = Mutex(0)

    /// Flushes both maps to disk (the derived one is otherwise flushed only by the kernel).
    public func sync() throws(LMDBError) {
        try using { () throws(LMDBError) in
            for file in files { try file.sync() }
        }
    }

    /// Writes a consistent copy of each environment into directory `path` (which must exist and
    /// be empty; the derived one goes into its `derived/`), compacting free pages when
    /// `compact` is set. Safe while writers run; the derived copy is taken first, so it is
    /// never ahead of the primary copy.
    public func copy(to path: String, compact: Bool = true) throws(LMDBError) {
        try using { () throws(LMDBError) in
            try createDirectory(path)
            if let derived {
                let target = path + "/" + Self.derivedDirectory
                try createDirectory(target)
                try derived.copy(to: target, compact: compact)
            }
            try primary.copy(to: path, compact: compact)
        }
    }

    /// Opens (creating if needed) the named database in the primary or the derived
    /// environment. Handles are cached for the environment's life.
    ///
    /// The cache's lock is not held while the opening write runs (which may wait for the writer
    /// lock, or for a map to grow): two callers opening the same name at once both open it, and
    /// LMDB hands both the same handle; the first one cached is kept.
    public func database(_ name: String, flags: Database.Flags = [], placement: Database.Placement = .primary) throws
        -> Database
    {
        if let db = databases.withLock({ $0[placement]?[name] }) { return db }
        guard placement == .primary || derived != nil else {
            throw LMDBError(code: .invalid, operation: "open database \(name): this environment has no derived data")
        }
        let opened = try write { txn in try txn.openDatabase(name, flags: flags, placement: placement) }
        return databases.withLock { cache in
            if let db = cache[placement]?[name] { return db }
            cache[placement, default: [:]][name] = opened
            return opened
        }
    }

    /// Forgets cached handles of databases dropped with `Transaction.drop(_:)`.
    public func forget(_ dropped: some Sequence<Database>) {
        databases.withLock { cache in
            for db in dropped { cache[db.placement]?[db.name] = nil }
        }
    }

    /// Runs `body` in a read-only transaction that sees one consistent snapshot of each
    /// environment (the derived one taken first).
    public func read<R>(_ body: (Transaction) throws -> R) throws -> R {
        try gate.enter()
        var inside = true
        defer { if inside { gate.leave() } }
        var handles = try beginReads()
        while handles == nil {
            // Another process grew a map: adopt its size (no transaction of ours is open), retry.
            try gate.outside(&inside) { () throws(LMDBError) in try adoptGrownMap() }
            handles = try beginReads()
        }
        let transaction = Transaction(primary: handles!.primary, derived: handles!.derived, writable: false)
        defer {
            transaction.invalidate()
            mdb_txn_abort(handles!.primary)
            if let derived = handles!.derived { mdb_txn_abort(derived) }
        }
        return try body(transaction)
    }

    /// Begins the read transactions, derived first; `nil` if a map was grown by another process.
    private func beginReads() throws(LMDBError) -> (primary: OpaquePointer, derived: OpaquePointer?)? {
        var derivedTxn: OpaquePointer?
        if let derived {
            let (rc, txn) = derived.begin(readOnly: true)
            if rc == MDB_MAP_RESIZED { return nil }
            try check(rc, "begin read transaction on derived data")
            derivedTxn = txn
        }
        let (rc, primaryTxn) = primary.begin(readOnly: true)
        if rc != MDB_SUCCESS, let derivedTxn { mdb_txn_abort(derivedTxn) }
        if rc == MDB_MAP_RESIZED { return nil }
        try check(rc, "begin read transaction")
        return (primaryTxn!, derivedTxn)
    }

    /// Runs `body` in a write transaction and commits it (fsynced when durable) if `body` returns.
    /// When a map is full the transaction is rolled back, that map doubled (up to
    /// `maxMapSize`, and only as far as the disk has blocks for it) and `body` run again, so
    /// `body` must not have effects outside the transaction that a second run would repeat
    /// wrongly. Once the primary has committed, `body` never runs again: should the derived
    /// environment's commit fail, its data is merely behind the primary, and its owner catches
    /// it up (a full derived map is grown before the next write).
    ///
    /// A full disk fails the write with `noSpace` (the real errno) before anything is
    /// committed: the primary file is allocated ahead of the pages its commit writes, and the
    /// derived one, which LMDB writes through its map, has real blocks for its whole map.
    public func write<R>(_ body: (Transaction) throws -> R) throws -> R {
        while true {
            do {
                if derivedMapWasFull.withLock({ $0 }) {
                    try grow(.derived)
                    derivedMapWasFull.withLock { $0 = false }
                }
                return try writeOnce(body)
            } catch let full as MapWasFull {
                try grow(full.placement)
            } catch let error as LMDBError where error.code == .mapResized {
                try adoptGrownMap()
            }
        }
    }

    /// A map found full inside `writeOnce`: the transaction was rolled back.
    private struct MapWasFull: Error {
        let placement: Database.Placement
    }

    /// Set when the derived commit after a primary commit found its map full.
    private let derivedMapWasFull = Mutex(false)

    /// Test hook: the next derived commit fails with this code after the primary committed.
    package let failNextDerivedCommit = Mutex<LMDBError.Code?>(nil)

    private func writeOnce<R>(_ body: (Transaction) throws -> R) throws -> R {
        try gate.enter()
        defer { gate.leave() }
        let (rc, primaryTxn) = primary.begin(readOnly: false)
        try check(rc, "begin write transaction")
        var derivedTxn: OpaquePointer?
        if let derived {
            let (rc, txn) = derived.begin(readOnly: false)
            if rc != MDB_SUCCESS { mdb_txn_abort(primaryTxn) }
            try check(rc, "begin write transaction on derived data")
            derivedTxn = txn
        }
        let transaction = Transaction(
            primary: primaryTxn!, derived: derivedTxn, writable: true, prepareDerivedWrite: prepareDerivedWrite)
        func abort() {
            transaction.invalidate()
            if let derivedTxn { mdb_txn_abort(derivedTxn) }
            mdb_txn_abort(primaryTxn)
        }
        let result: R
        do {
            result = try body(transaction)
        } catch let error as LMDBError where error.code == .mapFull && transaction.fullPlacement != nil {
            abort()
            throw MapWasFull(placement: transaction.fullPlacement!)
        } catch {
            abort()
            throw error
        }
        if transaction.primaryBytesWritten > 0 {
            do {
                try primary.allocateAhead(pending: transaction.primaryBytesWritten)
            } catch {
                abort()
                throw error
            }
        }
        transaction.invalidate()
        let committed = mdb_txn_commit(primaryTxn)
        if committed != MDB_SUCCESS {
            if let derivedTxn { mdb_txn_abort(derivedTxn) }
            if committed == MDB_MAP_FULL { throw MapWasFull(placement: .primary) }
            // LMDB reports a short write as EIO; on a full filesystem that is ENOSPC.
            if committed == EIO, filesystemIsFull(path) {
                throw LMDBError(code: .noSpace, operation: "commit (a short write)")
            }
            try check(committed, "commit")
        }
        // The primary is durable now: from here on nothing may run `body` again.
        if let derivedTxn {
            var rc = mdb_txn_commit(derivedTxn)
            if let injected = failNextDerivedCommit.withLock({ code in
                defer { code = nil }
                return code
            }) {
                rc = injected.rawValue
            }
            if rc == MDB_MAP_FULL { derivedMapWasFull.withLock { $0 = true } }
            // Otherwise the derived data is behind the log, and is caught up by the next write.
        }
        return result
    }

    /// Before a write transaction first changes the derived environment: leaves this process's
    /// marker and makes sure the disk has blocks for the whole derived map.
    private func prepareDerivedWrite() throws(LMDBError) {
        try marker?.claim()
        try derived?.reserveMap()
    }

    /// Doubles the map of `placement` (bounded by `maxMapSize`) while no transaction of this
    /// process is open. A derived map grows only as far as the disk gives it blocks.
    private func grow(_ placement: Database.Placement) throws(LMDBError) {
        let file = placement == .derived ? (derived ?? primary) : primary
        guard file.mapSize < options.maxMapSize else {
            throw LMDBError(code: .mapFull, operation: "grow map past its limit of \(options.maxMapSize) bytes")
        }
        try gate.exclusively { () throws(LMDBError) in
            try file.setMapSize(min(file.mapSize * 2, options.maxMapSize))
        }
    }

    private func adoptGrownMap() throws(LMDBError) {
        try gate.exclusively { () throws(LMDBError) in
            for file in files { try file.setMapSize(0) }
        }
    }
}
