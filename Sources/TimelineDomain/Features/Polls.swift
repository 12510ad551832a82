import Foundation
import JSONModel

// Polls on posts: `addPost` with a poll records `PollSet` right after the post's `PostAdded`
// (an event of its own, as `PostPlaced` is, so `PostAdded`'s encoding stays as it was and a
// poll is a fact that can change apart from the post); `editPost` with a different poll
// records `PollSet` again (the votes start over, as Mastodon resets them when an edit changes
// a poll's options), and without one `PollRemoved`; `vote` records `PollVoted`. A poll ends at
// its `expiresAt`: nothing is written then, every read judges it by the time (whether it is
// `expired`, whether its `poll` notification is due).

/// A poll's identifier (Mastodon's `Poll.id` numbers it in a space of its own).
public struct PollID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The limits a poll is held to: Mastodon's defaults, which `/api/v1/instance` and
/// `/api/v2/instance` state (`configuration.polls`).
public enum PollLimits {
    /// The most options a poll has (and at least `minOptions`).
    public static let maxOptions = 4
    /// The fewest options a poll has.
    public static let minOptions = 2
    /// The most characters an option has.
    public static let maxCharactersPerOption = 50
    /// The shortest a poll lasts, in seconds (5 minutes).
    public static let minExpiration = 300
    /// The longest a poll lasts, in seconds (a month, Mastodon's 2,629,746).
    public static let maxExpiration = 2_629_746
}

/// A poll as a command asks for it: its options, how long it lasts, whether one may choose
/// several options, and whether its totals are hidden until it ends.
public struct PollDraft: Equatable, Sendable {
    /// The options, in order (2–4, each 1–50 characters, all different).
    public var options: [String]
    /// How long it lasts from now, in seconds (5 minutes to a month).
    public var expiresIn: Int
    /// Whether a voter may choose more than one option.
    public var multiple: Bool
    /// Whether the counts stay hidden until it ends.
    public var hideTotals: Bool
    /// A poll draft.
    public init(options: [String], expiresIn: Int, multiple: Bool = false, hideTotals: Bool = false) {
        self.options = options
        self.expiresIn = expiresIn
        self.multiple = multiple
        self.hideTotals = hideTotals
    }
}

/// The payload of `PollSet`: a post's poll, set when the post is made or anew by an edit that
/// changes it (its votes then start over). The options are sealed with the author's key, as the
/// caption is.
public struct PollSet: Equatable, Sendable {
    /// The poll.
    public var pollId: PollID
    /// The post it is on.
    public var postId: PostID
    /// The post's author.
    public var authorId: UserID
    /// The options, in order (empty once the author is erased).
    public var options: [String]
    /// Whether a voter may choose several options.
    public var multiple: Bool
    /// Whether the counts stay hidden until it ends.
    public var hideTotals: Bool
    /// When it ends (ms since 1970).
    public var expiresAt: Int64
    /// A `PollSet` payload.
    public init(
        pollId: PollID, postId: PostID, authorId: UserID, options: [String], multiple: Bool, hideTotals: Bool,
        expiresAt: Int64
    ) {
        self.pollId = pollId
        self.postId = postId
        self.authorId = authorId
        self.options = options
        self.multiple = multiple
        self.hideTotals = hideTotals
        self.expiresAt = expiresAt
    }
}

extension PollSet: Codable {
    /// The JSON keys: the properties' names.
    enum CodingKeys: String, CodingKey {
        case pollId, postId, authorId, options, multiple, hideTotals, expiresAt
    }

