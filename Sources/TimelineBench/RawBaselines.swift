import Foundation
import LMDB

/// What LMDB itself does on this machine, to put Timeline's figures beside.
enum RawBaselines {
    /// Uses `value` where the optimiser cannot see, so the reads that produced it stay measured.
    @inline(never) @_optimize(none)
    static func keep(_ value: Int) {}

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    /// Appends values of exactly `sizes` bytes with `MDB_APPEND`, `batch` per durable
    /// transaction; returns puts per second.
    static func appends(sizes: [Int], batch: Int, directory: String) throws -> Double {
        let env = try Environment(path: directory)
        let db = try env.database("raw")
        var payloads: [Int: [UInt8]] = [:]
        for size in sizes where payloads[size] == nil { payloads[size] = [UInt8](repeating: 0xA5, count: size) }
        var sequence: UInt64 = 0
        let seconds = try time {
            var start = 0
            while start < sizes.count {
                let end = min(start + batch, sizes.count)
                try env.write { txn in
                    for index in start..<end {
                        sequence += 1
                        try txn.put(db, bigEndian(sequence), payloads[sizes[index]]!, flags: .append)
                    }
                }
                start = end
            }
        }
        return Double(sizes.count) / seconds
    }

    /// One 200-byte put per durable (fsynced) transaction into a new database in `directory`;
    /// returns the latency samples.
    static func fsyncedPuts(count: Int, directory: String) throws -> Samples {
        try fsyncedPuts(count: count, environment: try Environment(path: directory))
    }

    /// The same puts into a table of their own in `env` (dropped afterwards), so they land in
    /// that environment's file among its pages.
    static func fsyncedPuts(count: Int, environment env: Environment) throws -> Samples {
        let db = try env.database("raw-fsynced-puts")
        let value = [UInt8](repeating: 0x5A, count: 200)
        var samples = Samples()
        for index in 0..<count {
            samples.add(
                try time {
                    _ = try env.write { txn in try txn.put(db, bigEndian(UInt64(index + 1)), value, flags: .append) }
                })
        }
        try env.write { txn in try txn.drop(db) }
        env.forget([db])
        return samples
    }

    /// A cursor walk over every entry of `database`, touching each value; returns entries per second.
    static func scan(_ env: Environment, database: String) throws -> (entries: Int, perSecond: Double) {
        let db = try env.database(database)
        var entries = 0
        var checksum = 0
        let seconds = try time {
            try env.read { txn in
                try txn.withCursor(db) { cursor in
                    var entry = try cursor.first()
                    while let (_, value) = entry {
                        entries += 1
                        checksum &+= value.count
                        entry = try cursor.next()
                    }
                }
            }
        }
        keep(checksum)
        return (entries, Double(entries) / seconds)
    }

    /// What a timeline page asks of LMDB, and nothing else: a read transaction, a descending
    /// cursor walk over `limit` of the user's materialised timeline keys (below `before`), and
    /// one lookup per post reading every byte of its record, with no decoding. Returns seconds.
    static func timelinePage(
        _ env: Environment, _ tables: (timelines: Database, posts: Database),
        user: String, before: String?, limit: Int
    ) throws -> Double {
        let prefix = Array(user.utf8) + [0]
        var touched = 0
        let seconds = try time {
            try env.read { txn in
                try txn.withCursor(tables.timelines) { cursor in
                    var entry = try cursor.seek(below: before.map { prefix + Array($0.utf8) } ?? Array(user.utf8) + [1])
                    var count = 0
                    while count < limit, let (key, _) = entry, key.hasPrefix(prefix) {
                        touched &+=
                            try txn.withValue(tables.posts, key[prefix.count...]) { record in
                                var sum = 0
                                for index in record.indices { sum &+= Int(record[index]) }
                                return sum
                            } ?? 0
                        count += 1
                        entry = try cursor.previous()
                    }
                }
            }
        }
        keep(touched)
        return seconds
    }
}
