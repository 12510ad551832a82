import JSONModel

// Collections (Mastodon 4.6's "featured collections", starter packs): a user curates a named
// collection of accounts others may follow. `createCollection` records `CollectionCreated`
// (and a `CollectionItemAdded` for each account named with it), `updateCollection`
// `CollectionUpdated`, `deleteCollection` `CollectionDeleted`; `addToCollection` records
// `CollectionItemAdded`, `removeFromCollection` `CollectionItemRemoved` (by the owner) and
// `revokeCollectionItem` `CollectionItemRevoked` (by the featured account, who takes themselves
// out). As Mastodon: only an account that lets itself be featured (discoverable) may be added,
// never across a block either way; at most `maxCollectionItems` items, `maxCollectionsPerUser`
// collections; a name of at most 40 characters, a description of at most 100. Every account is
// local, so an item is accepted at once (Mastodon's `pending` awaits a remote account's
// approval). A block either way between the owner and a featured account takes the item out,
// an erasure takes the erased user's collections and items away (both in the collections
// projection); a suspension hides them when read.

/// A collection's identifier (`createCollection`).
public struct CollectionID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// A collection item's identifier (`addToCollection`, or an account named at creation).
public struct CollectionItemID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The payload of `CollectionCreated` and `CollectionUpdated`: a collection's settings as they
/// are from then on.
public struct CollectionSettings: Equatable, Sendable, Codable {
    /// The collection's identifier.
    public var collectionId: CollectionID
    /// Whose collection it is.
    public var ownerId: UserID
    /// Its name (1 to 40 characters).
    public var name: String
    /// Its description (at most 100 characters; "" for none).
    public var description: String
    /// Its language (an ISO 639 code), if given.
    public var language: String?
    /// Whether it is marked sensitive.
    public var sensitive: Bool
    /// Whether it shows on its owner's profile to others.
    public var discoverable: Bool
    /// The one hashtag that describes it, if any (without `#`).
    public var tag: String?
    /// A `CollectionSettings` payload.
    public init(
        collectionId: CollectionID, ownerId: UserID, name: String, description: String, language: String?,
        sensitive: Bool, discoverable: Bool, tag: String?
    ) {
        self.collectionId = collectionId
        self.ownerId = ownerId
        self.name = name
        self.description = description
        self.language = language
        self.sensitive = sensitive
        self.discoverable = discoverable
        self.tag = tag
    }
}

extension CollectionSettings: EventPayload {
    /// The aggregate: the collection's stream.
    package var stream: String { StreamName.collection(collectionId) }
    /// Every user a `CollectionSettings` payload names: `ownerId`.
    package var users: [UserID] { [ownerId] }

    /// Writes a `CollectionSettings` payload at `currentVersion` (name and description sealed
    /// with the owner's key).
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(collectionId.rawValue)
        w.string(ownerId.rawValue)
        try sealer.seal(ownerId, into: &w) {
            $0.string(name)
            $0.string(description)
        }
        w.string(language ?? "")
        w.string(tag ?? "")
        w.u8((sensitive ? 1 : 0) | (discoverable ? 2 : 0))
    }

    /// Reads a stored `CollectionSettings` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let id = CollectionID(try r.string()), owner = UserID(try r.string())
        let texts = try opener.personal(owner, from: &r) { (try $0.string(), try $0.string()) } ?? ("", "")
        let language = try r.string(), tag = try r.string(), flags = try r.u8()
        self.init(
            collectionId: id, ownerId: owner, name: texts.0, description: texts.1,
            language: language.isEmpty ? nil : language, sensitive: flags & 1 != 0, discoverable: flags & 2 != 0,
            tag: tag.isEmpty ? nil : tag)
    }

    /// The name and description are left out once the owner is erased (they read back as "").
    package static var erasedMembers: [String] { ["name", "description"] }

    /// What each event type carrying the payload records.
    package static var eventDescriptions: [EventType: String] {
        [
            .collectionCreated: "A user made a collection of accounts to feature (its settings as given).",
            .collectionUpdated: "A user changed a collection's name, description, language, sensitivity, "
                + "discoverability or hashtag (its settings from now on)."
        ]
    }

    /// A one-line human summary of a `CollectionCreated` or `CollectionUpdated` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(ownerId)) \(type == .collectionCreated ? "made" : "changed") collection \(collectionId): "
            + clip(self.name)
    }
}

