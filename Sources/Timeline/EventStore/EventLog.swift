import Foundation
import LMDB
import Sodium
import TimelineDomain

/// Failures of the event store itself.
public enum EventStoreError: Error, Equatable, CustomStringConvertible {
    /// A stored envelope failed to decode or verify.
    case corrupt(sequence: UInt64, reason: String)
    /// The log was written by a newer format than this code reads.
    case newerFormat(found: UInt64, supported: UInt64)

    /// The failure as a sentence, saying what to do about a newer format.
    public var description: String {
        switch self {
        case let .corrupt(sequence, reason):
            "event \(sequence) is corrupt: \(reason)"
        case let .newerFormat(found, supported):
            "this database was written by a newer Timeline (format \(found); this build reads up to \(supported)); upgrade Timeline to open it"
        }
    }
}

/// An event about to be appended, with its metadata.
public struct PendingEvent: Sendable {
    /// The event's id (an append with an id already logged is skipped).
    public var id: EventID
    /// The event.
    public var event: Event
    /// When it happened (ms since 1970).
    public var timestamp: Int64
    /// Who caused it (a user id, or `EventEnvelope.systemActor`).
    public var actor: String
    /// The command it belongs to.
    public var correlationId: String?
    /// The event that caused it.
    public var causationId: String?
    /// The payload exactly as another node encoded (and sealed) it, with its schema version;
    /// `nil` to encode `event` here.
    package var encodedPayload: (version: UInt8, bytes: [UInt8])?

    /// An event to append.
    public init(
        id: EventID, event: Event, timestamp: Int64, actor: String, correlationId: String? = nil,
        causationId: String? = nil
    ) {
        self.id = id
        self.event = event
        self.timestamp = timestamp
        self.actor = actor
        self.correlationId = correlationId
        self.causationId = causationId
    }
}

/// The append-only, hash-chained log and its indexes: `log` (big-endian sequence → envelope)
/// is durable; `streams` (stream ‖ 0 ‖ version → sequence) and `eventIds` (event id →
/// sequence) are derived data (see `Environment`), recomputed from the log whenever they are
/// behind it, so a commit fsyncs little more than the log itself. Everything a write depends on
/// (the head, stream versions, id uniqueness) is read inside the caller's write transaction.
public struct EventLog: Sendable {
    /// The on-disk format this code writes (and the newest it reads).
    public static let formatVersion: UInt64 = 2

    let log: Database
    let streams: Database
    /// Only EventStore/ reads it (the importer asks `contains(_:_:)`).
    let eventIds: Database
    /// Derived: how far the indexes have indexed the log.
    let indexed: Database
    let meta: Database
    /// Erased users whose key may not be destroyed yet (user id → 1), written in the
    /// transaction that appends their `UserErased` (see `finishErasures`).
    let keysToDestroy: Database
    /// The per-user keys that seal personal fields (outside the log).
    package let keys: KeyStore

    /// Opens the log. A log holding sealed fields whose key store has no email pepper (the
    /// `keys/` directory was lost or not restored) is refused with `KeyStoreError.missingKeyStore`
    /// unless `acceptMissingKeys`, which reads those fields as erased.
    package init(environment env: Environment, keyBackend: (any KeyBackend)? = nil, acceptMissingKeys: Bool = false)
        throws
    {
        let keysDirectory = URL(fileURLWithPath: env.path).appendingPathComponent("keys")
        let backend = try keyBackend ?? FileKeyBackend(directory: keysDirectory)
        log = try env.database("log")
        streams = try env.database("streams", placement: .derived)
        eventIds = try env.database("eventIds", placement: .derived)
        indexed = try env.database("logIndexed", placement: .derived)
        meta = try env.database("meta")
        keysToDestroy = try env.database("keysToDestroy")
        if try backend.read(KeyStore.pepperName) == nil, !acceptMissingKeys, try Self.holdsSealedFields(env, log) {
            throw KeyStoreError.missingKeyStore(
                location: keyBackend == nil ? keysDirectory.path : "the cluster's key bucket")
        }
        keys = try KeyStore(backend: backend)
        let metaDB = meta
        let found = try env.write { txn -> UInt64 in
            if let stored = try txn.get(metaDB, Self.formatKey) { return BigEndian.uint64(stored) ?? UInt64.max }
            try txn.put(metaDB, Self.formatKey, BigEndian.bytes(Self.formatVersion))
            return Self.formatVersion
        }
        if found > Self.formatVersion { throw EventStoreError.newerFormat(found: found, supported: Self.formatVersion) }
        if found == 1 { try upgradeFromFormat1(env) }
    }

    static let formatKey = Array("formatVersion".utf8)

