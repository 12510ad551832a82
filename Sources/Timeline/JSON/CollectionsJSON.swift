import JSONModel
import TimelineDomain

// The JSON forms of the collections' reads (`collection`, `collections`, `inCollections`):
// their types, schemas and conversions.

extension ResultJSON {
    /// A collection of accounts to feature, as the viewer sees it (`collection.schema.json`).
    struct Collection: Codable, Sendable, SchemaDocumented {
        var id: String
        var owner: String
        var name: String
        var description: String
        var language: Nullable<String>
        var sensitive: Bool
        var discoverable: Bool
        var tag: Nullable<String>
        var createdAt: String
        var updatedAt: String
        var items: [CollectionItem]
        var users: [User]
    }

    /// One account featured in a collection.
    struct CollectionItem: Codable, Sendable, SchemaDocumented {
        var id: String
        var user: String
        var state: String
        var createdAt: String
    }

    /// Some collections, as the viewer sees them (`collections.schema.json`).
    struct Collections: Codable, Sendable, SchemaDocumented {
        var collections: [Collection]
    }
}

extension ResultJSON.CollectionItem {
    static let schemaDescription: String? = "An account featured in a collection."
    static let memberDescriptions = [
        "user": "The featured account's id.", "state": "accepted (every account is local: featured at once).",
        "createdAt": "When it was added."
    ]
    static let memberSchemas = [
        "id": ResultJSON.identifier, "user": ResultJSON.identifier, "createdAt": ResultJSON.timestamp,
        "state": JSONSchema.enumeration(CollectionItemState.allCases.map(\.rawValue))
    ]

    init(_ item: CollectionItemRecord) {
        id = item.id.rawValue
        user = item.account.rawValue
        state = item.state.rawValue
        createdAt = JSONOutput.timestamp(item.createdAt)
    }
}

extension ResultJSON.Collection: NamedResult {
    static let schemaName = "collection"
    static let schemaDescription: String? =
        "A collection of accounts its owner features (Mastodon's collections), as the bearer sees it: only the "
        + "items whose accounts are in the bearer's sight."
    static let memberDescriptions = [
        "owner": "Whose collection it is (a user id).",
        "name": "Its name.",
        "description": "Its description (\"\" for none).",
        "language": "Its language (an ISO 639 code), or null.",
        "sensitive": "Whether it is marked sensitive.",
        "discoverable": "Whether it shows on its owner's profile to others.",
        "tag": "The one hashtag that describes it (without #), or null.",
        "createdAt": "When it was made.",
        "updatedAt": "When its settings last changed.",
        "items": "The featured accounts the bearer may see, in the order added.",
        "users": "The owner's profile, then each item's account's, in the items' order."
    ]
    static let memberSchemas = [
        "id": ResultJSON.identifier, "owner": ResultJSON.identifier,
        "name": JSONSchema.string.with("maxLength", .integer(Validation.maxCollectionName)),
        "description": JSONSchema.string.with("maxLength", .integer(Validation.maxCollectionDescription)),
        "createdAt": ResultJSON.timestamp, "updatedAt": ResultJSON.timestamp,
        "users": JSONSchema.array(of: ResultJSON.reference(ResultJSON.User.self))
    ]

    init(_ view: CollectionView) {
        let s = view.record.settings
        id = s.collectionId.rawValue
        owner = s.ownerId.rawValue
        name = s.name
        description = s.description
        language = Nullable(s.language)
        sensitive = s.sensitive
        discoverable = s.discoverable
        tag = Nullable(s.tag)
        createdAt = JSONOutput.timestamp(view.record.createdAt)
        updatedAt = JSONOutput.timestamp(view.record.updatedAt)
        items = view.items.map(ResultJSON.CollectionItem.init)
        users = view.accounts.map(ResultJSON.User.init)
    }
}

extension ResultJSON.Collections: NamedResult {
    static let schemaName = "collections"
    static let schemaDescription: String? = "Some collections, as the bearer sees them."
    static let memberSchemas = [
        "collections": JSONSchema.array(of: ResultJSON.reference(ResultJSON.Collection.self))
    ]
}
