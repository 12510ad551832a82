import JSONModel

// Bookmarks: `bookmark` records `Bookmarked`, `unbookmark` records `Unbookmarked` (both
// idempotent). Private to the user: recorded in their own stream, listed only to them.

/// Payload of `Bookmarked` and `Unbookmarked`.
public struct Bookmark: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// Whose bookmark it is.
    public var userId: UserID
    /// A `Bookmark` payload.
    public init(postId: PostID, userId: UserID) {
        self.postId = postId
        self.userId = userId
    }
}

extension Bookmark: EventPayload {
    /// The aggregate `Bookmark` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `Bookmark` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// The post a `Bookmark` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `Bookmark` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(userId.rawValue)
    }

    /// Reads a stored `Bookmark` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(postId: PostID(try r.string()), userId: UserID(try r.string()))
    }

    /// A one-line human summary of a `Bookmark` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        type == .bookmarked
            ? "\(name(userId)) bookmarked \(postId)" : "\(name(userId)) removed \(postId) from their bookmarks"
    }
}

extension Decider {
    func bookmark(_ post: String, by me: UserRecord) throws -> Decision {
        let post = try visiblePost(post, to: me)
        guard try !blockedEitherWay(me.id, post.author) else {
            throw TimelineError(.forbidden, "you cannot save this user's posts")
        }
        let saved = try state.bookmarks(me.id, post.id)
        return Decision(
            events: saved ? [] : [.bookmarked(Bookmark(postId: post.id, userId: me.id))],
            outcome: .success(.changed(!saved)))
    }

    /// A hidden post cannot be saved, but it can be taken out of the bookmarks.
    func unbookmark(_ post: String, by me: UserRecord) throws -> Decision {
        let post = try existingPost(post)
        let saved = try state.bookmarks(me.id, post.id)
        // Nothing to take back on a post out of sight: as unknown as a post that never was.
        if !saved, try isHidden(post, from: me) { throw TimelineError.notFound("post", post.id.rawValue) }
        return Decision(
            events: saved ? [.unbookmarked(Bookmark(postId: post.id, userId: me.id))] : [],
            outcome: .success(.changed(saved)))
    }
}

// MARK: - Commands

/// `bookmark`: saves a post to the acting user's bookmarks (idempotent).
package struct BookmarkCommand: OneFieldCommand {
    /// The command's public name, `bookmark`, and its one field, `post`.
    package static let name = "bookmark", field = "post"
    /// The `post` field, raw user input.
    package let value: String

    /// A `bookmark` command naming `post` `value`.
    package init(value: String) { self.value = value }

    /// Decides `bookmark` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.bookmark(value, by: $0) }
    }
}

extension Command {
    /// Saves a post to the acting user's bookmarks (idempotent).
    public static func bookmark(post: String) -> Command { Command(BookmarkCommand(value: post)) }
}

/// `unbookmark`: takes a post out of the acting user's bookmarks (idempotent).
package struct UnbookmarkCommand: OneFieldCommand {
    /// The command's public name, `unbookmark`, and its one field, `post`.
    package static let name = "unbookmark", field = "post"
    /// The `post` field, raw user input.
    package let value: String

    /// A `unbookmark` command naming `post` `value`.
    package init(value: String) { self.value = value }

    /// Decides `unbookmark` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unbookmark(value, by: $0) }
    }
}

extension Command {
    /// Takes a post out of the acting user's bookmarks (idempotent).
    public static func unbookmark(post: String) -> Command { Command(UnbookmarkCommand(value: post)) }
}
