import JSONModel

// Lists (Mastodon's): a user groups accounts they follow under a title and reads their posts
// as a timeline of its own. `createList` records `ListCreated`, `updateList` `ListUpdated`,
// `deleteList` `ListDeleted`; `addToList` and `removeFromList` record `ListAccountAdded` and
// `ListAccountRemoved`, one per account. Only followed accounts may be added (as Mastodon
// requires); an `Unfollowed` (which a block records first) takes the account out of every list
// of its follower, in the lists projection, as Mastodon does.

/// A list's identifier (`createList`).
public struct ListID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Which replies a list shows (Mastodon's `replies_policy`). Timeline's timelines hold posts,
/// never replies (comments stay under their post), so it is kept and answered as Mastodon's.
public enum ListRepliesPolicy: String, Sendable, Codable, CaseIterable, Equatable, SchemaEnumeration {
    /// Replies to any followed user.
    case followed
    /// Replies to members of the list.
    case list
    /// No replies.
    case none

    /// The byte it is stored as.
    package var code: UInt8 {
        switch self {
        case .followed: 0
        case .list: 1
        case .none: 2
        }
    }

    /// The policy stored as `code`.
    package init(code: UInt8) throws {
        switch code {
        case 0: self = .followed
        case 1: self = .list
        case 2: self = .none
        default: throw CorruptRecord(message: "unknown replies policy \(code)")
        }
    }
}

/// The payload of `ListCreated` and `ListUpdated`: a list's settings as they are from then on.
public struct ListSettings: Equatable, Sendable, Codable {
    /// The list's identifier.
    public var listId: ListID
    /// Whose list it is.
    public var ownerId: UserID
    /// Its title.
    public var title: String
    /// Which replies it shows.
    public var repliesPolicy: ListRepliesPolicy
    /// Whether its members' posts leave its owner's home timeline.
    public var exclusive: Bool
    /// A `ListSettings` payload.
    public init(listId: ListID, ownerId: UserID, title: String, repliesPolicy: ListRepliesPolicy, exclusive: Bool) {
        self.listId = listId
        self.ownerId = ownerId
        self.title = title
        self.repliesPolicy = repliesPolicy
        self.exclusive = exclusive
    }
}

extension ListSettings: EventPayload {
    /// The aggregate: the list's stream.
    package var stream: String { StreamName.list(listId) }
    /// Every user a `ListSettings` payload names: `ownerId`.
    package var users: [UserID] { [ownerId] }

    /// Writes a `ListSettings` payload at `currentVersion` (the title sealed with the owner's key).
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(listId.rawValue)
        w.string(ownerId.rawValue)
        try sealer.seal(ownerId, into: &w) { $0.string(title) }
        w.u8(repliesPolicy.code | (exclusive ? 0x80 : 0))
    }

    /// Reads a stored `ListSettings` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let list = ListID(try r.string()), owner = UserID(try r.string())
        let title = try opener.personal(owner, from: &r) { try $0.string() } ?? ""
        let flags = try r.u8()
        self.init(
            listId: list, ownerId: owner, title: title, repliesPolicy: try ListRepliesPolicy(code: flags & 0x7F),
            exclusive: flags & 0x80 != 0)
    }

    /// The title is left out once the owner is erased (it reads back as "").
    package static var erasedMembers: [String] { ["title"] }

    /// What each event type carrying the payload records.
    package static var eventDescriptions: [EventType: String] {
        [
            .listCreated: "A user made a list (its settings as given).",
            .listUpdated: "A user changed a list's title, replies policy or exclusiveness (its settings from now on)."
        ]
    }

    /// A one-line human summary of a `ListCreated` or `ListUpdated` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(ownerId)) \(type == .listCreated ? "made" : "changed") list \(listId): \(clip(title))"
            + (exclusive ? " (exclusive)" : "")
    }
}

/// The payload of `ListDeleted`: a user deleted one of their lists (its members go with it).
public struct ListDeleted: Equatable, Sendable, Codable {
    /// The list's identifier.
    public var listId: ListID
    /// Whose list it was.
    public var ownerId: UserID
    /// A `ListDeleted` payload.
    public init(listId: ListID, ownerId: UserID) {
        self.listId = listId
        self.ownerId = ownerId
    }
}

