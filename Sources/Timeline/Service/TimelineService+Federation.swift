import Foundation
import OpenSSL
import TimelineDomain

/// Federation's actor keys (#43): each local user's actor has an RSA key pair, made the first
/// time the actor is asked for (`createActorKey`), its private key sealed in the log.
extension TimelineService {
    /// A new RSA 2048 key pair as PEM, for `createActorKey`.
    static func newActorKeyPair() throws(TimelineError) -> ActorKeyPair {
        do {
            let key = try RSAKey.generate()
            return ActorKeyPair(publicKey: try key.publicPEM(), privateKey: try key.privatePEM())
        } catch {
            throw TimelineError(.internal, "no RSA key could be made: \(error)")
        }
    }

    /// `user`'s actor's public key (PEM), made now when they have none; `not_found` for no
    /// such user.
    public func actorPublicKey(of user: UserID) async throws(TimelineError) -> String {
        if let key = try read({ view in try view.models.federation.actorKeys.get(user, view.txn) }) {
            return key.publicKey
        }
        _ = try await execute(.createActorKey(user: user.rawValue), as: .operator)
        guard let key = try read({ view in try view.models.federation.actorKeys.get(user, view.txn) }) else {
            throw TimelineError.notFound("user", user.rawValue)
        }
        return key.publicKey
    }

    /// The key the server signs `user`'s requests with (made now when they have none): the
    /// private key of their `ActorKeyCreated`, opened with their key. An erased user has none.
    public func actorSigningKey(of user: UserID) async throws(TimelineError) -> RSAKey {
        let publicKey = try await actorPublicKey(of: user)
        if let known = signingKeys.withLock({ $0[user] }), (try? known.publicPEM()) == publicKey { return known }
        let pem: String? = try read { view in
            guard let record = try view.models.federation.actorKeys.get(user, view.txn),
                case .actorKeyCreated(let event)? = try log.envelope(at: record.sequence, view.txn)?.event
            else { return nil }
            return event.privateKey
        }
        guard let pem else { throw TimelineError(.internal, "the actor key of \(user) cannot be opened") }
        let key: RSAKey
        do { key = try RSAKey(privatePEM: pem) } catch {
            throw TimelineError(.internal, "the actor key of \(user) does not parse: \(error)")
        }
        signingKeys.withLock { $0[user] = key }
        return key
    }
}

/// Something that must act on an account's erasure with what the erasure destroys: federation
/// signs the actor's `Delete` with the key that erasure shreds. An erasure run by this process
/// calls `prepare` before it is decided; the closure it answers runs once the erasure committed
/// (not at all when it is refused).
public protocol ErasureWitness: Sendable {
    /// Prepares for `user`'s erasure; answers what to do once it committed, if anything.
    func prepare(erasing user: UserID) async -> (@Sendable () -> Void)?
}

extension TimelineService {
    /// Lets `witness` prepare for every erasure this process runs.
    public func witnessErasures(_ witness: any ErasureWitness) {
        erasureWitnesses.withLock { $0.append(witness) }
    }

    /// Whether `user`'s actor has its signing key (without making one).
    public func hasActorKey(_ user: UserID) throws(TimelineError) -> Bool {
        try read { view in try view.hasActorKey(user) }
    }

    /// Forgets the signing key opened for `user` (their erasure shredded it).
    public func forgetSigningKey(of user: UserID) {
        _ = signingKeys.withLock { $0.removeValue(forKey: user) }
    }
}

/// Remote accounts (#43): other servers' actors that act here, each an account with a local id.
extension TimelineService {
    /// What was last recorded of the actor whose id is `actor`, if it was seen.
    public func remoteAccount(actor: String) throws(TimelineError) -> RemoteAccountSeen? {
        try read { view in try view.remoteAccount(actor: actor)?.seen }
    }

    /// The remote account `user`, if it is one.
    public func remoteAccount(_ user: UserID) throws(TimelineError) -> RemoteAccountSeen? {
        try read { view in try view.models.federation.remoteAccount(user, view.txn) }
    }

    /// The local post that is another server's `Note` `object`, while it exists.
    public func remotePost(object: String) throws(TimelineError) -> PostID? {
        try read { view in
            guard let post = try view.remotePost(object: object), try view.post(post) != nil else { return nil }
            return post
        }
    }

