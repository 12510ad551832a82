import JSONModel

// Moderation: `reportPost` records `PostReported` (one report per reporter and post);
// operators' `removePost` records `PostRemoved` and `dismissReports` records
// `ReportsDismissed`.

/// The payload of `PostReported`. Version 2 seals the reason with the reporter's key;
/// version 3 adds the report's origin.
public struct PostReported: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// Who reported it.
    public var reporterId: UserID
    /// Why.
    public var reason: String
    /// A keyed hash of where the report came from (the HTTP client's address; absent for local
    /// tools and before version 3): reports from one address count once towards hiding a post.
    public var origin: String?
    /// A `PostReported` payload.
    public init(postId: PostID, reporterId: UserID, reason: String, origin: String? = nil) {
        self.postId = postId
        self.reporterId = reporterId
        self.reason = reason
        self.origin = origin
    }
}

extension PostReported: EventPayload {
    /// New `PostReported` events are written at version 3.
    package static var currentVersion: UInt8 { 3 }
    /// Version 1 of `PostReported` held its personal fields in clear (version 2 seals them).
    package static var legacyPlainV1: Bool { true }
    /// The aggregate `PostReported` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `PostReported` payload names: `reporterId`.
    package var users: [UserID] { [reporterId] }
    /// The post a `PostReported` event is about: `postId`.
    package var post: PostID? { postId }

    /// Writes a `PostReported` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(reporterId.rawValue)
        // The origin is the reporter's too: sealed with the reason, it goes with their erasure.
        try sealer.seal(reporterId, into: &w) {
            $0.string(reason)
            $0.optionalString(origin)
        }
    }

    /// Reads a stored `PostReported` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let post = PostID(try r.string()), reporter = UserID(try r.string()), version = opener.version
        let personal = try opener.personal(reporter, from: &r) { r in
            (reason: try r.string(), origin: version >= 3 ? try r.optionalString() : nil)
        }
        self.init(postId: post, reporterId: reporter, reason: personal?.reason ?? "", origin: personal?.origin)
    }

    /// The reason and origin are left out once the reporter is erased.
    package static var erasedMembers: [String] { ["reason", "origin"] }

    /// A one-line human summary of a `PostReported` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(reporterId)) reported \(postId): \(clip(reason))"
    }
}

/// The payload of `PostRemoved`: an operator took a post down. It leaves every list as a
/// deleted post does, and its author's activity says why.
public struct PostRemoved: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's author (whose activity gets the reason).
    public var authorId: UserID
    /// Why, as the operator wrote it (sealed with the author's key; "" once they are erased).
    public var reason: String
    /// A `PostRemoved` payload.
    public init(postId: PostID, authorId: UserID, reason: String) {
        self.postId = postId
        self.authorId = authorId
        self.reason = reason
    }
}

extension PostRemoved: EventPayload {
    /// The aggregate `PostRemoved` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `PostRemoved` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `PostRemoved` event is about: `postId`.
    package var post: PostID? { postId }

    /// Writes a `PostRemoved` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        // The operator's reason is about the author's post: sealed with their key.
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        try sealer.seal(authorId, into: &w) { $0.string(reason) }
    }

    /// Reads a stored `PostRemoved` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let post = PostID(try r.string()), author = UserID(try r.string())
        self.init(
            postId: post, authorId: author, reason: try opener.personal(author, from: &r) { try $0.string() } ?? "")
    }

    /// The reason is left out once the author is erased (it reads back as "").
    package static var erasedMembers: [String] { ["reason"] }

    /// A one-line human summary of a `PostRemoved` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the operator removed \(name(authorId))'s post \(postId): \(clip(reason))"
    }
}

/// The payload of `ReportsDismissed`: an operator found nothing wrong with a post. The reports
/// made before no longer count (the post leaves the queue and is shown again); their reporters
/// cannot report it again, other users can.
public struct ReportsDismissed: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// A `ReportsDismissed` payload.
    public init(postId: PostID) { self.postId = postId }
}

extension ReportsDismissed: EventPayload {
    /// The aggregate `ReportsDismissed` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// A `ReportsDismissed` payload names no user.
    package var users: [UserID] { [] }
    /// The post a `ReportsDismissed` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `ReportsDismissed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws { w.string(postId.rawValue) }
    /// Reads a stored `ReportsDismissed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(postId: PostID(try r.string()))
    }
    /// A one-line human summary of a `ReportsDismissed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the operator dismissed the reports against \(postId)"
    }
}

extension Decider {
    func reportPost(_ post: String, reason: String, by me: UserRecord) throws -> Decision {
        // Someone the author blocked cannot report them (a way to hit back): the post is out of
        // their sight (`visiblePost`); the one who blocks can still report the one blocked.
        let post = try visiblePost(post, to: me)
        let reason = try Validation.reason(reason)
        // One report per reporter and post: a repeat changes nothing.
        guard try !state.reported(me.id, post.id) else {
            return Decision(events: [], outcome: .success(.changed(false)))
        }
        let event = PostReported(postId: post.id, reporterId: me.id, reason: reason, origin: context.prepared.origin)
        return Decision(events: [.postReported(event)], outcome: .success(.changed(true)))
    }

