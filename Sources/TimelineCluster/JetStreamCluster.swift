import Foundation
import NATS
import Timeline

/// How a node joins a cluster: the NATS servers, and the JetStream stream and key bucket
/// that hold the authoritative log and the per-user keys.
public struct ClusterOptions: Sendable {
    /// The NATS servers (`nats://host:port`); any one reachable is enough.
    public var urls: [String]
    /// The JetStream stream holding the log.
    public var stream = "TIMELINE"
    /// The subject batches are published on.
    public var subject = "timeline.log"
    /// The key-value bucket holding the per-user keys.
    public var keyBucket = "TIMELINE_KEYS"
    /// Copies of the stream and bucket (3 survives one server's loss).
    public var replicas = 3
    /// How often a node looks for batches published by others.
    public var pollInterval: Duration = .milliseconds(20)

    /// Joins the cluster reachable at `urls`, with the default names.
    public init(urls: [String]) { self.urls = urls }
}

extension TimelineService.Options {
    /// Join a cluster: the authoritative log is a replicated JetStream stream and this database
    /// its local replica (`nil`: the embedded LMDB log is authoritative).
    public var cluster: ClusterOptions? {
        get { (clusterConnector as? JetStreamConnector)?.options }
        set { clusterConnector = newValue.map(JetStreamConnector.init) }
    }
}

/// Connects a node to its JetStream cluster: the log's stream and the key bucket.
struct JetStreamConnector: ClusterConnector {
    let options: ClusterOptions

    var pollInterval: Duration { options.pollInterval }

    func connect() throws -> (replicator: any LogReplicator, keys: any KeyBackend) {
        let jetStream = try NATSConnection(urls: options.urls).jetStream()
        let keys = BucketKeyBackend(
            bucket: try jetStream.keyValue(bucket: options.keyBucket, replicas: options.replicas))
        return (try JetStreamReplicator(jetStream: jetStream, options: options), keys)
    }
}

/// The authoritative log as a JetStream stream: position n is stream message n + 1 (message 1
/// is a genesis marker, because a JetStream publish cannot require an *empty* stream).
final class JetStreamReplicator: LogReplicator {
    let jetStream: JetStream
    let options: ClusterOptions

    init(jetStream: JetStream, options: ClusterOptions) throws {
        self.jetStream = jetStream
        self.options = options
        try jetStream.ensureStream(name: options.stream, subject: options.subject, replicas: options.replicas)
        if try jetStream.message(stream: options.stream, sequence: 1) == nil {
            _ = try jetStream.publish(
                subject: options.subject, data: Array("timeline-genesis".utf8), messageID: "timeline-genesis",
                expectLastSequence: nil)
        }
    }

    func batch(at position: UInt64) throws -> [UInt8]? {
        try jetStream.message(stream: options.stream, sequence: position + 1)
    }

    /// A publish whose acknowledgement timed out is sent again with the same `MsgId`: if the
    /// first one was stored, JetStream answers with its sequence instead of storing it twice.
    func publish(_ batch: [UInt8], after position: UInt64, id: String) throws -> UInt64 {
        var attempt = 1
        while true {
            do {
                let ack = try jetStream.publish(
                    subject: options.subject, data: batch, messageID: id, expectLastSequence: position + 1)
                return ack.sequence - 1
            } catch {
                if error.isWrongLastSequence { throw ReplicationConflict() }
                if !error.isTimeout || attempt == 3 { throw error }
                attempt += 1
            }
        }
    }
}

/// Per-user keys in a replicated JetStream key-value bucket, so every node can open sealed
/// fields and an erasure on one node destroys the key for all (a purge removes every revision).
/// Reads ask the stream leader for the latest value: a replica that has not yet received a
/// key just created elsewhere must not answer "no key" (that would read as an erasure).
struct BucketKeyBackend: KeyBackend {
    let bucket: KeyValueBucket

    func read(_ name: String) throws -> [UInt8]? { try bucket.latest(name) }

    func create(_ name: String, _ secret: [UInt8]) throws -> [UInt8] {
        if try bucket.create(name, secret) { return secret }
        guard let existing = try bucket.latest(name) else {
            throw KeyStoreError.unwritable(key: name, reason: "purged while being created")
        }
        return existing
    }

    func destroy(_ name: String) throws { try bucket.purge(name) }
}
