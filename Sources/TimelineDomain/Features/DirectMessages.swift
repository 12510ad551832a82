import JSONModel

// Direct messages: a post whose `visibility` is `direct` (Mastodon's `direct`) is seen only by
// its author and the users it addresses — the users its caption `@mentions` when it is posted
// (`Validation.mentions(in:)`, as every mention is read), known, not its author, and with no
// block either way (as Mastodon's ProcessMentionsService drops a blocked account's mention; a
// user who blocks the author is not addressed either, since they would never see it). Who is
// addressed is decided once, when posted, and recorded in `PostAdded` (editing the caption
// changes nobody's access). A direct post may hold no photo (a message is usually text). It is
// never boosted (only public posts are) and never trends (only public posts count). The rule
// is `Privacy.mayShow(post:on:)`'s, once, on every surface.
//
// Conversations (Mastodon's `Conversation`) are a projection: the direct posts among one set of
// participants (author and addressees) are one conversation, named by its first message's id;
// each participant sees it in their list with its last message and whether it is unread.
// `markConversationRead` records `ConversationRead`, `removeConversation` records
// `ConversationRemoved` (it leaves only that user's list, until a new message comes in).
// Comments on a direct post are allowed to those who see it, and reach only them.

/// A conversation's identifier: the id of its first message (a direct post).
public struct ConversationID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The payload of `ConversationRead` and `ConversationRemoved`: a participant read a
/// conversation, or took it out of their list.
public struct ConversationMark: Equatable, Sendable, Codable {
    /// The participant.
    public var userId: UserID
    /// The conversation.
    public var conversationId: ConversationID
    /// A `ConversationMark` payload.
    public init(userId: UserID, conversationId: ConversationID) {
        self.userId = userId
        self.conversationId = conversationId
    }
}

extension ConversationMark: EventPayload {
    /// The aggregate: the participant's stream.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `ConversationMark` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `ConversationMark` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(conversationId.rawValue)
    }
    /// Reads a stored `ConversationMark` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), conversationId: ConversationID(try r.string()))
    }
    /// What each event type carrying the payload records.
    package static var eventDescriptions: [EventType: String] {
        [
            .conversationRead: "A participant read a conversation of direct messages (it is no longer unread).",
            .conversationRemoved: "A participant took a conversation out of their list (a new message brings it back)."
        ]
    }
    /// A one-line human summary of a `ConversationRead` or `ConversationRemoved` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        type == .conversationRead
            ? "\(name(userId)) read conversation \(conversationId)"
            : "\(name(userId)) removed conversation \(conversationId)"
    }
}

extension ConversationMark {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A participant's mark on a conversation of direct messages: read, or removed from their list. No personal field."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "userId": "The participant.",
        "conversationId": "The conversation: the id of its first message."
    ]
}

/// The participants of a direct post: its author and its addressees, sorted, each once (the
/// key of its conversation).
public func conversationParticipants(author: UserID, addressees: [UserID]) -> [UserID] {
    Array(Set([author] + addressees)).sorted()
}

extension Decider {
    /// Whom a direct post by `me` with `caption` addresses: the users it `@mentions` (as every
    /// mention is read), known, not `me`, with no block either way, each once, in order.
    func addressees(of caption: String?, by me: UserRecord) throws -> [UserID] {
        guard let caption else { return [] }
        return try addressable(Validation.mentions(in: caption).compactMap { try state.userID(username: $0) }, by: me)
    }

    /// Of `users`, whom `me` may address: not `me`, with no block either way, each once, in order.
    func addressable(_ users: [UserID], by me: UserRecord) throws -> [UserID] {
        var addressed: [UserID] = []
        for user in users where user != me.id && !addressed.contains(user) {
            guard try !state.blockedEitherWay(me.id, user) else { continue }
            addressed.append(user)
        }
        return addressed
    }

    /// Whom `me`'s direct answer to the direct post `raw` addresses: the post's author and
    /// addressees other than `me` and with no block either way (so it stays in the same
    /// conversation), then `mentioned` (whom its caption addresses), each once. A post `me` may
    /// not see is `not_found`; one not direct is `invalid`.
    func answerAddressees(_ raw: String, mentioned: [UserID], by me: UserRecord) throws -> [UserID] {
        let post = try visiblePost(raw, to: me)
        guard post.visibility == .direct else {
            throw TimelineError.invalid("inReplyTo", "only a direct message is answered in a conversation")
        }
        return try addressable([post.author] + post.addressees + mentioned, by: me)
    }

    /// The conversation `raw` in `me`'s list (`not_found` when it is not there).
    func ownConversation(_ raw: String, of me: UserRecord) throws -> ConversationID {
        let id: ConversationID = try Validation.identifier(raw, field: "conversation")
        guard try state.conversationListed(id, for: me.id) else {
            throw TimelineError.notFound("conversation", id.rawValue)
        }
        return id
    }
}

// MARK: - Commands

/// `markConversationRead`: the acting user read one of their conversations.
package struct MarkConversationReadCommand: OneFieldCommand {
    /// The command's public name, `markConversationRead`, and its one field, `conversation`.
    package static let name = "markConversationRead", field = "conversation"
    /// The `conversation` field, raw user input.
    package let value: String
    /// A `markConversationRead` command naming `conversation` `value`.
    package init(value: String) { self.value = value }
    /// Decides `markConversationRead` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { me in
            let id = try decider.ownConversation(value, of: me)
            let mark = ConversationMark(userId: me.id, conversationId: id)
            return Decision(events: [.conversationRead(mark)], outcome: .success(.done))
        }
    }
}

/// `removeConversation`: the acting user takes one of their conversations out of their list
/// (only theirs: the other participants keep it; a new message brings it back).
package struct RemoveConversationCommand: OneFieldCommand {
    /// The command's public name, `removeConversation`, and its one field, `conversation`.
    package static let name = "removeConversation", field = "conversation"
    /// The `conversation` field, raw user input.
    package let value: String
    /// A `removeConversation` command naming `conversation` `value`.
    package init(value: String) { self.value = value }
    /// Decides `removeConversation` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { me in
            let id = try decider.ownConversation(value, of: me)
            let mark = ConversationMark(userId: me.id, conversationId: id)
            return Decision(events: [.conversationRemoved(mark)], outcome: .success(.done))
        }
    }
}

extension Command {
    /// The acting user read one of their conversations (`not_found` when it is not in their list).
    public static func markConversationRead(conversation: String) -> Command {
        Command(MarkConversationReadCommand(value: conversation))
    }
    /// The acting user takes one of their conversations out of their list (`not_found` when it
    /// is not there).
    public static func removeConversation(conversation: String) -> Command {
        Command(RemoveConversationCommand(value: conversation))
    }
}

extension MarkConversationReadCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "conversation": "One of the acting user's conversations (the id of its first message)."
    ]
}

extension RemoveConversationCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "conversation": "One of the acting user's conversations (the id of its first message)."
    ]
}