/// The payload of `CollectionDeleted`: a user deleted one of their collections (its items go
/// with it).
public struct CollectionDeleted: Equatable, Sendable, Codable {
    /// The collection's identifier.
    public var collectionId: CollectionID
    /// Whose collection it was.
    public var ownerId: UserID
    /// A `CollectionDeleted` payload.
    public init(collectionId: CollectionID, ownerId: UserID) {
        self.collectionId = collectionId
        self.ownerId = ownerId
    }
}

extension CollectionDeleted: EventPayload {
    /// The aggregate: the collection's stream.
    package var stream: String { StreamName.collection(collectionId) }
    /// Every user a `CollectionDeleted` payload names: `ownerId`.
    package var users: [UserID] { [ownerId] }
    /// Writes a `CollectionDeleted` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(collectionId.rawValue)
        w.string(ownerId.rawValue)
    }
    /// Reads a stored `CollectionDeleted` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(collectionId: CollectionID(try r.string()), ownerId: UserID(try r.string()))
    }
    /// A one-line human summary of a `CollectionDeleted` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(ownerId)) deleted collection \(collectionId)"
    }
}

/// The payload of `CollectionItemAdded`, `CollectionItemRemoved` and `CollectionItemRevoked`:
/// an account featured in a collection, taken out by its owner, or taking itself out.
public struct CollectionItemChange: Equatable, Sendable, Codable {
    /// The collection's identifier.
    public var collectionId: CollectionID
    /// Whose collection it is.
    public var ownerId: UserID
    /// The item's identifier.
    public var itemId: CollectionItemID
    /// The featured account.
    public var accountId: UserID
    /// A `CollectionItemChange` payload.
    public init(collectionId: CollectionID, ownerId: UserID, itemId: CollectionItemID, accountId: UserID) {
        self.collectionId = collectionId
        self.ownerId = ownerId
        self.itemId = itemId
        self.accountId = accountId
    }
}

extension CollectionItemChange: EventPayload {
    /// The aggregate: the collection's stream.
    package var stream: String { StreamName.collection(collectionId) }
    /// Every user a `CollectionItemChange` payload names: `ownerId`, `accountId`.
    package var users: [UserID] { [ownerId, accountId] }
    /// Writes a `CollectionItemChange` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(collectionId.rawValue)
        w.string(ownerId.rawValue)
        w.string(itemId.rawValue)
        w.string(accountId.rawValue)
    }
    /// Reads a stored `CollectionItemChange` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(
            collectionId: CollectionID(try r.string()), ownerId: UserID(try r.string()),
            itemId: CollectionItemID(try r.string()), accountId: UserID(try r.string()))
    }
    /// What each event type carrying the payload records.
    package static var eventDescriptions: [EventType: String] {
        [
            .collectionItemAdded: "A user featured an account in one of their collections (accepted at once: "
                + "every account is local).",
            .collectionItemRemoved: "A user took an account out of one of their collections.",
            .collectionItemRevoked: "A featured account took itself out of another's collection (revoked)."
        ]
    }
    /// A one-line human summary of the event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        switch type {
        case .collectionItemAdded: "\(name(ownerId)) featured \(name(accountId)) in collection \(collectionId)"
        case .collectionItemRevoked: "\(name(accountId)) left \(name(ownerId))'s collection \(collectionId)"
        default: "\(name(ownerId)) took \(name(accountId)) out of collection \(collectionId)"
        }
    }
}

extension StreamName {
    /// A collection's stream: its making, changes, items and deletion.
    package static func collection(_ id: CollectionID) -> String { "collection-\(id)" }
}

