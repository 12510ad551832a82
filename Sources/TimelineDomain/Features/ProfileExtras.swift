import JSONModel

// The smaller things a profile and a thread keep for their owner (#41, Mastodon's):
// - pinned posts: `pin` records `PostPinned`, `unpin` `PostUnpinned` (both idempotent); at most
//   `Pin.maxPins` of one's own posts, shown first on the profile; a deleted post leaves them.
// - muted conversations: `muteConversation` records `ConversationMuted`, `unmuteConversation`
//   `ConversationUnmuted`: no notification from that post's thread reaches the muter.
// - private notes on accounts: `setAccountNote` records `AccountNoteSet`, the note sealed with
//   its writer's key (erasure takes it), seen only by its writer.
// - endorsements (featured accounts): `endorse` records `AccountEndorsed`, `unendorse`
//   `AccountUnendorsed`; only a followed account can be endorsed, and the endorsement ends with
//   the follow.
// - removing a follower: `removeFromFollowers` records the follower's `Unfollowed`, as a block
//   does, so every read model changes exactly as for an unfollow.

/// Payload of `PostPinned` and `PostUnpinned`: a user's own post, shown first on their profile.
public struct Pin: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// Whose pin it is (the post's author).
    public var userId: UserID
    /// A `Pin` payload.
    public init(postId: PostID, userId: UserID) {
        self.postId = postId
        self.userId = userId
    }

    /// How many posts a user may pin at once (Mastodon's limit).
    public static let maxPins = 5
}

extension Pin: EventPayload {
    /// The aggregate `Pin` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `Pin` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// The post a `Pin` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `Pin` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(userId.rawValue)
    }

    /// Reads a stored `Pin` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(postId: PostID(try r.string()), userId: UserID(try r.string()))
    }

    /// A one-line human summary of a `Pin` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) \(type == .postPinned ? "pinned" : "unpinned") \(postId)"
    }

    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .postPinned: "A user (userId) pinned their own post (postId): it shows first on their profile.",
        .postUnpinned: "A user (userId) unpinned their post (postId). Deleting the post ends its pin without this "
            + "event."
    ]
}

/// Payload of `ConversationMuted` and `ConversationUnmuted`: the thread of a post, muted by a user.
public struct ConversationMute: Equatable, Sendable {
    /// The post whose thread is muted.
    public var postId: PostID
    /// Who muted it.
    public var userId: UserID
    /// A `ConversationMute` payload.
    public init(postId: PostID, userId: UserID) {
        self.postId = postId
        self.userId = userId
    }
}

extension ConversationMute: EventPayload {
    /// The aggregate `ConversationMute` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `ConversationMute` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// The post a `ConversationMute` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `ConversationMute` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(userId.rawValue)
    }

    /// Reads a stored `ConversationMute` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(postId: PostID(try r.string()), userId: UserID(try r.string()))
    }

    /// A one-line human summary of a `ConversationMute` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) \(type == .conversationMuted ? "muted" : "unmuted") the conversation of \(postId)"
    }

    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .conversationMuted: "A user (userId) muted the thread of a post (postId): no notification from it (likes, "
            + "comments, replies, mentions) reaches them, nor any push.",
        .conversationUnmuted: "A user (userId) unmuted the thread of a post (postId)."
    ]
}

/// Payload of `AccountNoteSet`: a user's private note on another account, seen only by them.
public struct AccountNote: Equatable, Sendable {
    /// Who wrote the note (whose key seals it).
    public var userId: UserID
    /// The account the note is about.
    public var targetId: UserID
    /// The note ("" clears it; "" too once its writer is erased).
    public var note: String
    /// An `AccountNote` payload.
    public init(userId: UserID, targetId: UserID, note: String) {
        self.userId = userId
        self.targetId = targetId
        self.note = note
    }

    /// The longest note, in characters (Mastodon's).
    public static let maxLength = 2000
}

