import JSONModel

// Account moderation: the operator grants and revokes the `moderator` role (`grantRole` /
// `revokeRole`, `timeline moderation grant|revoke`: `RoleGranted` / `RoleRevoked`); anyone
// reports an account, with or without some of its posts (`reportUser`: `UserReported`);
// moderators (and the operator) work the queue: they remove posts and dismiss reports as the
// operator does, dismiss an account's reports (`UserReportsDismissed`), and suspend and
// unsuspend accounts (`UserSuspended` / `UserUnsuspended`). A suspended user cannot sign in,
// their sessions end, and their profile and posts are gone for everyone else until unsuspended.

/// A role a user holds beside their account.
public enum Role: String, Sendable, Equatable, CaseIterable, Codable, SchemaEnumeration {
    /// Works the report queue: removes posts, dismisses reports, suspends accounts.
    case moderator
}

/// Payload of `RoleGranted` and `RoleRevoked`.
public struct RoleChange: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// The role.
    public var role: Role
    /// A `RoleGranted` / `RoleRevoked` payload.
    public init(userId: UserID, role: Role) {
        self.userId = userId
        self.role = role
    }
}

extension RoleChange: EventPayload {
    /// The aggregate `RoleChange` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `RoleChange` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `RoleChange` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(role.rawValue)
    }

    /// Reads a stored `RoleChange` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let user = UserID(try r.string()), raw = try r.string()
        guard let role = Role(rawValue: raw) else { throw CorruptRecord(message: "unknown role \(raw)") }
        self.init(userId: user, role: role)
    }

    /// A one-line human summary of a `RoleChange` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the operator \(type == .roleGranted ? "granted" : "revoked") \(role.rawValue) \(type == .roleGranted ? "to" : "from") \(name(userId))"
    }
}

/// Payload of `UserReported`: someone reported an account, perhaps naming some of its posts.
public struct UserReported: Equatable, Sendable {
    /// The account reported.
    public var userId: UserID
    /// Who reported it.
    public var reporterId: UserID
    /// Why (sealed with the reporter's key; "" once they are erased).
    public var reason: String
    /// The account's posts the report names (at most `UserReportPolicy.maxPosts`).
    public var posts: [PostID]
    /// A `UserReported` payload.
    public init(userId: UserID, reporterId: UserID, reason: String, posts: [PostID]) {
        self.userId = userId
        self.reporterId = reporterId
        self.reason = reason
        self.posts = posts
    }
}

extension UserReported: EventPayload {
    /// The aggregate `UserReported` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `UserReported` payload names: `userId`, `reporterId`.
    package var users: [UserID] { [userId, reporterId] }

    /// Writes an `UserReported` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(reporterId.rawValue)
        w.strings(posts.map(\.rawValue))
        try sealer.seal(reporterId, into: &w) { $0.string(reason) }
    }

    /// Reads a stored `UserReported` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let user = UserID(try r.string()), reporter = UserID(try r.string()), posts = try r.strings().map(PostID.init)
        let reason = try opener.personal(reporter, from: &r) { try $0.string() } ?? ""
        self.init(userId: user, reporterId: reporter, reason: reason, posts: posts)
    }

    /// The reason is left out once the reporter is erased (it reads back as "").
    package static var erasedMembers: [String] { ["reason"] }

    /// A one-line human summary of an `UserReported` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(reporterId)) reported \(name(userId))" + (posts.isEmpty ? "" : " (\(posts.count) posts)")
            + ": \(clip(reason))"
    }
}

/// Payload of `UserReportsDismissed`, `UserSuspended` and `UserUnsuspended`: a moderator's
/// decision about an account.
public struct AccountDecision: Equatable, Sendable {
    /// The account concerned.
    public var userId: UserID
    /// The moderator who decided (`nil`: the operator).
    public var moderatorId: UserID?
    /// A decision about `userId`.
    public init(userId: UserID, moderatorId: UserID?) {
        self.userId = userId
        self.moderatorId = moderatorId
    }
}

extension AccountDecision: EventPayload {
    /// The aggregate `AccountDecision` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `AccountDecision` payload names.
    package var users: [UserID] { [userId] + (moderatorId.map { [$0] } ?? []) }
    /// Writes an `AccountDecision` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.optionalString(moderatorId?.rawValue)
    }

    /// Reads a stored `AccountDecision` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), moderatorId: try r.optionalString().map(UserID.init))
    }

    /// A one-line human summary of an `AccountDecision` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        let who = moderatorId.map(name) ?? "the operator"
        let what =
            switch type {
            case .userSuspended: "suspended"
            case .userUnsuspended: "unsuspended"
            default: "dismissed the reports against"
            }
        return "\(who) \(what) \(name(userId))"
    }
}

/// Limits of account reports.
public enum UserReportPolicy {
    /// The most posts one report names.
    public static let maxPosts = 20
}

