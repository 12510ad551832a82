import JSONModel
import TimelineDomain

// The JSON forms of the lists' reads (`lists`, `list`, `listsWith`): their types, schemas and
// conversions.

extension ResultJSON {
    /// A user's list (`list.schema.json`).
    struct List: Codable, Sendable, SchemaDocumented {
        var id: String
        var title: String
        var repliesPolicy: String
        var exclusive: Bool
    }

    /// Some of a user's lists, oldest first (`lists.schema.json`).
    struct Lists: Codable, Sendable, SchemaDocumented {
        var lists: [List]
    }
}

extension ResultJSON.List: NamedResult {
    static let schemaName = "list"
    static let schemaDescription: String? =
        "One of the bearer's lists: accounts they follow, read as a timeline of their own (GET /v1/lists/{list}/timeline)."
    static let memberDescriptions = [
        "title": "The list's title.",
        "repliesPolicy":
            "Which replies the list shows, as Mastodon's replies_policy (Timeline's timelines hold no replies).",
        "exclusive": "Whether the members' posts leave the bearer's home timeline."
    ]
    static let memberSchemas = [
        "id": ResultJSON.identifier,
        "title": JSONSchema.string.with("minLength", 1).with("maxLength", .integer(Validation.maxListTitle)),
        "repliesPolicy": JSONSchema.enumeration(ListRepliesPolicy.allCases.map(\.rawValue))
    ]

    init(_ list: ListRecord) {
        id = list.id.rawValue
        title = list.title
        repliesPolicy = list.repliesPolicy.rawValue
        exclusive = list.exclusive
    }
}

extension ResultJSON.Lists: NamedResult {
    static let schemaName = "lists"
    static let schemaDescription: String? = "Some of the bearer's lists, oldest first (not paged)."
    static let memberSchemas = [
        "lists": JSONSchema.array(of: ResultJSON.reference(ResultJSON.List.self))
            .with("maxItems", .integer(Validation.maxListsPerUser))
    ]
}
