import JSONModel

// Remote posts (#43): a `Note` with photos that a remote account followed here posts on its own
// server, or a direct message it addresses to users here, comes in through the inbox and becomes a post of that account's here, so that the
// fan-out places it in its local followers' home timelines exactly as a local post, and every
// query, count and privacy rule treats it as one. `receiveRemotePost` (the operator's: the inbox
// runs it, with the photos fetched and re-encoded by the photo pipeline as the account's media)
// records the post's `PostAdded` and, beside it, `RemotePostSeen`: which `Note` of the other
// server it is, so that its `Update`, `Delete`, likes and replies find it.

/// The payload of `RemotePostSeen`: the post `postId`, by the remote account `authorId`, is the
/// `Note` `object` of its server.
public struct RemotePostSeen: Equatable, Sendable {
    /// The local post.
    public var postId: PostID
    /// Its author, a remote account.
    public var authorId: UserID
    /// The `Note`'s id on its server.
    public var object: String
    /// A `RemotePostSeen` payload.
    public init(postId: PostID, authorId: UserID, object: String) {
        self.postId = postId
        self.authorId = authorId
        self.object = object
    }
}

extension RemotePostSeen: EventPayload {
    /// The aggregate `RemotePostSeen` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `RemotePostSeen` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `RemotePostSeen` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `RemotePostSeen` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        w.string(object)
    }
    /// Reads a stored `RemotePostSeen` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(postId: PostID(try r.string()), authorId: UserID(try r.string()), object: try r.string())
    }
    /// A one-line human summary of a `RemotePostSeen` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId))'s post \(postId) is \(object)"
    }
}

extension RemotePostSeen {
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "object": "The Note's id on its own server."
    ]
}

extension UserRecord {
    /// Whether the account is another server's actor (its username is a handle, `name@host`;
    /// a local username never holds `@`).
    package var isRemote: Bool { username.contains("@") }

    /// A remote account's server: the host (and port) of its `name@host`; nil for a local user.
    package var server: String? { username.firstIndex(of: "@").map { String(username[username.index(after: $0)...]) } }
}

extension Decider {
    /// The remote account `raw` names, the author of the `Note` `object`, which must be on its
    /// server (a server speaks only for its own notes).
    func remoteAuthor(_ raw: String, of object: String) throws -> UserRecord {
        let authorId: UserID = try Validation.identifier(raw, field: "author")
        guard let author = try state.user(authorId), author.isRemote else {
            throw TimelineError.notFound("remote account", authorId.rawValue)
        }
        let host = try Validation.actorURL(object, field: "object")
        guard author.server == host else {
            throw TimelineError.invalid("object", "object must be on its author's server")
        }
        return author
    }

    /// `receiveRemotePost`: the remote account `author` posted the `Note` `object`, with the
    /// photos it uploaded here (`uploadMedia`, run as it); nothing when that `Note` is known.
    func receiveRemotePost(_ c: ReceiveRemotePostCommand, actor: Actor) throws -> Decision {
        try requireOperator(actor, "receive a remote post")
        let author = try remoteAuthor(c.author, of: c.object)
        if let known = try state.remotePost(object: c.object), try state.post(known) != nil {
            return Decision(outcome: .success(.post(known)))
        }
        // A direct one (a message) addresses users here: each known; the others are left out
        // as a local message leaves them (`addressable`); an answer reaches its conversation.
        var addressees: [UserID]?
        if c.visibility == .direct {
            addressees = try c.addressees.map { raw in
                let user: UserID = try Validation.identifier(raw, field: "addressees")
                guard try state.user(user) != nil else { throw TimelineError.notFound("user", user.rawValue) }
                return user
            }
            guard addressees?.isEmpty == false || c.inReplyTo != nil else {
                throw TimelineError.invalid("addressees", "a direct message addresses someone")
            }
        } else if !c.addressees.isEmpty || c.inReplyTo != nil {
            throw TimelineError.invalid("addressees", "only a direct message has addressees or answers one")
        }
        var decision = try addPost(
            photos: c.media.isEmpty ? .none : .media(c.media), caption: c.caption, location: nil,
            sensitive: c.sensitive, warning: c.warning, visibility: c.visibility, inReplyTo: c.inReplyTo,
            addressing: addressees, by: author)
        guard case .success(.post(let id)) = decision.outcome else { return decision }
        decision.events.append(.remotePostSeen(RemotePostSeen(postId: id, authorId: author.id, object: c.object)))
        decision.actor = author.id
        return decision
    }
}

