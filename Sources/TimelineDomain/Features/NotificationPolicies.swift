import JSONModel

// Notification filtering, as Mastodon 4.3 has it (docs.joinmastodon.org/methods/notifications,
// "v2 policy"): `setNotificationPolicy` records `NotificationPolicySet`, what the user's activity
// does with the notifications of accounts they do not follow, that do not follow them, that are
// new (younger than 30 days), of private mentions and of limited accounts: `accept` them, `filter`
// them (held as one notification request per account, out of the feed, the unread count, the
// live stream and push) or `drop` them. `acceptNotificationRequest` (`NotificationRequestAccepted`)
// lets one account's notifications through, those held and those to come;
// `dismissNotificationRequest` (`NotificationRequestDismissed`) discards those held. The activity
// projection applies the policy as each notification is recorded; `Privacy` keeps what it held
// out of every read.

/// What a notification policy does with one category of notifications (Mastodon's values).
public enum NotificationFilterAction: String, Sendable, Equatable, CaseIterable, Codable, SchemaEnumeration {
    /// Shown as any notification.
    case accept
    /// Held in a notification request of the sending account, out of the notifications.
    case filter
    /// Never recorded.
    case drop
}

/// A user's notification policy: what happens to a notification from an account in each
/// category. An account in several categories gets the strictest action of theirs.
public struct NotificationPolicy: Equatable, Sendable, Codable {
    /// Accounts the user does not follow.
    public var forNotFollowing: NotificationFilterAction
    /// Accounts that do not follow the user.
    public var forNotFollowers: NotificationFilterAction
    /// Accounts created less than 30 days before the notification.
    public var forNewAccounts: NotificationFilterAction
    /// Private mentions: the mentions of a direct message from someone the user does not follow.
    public var forPrivateMentions: NotificationFilterAction
    /// Accounts the moderators limited, when the user does not follow them (Timeline limits no
    /// account: none are).
    public var forLimitedAccounts: NotificationFilterAction

    /// A policy with these actions.
    public init(
        forNotFollowing: NotificationFilterAction, forNotFollowers: NotificationFilterAction,
        forNewAccounts: NotificationFilterAction, forPrivateMentions: NotificationFilterAction,
        forLimitedAccounts: NotificationFilterAction
    ) {
        self.forNotFollowing = forNotFollowing
        self.forNotFollowers = forNotFollowers
        self.forNewAccounts = forNewAccounts
        self.forPrivateMentions = forPrivateMentions
        self.forLimitedAccounts = forLimitedAccounts
    }

    /// Mastodon's policy for a user who never set one: everything accepted but private mentions
    /// (a direct message from someone not followed is held) and limited accounts (none here),
    /// filtered.
    public static let standard = NotificationPolicy(
        forNotFollowing: .accept, forNotFollowers: .accept, forNewAccounts: .accept, forPrivateMentions: .filter,
        forLimitedAccounts: .filter)

    /// How long an account is new, in ms (Mastodon's 30 days).
    public static let newAccountAge: Int64 = 30 * 24 * 3600 * 1000

    /// What the policy does with a notification whose sender is in these categories: the
    /// strictest action of those that apply (`drop` over `filter` over `accept`).
    package func action(notFollowing: Bool, notFollower: Bool, newAccount: Bool, privateMention: Bool = false)
        -> NotificationFilterAction
    {
        // A private mention (a direct message) is held only from someone the owner does not
        // follow, as Mastodon's `filtered_by_private_mentions_policy?` has it.
        let applying = [
            notFollowing ? forNotFollowing : nil, notFollower ? forNotFollowers : nil,
            newAccount ? forNewAccounts : nil, privateMention && notFollowing ? forPrivateMentions : nil
        ].compactMap { $0 }
        if applying.contains(.drop) { return .drop }
        return applying.contains(.filter) ? .filter : .accept
    }

    /// Whether some category would hold or drop a notification (otherwise nothing is checked).
    package var filtersAnything: Bool {
        [forNotFollowing, forNotFollowers, forNewAccounts, forPrivateMentions].contains { $0 != .accept }
    }

    /// The five actions in order (the stored form).
    var actions: [NotificationFilterAction] {
        [forNotFollowing, forNotFollowers, forNewAccounts, forPrivateMentions, forLimitedAccounts]
    }

    /// The policy of five actions in order.
    init?(actions: [NotificationFilterAction]) {
        guard actions.count == 5 else { return nil }
        self.init(
            forNotFollowing: actions[0], forNotFollowers: actions[1], forNewAccounts: actions[2],
            forPrivateMentions: actions[3], forLimitedAccounts: actions[4])
    }

    /// The stored form: one byte per action, in order.
    package var bytes: [UInt8] {
        actions.map { UInt8(NotificationFilterAction.allCases.firstIndex(of: $0) ?? 0) }
    }