extension AccountNote: EventPayload {
    /// The aggregate `AccountNoteSet` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `AccountNote` payload names: `userId`, `targetId`.
    package var users: [UserID] { [userId, targetId] }
    /// Writes an `AccountNote` payload at `currentVersion`: the note sealed with the writer's key.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(targetId.rawValue)
        try sealer.seal(userId, into: &w) { $0.string(note) }
    }

    /// Reads a stored `AccountNote` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let user = UserID(try r.string()), target = UserID(try r.string())
        let note = try opener.personal(user, from: &r) { try $0.string() } ?? ""
        self.init(userId: user, targetId: target, note: note)
    }

    /// A one-line human summary of an `AccountNoteSet` event (the note itself stays out of it).
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) \(note.isEmpty ? "cleared their note on" : "wrote a note on") \(name(targetId))"
    }

    /// The note goes once its writer is erased.
    package static var erasedMembers: [String] { ["note"] }

    /// What an `AccountNoteSet` records.
    public static let schemaDescription: String? =
        "A user (userId) set their private note on an account (targetId); an empty note clears it. Only its writer "
        + "ever reads it."
}

/// Payload of `AccountEndorsed`, `AccountUnendorsed` and `SuggestionDismissed`: what a user
/// chose about another account (to feature it on their profile, to stop, never to have it
/// suggested again).
public struct AccountChoice: Equatable, Sendable {
    /// Who chose.
    public var userId: UserID
    /// The account chosen about.
    public var targetId: UserID
    /// An `AccountChoice` payload.
    public init(userId: UserID, targetId: UserID) {
        self.userId = userId
        self.targetId = targetId
    }
}

extension AccountChoice: EventPayload {
    /// The aggregate `AccountChoice` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `AccountChoice` payload names: `userId`, `targetId`.
    package var users: [UserID] { [userId, targetId] }
    /// Writes an `AccountChoice` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(targetId.rawValue)
    }

    /// Reads a stored `AccountChoice` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), targetId: UserID(try r.string()))
    }

    /// A one-line human summary of an `AccountChoice` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        switch type {
        case .accountEndorsed: "\(name(userId)) endorsed \(name(targetId))"
        case .accountUnendorsed: "\(name(userId)) stopped endorsing \(name(targetId))"
        default: "\(name(userId)) asked not to be suggested \(name(targetId)) again"
        }
    }

    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .accountEndorsed: "A user (userId) featured an account they follow (targetId) on their profile.",
        .accountUnendorsed: "A user (userId) stopped featuring an account (targetId). Ending the follow ends the "
            + "endorsement without this event.",
        .suggestionDismissed: "A user (userId) asked never to be suggested an account (targetId) to follow again."
    ]
}

extension Decider {
    /// Pins `me`'s own post: a post of someone else, or a sixth pin, is `invalid_argument`
    /// (Mastodon's 422).
    func pin(_ raw: String, by me: UserRecord) throws -> Decision {
        let post = try visiblePost(raw, to: me)
        guard post.author == me.id else { throw TimelineError.invalid("post", "you can pin only your own posts") }
        if try state.pinned(me.id, post.id) { return Decision(outcome: .success(.changed(false))) }
        guard try state.pinCount(me.id) < Pin.maxPins else {
            throw TimelineError.invalid("post", "you can pin at most \(Pin.maxPins) posts")
        }
        return Decision(events: [.postPinned(Pin(postId: post.id, userId: me.id))], outcome: .success(.changed(true)))
    }

    /// Unpins `me`'s post (nothing when it is not pinned).
    func unpin(_ raw: String, by me: UserRecord) throws -> Decision {
        let post = try visiblePost(raw, to: me)
        let pinned = try state.pinned(me.id, post.id)
        return Decision(
            events: pinned ? [.postUnpinned(Pin(postId: post.id, userId: me.id))] : [],
            outcome: .success(.changed(pinned)))
    }

    /// Mutes the thread of a post `me` can see.
    func muteConversation(_ raw: String, by me: UserRecord) throws -> Decision {
        let post = try visiblePost(raw, to: me)
        let muted = try state.mutesConversation(me.id, post.id)
        return Decision(
            events: muted ? [] : [.conversationMuted(ConversationMute(postId: post.id, userId: me.id))],
            outcome: .success(.changed(!muted)))
    }

