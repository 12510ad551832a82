internal import CLMDB
import Glibc

/// An error reported by LMDB, with its return code turned into a named value.
public struct LMDBError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The named LMDB return code (or a POSIX errno for system failures).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The return code (or errno) itself.
        public let rawValue: Int32
        /// The code with this value.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `MDB_KEYEXIST`: the key/data pair already exists (a `noOverwrite` put).
        public static let keyExists = Code(rawValue: MDB_KEYEXIST)
        /// `MDB_NOTFOUND`: no such key.
        public static let notFound = Code(rawValue: MDB_NOTFOUND)
        /// `MDB_PAGE_NOTFOUND`: a requested page was not found (usually corruption).
        public static let pageNotFound = Code(rawValue: MDB_PAGE_NOTFOUND)
        /// `MDB_CORRUPTED`: a located page was the wrong type.
        public static let corrupted = Code(rawValue: MDB_CORRUPTED)
        /// `MDB_PANIC`: a fatal error earlier left the environment unusable.
        public static let panic = Code(rawValue: MDB_PANIC)
        /// `MDB_VERSION_MISMATCH`: the environment was written by another LMDB version.
        public static let versionMismatch = Code(rawValue: MDB_VERSION_MISMATCH)
        /// `MDB_INVALID`: the file is not an LMDB file.
        public static let invalid = Code(rawValue: MDB_INVALID)
        /// `MDB_MAP_FULL`: the environment's map size is reached.
        public static let mapFull = Code(rawValue: MDB_MAP_FULL)
        /// `MDB_DBS_FULL`: the environment's `maxdbs` is reached.
        public static let databasesFull = Code(rawValue: MDB_DBS_FULL)
        /// `MDB_READERS_FULL`: the environment's `maxreaders` is reached.
        public static let readersFull = Code(rawValue: MDB_READERS_FULL)
        /// `MDB_TLS_FULL`: too many TLS keys in use.
        public static let tlsFull = Code(rawValue: MDB_TLS_FULL)
        /// `MDB_TXN_FULL`: the transaction has too many dirty pages.
        public static let transactionFull = Code(rawValue: MDB_TXN_FULL)
        /// `MDB_CURSOR_FULL`: the cursor stack is too deep (internal).
        public static let cursorFull = Code(rawValue: MDB_CURSOR_FULL)
        /// `MDB_PAGE_FULL`: a page has no more space (internal).
        public static let pageFull = Code(rawValue: MDB_PAGE_FULL)
        /// `MDB_MAP_RESIZED`: another process grew the map beyond this one's size.
        public static let mapResized = Code(rawValue: MDB_MAP_RESIZED)
        /// `MDB_INCOMPATIBLE`: the operation is incompatible with the database's flags, or they changed.
        public static let incompatible = Code(rawValue: MDB_INCOMPATIBLE)
        /// `MDB_BAD_RSLOT`: a reader lock table slot was reused or is invalid.
        public static let badReaderSlot = Code(rawValue: MDB_BAD_RSLOT)
        /// `MDB_BAD_TXN`: the transaction must abort, has a child, or is invalid.
        public static let badTransaction = Code(rawValue: MDB_BAD_TXN)
        /// `MDB_BAD_VALSIZE`: a key or value of an unsupported size.
        public static let badValueSize = Code(rawValue: MDB_BAD_VALSIZE)
        /// `MDB_BAD_DBI`: the database handle was closed or changed unexpectedly.
        public static let badDatabase = Code(rawValue: MDB_BAD_DBI)
        /// POSIX `ENOSPC`: the disk is full.
        public static let noSpace = Code(rawValue: ENOSPC)
        /// POSIX `EDQUOT`: the user's disk quota is used up.
        public static let quotaExceeded = Code(rawValue: EDQUOT)
        /// POSIX `EIO`.
        public static let ioError = Code(rawValue: EIO)
        /// POSIX `ENOENT`.
        public static let noSuchFile = Code(rawValue: ENOENT)
        /// POSIX `EACCES`.
        public static let permissionDenied = Code(rawValue: EACCES)

        private static let names: [Code: String] = [
            .keyExists: "keyExists", .notFound: "notFound", .pageNotFound: "pageNotFound", .corrupted: "corrupted",
            .panic: "panic", .versionMismatch: "versionMismatch", .invalid: "invalid", .mapFull: "mapFull",
            .databasesFull: "databasesFull", .readersFull: "readersFull", .tlsFull: "tlsFull",
            .transactionFull: "transactionFull", .cursorFull: "cursorFull", .pageFull: "pageFull",
            .mapResized: "mapResized", .incompatible: "incompatible", .badReaderSlot: "badReaderSlot",
            .badTransaction: "badTransaction", .badValueSize: "badValueSize", .badDatabase: "badDatabase",
            .noSpace: "noSpace", .quotaExceeded: "quotaExceeded", .ioError: "ioError", .noSuchFile: "noSuchFile",
            .permissionDenied: "permissionDenied"
        ]

        /// The code's name (`mapFull`), or `errno(<n>)` for one without a name.
        public var description: String { Self.names[self] ?? "errno(\(rawValue))" }

        /// Whether this is the storage running out: a full map, disk or quota.
        public var isOutOfSpace: Bool { self == .mapFull || self == .noSpace || self == .quotaExceeded }
    }

    /// What LMDB returned.
    public let code: Code
    /// What was being done when LMDB failed.
    public let operation: String

    /// An error with this code, met doing `operation`.
    public init(code: Code, operation: String) {
        self.code = code
        self.operation = operation
    }

    init(_ rc: Int32, _ operation: String) {
        self.init(code: Code(rawValue: rc), operation: operation)
    }

    /// The failed operation, the code's name and LMDB's own message.
    public var description: String {
        "LMDB \(operation) failed: \(code) (\(String(cString: mdb_strerror(code.rawValue))))"
    }
}

@inline(__always)
func check(_ rc: Int32, _ operation: @autoclosure () -> String) throws(LMDBError) {
    if rc != 0 { throw LMDBError(rc, operation()) }
}