    /// Format 1 kept the log's indexes and the read models beside the log; format 2 keeps them
    /// in the derived environment, where they are recomputed from the log. Drops the old copies.
    private func upgradeFromFormat1(_ env: Environment) throws {
        let kept: Set = [log.name, meta.name, keysToDestroy.name, "images"]
        let stale = try env.read { txn in try txn.databaseNames(in: .primary) }.filter { !kept.contains($0) }
        let handles = try stale.map { try env.database($0) }
        let metaDB = meta
        try env.write { txn in
            for db in handles { try txn.drop(db) }
            for key in ["readModelGenerations", "nextGeneration"] { try txn.delete(metaDB, Array(key.utf8)) }
            try txn.put(metaDB, Self.formatKey, BigEndian.bytes(Self.formatVersion))
        }
        env.forget(handles)
    }

    /// The last sequence number and hash (0 and the genesis hash for an empty log).
    public func head(_ txn: Transaction) throws -> (sequence: UInt64, hash: [UInt8]) {
        try txn.withCursor(log) { cursor in
            guard let (key, value) = try cursor.last() else { return (0, EventEnvelope.genesisHash) }
            guard let seq = BigEndian.uint64(key) else {
                throw EventStoreError.corrupt(sequence: 0, reason: "bad log key")
            }
            let n = EventEnvelope.hashLength
            guard value.count > 2 * n else { throw EventStoreError.corrupt(sequence: seq, reason: "record too short") }
            return (seq, Array(value[(value.count - n)...]))
        }
    }

    /// The `streams` index's key of `stream`'s event at `version`: the stream's name, a 0, then
    /// the version big-endian, so that a stream's events lie together in version order.
    static func streamKey(_ stream: String, version: UInt64) -> [UInt8] {
        streamPrefix(stream) + BigEndian.bytes(version)
    }

    /// What every `streams` key of `stream` starts with (`streamKey`).
    static func streamPrefix(_ stream: String) -> [UInt8] { Array(stream.utf8) + [0] }

    /// The current version of `stream` (0 when it has no events).
    public func version(of stream: String, _ txn: Transaction) throws -> UInt64 {
        let prefix = Self.streamPrefix(stream)
        // Just past the stream's keys: the prefix with its 0 made a 1.
        var end = prefix
        end[end.count - 1] = 1
        return try txn.withCursor(streams) { cursor in
            guard let (key, _) = try cursor.seek(below: end),
                key.count == prefix.count + 8, key.hasPrefix(prefix)
            else { return 0 }
            return BigEndian.uint64(key.suffix(8)) ?? 0
        }
    }

    /// Appends `events` in order, extending the hash chain, and returns the envelopes of those
    /// appended. An event whose id is already in the log is not appended again (idempotent
    /// retry) and is not returned, so nothing is applied twice.
    public func append(_ events: [PendingEvent], _ txn: Transaction) throws -> [EventEnvelope] {
        try append(events, txn, sealingWith: keys)
    }

    /// `append`, sealing personal fields with `sealer`'s keys (a cluster writer stages new keys
    /// instead of storing them from inside the transaction).
    func append(_ events: [PendingEvent], _ txn: Transaction, sealingWith sealer: any PayloadKeys) throws
        -> [EventEnvelope]
    {
        var (sequence, previousHash) = try head(txn)
        _ = try indexUnindexed(through: sequence, txn)
        var appended: [EventEnvelope] = []
        appended.reserveCapacity(events.count)
        for pending in events {
            let idKey = Array(pending.id.rawValue.utf8)
            let seqKey = BigEndian.bytes(sequence + 1)
            // Claims the id (one B-tree search); an id already in the log is a retry.
            guard try txn.put(eventIds, idKey, seqKey, flags: .noOverwrite) else { continue }
            let stream = pending.event.stream
            let current = try version(of: stream, txn)
            sequence += 1
            if case .userErased(let e) = pending.event {
                try txn.put(keysToDestroy, Array(e.userId.rawValue.utf8), [1])
            }
            let payload =
                try pending.encodedPayload ?? (
                    pending.event.typeName.currentVersion, PayloadCodec.encode(pending.event, keys: sealer)
                )
            var envelope = EventEnvelope(
                sequence: sequence, id: pending.id, type: pending.event.typeName,
                schemaVersion: payload.version, stream: stream, streamVersion: current + 1,
                timestamp: pending.timestamp, actor: pending.actor, correlationId: pending.correlationId,
                causationId: pending.causationId, event: pending.event, previousHash: previousHash, hash: [])
            envelope.encodedPayload = payload.bytes
            let body = EnvelopeCodec.body(of: envelope)
            envelope.hash = Sodium.hash(previousHash, body)
            try txn.put(
                log, seqKey, EnvelopeCodec.encode(body: body, previousHash: previousHash, hash: envelope.hash),
                flags: .append)
            try txn.put(streams, Self.streamKey(stream, version: current + 1), seqKey)
            previousHash = envelope.hash
            appended.append(envelope)
        }
        if !appended.isEmpty { try txn.put(indexed, Self.indexedKey, BigEndian.bytes(sequence)) }
        return appended
    }

    static let indexedKey = Array("through".utf8)