    /// Unmutes the thread of a post; as `unbookmark`, a post out of sight that is not muted is unknown.
    func unmuteConversation(_ raw: String, by me: UserRecord) throws -> Decision {
        let post = try existingPost(raw)
        let muted = try state.mutesConversation(me.id, post.id)
        if !muted, try isHidden(post, from: me) { throw TimelineError.notFound("post", post.id.rawValue) }
        return Decision(
            events: muted ? [.conversationUnmuted(ConversationMute(postId: post.id, userId: me.id))] : [],
            outcome: .success(.changed(muted)))
    }

    /// Sets `me`'s private note on `user` ("" clears it). One's own account may carry a note too,
    /// as Mastodon allows.
    func setAccountNote(_ user: String, note raw: String, by me: UserRecord) throws -> Decision {
        let target: UserID = try Validation.identifier(user, field: "user")
        guard try state.user(target) != nil else { throw TimelineError.notFound("user", target.rawValue) }
        let note = try Validation.text(raw, field: "note", max: AccountNote.maxLength, allowEmpty: true)
        guard try (state.accountNote(me.id, target) ?? "") != note else {
            return Decision(outcome: .success(.changed(false)))
        }
        return Decision(
            events: [.accountNoteSet(AccountNote(userId: me.id, targetId: target, note: note))],
            outcome: .success(.changed(true)))
    }

    /// Ends `user`'s follow of `me` (nothing when they do not follow `me`).
    func removeFromFollowers(_ user: String, by me: UserRecord) throws -> Decision {
        let follower = try otherUser(user, of: me, "remove")
        guard try state.follows(follower, me.id) else { return Decision(outcome: .success(.changed(false))) }
        return Decision(
            events: [.unfollowed(Follow(followerId: follower, followeeId: me.id))], outcome: .success(.changed(true)))
    }

    /// Features `user` on `me`'s profile: only an account `me` follows (Mastodon's rule).
    func endorse(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "endorse")
        guard try state.follows(me.id, target) else {
            throw TimelineError.invalid("user", "you can endorse only an account you follow")
        }
        if try state.endorses(me.id, target) { return Decision(outcome: .success(.changed(false))) }
        return Decision(
            events: [.accountEndorsed(AccountChoice(userId: me.id, targetId: target))],
            outcome: .success(.changed(true)))
    }

    /// Stops featuring `user` (nothing when not featured).
    func unendorse(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "endorse")
        let endorsed = try state.endorses(me.id, target)
        return Decision(
            events: endorsed ? [.accountUnendorsed(AccountChoice(userId: me.id, targetId: target))] : [],
            outcome: .success(.changed(endorsed)))
    }
}

// MARK: - Commands

/// `pin`: pins one of the acting user's own posts to their profile (idempotent; at most 5).
package struct PinCommand: OneFieldCommand {
    /// The command's public name, `pin`, and its one field, `post`.
    package static let name = "pin", field = "post"
    /// The `post` field, raw user input.
    package let value: String
    /// A `pin` command naming `post` `value`.
    package init(value: String) { self.value = value }
    /// Decides `pin` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.pin(value, by: $0) }
    }
}

/// `unpin`: takes a post off the acting user's pinned posts (idempotent).
package struct UnpinCommand: OneFieldCommand {
    /// The command's public name, `unpin`, and its one field, `post`.
    package static let name = "unpin", field = "post"
    /// The `post` field, raw user input.
    package let value: String
    /// An `unpin` command naming `post` `value`.
    package init(value: String) { self.value = value }
    /// Decides `unpin` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unpin(value, by: $0) }
    }
}

/// `muteConversation`: no notification from the post's thread reaches the acting user (idempotent).
package struct MuteConversationCommand: OneFieldCommand {
    /// The command's public name, `muteConversation`, and its one field, `post`.
    package static let name = "muteConversation", field = "post"
    /// The `post` field, raw user input.
    package let value: String
    /// A `muteConversation` command naming `post` `value`.
    package init(value: String) { self.value = value }
    /// Decides `muteConversation` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.muteConversation(value, by: $0) }
    }
}