    /// Reads the JSON form: options absent once the author is erased.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            pollId: try c.decode(PollID.self, forKey: .pollId), postId: try c.decode(PostID.self, forKey: .postId),
            authorId: try c.decode(UserID.self, forKey: .authorId),
            options: try c.decodeIfPresent([String].self, forKey: .options) ?? [],
            multiple: try c.decode(Bool.self, forKey: .multiple),
            hideTotals: try c.decode(Bool.self, forKey: .hideTotals),
            expiresAt: try c.decode(Int64.self, forKey: .expiresAt))
    }

    /// Writes the JSON form: the options only while they can be read.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pollId, forKey: .pollId)
        try c.encode(postId, forKey: .postId)
        try c.encode(authorId, forKey: .authorId)
        if !options.isEmpty { try c.encode(options, forKey: .options) }
        try c.encode(multiple, forKey: .multiple)
        try c.encode(hideTotals, forKey: .hideTotals)
        try c.encode(expiresAt, forKey: .expiresAt)
    }
}

extension PollSet: EventPayload {
    /// The aggregate: the post's stream (the poll is part of the post).
    package var stream: String { StreamName.post(postId) }
    /// Every user a `PollSet` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `PollSet` event is about: `postId`.
    package var post: PostID? { postId }

    /// Writes a `PollSet` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(pollId.rawValue)
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        try sealer.seal(authorId, into: &w) { $0.strings(options) }
        w.u8((multiple ? 1 : 0) | (hideTotals ? 2 : 0))
        w.int64(expiresAt)
    }

    /// Reads a stored `PollSet` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let poll = PollID(try r.string()), post = PostID(try r.string()), author = UserID(try r.string())
        let options = try opener.personal(author, from: &r) { try $0.strings() }
        let flags = try r.u8()
        self.init(
            pollId: poll, postId: post, authorId: author, options: options ?? [], multiple: flags & 1 != 0,
            hideTotals: flags & 2 != 0, expiresAt: try r.int64())
    }

    /// A one-line human summary of a `PollSet` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) set poll \(pollId) on \(postId) (\(options.count) options)"
    }
}

extension PollSet {
    /// The id of the `poll` notification its participants (the author and each voter) get when
    /// it ends: a push id of `expiresAt`'s millisecond (so it sorts with the activity items by
    /// time) ending with the poll id's last twelve characters. Decided from the event alone,
    /// so the notification needs nothing written when the poll ends.
    public var endItemID: String {
        PushIDGenerator.timePrefix(of: expiresAt) + String(pollId.rawValue.suffix(12))
    }
}

/// The payload of `PollRemoved`: an edit took a post's poll away (its votes go with it).
public struct PollRemoved: Equatable, Sendable, Codable {
    /// The poll.
    public var pollId: PollID
    /// The post it was on.
    public var postId: PostID
    /// The post's author.
    public var authorId: UserID
    /// A `PollRemoved` payload.
    public init(pollId: PollID, postId: PostID, authorId: UserID) {
        self.pollId = pollId
        self.postId = postId
        self.authorId = authorId
    }
}

extension PollRemoved: EventPayload {
    /// The aggregate: the post's stream.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `PollRemoved` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `PollRemoved` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `PollRemoved` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(pollId.rawValue)
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
    }
    /// Reads a stored `PollRemoved` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(pollId: PollID(try r.string()), postId: PostID(try r.string()), authorId: UserID(try r.string()))
    }
    /// A one-line human summary of a `PollRemoved` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) removed poll \(pollId) from \(postId)"
    }
}

/// The payload of `PollVoted`: a user voted in a poll (once: a vote is not taken back).
public struct PollVoted: Equatable, Sendable, Codable {
    /// The poll.
    public var pollId: PollID
    /// The post it is on.
    public var postId: PostID
    /// Who voted.
    public var userId: UserID
    /// The options chosen, by index (ascending, each once; one unless the poll is multiple).
    public var choices: [Int]
    /// A `PollVoted` payload.
    public init(pollId: PollID, postId: PostID, userId: UserID, choices: [Int]) {
        self.pollId = pollId
        self.postId = postId
        self.userId = userId
        self.choices = choices
    }
}