    /// The remote accounts following `user` (what was last recorded of each), less suspended
    /// ones: whom `user`'s posts are delivered to. Read from the follow edges alone (no profile
    /// is built), in the order of their ids.
    public func remoteFollowers(of user: UserID) throws(TimelineError) -> [RemoteAccountSeen] {
        try read { view in
            var accounts: [RemoteAccountSeen] = []
            try view.models.follows.forEachFollower(of: user, view.txn) { follower in
                guard let remote = try view.models.federation.remoteAccount(follower, view.txn),
                    try !view.isSuspended(follower)
                else { return }
                accounts.append(remote)
            }
            return accounts
        }
    }

    /// The local users following `user`, less suspended ones, at most `limit`, in the order of
    /// their ids (read as `remoteFollowers(of:)` is).
    public func localFollowers(of user: UserID, limit: Int = .max) throws(TimelineError) -> [UserID] {
        try read { view in
            var users: [UserID] = []
            guard limit > 0 else { return users }
            try view.models.follows.followers.forEach(in: user, view.txn) { follower, _ in
                if try view.models.federation.remoteAccount(follower, view.txn) == nil, try !view.isSuspended(follower)
                {
                    users.append(follower)
                }
                return users.count < limit
            }
            return users
        }
    }

    /// Who post `id` is (or was, when deleted since: read from the log) for: its author, its
    /// visibility and, for a direct post, its addressees; nil when the log has no such post.
    public func audience(ofPost id: PostID) throws(TimelineError)
        -> (author: UserID, visibility: PostVisibility, addressees: [UserID])?
    {
        try read { view in
            guard let record = try view.post(id) ?? gonePost(id, view) else { return nil }
            return (record.author, record.visibility, record.addressees)
        }
    }

    /// The local comment that is another server's `Note` `object`, and its post, while both exist.
    public func remoteComment(object: String) throws(TimelineError) -> (comment: CommentID, post: PostID)? {
        try read { view in
            guard let id = try view.remoteComment(object: object), let comment = try view.comment(id),
                try view.post(comment.post) != nil
            else { return nil }
            return (id, comment.post)
        }
    }

    /// The `Note` of another server that `comment` is, if it came from one.
    public func remoteObject(ofComment comment: CommentID) throws(TimelineError) -> String? {
        try read { view in try view.models.federation.remoteCommentObjects.get(comment, view.txn) }
    }

    /// The `Note` of another server that `post` is, and its author (a remote account), if it
    /// came from one and still exists.
    public func remoteObject(of post: PostID) throws(TimelineError) -> (object: String, author: UserID)? {
        try read { view in
            guard let object = try view.models.federation.remoteObjects.get(post, view.txn),
                let record = try view.post(post)
            else { return nil }
            return (object, record.author)
        }
    }
}

extension TimelineService {
    /// The other servers this one knows: the hosts (with a port, if any) of the remote accounts
    /// seen here, in order, less the ones the operator blocked.
    public func peers() throws(TimelineError) -> [String] {
        try read { view in
            var hosts = Set<String>()
            try view.txn.scan(view.models.federation.remoteActors.database, prefix: []) { key, _ in
                if let host = Validation.host(of: String(decoding: key, as: UTF8.self)) { hosts.insert(host) }
                return true
            }
            return try hosts.filter { try !view.domainBlocked($0) }.sorted()
        }
    }

    /// The servers the operator blocked, in order.
    public func blockedDomains() throws(TimelineError) -> [String] {
        try read { view in
            var hosts: [String] = []
            try view.txn.scan(view.models.federation.blockedDomains.database, prefix: []) { key, _ in
                hosts.append(String(decoding: key, as: UTF8.self))
                return true
            }
            return hosts
        }
    }

    /// The servers `user` blocks (`blockAccountDomain`), in order.
    public func serversBlocked(by user: UserID) throws(TimelineError) -> [String] {
        try read { view in try view.models.federation.accountDomainBlocks.members(of: user, view.txn) }
    }

    /// Whether `user` blocks the server `host` (`blockAccountDomain`).
    public func blocksServer(_ host: String, user: UserID) throws(TimelineError) -> Bool {
        try read { view in try view.models.federation.accountDomainBlocks.contains((user, host.lowercased()), view.txn)
        }
    }

    /// Whether `viewer` blocks the server of the remote account `user`.
    public func blocksServer(of user: UserID, viewer: UserID) throws(TimelineError) -> Bool {
        try read { view in try view.models.federation.hidesDomain(of: user, from: viewer, view.txn) }
    }

    /// Whether the server of `url` (an actor's id, an inbox) is one the operator blocked; a URL
    /// without a host counts as blocked.
    public func isBlocked(serverOf url: String) throws(TimelineError) -> Bool {
        guard let host = Validation.host(of: url) else { return true }
        return try read { view in try view.domainBlocked(host) }
    }

}