/// A collection as the read models keep it.
public struct CollectionRecord: Equatable, Sendable {
    /// Its settings.
    public var settings: CollectionSettings
    /// When it was made (ms since 1970).
    public var createdAt: Int64
    /// When its settings last changed (ms since 1970).
    public var updatedAt: Int64
    /// A collection record.
    public init(settings: CollectionSettings, createdAt: Int64, updatedAt: Int64) {
        self.settings = settings
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
    /// The collection's identifier.
    public var id: CollectionID { settings.collectionId }
    /// Whose collection it is.
    public var owner: UserID { settings.ownerId }
}

/// An item's state, as Mastodon's `CollectionItem.state`. Every account is local, so an item is
/// `accepted` when added; `revoked` once its account took itself out (`pending` and `rejected`
/// are a remote account's answers, never given here).
public enum CollectionItemState: String, Sendable, Codable, CaseIterable, Equatable {
    /// The account is featured.
    case accepted
    /// The account took itself out: it shows to nobody and cannot be added again.
    case revoked
}

/// A collection's item as the read models keep it.
public struct CollectionItemRecord: Equatable, Sendable {
    /// The item's identifier.
    public var id: CollectionItemID
    /// Its collection.
    public var collection: CollectionID
    /// The featured account.
    public var account: UserID
    /// Its state.
    public var state: CollectionItemState
    /// When it was added (ms since 1970).
    public var createdAt: Int64
    /// A collection item record.
    public init(
        id: CollectionItemID, collection: CollectionID, account: UserID, state: CollectionItemState, createdAt: Int64
    ) {
        self.id = id
        self.collection = collection
        self.account = account
        self.state = state
        self.createdAt = createdAt
    }
}

extension Validation {
    /// The longest collection name, in characters (Mastodon's, for a local collection).
    public static let maxCollectionName = 40
    /// The longest collection description, in characters (Mastodon's, for a local collection).
    public static let maxCollectionDescription = 100
    /// How many accounts one collection features at most (Mastodon's `Collection::MAX_ITEMS`).
    public static let maxCollectionItems = 25
    /// How many collections one user may have (Mastodon's role `collection_limit`).
    public static let maxCollectionsPerUser = 10

    /// A collection's language: an ISO 639 code, two or three lowercase letters ("" for none).
    public static func collectionLanguage(_ raw: String) throws(TimelineError) -> String? {
        guard !raw.isEmpty else { return nil }
        guard (2...3).contains(raw.count), raw.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
            throw .invalid("language", "language must be an ISO 639 code (two or three lowercase letters)")
        }
        return raw
    }
}

extension Decider {
    /// The collection `raw` names: another's is `forbidden` to change (Mastodon's 403).
    private func ownCollection(_ raw: String, of me: UserRecord) throws -> CollectionRecord {
        let id: CollectionID = try Validation.identifier(raw, field: "collection")
        guard let record = try state.collection(id) else { throw TimelineError.notFound("collection", id.rawValue) }
        guard record.owner == me.id else {
            throw TimelineError(.forbidden, "collection \(id) is another user's", field: "collection")
        }
        return record
    }

    private func collectionName(_ raw: String) throws -> String {
        let name = try Validation.text(raw, field: "name", max: Validation.maxCollectionName, allowEmpty: false)
        guard !name.contains("\n") else { throw TimelineError.invalid("name", "name must be one line") }
        return name
    }

    private func collectionDescription(_ raw: String) throws -> String {
        try Validation.text(
            raw, field: "description", max: Validation.maxCollectionDescription, allowEmpty: true)
    }

    private func collectionTag(_ raw: String) throws -> String? {
        raw.isEmpty ? nil : try Validation.singleHashtag(raw)
    }

    /// Whether `owner` may feature `account` (Mastodon's `feature?`): it exists, is not
    /// suspended, lets itself be featured (discoverable), and no block stands between them.
    private func featurable(_ raw: String, by owner: UserRecord) throws -> UserID {
        let id: UserID = try Validation.identifier(raw, field: "account")
        guard let account = try state.user(id), !account.suspended else {
            throw TimelineError.notFound("user", id.rawValue)
        }
        guard account.discoverable, try !state.blockedEitherWay(owner.id, id) else {
            throw TimelineError(.forbidden, "this account cannot be added to collections", field: "account")
        }
        return id
    }