extension PollVoted: EventPayload {
    /// The aggregate: the post's stream (as a like is).
    package var stream: String { StreamName.post(postId) }
    /// Every user a `PollVoted` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// The post a `PollVoted` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `PollVoted` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(pollId.rawValue)
        w.string(postId.rawValue)
        w.string(userId.rawValue)
        w.varint(UInt64(choices.count))
        for choice in choices { w.int(choice) }
    }
    /// Reads a stored `PollVoted` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let poll = PollID(try r.string()), post = PostID(try r.string()), user = UserID(try r.string())
        let count = try r.varint()
        guard count <= UInt64(PollLimits.maxOptions) else { throw CorruptRecord(message: "too many poll choices") }
        var choices: [Int] = []
        for _ in 0..<count { choices.append(try r.int()) }
        self.init(pollId: poll, postId: post, userId: user, choices: choices)
    }
    /// A one-line human summary of a `PollVoted` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) voted \(choices.map(String.init).joined(separator: ",")) in poll \(pollId)"
    }
}

/// A poll as deciding reads it.
public struct PollRecord: Equatable, Sendable {
    /// The poll.
    public var id: PollID
    /// The post it is on.
    public var post: PostID
    /// The post's author.
    public var author: UserID
    /// The options, in order.
    public var options: [String]
    /// Whether a voter may choose several options.
    public var multiple: Bool
    /// Whether the counts stay hidden until it ends.
    public var hideTotals: Bool
    /// When it ends (ms since 1970).
    public var expiresAt: Int64
    /// A poll record.
    public init(
        id: PollID, post: PostID, author: UserID, options: [String], multiple: Bool, hideTotals: Bool,
        expiresAt: Int64
    ) {
        self.id = id
        self.post = post
        self.author = author
        self.options = options
        self.multiple = multiple
        self.hideTotals = hideTotals
        self.expiresAt = expiresAt
    }
}

extension Validation {
    /// A poll's draft, checked against `PollLimits` (Mastodon's `PollValidator`'s rules and
    /// words): 2–4 options, each 1–50 characters once trimmed, no two alike, lasting 5 minutes
    /// to a month.
    package static func poll(_ draft: PollDraft) throws -> PollDraft {
        let options = draft.options.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard options.count >= PollLimits.minOptions else {
            throw TimelineError.invalid("poll", "Validation failed: Poll must have at least 2 options")
        }
        guard options.count <= PollLimits.maxOptions else {
            throw TimelineError.invalid("poll", "Validation failed: Poll can't contain more than 4 items")
        }
        guard options.allSatisfy({ !$0.isEmpty && $0.count <= PollLimits.maxCharactersPerOption }) else {
            throw TimelineError.invalid(
                "poll", "Validation failed: Poll options must be 1 to 50 characters and not blank")
        }
        guard Set(options).count == options.count else {
            throw TimelineError.invalid("poll", "Validation failed: Poll contains duplicate items")
        }
        guard draft.expiresIn >= PollLimits.minExpiration else {
            throw TimelineError.invalid("poll", "Validation failed: Poll duration is too short")
        }
        guard draft.expiresIn <= PollLimits.maxExpiration else {
            throw TimelineError.invalid("poll", "Validation failed: Poll duration is too long")
        }
        return PollDraft(
            options: options, expiresIn: draft.expiresIn, multiple: draft.multiple, hideTotals: draft.hideTotals)
    }
}

extension Decider {
    /// The `PollSet` of a new poll on `post` by `me`, checked.
    func newPoll(_ draft: PollDraft, id: PollID, on post: PostID, by me: UserID) throws -> Event {
        let draft = try Validation.poll(draft)
        return .pollSet(
            PollSet(
                pollId: id, postId: post, authorId: me, options: draft.options, multiple: draft.multiple,
                hideTotals: draft.hideTotals, expiresAt: context.now + Int64(draft.expiresIn) * 1000))
    }

