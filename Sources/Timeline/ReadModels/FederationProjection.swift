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

/// A remote actor's id → what was last seen of it (`RemoteAccountSeen`'s fields).
enum RemoteActors: TableLayout {
    static func key(_ actor: String) -> [UInt8] { Array(actor.utf8) }
    static func encode(_ seen: RemoteAccountSeen) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(seen.userId.rawValue)
        w.string(seen.username)
        w.string(seen.inbox)
        w.optionalString(seen.sharedInbox)
        w.string(seen.keyId)
        w.string(seen.publicKey)
        w.u8(seen.locked ? 1 : 0)
        w.string(seen.actor)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> RemoteAccountSeen {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown remote actor record version") }
        let user = UserID(try r.string()), username = try r.string(), inbox = try r.string()
        let shared = try r.optionalString(), keyId = try r.string(), key = try r.string(), locked = try r.u8() == 1
        return RemoteAccountSeen(
            userId: user, actor: try r.string(), username: username, inbox: inbox, sharedInbox: shared, keyId: keyId,
            publicKey: key, locked: locked)
    }
}

/// A remote account's local id → its actor's id.
enum RemoteUsers: TableLayout {
    static func key(_ id: UserID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ actor: String) -> [UInt8] { Array(actor.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// A remote `Note`'s id → the local post it is.
enum RemotePosts: TableLayout {
    static func key(_ object: String) -> [UInt8] { Array(object.utf8) }
    static func encode(_ post: PostID) -> [UInt8] { Array(post.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> PostID { PostID(String(decoding: bytes, as: UTF8.self)) }
}

/// A local post that came from another server → its `Note`'s id there.
enum RemoteObjects: TableLayout {
    static func key(_ post: PostID) -> [UInt8] { Array(post.rawValue.utf8) }
    static func encode(_ object: String) -> [UInt8] { Array(object.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// A remote `Note`'s id → the local comment it is.
enum RemoteComments: TableLayout {
    static func key(_ object: String) -> [UInt8] { Array(object.utf8) }
    static func encode(_ comment: CommentID) -> [UInt8] { Array(comment.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> CommentID { CommentID(String(decoding: bytes, as: UTF8.self)) }
}

/// A local comment that came from another server → its `Note`'s id there.
enum RemoteCommentObjects: TableLayout {
    static func key(_ comment: CommentID) -> [UInt8] { Array(comment.rawValue.utf8) }
    static func encode(_ object: String) -> [UInt8] { Array(object.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// A server's host → nothing: the servers the operator blocked.
enum BlockedDomains: TableLayout {
    static func key(_ host: String) -> [UInt8] { Array(host.utf8) }
    static func encode(_: Void) -> [UInt8] { [] }
    static func decode(_: [UInt8]) {}
}

/// A local actor's signing key as the read model keeps it.
struct ActorKeyRecord: Equatable, Sendable {
    /// The sequence of the `ActorKeyCreated` event (its private key, sealed).
    var sequence: UInt64
    /// The public key, SubjectPublicKeyInfo PEM.
    var publicKey: String
}

/// What federation (#43) keeps: each local actor's signing key, each remote actor seen, by
/// its id and by its account's local id, and the servers the operator blocked. An erased user's key goes (their actor is gone; the
/// log's sealed private key cannot be opened any more); so does an erased remote account.
struct FederationProjection: Projection {
    let name = ProjectionName.federation
    let actorKeys: Table<ActorKeys>
    let remoteActors: Table<RemoteActors>
    let remoteUsers: Table<RemoteUsers>
    let blockedDomains: Table<BlockedDomains>
    let remotePosts: Table<RemotePosts>
    let remoteObjects: Table<RemoteObjects>
    let remoteComments: Table<RemoteComments>
    let remoteCommentObjects: Table<RemoteCommentObjects>
    /// A server's host → its remote accounts known here.
    let remoteAccountsByHost: Table<Members<String, UserID>>
    /// A user → the servers they block (`AccountDomainBlocked`).
    let accountDomainBlocks: Table<Members<UserID, String>>
    var databases: [Database] {
        [
            actorKeys.database, remoteActors.database, remoteUsers.database, blockedDomains.database,
            remotePosts.database, remoteObjects.database, remoteAccountsByHost.database, accountDomainBlocks.database,
            remoteComments.database, remoteCommentObjects.database
        ]
    }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        actorKeys = try Table(env, prefix + "actorKeys")
        remoteActors = try Table(env, prefix + "remoteActors")
        remoteUsers = try Table(env, prefix + "remoteUsers")
        blockedDomains = try Table(env, prefix + "blockedDomains")
        remotePosts = try Table(env, prefix + "remotePosts")
        remoteObjects = try Table(env, prefix + "remoteObjects")
        remoteComments = try Table(env, prefix + "remoteComments")
        remoteCommentObjects = try Table(env, prefix + "remoteCommentObjects")
        remoteAccountsByHost = try Table(env, prefix + "remoteAccountsByHost")
        accountDomainBlocks = try Table(env, prefix + "accountDomainBlocks")
        handlers = Self.handlers(of: self)
    }

    /// The remote account `user`, if it is one.
    func remoteAccount(_ user: UserID, _ txn: Transaction) throws -> RemoteAccountSeen? {
        guard let actor = try remoteUsers.get(user, txn) else { return nil }
        return try remoteActors.get(actor, txn)
    }

    /// Whether `viewer` blocks the server of `user` (a remote account): checked only for a viewer
    /// who blocks some server, so most reads pay one seek.
    func hidesDomain(of user: UserID, from viewer: UserID, _ txn: Transaction) throws -> Bool {
        guard try accountDomainBlocks.last(in: viewer, txn) != nil, let actor = try remoteUsers.get(user, txn),
            let host = Validation.host(of: actor)
        else { return false }
        return try accountDomainBlocks.contains((viewer, host), txn)
    }

    /// Forgets that `post` came from another server.
    private func forget(_ post: PostID, _ txn: Transaction) throws {
        guard let object = try remoteObjects.get(post, txn) else { return }
        try remotePosts.delete(object, txn)
        try remoteObjects.delete(post, txn)
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.actorKeyCreated) { (e: ActorKeyCreated, envelope, txn) in
            try projection.actorKeys.put(
                e.userId, ActorKeyRecord(sequence: envelope.sequence, publicKey: e.publicKey), txn)
        }
        handlers.on(.remoteAccountSeen) { (e: RemoteAccountSeen, _, txn) in
            try projection.remoteActors.put(e.actor, e, txn)
            try projection.remoteUsers.put(e.userId, e.actor, txn)
            if let host = Validation.host(of: e.actor) {
                try projection.remoteAccountsByHost.put((host, e.userId), (), txn)
            }
        }
        handlers.on(.accountDomainBlocked) { (e: AccountDomainBlock, _, txn) in
            try projection.accountDomainBlocks.put((e.userId, e.host), (), txn)
        }
        handlers.on(.accountDomainUnblocked) { (e: AccountDomainBlock, _, txn) in
            try projection.accountDomainBlocks.delete((e.userId, e.host), txn)
        }
        handlers.on(.remotePostSeen) { (e: RemotePostSeen, _, txn) in
            try projection.remotePosts.put(e.object, e.postId, txn)
            try projection.remoteObjects.put(e.postId, e.object, txn)
        }
        handlers.on(.remoteCommentSeen) { (e: RemoteCommentSeen, _, txn) in
            try projection.remoteComments.put(e.object, e.commentId, txn)
            try projection.remoteCommentObjects.put(e.commentId, e.object, txn)
        }
        handlers.on(.commentDeleted) { (e: CommentDeleted, _, txn) in
            guard let object = try projection.remoteCommentObjects.get(e.commentId, txn) else { return }
            try projection.remoteComments.delete(object, txn)
            try projection.remoteCommentObjects.delete(e.commentId, txn)
        }
        // A remote post deleted or removed is forgotten. (An erased account's posts, and the
        // comments of a post gone, leave their entries: the readers check that they still exist.)
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in try projection.forget(e.postId, txn) }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in try projection.forget(e.postId, txn) }
        handlers.on(.domainBlocked) { (e: DomainBlock, _, txn) in try projection.blockedDomains.put(e.host, (), txn) }
        handlers.on(.domainUnblocked) { (e: DomainBlock, _, txn) in try projection.blockedDomains.delete(e.host, txn) }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            try projection.actorKeys.delete(e.userId, txn)
            try projection.accountDomainBlocks.deleteAll(in: e.userId, txn)
            if let actor = try projection.remoteUsers.get(e.userId, txn) {
                try projection.remoteActors.delete(actor, txn)
                try projection.remoteUsers.delete(e.userId, txn)
                if let host = Validation.host(of: actor) {
                    try projection.remoteAccountsByHost.delete((host, e.userId), txn)
                }
            }
        }
        return handlers
    }
}
