import Foundation
import NATS
import Timeline
import TimelinePush

/// Delivery claims in JetStream key-value buckets, so that each delivery is made by one node of
/// a cluster: `TIMELINE_<OUTBOX>_LEASES` holds a claim per delivery for a minute (a create,
/// which only one node can make; a node that dies leaves it to expire, and the others ask again
/// once it has) and `TIMELINE_<OUTBOX>_DONE` the finished ones for two days (longer than a
/// delivery is tried, Web Push's; federation's set-aside deliveries are claimed anew at each
/// probe). `OUTBOX` is `PUSH` or `FEDERATION`.
public final class JetStreamDeliveryClaims: DeliveryClaims {
    private let leases: KeyValueBucket
    private let done: KeyValueBucket
    private let node = UUID().uuidString
    /// How long a claim lasts (the `leaseTime`, in seconds): the leases bucket's TTL.
    public let claimLifetime: TimeInterval

    /// Claims of the outbox `outbox` (`PUSH`, `FEDERATION`) kept on the cluster reachable at
    /// `options.urls`.
    public init(options: ClusterOptions, outbox: String = "PUSH", leaseTime: Duration = .seconds(60)) throws {
        let jetStream = try NATSConnection(urls: options.urls).jetStream()
        claimLifetime = Double(leaseTime.components.seconds) + Double(leaseTime.components.attoseconds) / 1e18
        leases = try jetStream.keyValue(bucket: "TIMELINE_\(outbox)_LEASES", replicas: options.replicas, ttl: leaseTime)
        done = try jetStream.keyValue(
            bucket: "TIMELINE_\(outbox)_DONE", replicas: options.replicas, ttl: .seconds(2 * 24 * 3600))
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

    /// A delivery id as a key: a key holds only `-/_=.` and ASCII letters and digits, and `.`
    /// separates its tokens, so `.` is `_` (push's ids: letters, digits, `-`, `_`, `.`) and any
    /// other byte `=` and its hex (federation's hold inboxes' URLs).
    static func key(_ id: String) -> String {
        var key = ""
        for byte in id.utf8 {
            switch byte {
            case UInt8(ascii: "."): key += "_"
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: "_"):
                key.unicodeScalars.append(Unicode.Scalar(byte))
            default: key += "=" + String(byte, radix: 16, uppercase: true)
            }
        }
        return key
    }
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