extension ListDeleted: EventPayload {
    /// The aggregate: the list's stream.
    package var stream: String { StreamName.list(listId) }
    /// Every user a `ListDeleted` payload names: `ownerId`.
    package var users: [UserID] { [ownerId] }
    /// Writes a `ListDeleted` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(listId.rawValue)
        w.string(ownerId.rawValue)
    }
    /// Reads a stored `ListDeleted` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(listId: ListID(try r.string()), ownerId: UserID(try r.string()))
    }
    /// A one-line human summary of a `ListDeleted` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(ownerId)) deleted list \(listId)"
    }
}

/// The payload of `ListAccountAdded` and `ListAccountRemoved`: an account put in a list, or
/// taken out of it, by the list's owner.
public struct ListMember: Equatable, Sendable, Codable {
    /// The list's identifier.
    public var listId: ListID
    /// Whose list it is.
    public var ownerId: UserID
    /// The account put in or taken out.
    public var accountId: UserID
    /// A `ListMember` payload.
    public init(listId: ListID, ownerId: UserID, accountId: UserID) {
        self.listId = listId
        self.ownerId = ownerId
        self.accountId = accountId
    }
}

extension ListMember: EventPayload {
    /// The aggregate: the list's stream.
    package var stream: String { StreamName.list(listId) }
    /// Every user a `ListMember` payload names: `ownerId`, `accountId`.
    package var users: [UserID] { [ownerId, accountId] }
    /// Writes a `ListMember` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(listId.rawValue)
        w.string(ownerId.rawValue)
        w.string(accountId.rawValue)
    }
    /// Reads a stored `ListMember` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(listId: ListID(try r.string()), ownerId: UserID(try r.string()), accountId: UserID(try r.string()))
    }
    /// What each event type carrying the payload records.
    package static var eventDescriptions: [EventType: String] {
        [
            .listAccountAdded: "A user put an account they follow in one of their lists.",
            .listAccountRemoved: "A user took an account out of one of their lists."
        ]
    }
    /// A one-line human summary of a `ListAccountAdded` or `ListAccountRemoved` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        type == .listAccountAdded
            ? "\(name(ownerId)) put \(name(accountId)) in list \(listId)"
            : "\(name(ownerId)) took \(name(accountId)) out of list \(listId)"
    }
}

extension StreamName {
    /// A list's stream: its making, changes, members and deletion.
    package static func list(_ id: ListID) -> String { "list-\(id)" }
}

/// A list as the read models keep it.
public struct ListRecord: Equatable, Sendable {
    /// The list's identifier.
    public var id: ListID
    /// Whose list it is.
    public var owner: UserID
    /// Its title.
    public var title: String
    /// Which replies it shows.
    public var repliesPolicy: ListRepliesPolicy
    /// Whether its members' posts leave its owner's home timeline.
    public var exclusive: Bool
    /// A list record.
    public init(id: ListID, owner: UserID, title: String, repliesPolicy: ListRepliesPolicy, exclusive: Bool) {
        self.id = id
        self.owner = owner
        self.title = title
        self.repliesPolicy = repliesPolicy
        self.exclusive = exclusive
    }

    /// The record `settings` describe.
    public init(_ settings: ListSettings) {
        self.init(
            id: settings.listId, owner: settings.ownerId, title: settings.title,
            repliesPolicy: settings.repliesPolicy, exclusive: settings.exclusive)
    }
}

extension Validation {
    /// The longest list title, in characters.
    public static let maxListTitle = 255
    /// How many lists one user may have (Mastodon's `List::PER_ACCOUNT_LIMIT`).
    public static let maxListsPerUser = 50
    /// How many accounts one `addToList` or `removeFromList` names at most.
    public static let maxListAccountsPerCommand = 500

