import Foundation
internal import CLMDB

/// A transaction, valid only inside the `Environment.read`/`write` closure that received it.
/// It spans the primary and (if open) the derived environment; each operation goes to the
/// environment its `Database` lives in. Keys and values cross this boundary as byte arrays,
/// so no pointer into the map escapes.
public final class Transaction {
    private let primary: OpaquePointer
    private var derived: OpaquePointer?
    private var finished = false
    /// Whether this transaction may write.
    public let isWritable: Bool
    /// Run before the first change to the derived environment (see `Environment.write`).
    private var prepareDerivedWrite: (() throws(LMDBError) -> Void)?
    /// An estimate of the bytes this transaction's commit writes to the primary file (each
    /// change counts its key, value and one page).
    private(set) var primaryBytesWritten = 0
    /// The environment whose map was found full, if one was.
    private(set) var fullPlacement: Database.Placement?

    init(
        primary: OpaquePointer, derived: OpaquePointer?, writable: Bool,
        prepareDerivedWrite: (() throws(LMDBError) -> Void)? = nil
    ) {
        self.primary = primary
        self.derived = derived
        self.isWritable = writable
        self.prepareDerivedWrite = prepareDerivedWrite
    }

    /// The LMDB transaction that is about to change a database in `placement`, after the
    /// derived environment's one-time preparation (the first change to it only).
    func changing(_ placement: Database.Placement) throws(LMDBError) -> OpaquePointer {
        let txn = try live(placement)
        if placement == .derived, let prepare = prepareDerivedWrite {
            try prepare()
            prepareDerivedWrite = nil
        }
        return txn
    }

    /// Checks the return code of a change to `db`, noting a full map and the bytes the
    /// primary's commit will write.
    func checkChange(_ rc: Int32, _ db: Database, bytes: Int, _ operation: @autoclosure () -> String) throws(LMDBError)
    {
        if rc == MDB_MAP_FULL { fullPlacement = db.placement }
        try check(rc, operation())
        if db.placement == .primary { primaryBytesWritten += bytes + 4096 }
    }

    func invalidate() { finished = true }

    /// The LMDB transaction of the environment `placement` names.
    func live(_ placement: Database.Placement = .primary) throws(LMDBError) -> OpaquePointer {
        guard !finished else { throw LMDBError(code: .badTransaction, operation: "use of a finished transaction") }
        switch placement {
        case .primary: return primary
        case .derived:
            guard let derived else {
                throw LMDBError(code: .badTransaction, operation: "this transaction has no derived data")
            }
            return derived
        }
    }

    func live(_ db: Database) throws(LMDBError) -> OpaquePointer { try live(db.placement) }

    func openDatabase(_ name: String, flags: Database.Flags, placement: Database.Placement) throws(LMDBError)
        -> Database
    {
        var dbi: MDB_dbi = 0
        // Only creating a database changes anything (a full disk still opens existing ones).
        var rc = mdb_dbi_open(try live(placement), name, flags.rawValue, &dbi)
        if rc == MDB_NOTFOUND {
            rc = mdb_dbi_open(try changing(placement), name, flags.rawValue | UInt32(MDB_CREATE), &dbi)
        }
        try check(rc, "open database \(name)")
        return Database(dbi: dbi, name: name, placement: placement)
    }

