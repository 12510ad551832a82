import JSONModel
import TimelineDomain

// The JSON form of the `filters` query (`filters.schema.json`): a user's filters, each with
// its keywords and posts.

extension ResultJSON {
    /// A user's filters (`filters.schema.json`).
    struct Filters: Codable, Sendable, SchemaDocumented {
        var filters: [Filter]
    }

    /// A filter with its keywords and posts.
    struct Filter: Codable, Sendable, SchemaDocumented {
        var id: String
        var title: String
        var context: [String]
        var action: String
        var expiresAt: String?
        var keywords: [FilterKeyword]
        var statuses: [FilterStatus]
    }

    /// A keyword of a filter.
    struct FilterKeyword: Codable, Sendable, SchemaDocumented {
        var id: String
        var keyword: String
        var wholeWord: Bool
    }

    /// A post a filter names.
    struct FilterStatus: Codable, Sendable, SchemaDocumented {
        var id: String
        var post: String
    }
}

extension ResultJSON.Filters: NamedResult {
    static let schemaName = "filters"
    static let schemaDescription: String? =
        "The user's filters (muted words and posts), expired ones too, in the order they were made."
}

extension ResultJSON.Filter {
    static let memberDescriptions = [
        "context": "Where it applies: home, notifications, public (hashtags, places, search), thread, account.",
        "action": "warn: shown behind a warning naming it; hide: left out; blur: photos hidden until asked.",
        "expiresAt": "When it ends by itself (RFC 3339, UTC); absent: never. An expired filter matches nothing."
    ]
    static let memberSchemas: [String: JSONSchema] = [
        "id": ResultJSON.identifier, "expiresAt": ResultJSON.timestamp,
        "context": JSONSchema.array(of: FilterContext.jsonSchema), "action": FilterAction.jsonSchema
    ]

    init(_ f: FilterSaved) {
        id = f.filterId.rawValue
        title = f.title
        context = f.context.map(\.rawValue)
        action = f.action.rawValue
        expiresAt = f.expiresAt.map(JSONOutput.timestamp)
        keywords = f.keywords.map { ResultJSON.FilterKeyword(id: $0.id, keyword: $0.keyword, wholeWord: $0.wholeWord) }
        statuses = f.statuses.map { ResultJSON.FilterStatus(id: $0.id, post: $0.postId.rawValue) }
    }
}

extension ResultJSON.FilterKeyword {
    static let memberDescriptions = [
        "wholeWord": "Whether it matches only at word boundaries (else anywhere); case-insensitive either way."
    ]
    static let memberSchemas: [String: JSONSchema] = ["id": ResultJSON.identifier]
}

extension ResultJSON.FilterStatus {
    static let memberDescriptions = ["post": "The post it names."]
    static let memberSchemas: [String: JSONSchema] = ["id": ResultJSON.identifier, "post": ResultJSON.identifier]
}
