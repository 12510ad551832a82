internal import CLMDB

/// A position in one database, valid inside `Transaction.withCursor` only.
public final class Cursor {
    private var handle: OpaquePointer?
    /// The database the cursor moves in.
    public let database: Database
    private unowned let transaction: Transaction

    init(_ handle: OpaquePointer, database: Database, transaction: Transaction) {
        self.handle = handle
        self.database = database
        self.transaction = transaction
    }

    func invalidate() { handle = nil }

    func close() {
        if let handle { mdb_cursor_close(handle) }
        handle = nil
    }

    /// One key/value pair.
    public typealias Entry = (key: [UInt8], value: [UInt8])

    private func move(_ op: MDB_cursor_op, key: [UInt8]? = nil) throws(LMDBError) -> Entry? {
        guard let handle else { throw LMDBError(code: .badTransaction, operation: "use of a closed cursor") }
        var k = MDB_val()
        var v = MDB_val()
        let rc: Int32
        if let key {
            rc = key.withUnsafeBytes { keyBytes in
                k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                let rc = mdb_cursor_get(handle, &k, &v, op)
                // Copy out while the caller's key buffer is still alive (MDB_SET may point k at it).
                return rc
            }
        } else {
            rc = mdb_cursor_get(handle, &k, &v, op)
        }
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "cursor on \(database.name)")
        return (bytes(k), bytes(v))
    }

    /// Positions at the first entry (`nil`: the database is empty).
    public func first() throws(LMDBError) -> Entry? { try move(MDB_FIRST) }
    /// Positions at the last entry (`nil`: the database is empty).
    public func last() throws(LMDBError) -> Entry? { try move(MDB_LAST) }
    /// Moves to the next entry (`nil`: there is none).
    public func next() throws(LMDBError) -> Entry? { try move(MDB_NEXT) }
    /// Moves to the previous entry (`nil`: there is none).
    public func previous() throws(LMDBError) -> Entry? { try move(MDB_PREV) }
    /// The entry at the cursor.
    public func current() throws(LMDBError) -> Entry? { try move(MDB_GET_CURRENT) }
    /// Positions at the first key ≥ `key`.
    public func seek(atLeast key: [UInt8]) throws(LMDBError) -> Entry? { try move(MDB_SET_RANGE, key: key) }

    /// Positions at the last key < `key` (or the last key when none is ≥ `key`).
    public func seek(below key: [UInt8]) throws(LMDBError) -> Entry? {
        if try seek(atLeast: key) != nil { return try previous() }
        return try last()
    }

    /// Deletes the entry under the cursor.
    public func deleteCurrent() throws(LMDBError) {
        guard let handle else { throw LMDBError(code: .badTransaction, operation: "use of a closed cursor") }
        _ = try transaction.changing(database.placement)
        try transaction.checkChange(mdb_cursor_del(handle, 0), database, bytes: 0, "cursor delete on \(database.name)")
    }
}
