import JSONModel

// Federation's actor keys (#43): a local user's ActivityPub actor signs what the server sends
// for them (HTTP Signatures) with an RSA key pair of its own. `createActorKey` (the operator's:
// the server runs it the first time the actor is needed) records `ActorKeyCreated`: the public
// key in clear, as the actor document publishes it, and the private key sealed with the user's
// own key, as every personal field is. Erasing the user destroys that key, and the private key
// with it.

/// An actor's RSA key pair as PEM text, made before deciding (`Prepared.actorKey`).
public struct ActorKeyPair: Equatable, Sendable {
    /// The public key, SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public var publicKey: String
    /// The private key, PKCS#8 PEM; recorded only sealed.
    public var privateKey: String
    /// A key pair of these PEM texts.
    public init(publicKey: String, privateKey: String) {
        self.publicKey = publicKey
        self.privateKey = privateKey
    }
}

/// The payload of `ActorKeyCreated`: `userId`'s actor signs with this key pair from now.
public struct ActorKeyCreated: Equatable, Sendable {
    /// The user whose actor it is.
    public var userId: UserID
    /// The public key (PEM), published in the actor document.
    public var publicKey: String
    /// The private key (PEM), sealed with the user's key; `nil` once they are erased.
    public var privateKey: String?
    /// An `ActorKeyCreated` payload.
    public init(userId: UserID, publicKey: String, privateKey: String?) {
        self.userId = userId
        self.publicKey = publicKey
        self.privateKey = privateKey
    }
}

extension ActorKeyCreated: EventPayload {
    /// The aggregate `ActorKeyCreated` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `ActorKeyCreated` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes an `ActorKeyCreated` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(publicKey)
        try sealer.seal(userId, into: &w) { $0.optionalString(privateKey) }
    }
    /// Reads a stored `ActorKeyCreated` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let user = UserID(try r.string()), publicKey = try r.string()
        let privateKey = try opener.personal(user, from: &r) { try $0.optionalString() } ?? nil
        self.init(userId: user, publicKey: publicKey, privateKey: privateKey)
    }
    /// A one-line human summary of an `ActorKeyCreated` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId))'s actor got its signing key"
    }
}

extension ActorKeyCreated {
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "publicKey": "The actor's RSA public key, SubjectPublicKeyInfo PEM, as its actor document publishes it.",
        "privateKey": "The RSA private key, PKCS#8 PEM (sealed in the log; absent once the user was erased)."
    ]
}

extension Decider {
    /// `createActorKey`: records the key pair made before deciding as `raw`'s actor key, unless
    /// they have one (then nothing changes: two servers' first requests may race to make it).
    func createActorKey(_ raw: String, actor: Actor) throws -> Decision {
        try requireOperator(actor, "create an actor's key")
        let id: UserID = try Validation.identifier(raw, field: "user")
        // Another server's account has its own key there: this server never signs for it.
        guard let user = try state.user(id), !user.isRemote else { throw TimelineError.notFound("user", id.rawValue) }
        guard try !state.hasActorKey(id) else { return Decision(outcome: .success(.changed(false))) }
        guard let pair = context.prepared.actorKey else { throw TimelineError(.internal, "no key pair was made") }
        let event = ActorKeyCreated(userId: id, publicKey: pair.publicKey, privateKey: pair.privateKey)
        return Decision(events: [.actorKeyCreated(event)], outcome: .success(.changed(true)))
    }
}

/// `createActorKey`: gives `user`'s ActivityPub actor its RSA signing key (the operator's; the
/// server runs it the first time the actor is asked for). Answers whether it made one.
package struct CreateActorKeyCommand: OneFieldCommand {
    /// The command's public name, `createActorKey`, and its one field, `user`.
    package static let name = "createActorKey", field = "user"
    /// The `user` field.
    package let value: String
    /// A `createActorKey` command naming `value`.
    package init(value: String) { self.value = value }
    /// Decides `createActorKey` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.createActorKey(value, actor: actor)
    }
}

extension Command {
    /// Gives `user`'s ActivityPub actor its RSA signing key, unless it has one (the operator's).
    public static func createActorKey(user: String) -> Command { Command(CreateActorKeyCommand(value: user)) }
}