    /// A replies policy's name (`followed`, `list` or `none`).
    public static func repliesPolicy(_ raw: String) throws(TimelineError) -> ListRepliesPolicy {
        guard let policy = ListRepliesPolicy(rawValue: raw) else {
            throw .invalid("repliesPolicy", "repliesPolicy must be followed, list or none")
        }
        return policy
    }
}

extension Decider {
    /// The list `raw` names, if it is `me`'s (another's list is `not_found`, as Mastodon answers).
    private func ownList(_ raw: String, of me: UserRecord) throws -> ListRecord {
        let id: ListID = try Validation.identifier(raw, field: "list")
        guard let record = try state.list(id), record.owner == me.id else {
            throw TimelineError.notFound("list", id.rawValue)
        }
        return record
    }

    private func listTitle(_ raw: String) throws -> String {
        let title = try Validation.text(raw, field: "title", max: Validation.maxListTitle, allowEmpty: false)
        guard !title.contains("\n") else { throw TimelineError.invalid("title", "title must be one line") }
        return title
    }

    func createList(_ title: String, repliesPolicy: String?, exclusive: Bool?, by me: UserRecord) throws -> Decision {
        let title = try listTitle(title)
        let policy = try repliesPolicy.map { v throws(TimelineError) in try Validation.repliesPolicy(v) } ?? .list
        guard try state.lists(of: me.id).count < Validation.maxListsPerUser else {
            throw TimelineError.invalid("title", "a user may have at most \(Validation.maxListsPerUser) lists")
        }
        let event = ListSettings(
            listId: ListID(context.newID()), ownerId: me.id, title: title, repliesPolicy: policy,
            exclusive: exclusive ?? false)
        return Decision(events: [.listCreated(event)], outcome: .success(.created(event.listId.rawValue)))
    }

    func updateList(
        _ raw: String, title: String?, repliesPolicy: String?, exclusive: Bool?, by me: UserRecord
    ) throws -> Decision {
        let record = try ownList(raw, of: me)
        let event = ListSettings(
            listId: record.id, ownerId: me.id, title: try title.map(listTitle) ?? record.title,
            repliesPolicy: try repliesPolicy.map { v throws(TimelineError) in try Validation.repliesPolicy(v) }
                ?? record.repliesPolicy,
            exclusive: exclusive ?? record.exclusive)
        guard ListRecord(event) != record else { return Decision(events: [], outcome: .success(.changed(false))) }
        return Decision(events: [.listUpdated(event)], outcome: .success(.changed(true)))
    }

    func deleteList(_ raw: String, by me: UserRecord) throws -> Decision {
        let record = try ownList(raw, of: me)
        return Decision(
            events: [.listDeleted(ListDeleted(listId: record.id, ownerId: me.id))], outcome: .success(.done))
    }

    /// The accounts `raw` names, each once, in the order given: valid, existing ids.
    private func listAccounts(_ raw: [String]) throws -> [UserID] {
        guard !raw.isEmpty else { throw TimelineError.invalid("users", "users must name at least one account") }
        guard raw.count <= Validation.maxListAccountsPerCommand else {
            throw TimelineError.invalid(
                "users", "users names at most \(Validation.maxListAccountsPerCommand) accounts at once")
        }
        var seen = Set<UserID>(), out: [UserID] = []
        for text in raw {
            let id: UserID = try Validation.identifier(text, field: "users")
            guard try state.user(id) != nil else { throw TimelineError.notFound("user", id.rawValue) }
            if seen.insert(id).inserted { out.append(id) }
        }
        return out
    }

    /// Puts `users` in the list: each must be followed by `me` (as Mastodon requires), or
    /// nothing is put; those already in it stay.
    func addToList(_ raw: String, users: [String], by me: UserRecord) throws -> Decision {
        let record = try ownList(raw, of: me)
        var events: [Event] = []
        for account in try listAccounts(users) {
            guard try state.follows(me.id, account) else {
                throw TimelineError.invalid("users", "you can only add accounts you follow to a list")
            }
            guard try !state.listHas(record.id, account) else { continue }
            events.append(.listAccountAdded(ListMember(listId: record.id, ownerId: me.id, accountId: account)))
        }
        return Decision(events: events, outcome: .success(.changed(!events.isEmpty)))
    }

