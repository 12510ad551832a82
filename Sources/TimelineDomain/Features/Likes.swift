import JSONModel

// Likes: `like` records `LikeAdded`, `unlike` records `LikeRemoved` (both idempotent).

/// Payload of `LikeAdded` and `LikeRemoved`.
public struct Like: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The user concerned.
    public var userId: UserID
    /// A `Like` payload.
    public init(postId: PostID, userId: UserID) {
        self.postId = postId
        self.userId = userId
    }
}

extension Like: EventPayload {
    /// The aggregate `Like` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `Like` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// The post a `Like` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `Like` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(userId.rawValue)
    }

    /// Reads a stored `Like` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(postId: PostID(try r.string()), userId: UserID(try r.string()))
    }

    /// A one-line human summary of a `Like` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) \(type == .likeAdded ? "liked" : "unliked") \(postId)"
    }
}

extension Decider {
    func like(_ post: String, by me: UserRecord) throws -> Decision {
        let post = try visiblePost(post, to: me)
        let liked = try state.likes(me.id, post.id)
        guard try !blockedEitherWay(me.id, post.author) else {
            throw TimelineError(.forbidden, "you cannot like this user's posts")
        }
        return Decision(
            events: liked ? [] : [.likeAdded(Like(postId: post.id, userId: me.id))], outcome: .success(.changed(!liked))
        )
    }

    /// A hidden post cannot be liked, but a like on it can be taken back.
    func unlike(_ post: String, by me: UserRecord) throws -> Decision {
        let post = try existingPost(post)
        let liked = try state.likes(me.id, post.id)
        // No like to take back on a post out of sight: as unknown as a post that never was.
        if !liked, try isHidden(post, from: me) { throw TimelineError.notFound("post", post.id.rawValue) }
        return Decision(
            events: liked ? [.likeRemoved(Like(postId: post.id, userId: me.id))] : [],
            outcome: .success(.changed(liked)))
    }
}

// MARK: - Commands

/// `like`: likes a post (idempotent).
package struct LikeCommand: OneFieldCommand {
    /// The command's public name, `like`, and its one field, `post`.
    package static let name = "like", field = "post"
    /// The `post` field, raw user input.
    package let value: String

    /// A `like` command naming `post` `value`.
    package init(value: String) { self.value = value }

    /// Decides `like` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.like(value, by: $0) }
    }
}

extension Command {
    /// Likes a post (idempotent).
    public static func like(post: String) -> Command { Command(LikeCommand(value: post)) }
}

/// `unlike`: takes a like back (idempotent).
package struct UnlikeCommand: OneFieldCommand {
    /// The command's public name, `unlike`, and its one field, `post`.
    package static let name = "unlike", field = "post"
    /// The `post` field, raw user input.
    package let value: String

    /// A `unlike` command naming `post` `value`.
    package init(value: String) { self.value = value }

    /// Decides `unlike` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unlike(value, by: $0) }
    }
}

extension Command {
    /// Takes a like back (idempotent).
    public static func unlike(post: String) -> Command { Command(UnlikeCommand(value: post)) }
}