    /// The item featuring `account` in `collection` (`nil`: a new one), refused when the
    /// account is in it already (revoked too: it took itself out) or the collection is full.
    private func newItem(
        _ account: UserID, in collection: CollectionID, owner: UserID, existing: [CollectionItemRecord]
    ) throws -> CollectionItemChange {
        guard !existing.contains(where: { $0.account == account }) else {
            throw TimelineError.invalid("account", "account is already in this collection")
        }
        guard existing.filter({ $0.state == .accepted }).count < Validation.maxCollectionItems else {
            throw TimelineError.invalid(
                "account", "a collection features at most \(Validation.maxCollectionItems) accounts")
        }
        return CollectionItemChange(
            collectionId: collection, ownerId: owner, itemId: CollectionItemID(context.newID()), accountId: account)
    }

    func createCollection(_ fields: CreateCollectionCommand, by me: UserRecord) throws -> Decision {
        let settings = CollectionSettings(
            collectionId: CollectionID(context.newID()), ownerId: me.id, name: try collectionName(fields.name),
            description: try collectionDescription(fields.description ?? ""),
            language: try Validation.collectionLanguage(fields.language ?? ""), sensitive: fields.sensitive ?? false,
            discoverable: fields.discoverable ?? true, tag: try collectionTag(fields.tag ?? ""))
        guard try state.collections(of: me.id).count < Validation.maxCollectionsPerUser else {
            throw TimelineError.invalid(
                "name", "a user may have at most \(Validation.maxCollectionsPerUser) collections")
        }
        var items: [CollectionItemRecord] = [], events: [Event] = [.collectionCreated(settings)]
        for raw in fields.accounts {
            let item = try newItem(
                try featurable(raw, by: me), in: settings.collectionId, owner: me.id, existing: items)
            items.append(
                CollectionItemRecord(
                    id: item.itemId, collection: item.collectionId, account: item.accountId, state: .accepted,
                    createdAt: 0))
            events.append(.collectionItemAdded(item))
        }
        return Decision(events: events, outcome: .success(.created(settings.collectionId.rawValue)))
    }

    func updateCollection(_ fields: UpdateCollectionCommand, by me: UserRecord) throws -> Decision {
        let record = try ownCollection(fields.collection, of: me)
        var settings = record.settings
        if let name = fields.name { settings.name = try collectionName(name) }
        if let description = fields.description { settings.description = try collectionDescription(description) }
        if let language = fields.language { settings.language = try Validation.collectionLanguage(language) }
        if let sensitive = fields.sensitive { settings.sensitive = sensitive }
        if let discoverable = fields.discoverable { settings.discoverable = discoverable }
        if let tag = fields.tag { settings.tag = try collectionTag(tag) }
        guard settings != record.settings else { return Decision(events: [], outcome: .success(.changed(false))) }
        return Decision(events: [.collectionUpdated(settings)], outcome: .success(.changed(true)))
    }

    func deleteCollection(_ raw: String, by me: UserRecord) throws -> Decision {
        let record = try ownCollection(raw, of: me)
        return Decision(
            events: [.collectionDeleted(CollectionDeleted(collectionId: record.id, ownerId: me.id))],
            outcome: .success(.done))
    }

    /// Features `account` in `me`'s collection; answers the new item's id.
    func addToCollection(_ raw: String, account: String, by me: UserRecord) throws -> Decision {
        let record = try ownCollection(raw, of: me)
        let item = try newItem(
            try featurable(account, by: me), in: record.id, owner: me.id,
            existing: try state.collectionItems(record.id))
        return Decision(events: [.collectionItemAdded(item)], outcome: .success(.created(item.itemId.rawValue)))
    }

    /// The item `raw` of `collection` (`not_found` when it is not one of its items).
    private func item(_ raw: String, of collection: CollectionRecord) throws -> CollectionItemRecord {
        let id: CollectionItemID = try Validation.identifier(raw, field: "item")
        guard let item = try state.collectionItems(collection.id).first(where: { $0.id == id }) else {
            throw TimelineError.notFound("collection item", id.rawValue)
        }
        return item
    }

