internal import CLMDB

/// A handle to a named database inside an environment. Cheap to copy; valid for the
/// environment's whole life.
public struct Database: Sendable, Hashable {
    /// Flags a database is created with.
    public struct Flags: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Keys are compared as native-endian integers.
        public static let integerKey = Flags(rawValue: UInt32(MDB_INTEGERKEY))
    }

    /// Which environment of an `Environment` a database lives in.
    public enum Placement: Sendable, Hashable {
        /// The durable environment.
        case primary
        /// The never-fsynced environment for data recomputable from the primary.
        case derived
    }

    let dbi: MDB_dbi
    public let name: String
    public let placement: Placement
}

/// How a value is written.
public struct PutFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The key must sort after every key in the database (fast path for logs).
    public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
    /// Fail with `keyExists` instead of overwriting.
    public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
}

/// Statistics of one database.
public struct DatabaseStatistics: Sendable {
    public let entries: Int
    public let pageSize: Int
    public let depth: Int
    public let pages: Int
}
