internal import CLMDB
import Glibc

/// An error reported by LMDB, with its return code turned into a named value.
public struct LMDBError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The named LMDB return code (or a POSIX errno for system failures).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let keyExists = Code(rawValue: MDB_KEYEXIST)
        public static let notFound = Code(rawValue: MDB_NOTFOUND)
        public static let pageNotFound = Code(rawValue: MDB_PAGE_NOTFOUND)
        public static let corrupted = Code(rawValue: MDB_CORRUPTED)
        public static let panic = Code(rawValue: MDB_PANIC)
        public static let versionMismatch = Code(rawValue: MDB_VERSION_MISMATCH)
        public static let invalid = Code(rawValue: MDB_INVALID)
        public static let mapFull = Code(rawValue: MDB_MAP_FULL)
        public static let databasesFull = Code(rawValue: MDB_DBS_FULL)
        public static let readersFull = Code(rawValue: MDB_READERS_FULL)
        public static let tlsFull = Code(rawValue: MDB_TLS_FULL)
        public static let transactionFull = Code(rawValue: MDB_TXN_FULL)
        public static let cursorFull = Code(rawValue: MDB_CURSOR_FULL)
        public static let pageFull = Code(rawValue: MDB_PAGE_FULL)
        public static let mapResized = Code(rawValue: MDB_MAP_RESIZED)
        public static let incompatible = Code(rawValue: MDB_INCOMPATIBLE)
        public static let badReaderSlot = Code(rawValue: MDB_BAD_RSLOT)
        public static let badTransaction = Code(rawValue: MDB_BAD_TXN)
        public static let badValueSize = Code(rawValue: MDB_BAD_VALSIZE)
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
            .permissionDenied: "permissionDenied",
        ]

        public var description: String { Self.names[self] ?? "errno(\(rawValue))" }

        /// Whether this is the storage running out: a full map, disk or quota.
        public var isOutOfSpace: Bool { self == .mapFull || self == .noSpace || self == .quotaExceeded }
    }

    public let code: Code
    /// What was being done when LMDB failed.
    public let operation: String

    public init(code: Code, operation: String) {
        self.code = code
        self.operation = operation
    }

    init(_ rc: Int32, _ operation: String) {
        self.init(code: Code(rawValue: rc), operation: operation)
    }

    public var description: String {
        "LMDB \(operation) failed: \(code) (\(String(cString: mdb_strerror(code.rawValue))))"
    }
}

@inline(__always)
func check(_ rc: Int32, _ operation: @autoclosure () -> String) throws(LMDBError) {
    if rc != 0 { throw LMDBError(rc, operation()) }
}
