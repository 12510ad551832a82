import LMDB
import TimelineDomain

/// `user` → the actor key's public PEM and the sequence of the `ActorKeyCreated` that holds
/// its sealed private key (read from the log when the server signs: never kept in clear).
enum ActorKeys: TableLayout {
    static func key(_ id: UserID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ key: ActorKeyRecord) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.varint(key.sequence)
        w.string(key.publicKey)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> ActorKeyRecord {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown actor key record version") }
        return ActorKeyRecord(sequence: try r.varint(), publicKey: try r.string())
    }
}

/// A local actor's signing key as the read model keeps it.
struct ActorKeyRecord: Equatable, Sendable {
    /// The sequence of the `ActorKeyCreated` event (its private key, sealed).
    var sequence: UInt64
    /// The public key, SubjectPublicKeyInfo PEM.
    var publicKey: String
}

/// What federation (#43) keeps: each local actor's signing key. An erased user's key goes
/// (their actor is gone; the log's sealed private key cannot be opened any more).
struct FederationProjection: Projection {
    let name = ProjectionName.federation
    let actorKeys: Table<ActorKeys>
    var databases: [Database] { [actorKeys.database] }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        actorKeys = try Table(env, prefix + "actorKeys")
        handlers = Self.handlers(of: self)
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.actorKeyCreated) { (e: ActorKeyCreated, envelope, txn) in
            try projection.actorKeys.put(
                e.userId, ActorKeyRecord(sequence: envelope.sequence, publicKey: e.publicKey), txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in try projection.actorKeys.delete(e.userId, txn) }
        return handlers
    }
}