    /// Takes an item out of `me`'s collection (whatever its state).
    func removeFromCollection(_ raw: String, item rawItem: String, by me: UserRecord) throws -> Decision {
        let record = try ownCollection(raw, of: me)
        let item = try item(rawItem, of: record)
        let change = CollectionItemChange(
            collectionId: record.id, ownerId: me.id, itemId: item.id, accountId: item.account)
        return Decision(events: [.collectionItemRemoved(change)], outcome: .success(.done))
    }

    /// `me` takes themselves out of another's collection: only the featured account may
    /// (Mastodon's `revoke?`, 403 otherwise); an item revoked already is let be.
    func revokeCollectionItem(_ raw: String, item rawItem: String, by me: UserRecord) throws -> Decision {
        let id: CollectionID = try Validation.identifier(raw, field: "collection")
        guard let record = try state.collection(id) else { throw TimelineError.notFound("collection", id.rawValue) }
        let item = try item(rawItem, of: record)
        guard item.account == me.id else {
            throw TimelineError(.forbidden, "only the featured account may revoke its item", field: "item")
        }
        guard item.state != .revoked else { return Decision(events: [], outcome: .success(.changed(false))) }
        let change = CollectionItemChange(
            collectionId: record.id, ownerId: record.owner, itemId: item.id, accountId: me.id)
        return Decision(events: [.collectionItemRevoked(change)], outcome: .success(.changed(true)))
    }
}

// MARK: - Commands

/// `createCollection`: the user makes a collection of accounts to feature; answers its id.
package struct CreateCollectionCommand: CommandDefinition {
    /// The command's public name, `createCollection`.
    package static let name = "createCollection"
    /// The `name` field.
    package let name: String
    /// The `description` field.
    package let description: String?
    /// The `language` field.
    package let language: String?
    /// The `sensitive` field (`false` when absent).
    package let sensitive: Bool?
    /// The `discoverable` field (`true` when absent).
    package let discoverable: Bool?
    /// The `tag` field: one hashtag.
    package let tag: String?
    /// The `accounts` field: the accounts to feature at once.
    package let accounts: [String]

    /// A `createCollection` command with these fields.
    package init(
        name: String, description: String?, language: String?, sensitive: Bool?, discoverable: Bool?, tag: String?,
        accounts: [String]
    ) {
        self.name = name
        self.description = description
        self.language = language
        self.sensitive = sensitive
        self.discoverable = discoverable
        self.tag = tag
        self.accounts = accounts
    }

    /// Reads `createCollection`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        name = try fields.string("name")
        description = try fields.optionalString("description")
        language = try fields.optionalString("language")
        sensitive = try fields.optionalBool("sensitive")
        discoverable = try fields.optionalBool("discoverable")
        tag = try fields.optionalString("tag")
        accounts = try fields.optionalList("accounts") ?? []
    }

    /// Writes `createCollection`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("name", name)
        fields.set("description", description)
        fields.set("language", language)
        fields.set("sensitive", sensitive)
        fields.set("discoverable", discoverable)
        fields.set("tag", tag)
        fields.set("accounts", strings: accounts)
    }

    /// Decides `createCollection` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.createCollection(self, by: $0) }
    }
}

/// `updateCollection`: the user changes one of their collections (fields not given stay; ""
/// clears the description, language and hashtag).
package struct UpdateCollectionCommand: CommandDefinition {
    /// The command's public name, `updateCollection`.
    package static let name = "updateCollection"
    /// The `collection` field.
    package let collection: String
    /// The `name` field.
    package let name: String?
    /// The `description` field.
    package let description: String?
    /// The `language` field.
    package let language: String?
    /// The `sensitive` field.
    package let sensitive: Bool?
    /// The `discoverable` field.
    package let discoverable: Bool?
    /// The `tag` field.
    package let tag: String?

    /// An `updateCollection` command with these fields.
    package init(
        collection: String, name: String?, description: String?, language: String?, sensitive: Bool?,
        discoverable: Bool?, tag: String?
    ) {
        self.collection = collection
        self.name = name
        self.description = description
        self.language = language
        self.sensitive = sensitive
        self.discoverable = discoverable
        self.tag = tag
    }

    /// Reads `updateCollection`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        collection = try fields.string("collection")
        name = try fields.optionalString("name")
        description = try fields.optionalString("description")
        language = try fields.optionalString("language")
        sensitive = try fields.optionalBool("sensitive")
        discoverable = try fields.optionalBool("discoverable")
        tag = try fields.optionalString("tag")
    }

    /// Writes `updateCollection`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("collection", collection)
        fields.set("name", name)
        fields.set("description", description)
        fields.set("language", language)
        fields.set("sensitive", sensitive)
        fields.set("discoverable", discoverable)
        fields.set("tag", tag)
    }

    /// Decides `updateCollection` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.updateCollection(self, by: $0) }
    }
}

