import TimelineDomain

/// One group commit as it travels between nodes: its events exactly as the writing node
/// stored them (payloads already sealed), and the image blobs they introduced. Every node
/// appends the same batches in the same order, so every node's log has the same sequence
/// numbers, events and hash chain.
struct ReplicatedBatch: Equatable {
    struct Event: Equatable {
        var id: String
        var type: String
        var version: UInt8
        var timestamp: Int64
        var actor: String
        var correlationId: String?
        var causationId: String?
        var payload: [UInt8]
    }

    var events: [Event] = []
    /// imageId → stored blob value (media type ‖ owner ‖ sealed bytes).
    var blobs: [(id: String, value: [UInt8])] = []

    static func == (a: ReplicatedBatch, b: ReplicatedBatch) -> Bool {
        a.events == b.events && a.blobs.map(\.id) == b.blobs.map(\.id) && a.blobs.map(\.value) == b.blobs.map(\.value)
    }

    static let formatTag: UInt8 = 1

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 256)
        w.u8(Self.formatTag)
        w.varint(UInt64(events.count))
        for e in events {
            w.string(e.id)
            w.string(e.type)
            w.u8(e.version)
            w.int64(e.timestamp)
            w.string(e.actor)
            w.optionalString(e.correlationId)
            w.optionalString(e.causationId)
            w.blob(e.payload)
        }
        w.varint(UInt64(blobs.count))
        for blob in blobs {
            w.string(blob.id)
            w.blob(blob.value)
        }
        return w.bytes
    }

    init() {}

    init(_ bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard try r.u8() == Self.formatTag else { throw CorruptRecord(message: "unknown replicated batch format") }
        for _ in 0..<(try r.varint()) {
            events.append(
                Event(
                    id: try r.string(), type: try r.string(), version: try r.u8(), timestamp: try r.int64(),
                    actor: try r.string(), correlationId: try r.optionalString(), causationId: try r.optionalString(),
                    payload: try r.blob()))
        }
        for _ in 0..<(try r.varint()) { blobs.append((try r.string(), try r.blob())) }
        try r.expectEnd()
    }
}

/// Where the authoritative log lives when it is not this node's LMDB log alone.
package protocol LogReplicator: Sendable {
    /// The batch at `position` (1, 2, …), or `nil` past the end.
    func batch(at position: UInt64) throws -> [UInt8]?
    /// Appends `batch` if the log's last position is still `position`; returns the new
    /// position, or throws `ReplicationConflict` if another node appended first.
    func publish(_ batch: [UInt8], after position: UInt64, id: String) throws -> UInt64
}

/// Another node appended first: catch up and decide again.
package struct ReplicationConflict: Error {
    /// A conflict.
    package init() {}
}

/// How a node reaches its cluster: the replicated log and the shared key store. The
/// `TimelineCluster` library implements it on NATS JetStream.
package protocol ClusterConnector: Sendable {
    /// How often the node looks for batches published by others.
    var pollInterval: Duration { get }
    /// Connects (once, when the service opens).
    func connect() throws -> (replicator: any LogReplicator, keys: any KeyBackend)
}