extension Decider {
    /// A moderator (a user holding the role) or the operator; `nil` for the operator.
    func requireModerator(_ actor: Actor, _ what: String) throws -> UserRecord? {
        if actor == .operator { return nil }
        let me = try resolve(actor)
        guard me.moderator else { throw TimelineError(.forbidden, "only a moderator can \(what)") }
        return me
    }

    func changeRole(_ raw: String, _ role: Role, granted: Bool, actor: Actor) throws -> Decision {
        try requireOperator(actor, granted ? "grant a role" : "revoke a role")
        let user: UserID = try Validation.identifier(raw, field: "user")
        guard let record = try state.user(user) else { throw TimelineError.notFound("user", user.rawValue) }
        guard record.moderator != granted else { return Decision(outcome: .success(.changed(false))) }
        let change = RoleChange(userId: user, role: role)
        return Decision(
            events: [granted ? .roleGranted(change) : .roleRevoked(change)], outcome: .success(.changed(true)))
    }

    func reportUser(_ raw: String, reason: String, posts: [String], by me: UserRecord) throws -> Decision {
        let target = try otherUser(raw, of: me, "report")
        guard try !state.blocks(target, me.id) else { throw TimelineError(.forbidden, "you cannot report this user") }
        let reason = try Validation.reason(reason)
        guard posts.count <= UserReportPolicy.maxPosts else {
            throw TimelineError.invalid("posts", "a report names at most \(UserReportPolicy.maxPosts) posts")
        }
        var named: [PostID] = []
        for raw in posts {
            let post = try visiblePost(raw, to: me)
            guard post.author == target else {
                throw TimelineError.invalid("posts", "post \(post.id) is not the reported user's")
            }
            if !named.contains(post.id) { named.append(post.id) }
        }
        // One standing report per reporter and account: a repeat changes nothing.
        guard try !state.userReported(me.id, target) else { return Decision(outcome: .success(.changed(false))) }
        let event = UserReported(userId: target, reporterId: me.id, reason: reason, posts: named)
        return Decision(events: [.userReported(event)], outcome: .success(.changed(true)))
    }

    /// Dismisses, suspends or unsuspends the account `raw` as a moderator or the operator.
    func decideAccount(_ raw: String, _ kind: AccountDecisionKind, actor: Actor) throws -> Decision {
        let moderator = try requireModerator(actor, kind.verb)
        let user: UserID = try Validation.identifier(raw, field: "user")
        guard let target = try state.user(user) else { throw TimelineError.notFound("user", user.rawValue) }
        guard user != moderator?.id else { throw TimelineError.invalid("user", "you cannot \(kind.verb) yourself") }
        // A moderator's account is the operator's to suspend.
        if kind == .suspend, target.moderator, moderator != nil {
            throw TimelineError(.forbidden, "only the operator can suspend a moderator")
        }
        let decision = AccountDecision(userId: user, moderatorId: moderator?.id)
        let event: Event?
        switch kind {
        case .dismiss: event = try state.userReportCount(user) > 0 ? .userReportsDismissed(decision) : nil
        case .suspend: event = target.suspended ? nil : .userSuspended(decision)
        case .unsuspend: event = target.suspended ? .userUnsuspended(decision) : nil
        }
        return Decision(events: event.map { [$0] } ?? [], outcome: .success(.changed(event != nil)))
    }
}

/// What a moderator decides about an account.
package enum AccountDecisionKind: Equatable, Sendable {
    /// Dismiss the reports standing against the account.
    case dismiss
    /// Suspend the account.
    case suspend
    /// Lift the account's suspension.
    case unsuspend

    var verb: String {
        switch self {
        case .dismiss: "dismiss reports against an account"
        case .suspend: "suspend an account"
        case .unsuspend: "unsuspend an account"
        }
    }
}

// MARK: - Commands

/// `grantRole` (operator): gives `user` the `moderator` role.
package struct GrantRoleCommand: OneFieldCommand {
    /// The command's public name, `grantRole`, and its one field, `user`.
    package static let name = "grantRole", field = "user"
    /// The `user` field, raw user input.
    package let value: String
    /// A `grantRole` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `grantRole` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.changeRole(value, .moderator, granted: true, actor: actor)
    }
}

/// `revokeRole` (operator): takes the `moderator` role from `user`.
package struct RevokeRoleCommand: OneFieldCommand {
    /// The command's public name, `revokeRole`, and its one field, `user`.
    package static let name = "revokeRole", field = "user"
    /// The `user` field, raw user input.
    package let value: String
    /// A `revokeRole` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `revokeRole` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.changeRole(value, .moderator, granted: false, actor: actor)
    }
}