/// `deleteCollection`: the user deletes one of their collections.
package struct DeleteCollectionCommand: OneFieldCommand {
    /// The command's public name, `deleteCollection`, and its one field, `collection`.
    package static let name = "deleteCollection", field = "collection"
    /// The `collection` field, raw user input.
    package let value: String
    /// A `deleteCollection` command naming `collection` `value`.
    package init(value: String) { self.value = value }
    /// Decides `deleteCollection` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.deleteCollection(value, by: $0) }
    }
}

/// `addToCollection`: the user features an account in one of their collections; answers the
/// item's id.
package struct AddToCollectionCommand: CommandDefinition {
    /// The command's public name, `addToCollection`.
    package static let name = "addToCollection"
    /// The `collection` field.
    package let collection: String
    /// The `account` field.
    package let account: String
    /// An `addToCollection` command with these fields.
    package init(collection: String, account: String) {
        self.collection = collection
        self.account = account
    }
    /// Reads `addToCollection`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        self.init(collection: try fields.string("collection"), account: try fields.string("account"))
    }
    /// Writes `addToCollection`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("collection", collection)
        fields.set("account", account)
    }
    /// Decides `addToCollection` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.addToCollection(collection, account: account, by: $0) }
    }
}

/// A command naming a collection and one of its items (`removeFromCollection`,
/// `revokeCollectionItem`): its fields' reading and writing, once.
package protocol CollectionItemCommand: CommandDefinition {
    /// The `collection` field.
    var collection: String { get }
    /// The `item` field.
    var item: String { get }
    /// The command with these fields.
    init(collection: String, item: String)
}

extension CollectionItemCommand {
    /// Reads the `collection` and `item` fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        self.init(collection: try fields.string("collection"), item: try fields.string("item"))
    }
    /// Writes the `collection` and `item` fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("collection", collection)
        fields.set("item", item)
    }
}

/// `removeFromCollection`: the user takes an item out of one of their collections.
package struct RemoveFromCollectionCommand: CollectionItemCommand {
    /// The command's public name, `removeFromCollection`.
    package static let name = "removeFromCollection"
    /// The `collection` field.
    package let collection: String
    /// The `item` field.
    package let item: String
    /// A `removeFromCollection` command with these fields.
    package init(collection: String, item: String) {
        self.collection = collection
        self.item = item
    }
    /// Decides `removeFromCollection` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.removeFromCollection(collection, item: item, by: $0) }
    }
}

/// `revokeCollectionItem`: a featured account takes itself out of another's collection.
package struct RevokeCollectionItemCommand: CollectionItemCommand {
    /// The command's public name, `revokeCollectionItem`.
    package static let name = "revokeCollectionItem"
    /// The `collection` field.
    package let collection: String
    /// The `item` field.
    package let item: String
    /// A `revokeCollectionItem` command with these fields.
    package init(collection: String, item: String) {
        self.collection = collection
        self.item = item
    }
    /// Decides `revokeCollectionItem` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.revokeCollectionItem(collection, item: item, by: $0) }
    }
}

