import JSONModel

// Boosts (Mastodon's reblogs, Pixelfed's shares): `reblog` records `PostBoosted`, a status of
// its own with its own id that shows someone else's (or one's own) post to the booster's
// followers; `unreblog` records `BoostRemoved`. Boosting again answers the same boost and
// records nothing. Only a public post of an unlocked account may be boosted (a followers-only
// post, or any post of a private account, is `forbidden`). A boost goes with its post (deleted
// or removed), with `unreblog`, with a block between its booster and the post's author, and
// with its booster's erasure. A follower may hide a followee's boosts (`follow`'s `reblogs`
// false, Mastodon's `showing_reblogs`): `BoostsHidden` / `BoostsShown`, ended with the follow.

/// Who sees a boost, as Mastodon's `visibility` of a reblog takes it.
public enum BoostVisibility: String, Sendable, Equatable, CaseIterable, Codable, SchemaEnumeration {
    /// Everyone who may see the booster and the post.
    case `public`
    /// As public, but left out of public lists.
    case unlisted
    /// The booster's followers only.
    case `private`
}

/// Payload of `PostBoosted` and `BoostRemoved`.
public struct Boost: Equatable, Sendable {
    /// The boost's own id (creation order, in the same order as posts' ids).
    public var boostId: PostID
    /// The post boosted.
    public var postId: PostID
    /// The post's author.
    public var authorId: UserID
    /// Who boosted it.
    public var userId: UserID
    /// Who sees the boost.
    public var visibility: BoostVisibility
    /// A `Boost` payload.
    public init(boostId: PostID, postId: PostID, authorId: UserID, userId: UserID, visibility: BoostVisibility) {
        self.boostId = boostId
        self.postId = postId
        self.authorId = authorId
        self.userId = userId
        self.visibility = visibility
    }
}

extension Boost: EventPayload {
    /// The aggregate `Boost` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `Boost` payload names: `userId`, `authorId`.
    package var users: [UserID] { [userId, authorId] }
    /// The post a `Boost` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `Boost` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(boostId.rawValue)
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        w.string(userId.rawValue)
        w.string(visibility.rawValue)
    }

    /// Reads a stored `Boost` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let boost = PostID(try r.string()), post = PostID(try r.string())
        let author = UserID(try r.string()), user = UserID(try r.string())
        guard let visibility = BoostVisibility(rawValue: try r.string()) else {
            throw CorruptRecord(message: "unknown boost visibility")
        }
        self.init(boostId: boost, postId: post, authorId: author, userId: user, visibility: visibility)
    }

    /// A one-line human summary of a `Boost` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        type == .postBoosted
            ? "\(name(userId)) boosted \(postId) by \(name(authorId)) as \(boostId)"
            : "\(name(userId))'s boost \(boostId) of \(postId) went"
    }

    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .postBoosted: "A user (userId) boosted a public post (postId, by authorId): boostId is the boost's own "
            + "id, a status of its own that enters the booster's followers' home timelines.",
        .boostRemoved: "A boost (boostId) went: taken back by its booster, or ended by a block between the booster "
            + "and the post's author, or by the booster's erasure."
    ]

    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "boostId": "The boost's own id.", "postId": "The post boosted.", "authorId": "The post's author.",
        "userId": "Who boosted it.", "visibility": "Who sees the boost (Mastodon's public, unlisted or private)."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "boostId": .identifier, "postId": .identifier, "authorId": .identifier, "userId": .identifier
    ]
}

/// A boost as the decision state reads it.
package struct BoostRecord: Equatable, Sendable {
    /// The boost's own id.
    package var id: PostID
    /// The post boosted.
    package var post: PostID
    /// The post's author.
    package var author: UserID
    /// Who boosted it.
    package var booster: UserID
    /// Who sees it.
    package var visibility: BoostVisibility
    /// When it was made (ms since 1970).
    package var createdAt: Int64

    /// A boost record.
    package init(
        id: PostID, post: PostID, author: UserID, booster: UserID, visibility: BoostVisibility, createdAt: Int64
    ) {
        self.id = id
        self.post = post
        self.author = author
        self.booster = booster
        self.visibility = visibility
        self.createdAt = createdAt
    }

    /// The event payload that records or ends it.
    package var payload: Boost {
        Boost(boostId: id, postId: post, authorId: author, userId: booster, visibility: visibility)
    }
}

