import JSONModel

// Remote comments (#43): a `Note` of another server answering a post here (or one of its
// comments) becomes a comment of its remote author's here. `receiveRemoteComment` (the
// operator's: the inbox runs it) records its `CommentAdded`, decided as the author's own
// comment would be, and, beside it, `RemoteCommentSeen`: which `Note` it is, so that its `Delete`
// finds it, a second delivery of it adds nothing, and an answer to it threads under it.

/// The payload of `RemoteCommentSeen`: the comment `commentId` on `postId`, by the remote
/// account `authorId`, is the `Note` `object` of its server.
public struct RemoteCommentSeen: Equatable, Sendable {
    /// The local comment.
    public var commentId: CommentID
    /// The post it is on.
    public var postId: PostID
    /// Its author, a remote account.
    public var authorId: UserID
    /// The `Note`'s id on its server.
    public var object: String
    /// A `RemoteCommentSeen` payload.
    public init(commentId: CommentID, postId: PostID, authorId: UserID, object: String) {
        self.commentId = commentId
        self.postId = postId
        self.authorId = authorId
        self.object = object
    }
}

extension RemoteCommentSeen: EventPayload {
    /// The aggregate `RemoteCommentSeen` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `RemoteCommentSeen` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `RemoteCommentSeen` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `RemoteCommentSeen` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(commentId.rawValue)
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        w.string(object)
    }
    /// Reads a stored `RemoteCommentSeen` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(
            commentId: CommentID(try r.string()), postId: PostID(try r.string()), authorId: UserID(try r.string()),
            object: try r.string())
    }
    /// A one-line human summary of a `RemoteCommentSeen` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId))'s comment \(commentId) on \(postId) is \(object)"
    }
}

extension RemoteCommentSeen {
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "object": "The Note's id on its own server."
    ]
}

extension Decider {
    /// `receiveRemoteComment`: the remote account `author` answered `post` (or its comment
    /// `replyTo`) with the `Note` `object`; the same comment, nothing recorded, when that `Note`
    /// is known.
    func receiveRemoteComment(_ c: ReceiveRemoteCommentCommand, actor: Actor) throws -> Decision {
        try requireOperator(actor, "receive a remote comment")
        let author = try remoteAuthor(c.author, of: c.object)
        if let known = try state.remoteComment(object: c.object), try state.comment(known) != nil {
            return Decision(outcome: .success(.comment(known)))
        }
        // A post's own server decides who may answer it: a comment on a (remote) followers-only
        // post by an account of the post author's server is taken on that server's word, so its
        // comments reach its followers here, whether or not the commenter follows here.
        let post = try state.post(try Validation.identifier(c.post, field: "post"))
        let postAuthor = try post.flatMap { post in post.visibility == .followers ? try state.user(post.author) : nil }
        let vouched = postAuthor.map { $0.server == author.server } ?? false
        var decision = try addComment(c.post, text: c.text, replyTo: c.replyTo, by: author, vouched: vouched)
        guard case .success(.comment(let id)) = decision.outcome, let post = PostID.parse(c.post) else {
            return decision
        }
        decision.events.append(
            .remoteCommentSeen(RemoteCommentSeen(commentId: id, postId: post, authorId: author.id, object: c.object)))
        decision.actor = author.id
        return decision
    }
}

/// `receiveRemoteComment`: records a remote account's comment (the operator's: the inbox runs
/// it); answers the comment.
package struct ReceiveRemoteCommentCommand: CommandDefinition {
    /// The command's public name, `receiveRemoteComment`.
    package static let name = "receiveRemoteComment"
    /// The remote account that wrote it.
    package let author: String
    /// The `Note`'s id on its server.
    package let object: String
    /// The post it answers.
    package let post: String
    /// Its text.
    package let text: String
    /// The comment of the post it answers, if any.
    package let replyTo: String?

    /// A `receiveRemoteComment` command with these fields.
    package init(author: String, object: String, post: String, text: String, replyTo: String?) {
        self.author = author
        self.object = object
        self.post = post
        self.text = text
        self.replyTo = replyTo
    }
    /// Reads the fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        self.init(
            author: try fields.string("author"), object: try fields.string("object"), post: try fields.string("post"),
            text: try fields.string("text"), replyTo: try fields.optionalString("replyTo"))
    }
    /// Writes the fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("author", author)
        fields.set("object", object)
        fields.set("post", post)
        fields.set("text", text)
        fields.set("replyTo", replyTo)
    }
    /// Decides `receiveRemoteComment` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.receiveRemoteComment(self, actor: actor)
    }
}

extension Command {
    /// Records the remote account `author`'s comment on `post` (or its comment `replyTo`), the
    /// `Note` `object` of its server (the operator's: the inbox runs it).
    public static func receiveRemoteComment(
        author: String, object: String, post: String, text: String, replyTo: String? = nil
    ) -> Command {
        Command(
            ReceiveRemoteCommentCommand(author: author, object: object, post: post, text: text, replyTo: replyTo))
    }
}