extension Command {
    /// The user makes a collection of accounts to feature (`accounts` featured at once);
    /// answers its id.
    public static func createCollection(
        name: String, description: String? = nil, language: String? = nil, sensitive: Bool? = nil,
        discoverable: Bool? = nil, tag: String? = nil, accounts: [String] = []
    ) -> Command {
        Command(
            CreateCollectionCommand(
                name: name, description: description, language: language, sensitive: sensitive,
                discoverable: discoverable, tag: tag, accounts: accounts))
    }
    /// The user changes one of their collections (fields not given stay).
    public static func updateCollection(
        collection: String, name: String? = nil, description: String? = nil, language: String? = nil,
        sensitive: Bool? = nil, discoverable: Bool? = nil, tag: String? = nil
    ) -> Command {
        Command(
            UpdateCollectionCommand(
                collection: collection, name: name, description: description, language: language,
                sensitive: sensitive, discoverable: discoverable, tag: tag))
    }
    /// The user deletes one of their collections.
    public static func deleteCollection(collection: String) -> Command {
        Command(DeleteCollectionCommand(value: collection))
    }
    /// The user features an account in one of their collections; answers the item's id.
    public static func addToCollection(collection: String, account: String) -> Command {
        Command(AddToCollectionCommand(collection: collection, account: account))
    }
    /// The user takes an item out of one of their collections.
    public static func removeFromCollection(collection: String, item: String) -> Command {
        Command(RemoveFromCollectionCommand(collection: collection, item: item))
    }
    /// A featured account takes itself out of another's collection.
    public static func revokeCollectionItem(collection: String, item: String) -> Command {
        Command(RevokeCollectionItemCommand(collection: collection, item: item))
    }
}

// MARK: - JSON Schemas

extension CollectionSettings {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "A collection's settings, as they are from this event on."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "name": "The collection's name.",
        "description": "Its description (\"\" for none).",
        "language": "Its language, an ISO 639 code.",
        "sensitive": "Whether it is marked sensitive.",
        "discoverable": "Whether it shows on its owner's profile to others.",
        "tag": "The one hashtag that describes it (without #)."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "name": JSONSchema.string.with("maxLength", .integer(Validation.maxCollectionName)),
        "description": JSONSchema.string.with("maxLength", .integer(Validation.maxCollectionDescription))
    ]
}

extension CollectionDeleted {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "A user deleted one of their collections (its items go with it)."
}

extension CollectionItemChange {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "An account featured in a user's collection."
}

extension CreateCollectionCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Makes a collection of accounts to feature (CollectionCreated, and CollectionItemAdded for each of "
        + "accounts); answers {id}. name: 1 to \(Validation.maxCollectionName) characters; description: at most "
        + "\(Validation.maxCollectionDescription); discoverable (default true): shown on the profile; each account "
        + "must be discoverable and not blocked either way (forbidden otherwise); at most "
        + "\(Validation.maxCollectionItems) accounts, \(Validation.maxCollectionsPerUser) collections per user."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "name": JSONSchema.string.with("minLength", 1).with("maxLength", .integer(Validation.maxCollectionName)),
        "description": JSONSchema.string.with("maxLength", .integer(Validation.maxCollectionDescription))
    ]
}

extension UpdateCollectionCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Changes one of the user's collections (CollectionUpdated); fields not given stay, \"\" clears the "
        + "description, language and tag; answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "collection": .identifier,
        "name": JSONSchema.string.with("minLength", 1).with("maxLength", .integer(Validation.maxCollectionName)),
        "description": JSONSchema.string.with("maxLength", .integer(Validation.maxCollectionDescription))
    ]
}

extension DeleteCollectionCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? = "Deletes one of the user's collections (CollectionDeleted)."
}

extension AddToCollectionCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Features an account in one of the user's collections (CollectionItemAdded); answers {id}, the item's. "
        + "The account must be discoverable, not suspended, and no block may stand either way (forbidden); "
        + "an account already in it (revoked too) or a full collection is invalid_argument."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["collection": .identifier, "account": .identifier]
}

extension RemoveFromCollectionCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Takes an item out of one of the user's collections (CollectionItemRemoved)."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["collection": .identifier, "item": .identifier]
}

extension RevokeCollectionItemCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "The featured account takes itself out of another's collection (CollectionItemRevoked); only it may "
        + "(forbidden otherwise); answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["collection": .identifier, "item": .identifier]
}
