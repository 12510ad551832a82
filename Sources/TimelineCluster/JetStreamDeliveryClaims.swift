import Foundation
import NATS
import Timeline
import TimelinePush

/// Push delivery claims in JetStream key-value buckets, so that each delivery is made by one
/// node of a cluster: `TIMELINE_PUSH_LEASES` holds a claim per delivery for a minute (a
/// create, which only one node can make; a node that dies leaves it to expire, and the others
/// ask again once it has) and
/// `TIMELINE_PUSH_DONE` the finished ones for two days (longer than a delivery is tried).
public final class JetStreamDeliveryClaims: DeliveryClaims {
    private let leases: KeyValueBucket
    private let done: KeyValueBucket
    private let node = UUID().uuidString
    /// How long a claim lasts (the `leaseTime`, in seconds): the leases bucket's TTL.
    public let claimLifetime: TimeInterval

    /// Claims kept on the cluster reachable at `options.urls`.
    public init(options: ClusterOptions, leaseTime: Duration = .seconds(60)) throws {
        let jetStream = try NATSConnection(urls: options.urls).jetStream()
        claimLifetime = Double(leaseTime.components.seconds) + Double(leaseTime.components.attoseconds) / 1e18
        leases = try jetStream.keyValue(bucket: "TIMELINE_PUSH_LEASES", replicas: options.replicas, ttl: leaseTime)
        done = try jetStream.keyValue(
            bucket: "TIMELINE_PUSH_DONE", replicas: options.replicas, ttl: .seconds(2 * 24 * 3600))
    }

    /// `done` if the done bucket holds `id`; else `mine` if this node created its lease, `taken` if
    /// another node had.
    public func claim(_ id: String) throws -> DeliveryClaim {
        let key = Self.key(id)
        if try done.latest(key) != nil { return .done }
        guard try leases.create(key, Array(node.utf8)) else { return .taken }
        // Another node may have finished it between the first look and the lease: it records
        // `done` before dropping its lease, so a lease made after that drop sees the record here.
        if try done.latest(key) != nil {
            try leases.purge(key)
            return .done
        }
        return .mine
    }

    /// Records `id` in the done bucket, then drops its lease.
    public func finished(_ id: String) throws {
        let key = Self.key(id)
        _ = try done.create(key, [1])
        try leases.purge(key)
    }

    /// Drops this node's lease on `id`, so any node may claim it again.
    public func release(_ id: String) throws { try leases.purge(Self.key(id)) }

    /// A delivery id as a key (ids hold `.`, which separates a key's tokens).
    private static func key(_ id: String) -> String { id.replacingOccurrences(of: ".", with: "_") }
}

/// The cluster's one VAPID key pair (every node must sign with the key subscriptions were made
/// with): kept in the `TIMELINE_PUSH_VAPID` bucket, made by the first node that asks.
public enum JetStreamPushKeys {
    /// The cluster's key pair; `make` makes one if the cluster has none yet.
    public static func vapid(options: ClusterOptions, make: () throws -> (privateKey: [UInt8], publicKey: [UInt8]))
        throws
        -> (privateKey: [UInt8], publicKey: [UInt8])
    {
        let bucket = try NATSConnection(urls: options.urls).jetStream().keyValue(
            bucket: "TIMELINE_PUSH_VAPID", replicas: options.replicas)
        if let stored = try bucket.latest("keys"), stored.count == 97 {
            return (Array(stored.prefix(32)), Array(stored.suffix(65)))
        }
        let made = try make()
        _ = try bucket.create("keys", made.privateKey + made.publicKey)
        // Another node may have made one first: the stored one is the cluster's.
        guard let stored = try bucket.latest("keys"), stored.count == 97 else {
            throw TimelineError(.internal, "the cluster's VAPID key could not be stored")
        }
        return (Array(stored.prefix(32)), Array(stored.suffix(65)))
    }
}