    /// What an edit asking for `wanted` (`.some(nil)`: no poll) does to `post`'s poll: nothing
    /// when it is the same (the same options, in order, and kind of choice: its votes, expiry
    /// and hidden totals stay, as Mastodon keeps a poll an edit resends), `PollSet` when it is
    /// another (under the same id: its votes start over, as Mastodon resets them), `PollRemoved`
    /// when the edit has none.
    func editedPoll(_ wanted: PollDraft?, on post: PostRecord) throws -> [Event] {
        let current = try state.poll(ofPost: post.id)
        guard let wanted else {
            guard let current else { return [] }
            return [.pollRemoved(PollRemoved(pollId: current.id, postId: post.id, authorId: post.author))]
        }
        let draft = try Validation.poll(wanted)
        if let current, current.options == draft.options, current.multiple == draft.multiple { return [] }
        return [try newPoll(draft, id: current?.id ?? PollID(context.newID()), on: post.id, by: post.author)]
    }

    /// `me` votes `raw` choices (option indexes) in poll `rawPoll`: once, before it ends, in a
    /// poll on a post `me` may see (else `not_found`, as for the post), not with someone `me`
    /// blocks or who blocks `me` (Mastodon's `PollPolicy#vote?`). The author may vote too.
    func vote(_ rawPoll: String, choices raw: [String], by me: UserRecord) throws -> Decision {
        let id: PollID = try Validation.identifier(rawPoll, field: "poll")
        guard let poll = try state.poll(id) else { throw TimelineError.notFound("poll", id.rawValue) }
        let post = try visiblePost(poll.post.rawValue, to: me)
        guard try !blockedEitherWay(me.id, post.author) else {
            throw TimelineError(.forbidden, "you cannot vote in this user's polls")
        }
        guard context.now < poll.expiresAt else {
            throw TimelineError.invalid("choices", "Validation failed: The poll has already ended")
        }
        guard try !state.voted(me.id, in: poll.id) else {
            throw TimelineError.invalid("choices", "Validation failed: You have already voted on this poll")
        }
        var choices: [Int] = []
        for text in raw {
            guard let choice = Int(text), choice >= 0, choice < poll.options.count else {
                throw TimelineError.invalid("choices", "Validation failed: The chosen vote option does not exist")
            }
            choices.append(choice)
        }
        choices = Array(Set(choices)).sorted()
        guard !choices.isEmpty else { throw TimelineError.invalid("choices", "Validation failed: choices is empty") }
        guard poll.multiple || choices.count == 1 else {
            throw TimelineError.invalid("choices", "Validation failed: This poll allows a single choice only")
        }
        return Decision(
            events: [.pollVoted(PollVoted(pollId: poll.id, postId: post.id, userId: me.id, choices: choices))],
            outcome: .success(.done))
    }
}

// MARK: - Commands

/// `vote`: the acting user votes in a poll, choosing options by their index (`choices`).
package struct VoteCommand: CommandDefinition {
    /// The command's public name, `vote`.
    package static let name = "vote"
    /// The `poll` field.
    package let poll: String
    /// The `choices` field: option indexes, as text.
    package let choices: [String]

    /// A `vote` command with these fields.
    package init(poll: String, choices: [String]) {
        self.poll = poll
        self.choices = choices
    }

    /// Reads `vote`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        poll = try fields.string("poll")
        // Absent is no choice at all, which deciding refuses.
        choices = try fields.optionalList("choices") ?? []
    }

    /// Writes `vote`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("poll", poll)
        fields.set("choices", strings: choices)
    }

    /// Decides `vote` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.vote(poll, choices: choices, by: $0) }
    }
}

extension Command {
    /// The acting user votes in `poll`, choosing options by index (`choices`, one unless the
    /// poll is multiple); once, before the poll ends.
    public static func vote(poll: String, choices: [Int]) -> Command {
        Command(VoteCommand(poll: poll, choices: choices.map(String.init)))
    }
}