    /// The policy stored as `bytes` (`nil`: damaged).
    package init?(bytes: [UInt8]) {
        let all = NotificationFilterAction.allCases
        guard bytes.count == 5, bytes.allSatisfy({ Int($0) < all.count }) else { return nil }
        self.init(actions: bytes.map { all[Int($0)] })
    }
}

/// The payload of `NotificationPolicySet`: a user set their notification policy.
public struct NotificationPolicySet: Equatable, Sendable, Codable {
    /// Whose policy.
    public var userId: UserID
    /// Accounts the user does not follow.
    public var forNotFollowing: NotificationFilterAction
    /// Accounts that do not follow the user.
    public var forNotFollowers: NotificationFilterAction
    /// Accounts younger than 30 days.
    public var forNewAccounts: NotificationFilterAction
    /// Private mentions.
    public var forPrivateMentions: NotificationFilterAction
    /// Limited accounts.
    public var forLimitedAccounts: NotificationFilterAction

    /// A `NotificationPolicySet` payload.
    public init(userId: UserID, policy: NotificationPolicy) {
        self.userId = userId
        forNotFollowing = policy.forNotFollowing
        forNotFollowers = policy.forNotFollowers
        forNewAccounts = policy.forNewAccounts
        forPrivateMentions = policy.forPrivateMentions
        forLimitedAccounts = policy.forLimitedAccounts
    }

    /// The policy it sets.
    public var policy: NotificationPolicy {
        NotificationPolicy(
            forNotFollowing: forNotFollowing, forNotFollowers: forNotFollowers, forNewAccounts: forNewAccounts,
            forPrivateMentions: forPrivateMentions, forLimitedAccounts: forLimitedAccounts)
    }
}

extension NotificationPolicySet: EventPayload {
    /// The aggregate: the user's stream.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `NotificationPolicySet` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `NotificationPolicySet` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        for byte in policy.bytes { w.u8(byte) }
    }
    /// Reads a stored `NotificationPolicySet` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let user = UserID(try r.string())
        var bytes: [UInt8] = []
        for _ in 0..<5 { bytes.append(try r.u8()) }
        guard let policy = NotificationPolicy(bytes: bytes) else {
            throw TimelineError(.internal, "a NotificationPolicySet with an unknown action")
        }
        self.init(userId: user, policy: policy)
    }
    /// A one-line human summary of a `NotificationPolicySet` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) set their notification policy: not following \(forNotFollowing.rawValue), "
            + "not followers \(forNotFollowers.rawValue), new accounts \(forNewAccounts.rawValue)"
    }
}

/// The payload of `NotificationRequestAccepted` and `NotificationRequestDismissed`: a user
/// answered the notification request of one account.
public struct NotificationRequestAnswer: Equatable, Sendable, Codable {
    /// Whose notifications.
    public var userId: UserID
    /// The account whose notifications were held.
    public var accountId: UserID
    /// A `NotificationRequestAnswer` payload.
    public init(userId: UserID, accountId: UserID) {
        self.userId = userId
        self.accountId = accountId
    }
}

extension NotificationRequestAnswer: EventPayload {
    /// The aggregate: the user's stream.
    package var stream: String { StreamName.user(userId) }
    /// Every user the payload names.
    package var users: [UserID] { [userId, accountId] }
    /// Writes the payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(accountId.rawValue)
    }
    /// Reads a stored payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), accountId: UserID(try r.string()))
    }
    /// What each event type carrying the payload records.
    package static var eventDescriptions: [EventType: String] {
        [
            .notificationRequestAccepted:
                "A user let one account's held notifications through, and those it sends from now on.",
            .notificationRequestDismissed: "A user discarded the notifications held from one account."
        ]
    }
    /// A one-line human summary of the event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        type == .notificationRequestAccepted
            ? "\(name(userId)) accepted the notifications of \(name(accountId))"
            : "\(name(userId)) dismissed the notifications of \(name(accountId))"
    }
}

extension Decider {
    /// Sets the actions given (the others stay); the same policy again changes and records nothing.
    func setNotificationPolicy(_ given: [String: String?], by me: UserRecord) throws -> Decision {
        var actions = try state.notificationPolicy(of: me.id).actions
        for (index, field) in SetNotificationPolicyCommand.fields.enumerated() {
            guard let raw = given[field] ?? nil else { continue }
            guard let action = NotificationFilterAction(rawValue: raw) else {
                throw TimelineError.invalid(field, "\(field) must be accept, filter or drop")
            }
            actions[index] = action
        }
        guard let policy = NotificationPolicy(actions: actions), try policy != state.notificationPolicy(of: me.id)
        else { return Decision(outcome: .success(.changed(false))) }
        let event = NotificationPolicySet(userId: me.id, policy: policy)
        return Decision(events: [.notificationPolicySet(event)], outcome: .success(.changed(true)))
    }

