internal import CLMDB

/// A handle to a named database inside an environment. Cheap to copy; valid for the
/// environment's whole life.
public struct Database: Sendable, Hashable {
    /// Flags a database is created with.
    public struct Flags: OptionSet, Sendable {
        /// The `mdb_dbi_open` flags.
        public let rawValue: UInt32
        /// Flags with these bits.
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
    /// The database's name.
    public let name: String
    /// Which environment holds it.
    public let placement: Placement
}

/// How a value is written.
public struct PutFlags: OptionSet, Sendable {
    /// The `mdb_put` flags.
    public let rawValue: UInt32
    /// Flags with these bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The key must sort after every key in the database (fast path for logs).
    public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
    /// Fail with `keyExists` instead of overwriting.
    public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
}

/// Statistics of one database.
public struct DatabaseStatistics: Sendable {
    /// How many entries it holds.
    public let entries: Int
    /// The page size, in bytes.
    public let pageSize: Int
    /// The B-tree's depth.
    public let depth: Int
    /// Pages in use: branch, leaf and overflow.
    public let pages: Int
}