extension Decider {
    /// Boosts `post` (Mastodon's reblog): a new boost with its own id, or the one `me` made
    /// already (nothing recorded). A post `me` may not see is `not_found`; a followers-only post,
    /// a private account's post, or one of a user blocked either way, `forbidden`.
    func reblog(_ raw: String, visibility: String?, by me: UserRecord) throws -> Decision {
        let post = try visiblePost(raw, to: me)
        let chosen: BoostVisibility
        if let visibility {
            guard let parsed = BoostVisibility(rawValue: visibility) else {
                throw TimelineError.invalid("visibility", "a boost's visibility is public, unlisted or private")
            }
            chosen = parsed
        } else {
            chosen = .public
        }
        guard try !blockedEitherWay(me.id, post.author) else {
            throw TimelineError(.forbidden, "you cannot boost this user's posts")
        }
        guard post.visibility == .public else {
            throw TimelineError(.forbidden, "a post for followers only cannot be boosted")
        }
        guard try !state.isLocked(post.author) else {
            throw TimelineError(.forbidden, "a private account's posts cannot be boosted")
        }
        if let existing = try state.boost(by: me.id, of: post.id) {
            return Decision(events: [], outcome: .success(.created(existing.rawValue)))
        }
        let boost = Boost(
            boostId: PostID(context.newID()), postId: post.id, authorId: post.author, userId: me.id,
            visibility: chosen)
        return Decision(events: [.postBoosted(boost)], outcome: .success(.created(boost.boostId.rawValue)))
    }

    /// Takes `me`'s boost of `post` back (idempotent: `changed` false when there is none). A
    /// post out of `me`'s sight with no boost of theirs is `not_found`.
    func unreblog(_ raw: String, by me: UserRecord) throws -> Decision {
        let post = try existingPost(raw)
        guard let boost = try state.boost(by: me.id, of: post.id) else {
            if try isHidden(post, from: me) { throw TimelineError.notFound("post", post.id.rawValue) }
            return Decision(outcome: .success(.changed(false)))
        }
        let record = Boost(
            boostId: boost, postId: post.id, authorId: post.author, userId: me.id,
            visibility: try state.boostRecord(boost)?.visibility ?? .public)
        return Decision(events: [.boostRemoved(record)], outcome: .success(.changed(true)))
    }

    /// The boosts a block between `a` and `b` ends: each one's boosts of the other's posts.
    func endingBoosts(between a: UserID, _ b: UserID) throws -> [Event] {
        let ended = try state.boosts(by: a).filter { $0.author == b } + state.boosts(by: b).filter { $0.author == a }
        return ended.map { .boostRemoved($0.payload) }
    }

    /// The events that turn `me`'s view of `followee`'s boosts to `shown`, if it changes.
    func showingBoosts(_ shown: Bool?, of followee: UserID, by me: UserID) throws -> [Event] {
        guard let shown, try shown != state.showsBoosts(me, followee) else { return [] }
        let edge = Follow(followerId: me, followeeId: followee)
        return [shown ? .boostsShown(edge) : .boostsHidden(edge)]
    }
}

// MARK: - Commands

/// `reblog`: boosts a post (answers the boost's id; again, the same boost).
package struct ReblogCommand: CommandDefinition {
    /// The command's public name, `reblog`.
    package static let name = "reblog"
    /// The `post` field.
    package let post: String
    /// The `visibility` field: `public` (when absent), `unlisted` or `private`.
    package let visibility: String?

    /// A `reblog` command with these fields.
    package init(post: String, visibility: String?) {
        self.post = post
        self.visibility = visibility
    }

    /// Reads `reblog`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        post = try fields.string("post")
        visibility = try fields.optionalString("visibility")
    }

    /// Writes `reblog`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("post", post)
        fields.set("visibility", visibility)
    }

    /// Decides `reblog` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.reblog(post, visibility: visibility, by: $0) }
    }

    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "visibility": "Optional: who sees the boost, public (the default), unlisted or private (the booster's "
            + "followers)."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "post": .identifier, "visibility": .enumeration(BoostVisibility.allCases.map(\.rawValue))
    ]
}

extension Command {
    /// Boosts a post (again: the same boost, nothing recorded); `visibility` is `public`,
    /// `unlisted` or `private`.
    public static func reblog(post: String, visibility: String? = nil) -> Command {
        Command(ReblogCommand(post: post, visibility: visibility))
    }
}

/// `unreblog`: takes the acting user's boost of a post back (idempotent).
package struct UnreblogCommand: OneFieldCommand {
    /// The command's public name, `unreblog`, and its one field, `post`.
    package static let name = "unreblog", field = "post"
    /// The `post` field, raw user input.
    package let value: String

    /// An `unreblog` command naming `post` `value`.
    package init(value: String) { self.value = value }

    /// Decides `unreblog` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unreblog(value, by: $0) }
    }
}

extension Command {
    /// Takes the acting user's boost of a post back (idempotent).
    public static func unreblog(post: String) -> Command { Command(UnreblogCommand(value: post)) }
}