/// `reportUser`: reports an account to the moderators, with a reason and perhaps some of its posts.
package struct ReportUserCommand: CommandDefinition {
    /// The command's public name, `reportUser`.
    package static let name = "reportUser"
    /// The `user` field.
    package let user: String
    /// The `reason` field.
    package let reason: String
    /// The `posts` field.
    package let posts: [String]

    /// A `reportUser` command with these fields.
    package init(user: String, reason: String, posts: [String]) {
        self.user = user
        self.reason = reason
        self.posts = posts
    }

    /// Reads `reportUser`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        user = try fields.string("user")
        reason = try fields.string("reason")
        posts = try fields.optionalList("posts") ?? []
    }

    /// Writes `reportUser`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("user", user)
        fields.set("reason", reason)
        if !posts.isEmpty { fields.set("posts", strings: posts) }
    }

    /// Decides `reportUser` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.reportUser(user, reason: reason, posts: posts, by: $0) }
    }
}

/// `dismissUserReports` (moderators): dismisses the reports standing against an account.
package struct DismissUserReportsCommand: OneFieldCommand {
    /// The command's public name, `dismissUserReports`, and its one field, `user`.
    package static let name = "dismissUserReports", field = "user"
    /// The `user` field, raw user input.
    package let value: String
    /// A `dismissUserReports` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `dismissUserReports` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.decideAccount(value, .dismiss, actor: actor)
    }
}

/// `suspendUser` (moderators): suspends an account: it cannot sign in, its sessions end, and
/// its profile and posts are gone for everyone else until unsuspended.
package struct SuspendUserCommand: OneFieldCommand {
    /// The command's public name, `suspendUser`, and its one field, `user`.
    package static let name = "suspendUser", field = "user"
    /// The `user` field, raw user input.
    package let value: String
    /// A `suspendUser` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `suspendUser` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.decideAccount(value, .suspend, actor: actor)
    }
}

/// `unsuspendUser` (moderators): lifts a suspension.
package struct UnsuspendUserCommand: OneFieldCommand {
    /// The command's public name, `unsuspendUser`, and its one field, `user`.
    package static let name = "unsuspendUser", field = "user"
    /// The `user` field, raw user input.
    package let value: String
    /// A `unsuspendUser` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `unsuspendUser` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.decideAccount(value, .unsuspend, actor: actor)
    }
}

extension Command {
    /// Gives `user` the `moderator` role (operator only).
    public static func grantRole(user: String) -> Command { Command(GrantRoleCommand(value: user)) }
    /// Takes the `moderator` role from `user` (operator only).
    public static func revokeRole(user: String) -> Command { Command(RevokeRoleCommand(value: user)) }
    /// Reports an account to the moderators, with a reason and perhaps some of its posts (at most 20).
    public static func reportUser(user: String, reason: String, posts: [String] = []) -> Command {
        Command(ReportUserCommand(user: user, reason: reason, posts: posts))
    }
    /// Dismisses the reports standing against an account (moderators only).
    public static func dismissUserReports(user: String) -> Command { Command(DismissUserReportsCommand(value: user)) }
    /// Suspends an account (moderators only): it cannot sign in, its sessions end, and its
    /// profile and posts are gone for everyone else until unsuspended.
    public static func suspendUser(user: String) -> Command { Command(SuspendUserCommand(value: user)) }
    /// Lifts a suspension (moderators only).
    public static func unsuspendUser(user: String) -> Command { Command(UnsuspendUserCommand(value: user)) }
}

// MARK: - JSON Schemas of the payloads

extension RoleChange {
    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .roleGranted: "The operator granted a role.",
        .roleRevoked: "The operator revoked a role."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "role": JSONSchema.enumeration(["moderator"])
    ]
}

extension UserReported {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "Someone reported an account, perhaps naming some of its posts."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "reason": "Sealed with the reporter's key; absent once they are erased."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "posts": JSONSchema.array(of: .identifier).with("maxItems", 20)
    ]
}

extension AccountDecision {
    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .userReportsDismissed: "A moderator dismissed the reports standing against an account.",
        .userSuspended: "A moderator suspended an account: it cannot sign in, its sessions end, its profile and "
            + "posts are gone for everyone else.",
        .userUnsuspended: "A moderator lifted a suspension."
    ]
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "moderatorId": "The moderator who decided; absent: the operator."
    ]
}

// MARK: - JSON Schemas of the commands

extension DismissUserReportsCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "user": "The account whose standing reports are dismissed (moderators only)."
    ]
}

extension GrantRoleCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "user": "Who gets the moderator role (the operator only)."
    ]
}

extension ReportUserCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "user": "The account reported.",
        "posts": "Some of the account's posts the report is about (at most 20)."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "user": .identifier,
        "reason": JSONSchema.string.with("minLength", 1),
        "posts": JSONSchema.array(of: .identifier).with("maxItems", 20)
    ]
}

extension RevokeRoleCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "user": "Who loses the moderator role (the operator only)."
    ]
}

extension SuspendUserCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "user": "The account suspended (moderators only)."
    ]
}

extension UnsuspendUserCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "user": "The account unsuspended (moderators only)."
    ]
}
