import JSONModel

// Comments: `addComment` records `CommentAdded` (a reply names the comment it answers),
// `deleteComment` records `CommentDeleted`.

/// The payload of `CommentAdded`. Version 2 seals the text with the author's key; version 3
/// adds the comment it replies to.
public struct CommentAdded: Equatable, Sendable {
    /// The comment concerned.
    public var commentId: CommentID
    /// The post concerned.
    public var postId: PostID
    /// The comment's author.
    public var authorId: UserID
    /// The comment's text.
    public var text: String
    /// The top-level comment of the same post it replies to (one level, as Instagram's), if any.
    public var replyTo: CommentID?
    /// A `CommentAdded` payload.
    public init(commentId: CommentID, postId: PostID, authorId: UserID, text: String, replyTo: CommentID? = nil) {
        self.commentId = commentId
        self.postId = postId
        self.authorId = authorId
        self.text = text
        self.replyTo = replyTo
    }
}

extension CommentAdded: EventPayload {
    /// New `CommentAdded` events are written at version 3.
    package static var currentVersion: UInt8 { 3 }
    /// Version 1 of `CommentAdded` held its personal fields in clear (version 2 seals them).
    package static var legacyPlainV1: Bool { true }
    /// The aggregate `CommentAdded` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `CommentAdded` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `CommentAdded` event is about: `postId`.
    package var post: PostID? { postId }

    /// Writes a `CommentAdded` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(commentId.rawValue)
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        try sealer.seal(authorId, into: &w) { $0.string(text) }
        w.optionalString(replyTo?.rawValue)
    }

    /// Reads a stored `CommentAdded` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let comment = CommentID(try r.string()), post = PostID(try r.string()), author = UserID(try r.string())
        let text = try opener.personal(author, from: &r) { try $0.string() } ?? ""
        let replyTo = opener.version >= 3 ? try r.optionalString().map(CommentID.init) : nil
        self.init(commentId: comment, postId: post, authorId: author, text: text, replyTo: replyTo)
    }

    /// The text is left out once the author is erased (it reads back as "").
    package static var erasedMembers: [String] { ["text"] }

    /// A one-line human summary of a `CommentAdded` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) commented on \(postId): \(clip(text))"
    }
}

/// The payload of `CommentDeleted`.
public struct CommentDeleted: Equatable, Sendable {
    /// The comment concerned.
    public var commentId: CommentID
    /// The post concerned.
    public var postId: PostID
    /// A `CommentDeleted` payload.
    public init(commentId: CommentID, postId: PostID) {
        self.commentId = commentId
        self.postId = postId
    }
}

extension CommentDeleted: EventPayload {
    /// The aggregate `CommentDeleted` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// A `CommentDeleted` payload names no user.
    package var users: [UserID] { [] }
    /// The post a `CommentDeleted` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `CommentDeleted` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(commentId.rawValue)
        w.string(postId.rawValue)
    }

    /// Reads a stored `CommentDeleted` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(commentId: CommentID(try r.string()), postId: PostID(try r.string()))
    }

    /// A one-line human summary of a `CommentDeleted` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "comment \(commentId) on \(postId) deleted"
    }
}

extension Decider {
    /// A comment on `post`; with `replyTo`, a reply to one of its comments (a reply to a reply
    /// answers the comment that one answers: one level, as Instagram's).
    func addComment(_ post: String, text: String, replyTo: String?, by me: UserRecord, vouched: Bool = false) throws
        -> Decision
    {
        // One the post's own server vouches for (`receiveRemoteComment`: a followers-only post's)
        // need not follow its author here; what else hides it (reports, a block) still does.
        let post = try visiblePost(post, to: me, vouched: vouched)
        guard try !blockedEitherWay(me.id, post.author) else {
            throw TimelineError(.forbidden, "you cannot comment on this user's posts")
        }
        let text = try Validation.commentText(text)
        var answered: CommentID?
        if let replyTo {
            let id: CommentID = try Validation.identifier(replyTo, field: "replyTo")
            // A comment by someone who blocks `me` is out of `me`'s sight: as unknown as none.
            guard let comment = try state.comment(id), comment.post == post.id, try !state.blocks(comment.author, me.id)
            else { throw TimelineError(.notFound, "no comment \(id) on this post", field: "replyTo") }
            guard try !blockedEitherWay(me.id, comment.author) else {
                throw TimelineError(.forbidden, "you cannot reply to this user's comments")
            }
            answered = comment.replyTo ?? comment.id
        }
        let id = CommentID(context.newID())
        let event = CommentAdded(commentId: id, postId: post.id, authorId: me.id, text: text, replyTo: answered)
        return Decision(events: [.commentAdded(event)], outcome: .success(.comment(id)))
    }

