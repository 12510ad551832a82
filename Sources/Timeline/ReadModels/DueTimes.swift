import LMDB

/// BE(time) ‖ id → nothing: things by when they fall due, soonest first — what a
/// `DueTimeScheduler` job reads (scheduled posts by when they publish, stories by when their
/// day ends).
enum DueTimes<ID: KeyPart>: TableLayout {
    static func key(_ key: (Int64, ID)) -> [UInt8] {
        BigEndian.bytes(UInt64(bitPattern: key.0)) + Array(key.1.keyText.utf8)
    }
    static func encode(_: Void) -> [UInt8] { [] }
    static func decode(_: [UInt8]) {}
}

extension Table {
    /// When the soonest entry falls due (`nil`: none).
    func soonest<ID>(_ txn: Transaction) throws -> Int64? where Layout == DueTimes<ID> {
        try txn.withCursor(database) { cursor in
            guard let (key, _) = try cursor.first(), let at = BigEndian.uint64(key[..<8]) else { return nil }
            return Int64(bitPattern: at)
        }
    }

    /// The entries due at or before `time`, soonest first, at most `limit`.
    func due<ID>(at time: Int64, limit: Int, _ txn: Transaction) throws -> [ID] where Layout == DueTimes<ID> {
        var found: [ID] = []
        try txn.withCursor(database) { cursor in
            var entry = try cursor.first()
            while let (key, _) = entry, found.count < limit {
                guard let at = BigEndian.uint64(key[..<8]), Int64(bitPattern: at) <= time else { return }
                found.append(ID(keyText: String(decoding: key[8...], as: UTF8.self)))
                entry = try cursor.next()
            }
        }
        return found
    }
}