    /// The value under `key` as LMDB's pointer into the map (valid until the transaction
    /// ends or writes), or `nil`.
    private func lookup(_ db: Database, _ key: some ContiguousBytes) throws(LMDBError) -> MDB_val? {
        let txn = try live(db)
        var v = MDB_val()
        let rc = key.withUnsafeBytes { keyBytes in
            var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            return mdb_get(txn, db.dbi, &k, &v)
        }
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "get from \(db.name)")
        return v
    }

    /// The value stored under `key`, or `nil`.
    public func get(_ db: Database, _ key: some ContiguousBytes) throws(LMDBError) -> [UInt8]? {
        try lookup(db, key).map(bytes)
    }

    /// Calls `body` with the value under `key` read in place from the map, without copying it
    /// (the span cannot outlive the call); `nil` when the key is absent.
    public func withValue<R>(_ db: Database, _ key: some ContiguousBytes, _ body: (Span<UInt8>) throws -> R) throws
        -> R?
    {
        guard let value = try lookup(db, key) else { return nil }
        let bytes = UnsafeBufferPointer(start: value.mv_data?.assumingMemoryBound(to: UInt8.self), count: value.mv_size)
        return try body(bytes.span)
    }

    /// Whether `key` is present (without copying its value).
    public func contains(_ db: Database, _ key: [UInt8]) throws(LMDBError) -> Bool {
        try lookup(db, key) != nil
    }

    /// Stores `value` under `key`. With `.noOverwrite`, returns `false` if the key existed.
    @discardableResult
    public func put(_ db: Database, _ key: [UInt8], _ value: [UInt8], flags: PutFlags = []) throws(LMDBError) -> Bool {
        let txn = try changing(db.placement)
        let rc = key.withUnsafeBytes { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var k = MDB_val(
                    mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                var v = MDB_val(
                    mv_size: valueBytes.count, mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                return mdb_put(txn, db.dbi, &k, &v, flags.rawValue)
            }
        }
        if rc == MDB_KEYEXIST && flags.contains(.noOverwrite) { return false }
        try checkChange(rc, db, bytes: key.count + value.count, "put into \(db.name)")
        return true
    }

    /// Deletes `key`; returns whether it was present.
    @discardableResult
    public func delete(_ db: Database, _ key: [UInt8]) throws(LMDBError) -> Bool {
        let txn = try changing(db.placement)
        let rc = key.withUnsafeBytes { keyBytes in
            var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            return mdb_del(txn, db.dbi, &k, nil)
        }
        if rc == MDB_NOTFOUND { return false }
        try checkChange(rc, db, bytes: 0, "delete from \(db.name)")
        return true
    }

    /// Removes every entry of `db` (the database itself stays).
    public func clear(_ db: Database) throws(LMDBError) {
        try checkChange(mdb_drop(try changing(db.placement), db.dbi, 0), db, bytes: 0, "clear \(db.name)")
    }

    /// Entry count and page statistics of `db`.
    public func statistics(_ db: Database) throws(LMDBError) -> DatabaseStatistics {
        var stat = MDB_stat()
        try check(mdb_stat(try live(db), db.dbi, &stat), "stat \(db.name)")
        return DatabaseStatistics(
            entries: stat.ms_entries, pageSize: Int(stat.ms_psize), depth: Int(stat.ms_depth),
            pages: stat.ms_branch_pages + stat.ms_leaf_pages + stat.ms_overflow_pages)
    }

    /// Opens one cursor per database in `dbs` (repeats allowed), all valid inside `body` only.
    public func withCursors<R>(_ dbs: [Database], _ body: ([Cursor]) throws -> R) throws -> R {
        var cursors: [Cursor] = []
        cursors.reserveCapacity(dbs.count)
        defer {
            for cursor in cursors { cursor.close() }
        }
        for db in dbs {
            var handle: OpaquePointer?
            try check(mdb_cursor_open(try live(db), db.dbi, &handle), "open cursor on \(db.name)")
            cursors.append(Cursor(handle!, database: db, transaction: self))
        }
        return try body(cursors)
    }

    /// Opens a cursor over `db`, valid inside `body` only.
    public func withCursor<R>(_ db: Database, _ body: (Cursor) throws -> R) throws -> R {
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(try live(db), db.dbi, &cursor), "open cursor on \(db.name)")
        let wrapper = Cursor(cursor!, database: db, transaction: self)
        defer {
            wrapper.invalidate()
            mdb_cursor_close(cursor)
        }
        return try body(wrapper)
    }
}

@inline(__always)
func bytes(_ value: MDB_val) -> [UInt8] {
    guard value.mv_size > 0, let data = value.mv_data else { return [] }
    // One allocation and one memcpy, through the stdlib's copy of a buffer (specialised here:
    // `init(unsafeUninitializedCapacity:)` looked its storage's generic metadata up at run time
    // on every call, a twentieth of a timeline page).
    return Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt8.self), count: value.mv_size))
}

extension Transaction {
    /// Deletes the database `db` itself (not just its entries). After commit its handle is
    /// closed; call `Environment.forget(_:)` for its name.
    public func drop(_ db: Database) throws(LMDBError) {
        try checkChange(mdb_drop(try changing(db.placement), db.dbi, 1), db, bytes: 0, "drop \(db.name)")
    }

    /// The names of the named databases in one environment, or (`nil`) in both.
    public func databaseNames(in only: Database.Placement? = nil) throws -> [String] {
        var names: [String] = []
        let placements = only.map { [$0] } ?? (derived == nil ? [.primary] : [.primary, .derived])
        for placement in placements {
            var main: MDB_dbi = 0
            try check(mdb_dbi_open(try live(placement), nil, 0, &main), "open main database")
            try withCursor(Database(dbi: main, name: "", placement: placement)) { cursor in
                var entry = try cursor.first()
                while let (key, _) = entry {
                    names.append(String(decoding: key, as: UTF8.self))
                    entry = try cursor.next()
                }
            }
        }
        return names
    }
}
