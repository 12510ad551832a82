import JSONModel
import TimelineDomain

// The JSON form of the conversations' read (`conversations`): its type, schema and conversion.

extension ResultJSON {
    /// A conversation of direct messages as one participant sees it (`conversation.schema.json`).
    struct Conversation: Codable, Sendable, SchemaDocumented {
        var id: String
        var accounts: [String]
        var lastPost: Post
        var unread: Bool
    }
}

extension ResultJSON.Conversation: NamedResult {
    static let schemaName = "conversation"
    static let schemaDescription: String? =
        "A conversation of direct messages: the direct posts among one set of participants, as one of them sees it."
    static let memberDescriptions = [
        "id": "The conversation's id: its first message's.",
        "accounts": "The other participants' user ids (the bearer left out).",
        "lastPost": "Its last message the bearer may see.",
        "unread": "Whether a message came in since the bearer last read it (POST /v1/conversations/{id}/read)."
    ]
    static let memberSchemas = [
        "id": ResultJSON.identifier, "accounts": JSONSchema.array(of: ResultJSON.identifier).with("uniqueItems", true),
        "lastPost": ResultJSON.reference(ResultJSON.Post.self)
    ]

    init(_ c: Timeline.Conversation) {
        id = c.id.rawValue
        accounts = c.accounts.map(\.rawValue)
        lastPost = ResultJSON.Post(c.lastPost)
        unread = c.unread
    }
}