    /// Accepts or dismisses the notification request of `raw`'s account (`not_found` when none holds).
    func answerNotificationRequest(_ raw: String, accept: Bool, by me: UserRecord) throws -> Decision {
        let account: UserID = try Validation.identifier(raw, field: "user")
        guard try state.holdsNotificationRequest(of: me.id, from: account) else {
            throw TimelineError(.notFound, "there is no notification request from \(account)")
        }
        let answer = NotificationRequestAnswer(userId: me.id, accountId: account)
        return Decision(
            events: [accept ? .notificationRequestAccepted(answer) : .notificationRequestDismissed(answer)],
            outcome: .success(.done))
    }
}

// MARK: - Commands

/// `setNotificationPolicy`: what the acting user's activity does with notifications from
/// accounts in each category (the fields not given stay as they are).
package struct SetNotificationPolicyCommand: CommandDefinition {
    /// The command's public name, `setNotificationPolicy`.
    package static let name = "setNotificationPolicy"
    /// Its fields, in the policy's order.
    package static let fields = [
        "forNotFollowing", "forNotFollowers", "forNewAccounts", "forPrivateMentions", "forLimitedAccounts"
    ]
    /// The actions given, by field (`accept`, `filter` or `drop`, raw user input).
    package let actions: [String: String?]

    /// A `setNotificationPolicy` command with these actions.
    package init(actions: [String: String?]) { self.actions = actions }

    /// Reads `setNotificationPolicy`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        var actions: [String: String?] = [:]
        for field in Self.fields {
            if let value = try fields.optionalString(field) { actions[field] = value }
        }
        self.actions = actions
    }

    /// Writes `setNotificationPolicy`'s fields.
    package func encode(to fields: inout CommandJSON) {
        for field in Self.fields { fields.set(field, actions[field] ?? nil) }
    }

    /// Decides `setNotificationPolicy` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.setNotificationPolicy(actions, by: $0) }
    }
}

/// `acceptNotificationRequest`: lets one account's held notifications through, and those to come.
package struct AcceptNotificationRequestCommand: OneFieldCommand {
    /// The command's public name, `acceptNotificationRequest`, and its one field, `user`.
    package static let name = "acceptNotificationRequest", field = "user"
    /// The `user` field (the account whose notifications are held), raw user input.
    package let value: String
    /// An `acceptNotificationRequest` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `acceptNotificationRequest` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.answerNotificationRequest(value, accept: true, by: $0) }
    }
}

/// `dismissNotificationRequest`: discards one account's held notifications.
package struct DismissNotificationRequestCommand: OneFieldCommand {
    /// The command's public name, `dismissNotificationRequest`, and its one field, `user`.
    package static let name = "dismissNotificationRequest", field = "user"
    /// The `user` field (the account whose notifications are held), raw user input.
    package let value: String
    /// A `dismissNotificationRequest` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `dismissNotificationRequest` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.answerNotificationRequest(value, accept: false, by: $0) }
    }
}

extension Command {
    /// Sets what the acting user's activity does with notifications from accounts they do not
    /// follow, that do not follow them, that are new, of private mentions and of limited
    /// accounts: `accept`, `filter` (held as a notification request) or `drop`. Fields left
    /// `nil` stay as they are; `changed` false when nothing changes.
    public static func setNotificationPolicy(
        forNotFollowing: String? = nil, forNotFollowers: String? = nil, forNewAccounts: String? = nil,
        forPrivateMentions: String? = nil, forLimitedAccounts: String? = nil
    ) -> Command {
        let values = [forNotFollowing, forNotFollowers, forNewAccounts, forPrivateMentions, forLimitedAccounts]
        var actions: [String: String?] = [:]
        for (field, value) in zip(SetNotificationPolicyCommand.fields, values) where value != nil {
            actions[field] = value
        }
        return Command(SetNotificationPolicyCommand(actions: actions))
    }
    /// Lets the notifications held from `account` through, and those it sends from now on.
    public static func acceptNotificationRequest(account: String) -> Command {
        Command(AcceptNotificationRequestCommand(value: account))
    }
    /// Discards the notifications held from `account` (later ones are held again).
    public static func dismissNotificationRequest(account: String) -> Command {
        Command(DismissNotificationRequestCommand(value: account))
    }
}

// MARK: - JSON Schemas

extension NotificationPolicySet {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A user set their notification policy: accept, filter (held as a notification request) or drop the "
        + "notifications of accounts in each category."
}

extension NotificationRequestAnswer {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "A user answered the notification request of one account."
    /// What the members are.
    public static let memberDescriptions: [String: String] = ["accountId": "The account whose notifications were held."]
}

extension SetNotificationPolicyCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Sets the acting user's notification policy (NotificationPolicySet): accept, filter or drop per category; "
        + "fields not given stay. Answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = Dictionary(
        uniqueKeysWithValues: fields.map {
            ($0, JSONSchema.enumeration(NotificationFilterAction.allCases.map(\.rawValue)))
        })
}

extension AcceptNotificationRequestCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Lets the notifications held from the account through, and later ones (NotificationRequestAccepted)."
}

extension DismissNotificationRequestCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Discards the notifications held from the account (NotificationRequestDismissed)."
}