/// Reads and writes a poll given with `addPost` or `editPost`: `pollOptions`, `pollExpiresIn`,
/// `pollMultiple`, `pollHideTotals`.
enum PollFields {
    /// The poll the fields ask for (`nil`: none given).
    static func read(_ fields: some CommandFields) throws(TimelineError) -> PollDraft? {
        // Every field is read first (the schema is recorded from what is read).
        let options = try fields.optionalList("pollOptions"), expiresIn = try fields.optionalInteger("pollExpiresIn")
        let multiple = try fields.optionalBool("pollMultiple"), hideTotals = try fields.optionalBool("pollHideTotals")
        guard let options else {
            if expiresIn != nil || multiple != nil || hideTotals != nil {
                throw .invalid("pollOptions", "pollExpiresIn, pollMultiple and pollHideTotals need pollOptions")
            }
            return nil
        }
        guard let expiresIn else {
            throw .invalid("pollExpiresIn", "pollExpiresIn is required with pollOptions")
        }
        return PollDraft(
            options: options, expiresIn: expiresIn, multiple: multiple ?? false, hideTotals: hideTotals ?? false)
    }

    /// Writes `poll`'s fields.
    static func write(_ poll: PollDraft?, to fields: inout CommandJSON) {
        guard let poll else { return }
        fields.set("pollOptions", strings: poll.options)
        fields.set("pollExpiresIn", json: .number(String(poll.expiresIn)))
        if poll.multiple { fields.set("pollMultiple", true) }
        if poll.hideTotals { fields.set("pollHideTotals", true) }
    }

    /// What the fields are.
    static let memberDescriptions: [String: String] = [
        "pollOptions": "A poll's options, in order: 2–4, each 1–50 characters, all different (recorded as PollSet).",
        "pollExpiresIn": "How long the poll lasts, in seconds: 300 (5 minutes) to 2629746 (a month). Required "
            + "with pollOptions.",
        "pollMultiple": "Whether a voter may choose several options (default false).",
        "pollHideTotals": "Whether the counts stay hidden until the poll ends (default false)."
    ]

    /// The fields narrower than what their accessors read.
    static let memberSchemas: [String: JSONSchema] = [
        "pollOptions": JSONSchema.array(of: JSONSchema.string.with("minLength", 1).with("maxLength", 50))
            .with("minItems", 2).with("maxItems", 4).with("uniqueItems", true),
        "pollExpiresIn": JSONSchema.integer.with("minimum", 300).with("maximum", 2_629_746)
    ]
}

// MARK: - JSON Schemas

extension PollSet {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A post's poll: set right after its PostAdded when the post is made with one, or anew (under the same "
        + "pollId) by an edit that changes its options or kind of choice, which starts its votes over. The "
        + "options are sealed with the author's key: in JSON they appear in clear, or are absent once the author "
        + "is erased. Nothing is written when the poll ends: reads judge it by expiresAt."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "options": "The options, in order (absent once the author is erased).",
        "multiple": "Whether a voter may choose several options.",
        "hideTotals": "Whether the counts stay hidden until the poll ends.",
        "expiresAt": "When the poll ends (ms since 1970)."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "options": JSONSchema.array(of: JSONSchema.string.with("minLength", 1).with("maxLength", 50))
            .with("minItems", 2).with("maxItems", 4)
    ]
}

extension PollRemoved {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "An edit without a poll took the post's poll away; its votes go with it."
}

extension PollVoted {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A user voted in a poll, once, before it ended; the author may vote too."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "choices": "The options chosen, by index, ascending, each once (one unless the poll is multiple)."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "choices": JSONSchema.array(of: JSONSchema.integer.with("minimum", 0).with("maximum", 3))
            .with("minItems", 1).with("maxItems", 4).with("uniqueItems", true)
    ]
}

extension VoteCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "poll": "The poll.",
        "choices": "The options chosen, by index as text (\"0\" is the first); one unless the poll is multiple."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "poll": .identifier,
        "choices": JSONSchema.array(of: JSONSchema.string.with("pattern", "^[0-3]$")).with("minItems", 1)
            .with("maxItems", 4)
    ]
}