/// `unmuteConversation`: the post's thread notifies the acting user again (idempotent).
package struct UnmuteConversationCommand: OneFieldCommand {
    /// The command's public name, `unmuteConversation`, and its one field, `post`.
    package static let name = "unmuteConversation", field = "post"
    /// The `post` field, raw user input.
    package let value: String
    /// An `unmuteConversation` command naming `post` `value`.
    package init(value: String) { self.value = value }
    /// Decides `unmuteConversation` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unmuteConversation(value, by: $0) }
    }
}

/// `setAccountNote`: the acting user's private note on `user` ("" clears it).
package struct SetAccountNoteCommand: CommandDefinition {
    /// The command's public name, `setAccountNote`.
    package static let name = "setAccountNote"
    /// The `user` field.
    package let user: String
    /// The `note` field.
    package let note: String
    /// A `setAccountNote` command with these fields.
    package init(user: String, note: String) {
        self.user = user
        self.note = note
    }
    /// Reads `setAccountNote`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        user = try fields.string("user")
        note = try fields.string("note")
    }
    /// Writes `setAccountNote`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("user", user)
        fields.set("note", note)
    }
    /// Decides `setAccountNote` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.setAccountNote(user, note: note, by: $0) }
    }
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "note": "The note, at most 2000 characters, seen only by its writer; \"\" clears it."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["user": .identifier]
}

/// `removeFromFollowers`: ends `user`'s follow of the acting user (idempotent).
package struct RemoveFromFollowersCommand: OneFieldCommand {
    /// The command's public name, `removeFromFollowers`, and its one field, `user`.
    package static let name = "removeFromFollowers", field = "user"
    /// The `user` field, raw user input.
    package let value: String
    /// A `removeFromFollowers` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `removeFromFollowers` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.removeFromFollowers(value, by: $0) }
    }
}

/// `endorse`: features an account the acting user follows on their profile (idempotent).
package struct EndorseCommand: OneFieldCommand {
    /// The command's public name, `endorse`, and its one field, `user`.
    package static let name = "endorse", field = "user"
    /// The `user` field, raw user input.
    package let value: String
    /// An `endorse` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `endorse` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.endorse(value, by: $0) }
    }
}

/// `unendorse`: stops featuring an account on the acting user's profile (idempotent).
package struct UnendorseCommand: OneFieldCommand {
    /// The command's public name, `unendorse`, and its one field, `user`.
    package static let name = "unendorse", field = "user"
    /// The `user` field, raw user input.
    package let value: String
    /// An `unendorse` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `unendorse` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unendorse(value, by: $0) }
    }
}

extension Command {
    /// Pins one of the acting user's own posts to their profile (idempotent; at most 5).
    public static func pin(post: String) -> Command { Command(PinCommand(value: post)) }
    /// Takes a post off the acting user's pinned posts (idempotent).
    public static func unpin(post: String) -> Command { Command(UnpinCommand(value: post)) }
    /// Mutes the thread of a post for the acting user (idempotent).
    public static func muteConversation(post: String) -> Command { Command(MuteConversationCommand(value: post)) }
    /// Unmutes the thread of a post for the acting user (idempotent).
    public static func unmuteConversation(post: String) -> Command { Command(UnmuteConversationCommand(value: post)) }
    /// Sets the acting user's private note on `user` ("" clears it).
    public static func setAccountNote(user: String, note: String) -> Command {
        Command(SetAccountNoteCommand(user: user, note: note))
    }
    /// Ends `user`'s follow of the acting user (idempotent).
    public static func removeFromFollowers(user: String) -> Command {
        Command(RemoveFromFollowersCommand(value: user))
    }
    /// Features an account the acting user follows on their profile (idempotent).
    public static func endorse(user: String) -> Command { Command(EndorseCommand(value: user)) }
    /// Stops featuring an account on the acting user's profile (idempotent).
    public static func unendorse(user: String) -> Command { Command(UnendorseCommand(value: user)) }
}
