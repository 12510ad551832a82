import JSONModel

// Trends: what people use and like most these days (hashtags, public posts), computed when read
// from the posts themselves (ReadView+Trends). The one thing recorded is a moderator's word:
// `hideTrend` records `TrendHidden` (the hashtag or post never shows in the trends again, however
// much it is used) and `showTrend` records `TrendShown` (it may trend again).

/// What may trend: a hashtag or a post.
public enum TrendKind: String, Sendable, Equatable, CaseIterable, Codable, SchemaEnumeration {
    /// A hashtag (its normalised name, without `#`).
    case tag
    /// A public post.
    case post
}

/// The payload of `TrendHidden` and `TrendShown`: a moderator's decision about a trend.
public struct TrendDecision: Equatable, Sendable {
    /// What is concerned.
    public var kind: TrendKind
    /// The hashtag's normalised name, or the post's id.
    public var subject: String
    /// The moderator who decided (`nil`: the operator).
    public var moderatorId: UserID?
    /// A decision about `subject`.
    public init(kind: TrendKind, subject: String, moderatorId: UserID?) {
        self.kind = kind
        self.subject = subject
        self.moderatorId = moderatorId
    }
}

extension TrendDecision: EventPayload {
    /// The aggregate: the instance's stream (trends are the whole server's).
    package var stream: String { StreamName.instance }
    /// The moderator, if one decided.
    package var users: [UserID] { moderatorId.map { [$0] } ?? [] }
    /// The post concerned, if it is one.
    package var post: PostID? { kind == .post ? PostID(subject) : nil }

    /// Writes a `TrendDecision` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(kind.rawValue)
        w.string(subject)
        w.optionalString(moderatorId?.rawValue)
    }

    /// Reads a stored `TrendDecision` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        guard let kind = TrendKind(rawValue: try r.string()) else { throw CorruptRecord(message: "unknown trend kind") }
        self.init(kind: kind, subject: try r.string(), moderatorId: try r.optionalString().map(UserID.init))
    }

    /// A one-line human summary of a `TrendHidden` or `TrendShown` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        let who = moderatorId.map(name) ?? "the operator"
        let what = kind == .tag ? "#\(subject)" : "post \(subject)"
        return
            "\(who) \(type == .trendHidden ? "hid" : "let") \(what) \(type == .trendHidden ? "from" : "back into") the trends"
    }
}

extension TrendDecision {
    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .trendHidden: "A moderator hid a hashtag or a post from the trends.",
        .trendShown: "A moderator let a hidden hashtag or post trend again."
    ]
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "subject": "The hashtag's normalised name (without #), or the post's id.",
        "moderatorId": "The moderator who decided; absent: the operator."
    ]
}

extension Decider {
    /// Hides (`hidden`) or shows again a hashtag or a post in the trends, as a moderator or the
    /// operator. A hashtag need not have been used yet; a post must exist. The same word again
    /// changes nothing.
    func decideTrend(_ kind: TrendKind, _ raw: String, hidden: Bool, actor: Actor) throws -> Decision {
        let moderator = try requireModerator(actor, hidden ? "hide a trend" : "show a trend")
        let subject: String
        switch kind {
        case .tag:
            subject = Validation.hashtag(raw.hasPrefix("#") ? String(raw.dropFirst()) : raw)
            guard !subject.isEmpty, subject.utf8.count <= Validation.maxHashtagBytes, !subject.utf8.contains(0) else {
                throw TimelineError.invalid("tag", "tag is not a hashtag")
            }
        case .post:
            let id: PostID = try Validation.identifier(raw, field: "post")
            guard try state.post(id) != nil else { throw TimelineError.notFound("post", id.rawValue) }
            subject = id.rawValue
        }
        guard try state.trendHidden(kind, subject) != hidden else {
            return Decision(outcome: .success(.changed(false)))
        }
        let decision = TrendDecision(kind: kind, subject: subject, moderatorId: moderator?.id)
        return Decision(
            events: [hidden ? .trendHidden(decision) : .trendShown(decision)], outcome: .success(.changed(true)))
    }
}

// MARK: - Commands

/// `hideTrend` (moderators): keeps a hashtag (`tag`) or a post (`post`) out of the trends.
package struct HideTrendCommand: TrendCommand {
    /// The command's public name, `hideTrend`.
    package static let name = "hideTrend"
    /// Hides.
    package static let hidden = true
    /// The `tag` and `post` fields (exactly one of them), raw user input.
    package let tag: String?, post: String?
    /// A `hideTrend` command.
    package init(tag: String?, post: String?) {
        self.tag = tag
        self.post = post
    }
}

/// `showTrend` (moderators): lets a hidden hashtag (`tag`) or post (`post`) trend again.
package struct ShowTrendCommand: TrendCommand {
    /// The command's public name, `showTrend`.
    package static let name = "showTrend"
    /// Shows.
    package static let hidden = false
    /// The `tag` and `post` fields (exactly one of them), raw user input.
    package let tag: String?, post: String?
    /// A `showTrend` command.
    package init(tag: String?, post: String?) {
        self.tag = tag
        self.post = post
    }
}

/// The two trend commands: exactly one of the fields `tag` and `post`.
package protocol TrendCommand: CommandDefinition {
    /// Whether the command hides (else shows).
    static var hidden: Bool { get }
    /// The hashtag, raw user input.
    var tag: String? { get }
    /// The post's id, raw user input.
    var post: String? { get }
    /// The command about `tag` or `post`.
    init(tag: String?, post: String?)
}

extension TrendCommand {
    /// Reads `tag` and `post`.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        self.init(tag: try fields.optionalString("tag"), post: try fields.optionalString("post"))
    }

    /// Writes `tag` or `post`.
    package func encode(to fields: inout CommandJSON) {
        if let tag { fields.set("tag", tag) }
        if let post { fields.set("post", post) }
    }

    /// Decides the command for `actor`: exactly one of `tag` and `post` names what it is about.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        switch (tag, post) {
        case (let tag?, nil): try decider.decideTrend(.tag, tag, hidden: Self.hidden, actor: actor)
        case (nil, let post?): try decider.decideTrend(.post, post, hidden: Self.hidden, actor: actor)
        default: throw TimelineError.invalid("tag", "name either a tag or a post")
        }
    }

    /// What the fields are.
    package static var memberDescriptions: [String: String] {
        ["tag": "A hashtag, with or without #.", "post": "A post's id."]
    }
    /// The post is an identifier.
    package static var memberSchemas: [String: JSONSchema] { ["post": .identifier] }
    /// Exactly one of `tag` and `post`.
    package static var schemaKeywords: [String: JSONValue] {
        ["oneOf": [["required": ["tag"]], ["required": ["post"]]]]
    }
}

extension Command {
    /// Keeps the hashtag `tag` out of the trends (moderators only).
    public static func hideTrend(tag: String) -> Command { Command(HideTrendCommand(tag: tag, post: nil)) }
    /// Keeps the post `post` out of the trends (moderators only).
    public static func hideTrend(post: String) -> Command { Command(HideTrendCommand(tag: nil, post: post)) }
    /// Lets the hashtag `tag` trend again (moderators only).
    public static func showTrend(tag: String) -> Command { Command(ShowTrendCommand(tag: tag, post: nil)) }
    /// Lets the post `post` trend again (moderators only).
    public static func showTrend(post: String) -> Command { Command(ShowTrendCommand(tag: nil, post: post)) }
}