    /// A comment may be deleted by its author or by the post's author.
    func deleteComment(_ comment: String, by me: UserRecord) throws -> Decision {
        let id: CommentID = try Validation.identifier(comment, field: "comment")
        guard let comment = try state.comment(id), let post = try state.post(comment.post) else {
            throw TimelineError.notFound("comment", id.rawValue)
        }
        guard comment.author == me.id || post.author == me.id else {
            // A comment `me` may not see (its post hidden from them, or a block either way) is
            // `not_found`, as an unknown id: a `forbidden` would tell that it exists.
            if try state.hides(post, from: me.id, threshold: context.hideAfterReports)
                || blockedEitherWay(me.id, post.author) || blockedEitherWay(me.id, comment.author)
            {
                throw TimelineError.notFound("comment", id.rawValue)
            }
            throw TimelineError(.forbidden, "only the comment's author or the post's author can delete a comment")
        }
        return Decision(
            events: [.commentDeleted(CommentDeleted(commentId: id, postId: post.id))], outcome: .success(.done))
    }
}

// MARK: - Commands

/// `deleteComment`: deletes a comment (its author's, or any on the acting user's post).
package struct DeleteCommentCommand: OneFieldCommand {
    /// The command's public name, `deleteComment`, and its one field, `comment`.
    package static let name = "deleteComment", field = "comment"
    /// The `comment` field, raw user input.
    package let value: String

    /// A `deleteComment` command naming `comment` `value`.
    package init(value: String) { self.value = value }

    /// Decides `deleteComment` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.deleteComment(value, by: $0) }
    }
}

extension Command {
    /// Deletes a comment (its author's, or any on the acting user's post).
    public static func deleteComment(comment: String) -> Command { Command(DeleteCommentCommand(value: comment)) }
}

/// `addComment`: comments on a post.
package struct AddCommentCommand: CommandDefinition {
    /// The command's public name, `addComment`.
    package static let name = "addComment"
    /// The `post` field.
    package let post: String
    /// The `text` field.
    package let text: String
    /// The comment this one replies to, if any.
    package let replyTo: String?

    /// A `addComment` command with these fields.
    package init(post: String, text: String, replyTo: String?) {
        self.post = post
        self.text = text
        self.replyTo = replyTo
    }

    /// Reads `addComment`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        post = try fields.string("post")
        text = try fields.string("text")
        replyTo = try fields.optionalString("replyTo")
    }

    /// Writes `addComment`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("post", post)
        fields.set("text", text)
        fields.set("replyTo", replyTo)
    }

    /// Decides `addComment` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.addComment(post, text: text, replyTo: replyTo, by: $0) }
    }
}

extension Command {
    /// Comments on a post; with `replyTo`, replies to one of its comments. `@username` in the
    /// text mentions that user.
    public static func addComment(post: String, text: String, replyTo: String? = nil) -> Command {
        Command(AddCommentCommand(post: post, text: text, replyTo: replyTo))
    }
}

// MARK: - JSON Schemas of the payloads

extension CommentAdded {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "Version 2 stores the personal fields sealed with the owner's key; in JSON they appear in clear, or are "
        + "absent once the owner is erased (the envelope then has \"erased\": true)."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "replyTo": "The comment it replies to, if any."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "text": JSONSchema.string.with("minLength", 1).with("maxLength", 2200)
    ]
}

// MARK: - JSON Schemas of the commands

extension AddCommentCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "replyTo": "The comment of the same post this one replies to."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "post": .identifier,
        "replyTo": .identifier
    ]
}