    /// Takes `users` out of the list (those not in it are let be).
    func removeFromList(_ raw: String, users: [String], by me: UserRecord) throws -> Decision {
        let record = try ownList(raw, of: me)
        var events: [Event] = []
        for account in try listAccounts(users) where try state.listHas(record.id, account) {
            events.append(.listAccountRemoved(ListMember(listId: record.id, ownerId: me.id, accountId: account)))
        }
        return Decision(events: events, outcome: .success(.changed(!events.isEmpty)))
    }
}

// MARK: - Commands

/// `createList`: the user makes a list; answers its id.
package struct CreateListCommand: CommandDefinition {
    /// The command's public name, `createList`.
    package static let name = "createList"
    /// The `title` field.
    package let title: String
    /// The `repliesPolicy` field (`followed`, `list`, `none`; `list` when absent).
    package let repliesPolicy: String?
    /// The `exclusive` field (`false` when absent).
    package let exclusive: Bool?

    /// A `createList` command with these fields.
    package init(title: String, repliesPolicy: String?, exclusive: Bool?) {
        self.title = title
        self.repliesPolicy = repliesPolicy
        self.exclusive = exclusive
    }

    /// Reads `createList`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        title = try fields.string("title")
        repliesPolicy = try fields.optionalString("repliesPolicy")
        exclusive = try fields.optionalBool("exclusive")
    }

    /// Writes `createList`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("title", title)
        fields.set("repliesPolicy", repliesPolicy)
        fields.set("exclusive", exclusive)
    }

    /// Decides `createList` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) {
            try decider.createList(title, repliesPolicy: repliesPolicy, exclusive: exclusive, by: $0)
        }
    }
}

/// `updateList`: the user changes a list's title, replies policy or exclusiveness (fields not
/// given stay).
package struct UpdateListCommand: CommandDefinition {
    /// The command's public name, `updateList`.
    package static let name = "updateList"
    /// The `list` field.
    package let list: String
    /// The `title` field.
    package let title: String?
    /// The `repliesPolicy` field.
    package let repliesPolicy: String?
    /// The `exclusive` field.
    package let exclusive: Bool?

    /// An `updateList` command with these fields.
    package init(list: String, title: String?, repliesPolicy: String?, exclusive: Bool?) {
        self.list = list
        self.title = title
        self.repliesPolicy = repliesPolicy
        self.exclusive = exclusive
    }

    /// Reads `updateList`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        list = try fields.string("list")
        title = try fields.optionalString("title")
        repliesPolicy = try fields.optionalString("repliesPolicy")
        exclusive = try fields.optionalBool("exclusive")
    }

    /// Writes `updateList`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("list", list)
        fields.set("title", title)
        fields.set("repliesPolicy", repliesPolicy)
        fields.set("exclusive", exclusive)
    }

    /// Decides `updateList` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) {
            try decider.updateList(list, title: title, repliesPolicy: repliesPolicy, exclusive: exclusive, by: $0)
        }
    }
}

/// `deleteList`: the user deletes one of their lists.
package struct DeleteListCommand: OneFieldCommand {
    /// The command's public name, `deleteList`, and its one field, `list`.
    package static let name = "deleteList", field = "list"
    /// The `list` field, raw user input.
    package let value: String
    /// A `deleteList` command naming `list` `value`.
    package init(value: String) { self.value = value }
    /// Decides `deleteList` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.deleteList(value, by: $0) }
    }
}

/// A command naming a list and accounts (`addToList`, `removeFromList`): its fields' reading
/// and writing, once.
package protocol ListAccountsCommand: CommandDefinition {
    /// The `list` field.
    var list: String { get }
    /// The `users` field: the accounts.
    var users: [String] { get }
    /// The command with these fields.
    init(list: String, users: [String])
}

extension ListAccountsCommand {
    /// Reads the `list` and `users` fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        self.init(list: try fields.string("list"), users: try fields.optionalList("users") ?? [])
    }
    /// Writes the `list` and `users` fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("list", list)
        fields.set("users", strings: users)
    }
}