/// `receiveRemotePost`: records a remote account's post (the operator's: the inbox runs it);
/// answers the post.
package struct ReceiveRemotePostCommand: CommandDefinition {
    /// The command's public name, `receiveRemotePost`.
    package static let name = "receiveRemotePost"
    /// The remote account that posted it.
    package let author: String
    /// The `Note`'s id on its server.
    package let object: String
    /// Its text.
    package let caption: String?
    /// The photos, uploaded as `author`'s media (1–10).
    package let media: [String]
    /// Who sees it: `public`, `followers`, or `direct` (its addressees).
    package let visibility: PostVisibility
    /// Whether its photos are sensitive.
    package let sensitive: Bool
    /// Its content warning (`summary`).
    package let warning: String?
    /// A direct one's addressees here: the users its `Note` is addressed to.
    package let addressees: [String]
    /// The direct post here that a direct one answers, in its conversation.
    package let inReplyTo: String?

    /// A `receiveRemotePost` command with these fields.
    package init(
        author: String, object: String, caption: String?, media: [String], visibility: PostVisibility,
        sensitive: Bool, warning: String?, addressees: [String] = [], inReplyTo: String? = nil
    ) {
        self.author = author
        self.object = object
        self.caption = caption
        self.media = media
        self.visibility = visibility
        self.sensitive = sensitive
        self.warning = warning
        self.addressees = addressees
        self.inReplyTo = inReplyTo
    }
    /// Reads the fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        let raw = try fields.optionalString("visibility") ?? "public"
        guard let visibility = PostVisibility(rawValue: raw) else {
            throw TimelineError.invalid("visibility", "visibility must be public, followers or direct")
        }
        self.init(
            author: try fields.string("author"), object: try fields.string("object"),
            caption: try fields.optionalString("caption"), media: try fields.optionalList("media") ?? [],
            visibility: visibility, sensitive: try fields.optionalBool("sensitive") ?? false,
            warning: try fields.optionalString("warning"), addressees: try fields.optionalList("addressees") ?? [],
            inReplyTo: try fields.optionalString("inReplyTo"))
    }
    /// Writes the fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("author", author)
        fields.set("object", object)
        fields.set("caption", caption)
        fields.set("media", strings: media)
        fields.set("visibility", visibility.rawValue)
        fields.set("sensitive", sensitive)
        fields.set("warning", warning)
        if !addressees.isEmpty { fields.set("addressees", strings: addressees) }
        fields.set("inReplyTo", inReplyTo)
    }
    /// Decides `receiveRemotePost` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.receiveRemotePost(self, actor: actor)
    }
}

extension Command {
    /// Records the remote account `author`'s post, the `Note` `object` of its server, with the
    /// photos it uploaded here (the operator's: the inbox runs it); a direct one addresses
    /// `addressees` and may answer the direct post `inReplyTo`.
    public static func receiveRemotePost(
        author: String, object: String, caption: String?, media: [String], visibility: PostVisibility,
        sensitive: Bool = false, warning: String? = nil, addressees: [String] = [], inReplyTo: String? = nil
    ) -> Command {
        Command(
            ReceiveRemotePostCommand(
                author: author, object: object, caption: caption, media: media, visibility: visibility,
                sensitive: sensitive, warning: warning, addressees: addressees, inReplyTo: inReplyTo))
    }
}
