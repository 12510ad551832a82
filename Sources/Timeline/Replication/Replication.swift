import Foundation
import LMDB
import Sodium
import TimelineDomain

/// Keeps this node's LMDB log a replica of the authoritative replicated log: applies the
/// batches other nodes published, and publishes this node's group commits with optimistic
/// concurrency. The position (the last batch applied) is stored in `meta` in the same
/// transaction as the batch's events, so a crash never applies a batch twice or skips one.
///
/// No network call is made inside an LMDB write transaction: batches are fetched (and their
/// sealed fields opened with keys read from the bucket) first, then applied in a transaction
/// that re-reads the position and skips what another writer applied meanwhile.
final class Replication: Sendable {
    static let positionKey = Array("replicationPosition".utf8)

    let replicator: any LogReplicator
    let log: EventLog

    init(replicator: any LogReplicator, log: EventLog) {
        self.replicator = replicator
        self.log = log
    }

    func position(_ txn: Transaction) throws -> UInt64 {
        try txn.get(log.meta, Self.positionKey).flatMap(BigEndian.uint64) ?? 0
    }

    /// Whether the replicated log holds a batch this replica has not applied yet.
    func isBehind(_ environment: Environment) throws -> Bool {
        let applied = try environment.read { try position($0) }
        return try replicator.batch(at: applied + 1) != nil
    }

    /// A batch of the replicated log, fetched and decoded, ready to append.
    struct Fetched {
        let position: UInt64
        let events: [PendingEvent]
        let blobs: [(id: String, value: [UInt8])]
    }

    /// Fetches and decodes up to `limit` batches after `position`, outside any transaction.
    /// Throws (`KeyStoreError.unreadable`, a NATS error) rather than return a batch whose
    /// sealed fields could not be opened for a reason other than erasure.
    func fetch(after position: UInt64, limit: Int = 64) throws -> [Fetched] {
        var fetched: [Fetched] = []
        while fetched.count < limit, let bytes = try replicator.batch(at: position + UInt64(fetched.count) + 1) {
            fetched.append(try decode(ReplicatedBatch(bytes), at: position + UInt64(fetched.count) + 1))
        }
        return fetched
    }

    private func decode(_ batch: ReplicatedBatch, at position: UInt64) throws -> Fetched {
        let events = try batch.events.map { e -> PendingEvent in
            guard let type = EventType(rawValue: e.type) else {
                throw CorruptRecord(message: "unknown event type \(e.type)")
            }
            let (event, _) = try PayloadCodec.decode(type: type, version: e.version, e.payload, keys: log.keys)
            var p = PendingEvent(
                id: EventID(e.id), event: event, timestamp: e.timestamp, actor: e.actor,
                correlationId: e.correlationId, causationId: e.causationId)
            p.encodedPayload = (e.version, e.payload)
            return p
        }
        return Fetched(position: position, events: events, blobs: batch.blobs)
    }

    /// Applies, in order, the fetched batches this node has not applied yet (another writer —
    /// this node's follower, another process on the same database — may have applied some
    /// since they were fetched); returns whether one of them erased a user.
    @discardableResult
    func apply(_ fetched: [Fetched], _ txn: Transaction, models: ReadModels) throws -> Bool {
        var position = try position(txn)
        var erased = false
        for batch in fetched where batch.position > position {
            guard batch.position == position + 1 else { throw ReplicationConflict() }  // fetched from an older position
            // Shipped as stored (sealed): the layout does not matter here.
            for blob in batch.blobs {
                try txn.put(models.images.database, StoredImages.key(ImageID(blob.id)), blob.value, flags: .noOverwrite)
            }
            let envelopes = try log.append(batch.events, txn)
            try models.apply(envelopes, txn)
            erased = erased || envelopes.contains { if case .userErased = $0.event { true } else { false } }
            position += 1
        }
        try txn.put(log.meta, Self.positionKey, BigEndian.bytes(position))
        return erased
    }

    /// Brings this node up to the replicated log: fetch outside, apply inside a short write
    /// transaction, until nothing is left; then finishes the erasures that arrived.
    func catchUp(_ environment: Environment, registry: ModelRegistry) throws {
        while true {
            let position = try environment.read { txn in try self.position(txn) }
            let fetched = try fetch(after: position)
            guard !fetched.isEmpty else { return }
            let erased = try environment.write { txn in
                guard let models = try registry.models(in: txn) else { throw ReadModelsMoved() }
                _ = try models.catchUp(log, head: try log.head(txn).sequence, txn)
                let erased = try apply(fetched, txn, models: models)
                try models.setCheckpoint(try log.head(txn).sequence, txn)
                return erased
            }
            if erased {
                log.keys.owesDestructions.withLock { $0 = true }
                log.finishErasuresReporting(environment)
            }
        }
    }

    /// The events a batch appended (as `append` returned them: read back, their sealed fields
    /// would need keys the writer has only staged) with their new images, as the batch to
    /// publish and as the batch to apply once published.
    func batch(of envelopes: [EventEnvelope], _ txn: Transaction, models: ReadModels, at position: UInt64) throws -> (
        bytes: [UInt8], fetched: Fetched
    )? {
        guard !envelopes.isEmpty else { return nil }
        var batch = ReplicatedBatch()
        batch.events = envelopes.map {
            .init(
                id: $0.id.rawValue, type: $0.type.rawValue, version: $0.schemaVersion, timestamp: $0.timestamp,
                actor: $0.actor,
                correlationId: $0.correlationId, causationId: $0.causationId, payload: $0.encodedPayload)
        }
        var shipped: Set<ImageID> = []
        for id in envelopes.flatMap(\.event.storedImages) where shipped.insert(id).inserted {
            if let value = try txn.get(models.images.database, StoredImages.key(id)) {
                batch.blobs.append((id.rawValue, value))
            }
        }
        let events = envelopes.map { envelope -> PendingEvent in
            var p = PendingEvent(
                id: envelope.id, event: envelope.event, timestamp: envelope.timestamp, actor: envelope.actor,
                correlationId: envelope.correlationId, causationId: envelope.causationId)
            p.encodedPayload = (envelope.schemaVersion, envelope.encodedPayload)
            return p
        }
        return (batch.encoded(), Fetched(position: position, events: events, blobs: batch.blobs))
    }

    /// Publishes `bytes` as the batch after `position`, outside any transaction. Its message
    /// id is derived from its content, so JetStream stores a retried publish of the same batch
    /// once. Throws `ReplicationConflict` when another node published first. When the outcome
    /// is unknown (no acknowledgement), the stream is asked whether the batch is there.
    func publish(_ bytes: [UInt8], after position: UInt64) throws {
        let id = "batch-" + hex(Sodium.hash(bytes))
        do {
            _ = try replicator.publish(bytes, after: position, id: id)
        } catch let error as ReplicationConflict {
            throw error
        } catch {
            if let stored = try? replicator.batch(at: position + 1) {
                if stored == bytes { return }  // it was stored: the acknowledgement was lost
                throw ReplicationConflict()
            }
            throw error
        }
    }
}
