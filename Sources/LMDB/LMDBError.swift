internal import CLMDB

/// An error reported by LMDB, with its return code turned into a named value.
public struct LMDBError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The named LMDB return code (or a POSIX errno for system failures).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let keyExists = Code(rawValue: -30799)
        public static let notFound = Code(rawValue: -30798)
        public static let pageNotFound = Code(rawValue: -30797)
        public static let corrupted = Code(rawValue: -30796)
        public static let panic = Code(rawValue: -30795)
        public static let versionMismatch = Code(rawValue: -30794)
        public static let invalid = Code(rawValue: -30793)
        public static let mapFull = Code(rawValue: -30792)
        public static let databasesFull = Code(rawValue: -30791)
        public static let readersFull = Code(rawValue: -30790)
        public static let tlsFull = Code(rawValue: -30789)
        public static let transactionFull = Code(rawValue: -30788)
        public static let cursorFull = Code(rawValue: -30787)
        public static let pageFull = Code(rawValue: -30786)
        public static let mapResized = Code(rawValue: -30785)
        public static let incompatible = Code(rawValue: -30784)
        public static let badReaderSlot = Code(rawValue: -30783)
        public static let badTransaction = Code(rawValue: -30782)
        public static let badValueSize = Code(rawValue: -30781)
        public static let badDatabase = Code(rawValue: -30780)
        /// POSIX `ENOSPC`: the disk is full.
        public static let noSpace = Code(rawValue: 28)
        /// POSIX `EDQUOT`: the user's disk quota is used up.
        public static let quotaExceeded = Code(rawValue: 122)
        /// POSIX `EIO`.
        public static let ioError = Code(rawValue: 5)
        /// POSIX `ENOENT`.
        public static let noSuchFile = Code(rawValue: 2)
        /// POSIX `EACCES`.
        public static let permissionDenied = Code(rawValue: 13)

        private static let names: [Int32: String] = [
            -30799: "keyExists", -30798: "notFound", -30797: "pageNotFound", -30796: "corrupted",
            -30795: "panic", -30794: "versionMismatch", -30793: "invalid", -30792: "mapFull",
            -30791: "databasesFull", -30790: "readersFull", -30789: "tlsFull",
            -30788: "transactionFull", -30787: "cursorFull", -30786: "pageFull",
            -30785: "mapResized", -30784: "incompatible", -30783: "badReaderSlot",
            -30782: "badTransaction", -30781: "badValueSize", -30780: "badDatabase",
            28: "noSpace", 122: "quotaExceeded", 5: "ioError", 2: "noSuchFile", 13: "permissionDenied",
        ]

        public var description: String { Self.names[rawValue] ?? "errno(\(rawValue))" }

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
