internal import CSQLite

/// A failed SQLite call: its result code and message.
public struct SQLiteError: Error, CustomStringConvertible {
    /// The SQLite result code.
    public let code: Int32
    /// SQLite's message.
    public let message: String
    /// The code and the message.
    public var description: String { "sqlite error \(code): \(message)" }
}

/// One SQLite database connection (the bench's peer design; the library never links SQLite).
/// The only code that touches SQLite's C pointers.
public final class SQLiteDatabase {
    private var handle: OpaquePointer?

    /// Opens (creating) the database file at `path`.
    public init(path: String) throws {
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            throw SQLiteError(code: rc, message: message)
        }
    }

    deinit {
        statements.removeAll()
        sqlite3_close(handle)
    }

    private var statements: [String: SQLiteStatement] = [:]

    /// Runs `sql` (one or more statements, no parameters).
    public func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "?"
            sqlite3_free(error)
            throw SQLiteError(code: rc, message: message)
        }
    }

    /// The prepared statement for `sql`, prepared once per connection and reused.
    public func statement(_ sql: String) throws -> SQLiteStatement {
        if let known = statements[sql] { return known }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)))
        }
        let statement = SQLiteStatement(stmt, database: handle!)
        statements[sql] = statement
        return statement
    }
}

/// A prepared statement: bind parameters (1-based), step through rows, read columns (0-based).
public final class SQLiteStatement {
    private let handle: OpaquePointer
    private let database: OpaquePointer

    init(_ handle: OpaquePointer, database: OpaquePointer) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// A parameter's value.
    public enum Value {
        /// An integer.
        case int(Int64)
        /// Text.
        case text(String)
        /// SQL `NULL`.
        case null
    }

    /// Resets the statement and binds `values` to its parameters, in order.
    public func bind(_ values: [Value]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let rc: Int32 =
                switch value {
                case .int(let v): sqlite3_bind_int64(handle, position, v)
                case .text(let v): sqlite3_bind_text(handle, position, v, -1, timeline_sqlite_transient())
                case .null: sqlite3_bind_null(handle, position)
                }
            guard rc == SQLITE_OK else { throw error(rc) }
        }
    }

    /// Advances to the next row: `true` when there is one, `false` when the statement is done.
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw error(rc)
    }

    /// Binds `values` and runs the statement to its end (an insert, an update, a delete).
    public func run(_ values: [Value] = []) throws {
        try bind(values)
        while try step() {}
    }

    /// Column `column`'s value as an integer.
    public func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// Appends column `column`'s text bytes to `out` (nothing for NULL); returns how many.
    @discardableResult
    public func appendText(_ column: Int32, to out: inout [UInt8]) -> Int {
        guard let text = sqlite3_column_text(handle, column) else { return 0 }
        let count = Int(sqlite3_column_bytes(handle, column))
        out.append(contentsOf: UnsafeBufferPointer(start: text, count: count))
        return count
    }

    private func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(database)))
    }
}