    func removePost(_ post: String, reason: String, actor: Actor) throws -> Decision {
        let id: PostID = try Validation.identifier(post, field: "post")
        _ = try requireModerator(actor, "remove a post")
        let post = try existingPost(id.rawValue)
        let event = PostRemoved(postId: post.id, authorId: post.author, reason: try Validation.reason(reason))
        return Decision(events: [.postRemoved(event)], outcome: .success(.done))
    }

    func dismissReports(_ post: String, actor: Actor) throws -> Decision {
        let id: PostID = try Validation.identifier(post, field: "post")
        _ = try requireModerator(actor, "dismiss reports")
        let post = try existingPost(id.rawValue)
        // Nothing standing (never reported, or dismissed already): nothing to dismiss.
        let standing = try state.standingReports(post.id, upTo: 1) > 0
        return Decision(
            events: standing ? [.reportsDismissed(ReportsDismissed(postId: post.id))] : [],
            outcome: .success(.changed(standing)))
    }
}

// MARK: - Commands

/// `dismissReports`: dismisses the reports standing against a post (operators only): it leaves the report queue and is shown again; reports made before no longer count.
package struct DismissReportsCommand: OneFieldCommand {
    /// The command's public name, `dismissReports`, and its one field, `post`.
    package static let name = "dismissReports", field = "post"
    /// The `post` field, raw user input.
    package let value: String

    /// A `dismissReports` command naming `post` `value`.
    package init(value: String) { self.value = value }

    /// Decides `dismissReports` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.dismissReports(value, actor: actor)
    }
}

extension Command {
    /// Dismisses the reports standing against a post (operators only): it leaves the report queue and is shown again; reports made before no longer count.
    public static func dismissReports(post: String) -> Command { Command(DismissReportsCommand(value: post)) }
}

/// `reportPost`: reports a post to the operators, with a reason.
package struct ReportPostCommand: CommandDefinition {
    /// The command's public name, `reportPost`.
    package static let name = "reportPost"
    /// The `post` field.
    package let post: String
    /// The `reason` field.
    package let reason: String

    /// A `reportPost` command with these fields.
    package init(post: String, reason: String) {
        self.post = post
        self.reason = reason
    }

    /// Reads `reportPost`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        post = try fields.string("post")
        reason = try fields.string("reason")
    }

    /// Writes `reportPost`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("post", post)
        fields.set("reason", reason)
    }

    /// Decides `reportPost` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.reportPost(post, reason: reason, by: $0) }
    }
}

extension Command {
    /// Reports a post to the operators, with a reason.
    public static func reportPost(post: String, reason: String) -> Command {
        Command(ReportPostCommand(post: post, reason: reason))
    }
}

/// `removePost`: removes a post for breaking the rules, saying why (operators only): it leaves every list like a deleted post, and its author's activity shows the reason.
package struct RemovePostCommand: CommandDefinition {
    /// The command's public name, `removePost`.
    package static let name = "removePost"
    /// The `post` field.
    package let post: String
    /// The `reason` field.
    package let reason: String

    /// A `removePost` command with these fields.
    package init(post: String, reason: String) {
        self.post = post
        self.reason = reason
    }

    /// Reads `removePost`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        post = try fields.string("post")
        reason = try fields.string("reason")
    }

    /// Writes `removePost`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("post", post)
        fields.set("reason", reason)
    }

    /// Decides `removePost` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.removePost(post, reason: reason, actor: actor)
    }
}

extension Command {
    /// Removes a post for breaking the rules, saying why (operators only): it leaves every list like a deleted post, and its author's activity shows the reason.
    public static func removePost(post: String, reason: String) -> Command {
        Command(RemovePostCommand(post: post, reason: reason))
    }
}

// MARK: - JSON Schemas of the payloads

extension PostReported {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "Version 3 adds origin. As version 2, it stores the personal fields sealed with the owner's key; in JSON "
        + "they appear in clear, or are absent once the owner is erased (the envelope then has \"erased\": true)."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "origin": "A keyed hash of the address the report came from (absent for local tools): reports from one "
            + "address count once."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "reason": JSONSchema.string.with("minLength", 1).with("maxLength", 500)
    ]
}

extension PostRemoved {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "An operator removed a post (the envelope's actor is \"operator\"). The reason is sealed with the author's "
        + "key: in JSON it appears in clear, or is absent once the author is erased (the envelope then has "
        + "\"erased\": true)."
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "reason": JSONSchema.string.with("minLength", 1).with("maxLength", 500)
    ]
}

extension ReportsDismissed {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "An operator dismissed the reports standing against a post (the envelope's actor is \"operator\"): they no "
        + "longer count."
}

// MARK: - JSON Schemas of the commands

extension DismissReportsCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Operators only (`timeline moderation dismiss`, or the library as the operator): a user or session is "
        + "refused with forbidden. Dismisses the post's standing reports (ReportsDismissed); answers {changed}."
}

extension RemovePostCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Operators only (`timeline moderation remove`, or the library as the operator): a user or session is "
        + "refused with forbidden. Removes the post (PostRemoved); its author's activity shows the reason."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "post": .identifier,
        "reason": JSONSchema.string.with("minLength", 1).with("maxLength", 500)
    ]
}

extension ReportPostCommand {
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "post": .identifier
    ]
}