/// `addToList`: the user puts accounts they follow in one of their lists.
package struct AddToListCommand: ListAccountsCommand {
    /// The command's public name, `addToList`.
    package static let name = "addToList"
    /// The `list` field.
    package let list: String
    /// The `users` field.
    package let users: [String]
    /// An `addToList` command with these fields.
    package init(list: String, users: [String]) {
        self.list = list
        self.users = users
    }
    /// Decides `addToList` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.addToList(list, users: users, by: $0) }
    }
}

/// `removeFromList`: the user takes accounts out of one of their lists.
package struct RemoveFromListCommand: ListAccountsCommand {
    /// The command's public name, `removeFromList`.
    package static let name = "removeFromList"
    /// The `list` field.
    package let list: String
    /// The `users` field.
    package let users: [String]
    /// A `removeFromList` command with these fields.
    package init(list: String, users: [String]) {
        self.list = list
        self.users = users
    }
    /// Decides `removeFromList` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.removeFromList(list, users: users, by: $0) }
    }
}

extension Command {
    /// The user makes a list (`repliesPolicy` `followed`, `list` or `none`; `exclusive`: its
    /// members' posts leave the home timeline); answers its id.
    public static func createList(title: String, repliesPolicy: String? = nil, exclusive: Bool? = nil) -> Command {
        Command(CreateListCommand(title: title, repliesPolicy: repliesPolicy, exclusive: exclusive))
    }
    /// The user changes one of their lists (fields not given stay).
    public static func updateList(
        list: String, title: String? = nil, repliesPolicy: String? = nil, exclusive: Bool? = nil
    ) -> Command {
        Command(UpdateListCommand(list: list, title: title, repliesPolicy: repliesPolicy, exclusive: exclusive))
    }
    /// The user deletes one of their lists.
    public static func deleteList(list: String) -> Command { Command(DeleteListCommand(value: list)) }
    /// The user puts accounts they follow in one of their lists.
    public static func addToList(list: String, users: [String]) -> Command {
        Command(AddToListCommand(list: list, users: users))
    }
    /// The user takes accounts out of one of their lists.
    public static func removeFromList(list: String, users: [String]) -> Command {
        Command(RemoveFromListCommand(list: list, users: users))
    }
}

// MARK: - JSON Schemas

extension ListSettings {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "A list's settings, as they are from this event on."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "repliesPolicy": "Which replies the list shows (followed, list, none).",
        "exclusive": "Whether the members' posts leave the owner's home timeline."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "title": JSONSchema.string.with("minLength", 1).with("maxLength", .integer(Validation.maxListTitle)),
        "repliesPolicy": .enumeration(ListRepliesPolicy.allCases.map(\.rawValue))
    ]
}

extension ListDeleted {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "A user deleted one of their lists (its members go with it)."
}

extension ListMember {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "An account in a user's list."
}

extension CreateListCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Makes a list of accounts the user follows (ListCreated); answers {id}. repliesPolicy is followed, list "
        + "(the default) or none; exclusive (default false): the members' posts leave the home timeline. "
        + "At most \(Validation.maxListsPerUser) lists per user."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "title": JSONSchema.string.with("minLength", 1).with("maxLength", .integer(Validation.maxListTitle)),
        "repliesPolicy": .enumeration(ListRepliesPolicy.allCases.map(\.rawValue))
    ]
}

extension UpdateListCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Changes one of the user's lists (ListUpdated); fields not given stay; answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "list": .identifier,
        "title": JSONSchema.string.with("minLength", 1).with("maxLength", .integer(Validation.maxListTitle)),
        "repliesPolicy": .enumeration(ListRepliesPolicy.allCases.map(\.rawValue))
    ]
}

extension DeleteListCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? = "Deletes one of the user's lists (ListDeleted)."
}

extension AddToListCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Puts accounts the user follows in one of their lists (ListAccountAdded each); an account not followed "
        + "refuses them all; answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["list": .identifier]
}

extension RemoveFromListCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Takes accounts out of one of the user's lists (ListAccountRemoved each); answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["list": .identifier]
}
