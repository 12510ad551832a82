import Foundation
import LMDB
import TimelineDomain

/// Keeps this node's LMDB log a replica of the authoritative replicated log: applies the
/// batches other nodes published, and publishes this node's group commits with optimistic
/// concurrency. The position (the last batch applied) is stored in `meta` in the same
/// transaction as the batch's events, so a crash never applies a batch twice or skips one.
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

    /// Whether the replicated log has batches this node has not applied.
    func isBehind(_ environment: Environment) throws -> Bool {
        let position = try environment.read { txn in try self.position(txn) }
        return try replicator.batch(at: position + 1) != nil
    }

    /// Applies every batch after this node's position, in order, inside `txn`.
    func catchUp(_ txn: Transaction, models: ReadModels) throws {
        var position = try position(txn)
        while let bytes = try replicator.batch(at: position + 1) {
            try apply(try ReplicatedBatch(bytes), txn, models: models)
            position += 1
            try txn.put(log.meta, Self.positionKey, BigEndian.bytes(position))
        }
    }

    private func apply(_ batch: ReplicatedBatch, _ txn: Transaction, models: ReadModels) throws {
        let pending = try batch.events.map { e -> PendingEvent in
            guard let type = EventType(rawValue: e.type) else { throw CorruptRecord(message: "unknown event type \(e.type)") }
            let (event, _) = try PayloadCodec.decode(type: type, version: e.version, e.payload, keys: log.keys)
            var p = PendingEvent(id: EventID(e.id), event: event, timestamp: e.timestamp, actor: e.actor,
                                 correlationId: e.correlationId, causationId: e.causationId)
            p.encodedPayload = (e.version, e.payload)
            return p
        }
        for blob in batch.blobs { try txn.put(models.images, Array(blob.id.utf8), blob.value, flags: .noOverwrite) }
        let envelopes = try log.append(pending, txn)
        try models.apply(envelopes, txn)
        for case .userErased(let e) in envelopes.map(\.event) { log.keys.forget(e.userId) }
    }

    /// Publishes the events this transaction appended after sequence `head` (with their new
    /// images) as one batch, then records the new position. Throws `ReplicationConflict`
    /// when another node published first: the caller rolls back, catches up and decides again.
    func publish(appendedAfter head: UInt64, _ txn: Transaction, models: ReadModels, batchID: String) throws {
        let envelopes = try log.read(from: head + 1, limit: Int.max, txn)
        guard !envelopes.isEmpty else { return }
        var batch = ReplicatedBatch()
        batch.events = envelopes.map {
            .init(id: $0.id.rawValue, type: $0.type.rawValue, version: $0.schemaVersion, timestamp: $0.timestamp, actor: $0.actor,
                  correlationId: $0.correlationId, causationId: $0.causationId, payload: $0.encodedPayload)
        }
        for case .postAdded(let e) in envelopes.map(\.event) {
            if let value = try txn.get(models.images, Array(e.imageId.rawValue.utf8)) { batch.blobs.append((e.imageId.rawValue, value)) }
        }
        let position = try position(txn)
        let next = try replicator.publish(batch.encoded(), after: position, id: batchID)
        try txn.put(log.meta, Self.positionKey, BigEndian.bytes(next))
    }
}
