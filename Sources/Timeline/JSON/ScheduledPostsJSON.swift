import JSONModel
import TimelineDomain

// The JSON form of the scheduled posts' reads (`scheduledPosts`, `scheduledPost`).

extension ResultJSON {
    /// A pending scheduled post (`scheduledPost.schema.json`).
    struct ScheduledPost: Codable, Sendable, SchemaDocumented {
        var id: String
        var scheduledAt: String
        var caption: Nullable<String>
        var media: [Media]
        var location: Place?
        var sensitive: Bool
        var warning: Nullable<String>
        var visibility: Nullable<String>
        var poll: Nullable<ScheduledPoll>
    }

    /// The poll a scheduled post will carry.
    struct ScheduledPoll: Codable, Sendable, SchemaDocumented {
        var options: [String]
        var expiresIn: Int
        var multiple: Bool
        var hideTotals: Bool
    }
}

extension ResultJSON.ScheduledPoll {
    static let schemaDescription: String? = "The poll a scheduled post will carry (it starts when it is published)."
    static let memberDescriptions = ["expiresIn": "How long it lasts from publication, in seconds."]
}

extension ResultJSON.ScheduledPost: NamedResult {
    static let schemaName = "scheduledPost"
    static let schemaDescription: String? =
        "One of the bearer's pending scheduled posts, as it will be published at scheduledAt (visible only to them)."
    static let memberDescriptions = [
        "scheduledAt": "When it is published.",
        "caption": "Its caption.",
        "media": "Its photos, in order (the bearer's uploads: nobody else sees them before publication).",
        "location": "Where the photo was taken, if given.",
        "sensitive": "Whether its photos will be blurred until tapped.",
        "warning": "Its content warning.",
        "visibility": "Who will see it; null: as the bearer's lock says when it is published.",
        "poll": "The poll it will carry."
    ]
    static let memberSchemas: [String: JSONSchema] = [
        "id": ResultJSON.identifier, "scheduledAt": ResultJSON.timestamp
    ]

    init(_ s: Timeline.ScheduledPost) {
        id = s.id.rawValue
        scheduledAt = JSONOutput.timestamp(s.publishAt)
        caption = Nullable(s.draft.caption)
        media = s.media.map(ResultJSON.Media.init)
        location = s.draft.location.map {
            ResultJSON.Place(latitude: $0.latitude, longitude: $0.longitude, name: $0.name)
        }
        sensitive = s.draft.sensitive
        warning = Nullable(s.draft.warning)
        visibility = Nullable(s.draft.visibility?.rawValue)
        poll = Nullable(
            s.draft.poll.map {
                ResultJSON.ScheduledPoll(
                    options: $0.options, expiresIn: $0.expiresIn, multiple: $0.multiple, hideTotals: $0.hideTotals)
            })
    }
}
