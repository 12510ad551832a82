import LMDB
import TimelineDomain

/// A read model derived from the log: it owns some databases and folds events into them
/// inside the write transaction that appends the events.
protocol Projection: Sendable {
    /// Stable name (used by checkpoints and the rebuild tool).
    var name: ProjectionName { get }
    /// The databases this projection owns (and a rebuild replaces).
    var databases: [Database] { get }
    /// Folds in an event: how every writer, the catch-up and the rebuilder hand events to
    /// projections, each of them every event. Each `fold` switches over every case of `Event`,
    /// those it ignores listed in one arm, so a new event makes the compiler ask every
    /// projection what it does with it. (A `PostRemoved` goes wherever a `PostDeleted` goes.)
    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws
}

extension Transaction {
    /// Visits entries whose key starts with `prefix`, ascending; `body` returns `false` to stop.
    func scan(_ db: Database, prefix: [UInt8], _ body: ([UInt8], [UInt8]) throws -> Bool) throws {
        try withCursor(db) { cursor in
            var entry = prefix.isEmpty ? try cursor.first() : try cursor.seek(atLeast: prefix)
            while let (key, value) = entry, key.hasPrefix(prefix) {
                guard try body(key, value) else { return }
                entry = try cursor.next()
            }
        }
    }

    /// Visits entries whose key starts with `prefix` and is below `prefix ‖ before` (or all of
    /// them when `before` is nil), descending; `body` returns `false` to stop.
    func scanDescending(_ db: Database, prefix: [UInt8], before: String?, _ body: ([UInt8], [UInt8]) throws -> Bool) throws {
        try withCursor(db) { cursor in
            var entry: Cursor.Entry?
            if let before {
                entry = try cursor.seek(below: prefix + Array(before.utf8))
            } else if let last = prefix.last {
                // Just past every key with this prefix: the prefix with its last byte raised.
                entry = try cursor.seek(below: prefix.dropLast() + [last + 1])
            } else {
                entry = try cursor.last()
            }
            while let (key, value) = entry, key.hasPrefix(prefix) {
                guard try body(key, value) else { return }
                entry = try cursor.previous()
            }
        }
    }

    /// Deletes every entry whose key starts with `prefix`; returns the deleted keys (whole).
    @discardableResult
    func deleteAll(_ db: Database, prefix: [UInt8]) throws -> [[UInt8]] {
        var keys: [[UInt8]] = []
        try scan(db, prefix: prefix) { key, _ in keys.append(key); return true }
        for key in keys { try delete(db, key) }
        return keys
    }
}