    /// Indexes the logged events up to `head` that the derived indexes have not seen yet (all
    /// of them after a machine crash discarded the derived data), at most `limit` of them;
    /// returns whether the indexes are now at `head`.
    func indexUnindexed(through head: UInt64, limit: UInt64 = .max, _ txn: Transaction) throws -> Bool {
        let from = try txn.get(indexed, Self.indexedKey).flatMap(BigEndian.uint64) ?? 0
        guard from < head else { return true }
        let to = from + min(limit, head - from)
        try forEach(from: from + 1, txn) { envelope in
            let seqKey = BigEndian.bytes(envelope.sequence)
            try txn.put(eventIds, Array(envelope.id.rawValue.utf8), seqKey)
            try txn.put(streams, Self.streamKey(envelope.stream, version: envelope.streamVersion), seqKey)
            return envelope.sequence < to
        }
        try txn.put(indexed, Self.indexedKey, BigEndian.bytes(to))
        return to == head
    }

    /// The event at `sequence`, if any.
    public func envelope(at sequence: UInt64, _ txn: Transaction) throws -> EventEnvelope? {
        guard let stored = try txn.get(log, BigEndian.bytes(sequence)) else { return nil }
        return try decode(stored, sequence: sequence)
    }

    /// Whether an event with this id is in the log (indexed up to the caller's catch-up).
    func contains(_ id: EventID, _ txn: Transaction) throws -> Bool {
        try txn.contains(eventIds, Array(id.rawValue.utf8))
    }

    /// The event with this id, if any.
    public func envelope(id: EventID, _ txn: Transaction) throws -> EventEnvelope? {
        guard let seq = try txn.get(eventIds, Array(id.rawValue.utf8)).flatMap(BigEndian.uint64) else { return nil }
        return try envelope(at: seq, txn)
    }

    /// Calls `body` with each event from `sequence` on, in order, until it returns `false`.
    public func forEach(from sequence: UInt64 = 1, _ txn: Transaction, _ body: (EventEnvelope) throws -> Bool) throws {
        try txn.withCursor(log) { cursor in
            var entry = try cursor.seek(atLeast: BigEndian.bytes(sequence))
            while let (key, value) = entry {
                let seq = BigEndian.uint64(key) ?? 0
                guard try body(try decode(value, sequence: seq)) else { return }
                entry = try cursor.next()
            }
        }
    }

    /// Up to `limit` events from `sequence` on.
    public func read(from sequence: UInt64, limit: Int, _ txn: Transaction) throws -> [EventEnvelope] {
        var out: [EventEnvelope] = []
        try forEach(from: sequence, txn) { envelope in
            out.append(envelope)
            return out.count < limit
        }
        return out
    }

    /// Every event of one stream, in stream order.
    public func stream(_ name: String, _ txn: Transaction) throws -> [EventEnvelope] {
        try stream(name, types: nil, txn)
    }

    /// The events of one stream of the `types` given (every type: nil), in stream order. The
    /// others are not decoded: a post's few versions are read past its many likes cheaply.
    public func stream(_ name: String, types: Set<EventType>?, _ txn: Transaction) throws -> [EventEnvelope] {
        let prefix = Self.streamPrefix(name)
        var out: [EventEnvelope] = []
        try txn.withCursor(streams) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            while let (key, value) = entry, key.count == prefix.count + 8, key.hasPrefix(prefix) {
                if let seq = BigEndian.uint64(value), let stored = try txn.get(log, BigEndian.bytes(seq)),
                    types.map({ EnvelopeCodec.type(of: stored).map($0.contains) ?? true }) ?? true
                {
                    out.append(try decode(stored, sequence: seq))
                }
                entry = try cursor.next()
            }
        }
        return out
    }

    /// Decodes the envelope stored at `sequence`, opening its sealed fields: a record that does not
    /// decode is `EventStoreError.corrupt`, but a key store that fails is rethrown as it is.
    package func decode(_ stored: [UInt8], sequence: UInt64) throws -> EventEnvelope {
        do {
            return try EnvelopeCodec.decode(stored, keys: keys)
        } catch let error as KeyStoreError {
            throw error  // the key store failed, not the record
        } catch {
            throw EventStoreError.corrupt(sequence: sequence, reason: "\(error)")
        }
    }
}

extension EventLog {
    /// Calls `body` with each event from `sequence` down to 1, until it returns `false`.
    public func forEachReversed(from sequence: UInt64, _ txn: Transaction, _ body: (EventEnvelope) throws -> Bool)
        throws
    {
        try txn.withCursor(log) { cursor in
            var entry: Cursor.Entry?
            if sequence == UInt64.max {
                entry = try cursor.last()
            } else {
                entry = try cursor.seek(below: BigEndian.bytes(sequence + 1))
            }
            while let (key, value) = entry {
                guard try body(try decode(value, sequence: BigEndian.uint64(key) ?? 0)) else { return }
                entry = try cursor.previous()
            }
        }
    }
}
