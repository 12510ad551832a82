internal import CLMDB
import Synchronization

/// A handle to a named database inside an environment. Cheap to copy — a plain value, with no
/// reference in it, so a copy costs no reference counting (a table is one, a projection a
/// struct of tables, and a page reads through them hundreds of times) — and valid for the
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
    /// The name's place in `names` (its string is held there once, not copied with each handle).
    private let nameIndex: Int
    /// Which environment holds it.
    public let placement: Placement

    init(dbi: MDB_dbi, name: String, placement: Placement) {
        self.dbi = dbi
        self.placement = placement
        nameIndex = Self.names.withLock { names in
            if let index = names.indices[name] { return index }
            names.all.append(name)
            names.indices[name] = names.all.count - 1
            return names.all.count - 1
        }
    }

    /// The database's name.
    public var name: String { Self.names.withLock { $0.all[nameIndex] } }

    /// Every database name met in this process (a handful: one per table), each once.
    private static let names = Mutex<(all: [String], indices: [String: Int])>(([], [:]))
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
