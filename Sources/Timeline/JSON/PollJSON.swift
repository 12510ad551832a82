import JSONModel
import TimelineDomain

// The JSON form of the `poll` query: a post's poll as a reader sees it.

extension ResultJSON {
    /// A poll (`poll.schema.json`).
    struct Poll: Codable, Sendable, SchemaDocumented {
        var id: String
        var post: String
        var options: [PollOption]
        var multiple: Bool
        var hideTotals: Bool
        var expiresAt: String
        var expired: Bool
        var votesCount: Int
        var votersCount: Int
        var ownVotes: [Int]?
    }

    /// One option of a poll.
    struct PollOption: Codable, Sendable, SchemaDocumented {
        var title: String
        var votesCount: Nullable<Int>
    }
}

extension ResultJSON.PollOption {
    static let schemaDescription: String? = "One option of a poll."
    static let memberDescriptions = [
        "title": "The option's text.",
        "votesCount": "Its votes; null while the poll hides its totals and has not ended."
    ]
}

extension ResultJSON.Poll: NamedResult {
    static let schemaName = "poll"
    static let schemaDescription: String? =
        "A post's poll as the reader sees it. Nothing is written when it ends: `expired` is judged at the time of "
        + "the read."
    static let memberDescriptions = [
        "post": "The post it is on.",
        "options": "The options, in order.",
        "multiple": "Whether a voter may choose several options.",
        "hideTotals": "Whether the counts stay hidden until it ends.",
        "expiresAt": "When it ends.",
        "expired": "Whether it has ended.",
        "votesCount": "How many votes were cast (a multiple-choice voter counts once per option chosen).",
        "votersCount": "How many accounts voted.",
        "ownVotes": "The options the reader chose, by index (empty: not voted); absent without a reader."
    ]
    static let memberSchemas: [String: JSONSchema] = [
        "id": ResultJSON.identifier, "post": ResultJSON.identifier, "expiresAt": ResultJSON.timestamp,
        "votesCount": ResultJSON.count(from: 0), "votersCount": ResultJSON.count(from: 0),
        "ownVotes": JSONSchema.array(of: JSONSchema.integer.with("minimum", 0)).with("maxItems", 4)
    ]

    init(_ p: Timeline.Poll) {
        id = p.id.rawValue
        post = p.post.rawValue
        options = p.options.enumerated().map { index, title in
            ResultJSON.PollOption(title: title, votesCount: Nullable(p.counts?[index]))
        }
        multiple = p.multiple
        hideTotals = p.hideTotals
        expiresAt = JSONOutput.timestamp(p.expiresAt)
        expired = p.expired
        votesCount = p.votesCount
        votersCount = p.votersCount
        ownVotes = p.ownVotes
    }
}
