import Foundation
import LMDB
import Timeline
import TimelineDomain

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

    /// How the figures name `timelinePage`'s floor.
    static let timelinePageName = "raw LMDB: cursor walk + each entry's post (a boost's by its record), no decoding"

    /// What a timeline page asks of LMDB, and nothing else: a read transaction, a descending
    /// cursor walk over `limit` of the user's materialised timeline entries (below `before`), and
    /// the record each shows read whole, with no decoding: a post's by one lookup, a boost's post
    /// by two (the boost's record, which starts with its post's id, then the post's). Returns
    /// seconds.
    static func timelinePage(
        _ env: Environment, _ tables: TimelinePageTables, user: String, before: String?, limit: Int
    ) throws -> Double {
        let prefix = Array(user.utf8) + [0]
        var touched = 0
        func sum(_ record: Span<UInt8>) -> Int {
            var sum = 0
            for index in record.indices { sum &+= Int(record[index]) }
            return sum
        }
        let seconds = try time {
            try env.read { txn in
                try txn.withCursor(tables.timelines) { cursor in
                    var entry = try cursor.seek(below: before.map { prefix + Array($0.utf8) } ?? Array(user.utf8) + [1])
                    var count = 0
                    while count < limit, let (key, value) = entry, key.hasPrefix(prefix) {
                        let id = key[prefix.count...]
                        if let marks = value.first, marks & tables.boostMark != 0 {
                            let post = try txn.withValue(tables.boosts, id) { record -> [UInt8] in
                                var offset = 0
                                let count = try SpanReading.length(record, &offset)
                                return (offset..<offset + count).map { record[$0] }
                            }
                            touched &+= try post.flatMap { try txn.withValue(tables.posts, $0, sum) } ?? 0
                        } else {
                            touched &+= try txn.withValue(tables.posts, id, sum) ?? 0
                        }
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
