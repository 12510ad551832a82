import JSONModel
import TimelineDomain

// The JSON form of stories (`stories`, `story`, `highlights`, `postStory`'s answer).

extension ResultJSON {
    /// A story as the viewer sees it (`story.schema.json`).
    struct Story: Codable, Sendable, SchemaDocumented {
        var id: String
        var author: String
        var authorUsername: String
        var postedAt: String
        var expiresAt: String
        var image: String
        var width: Int
        var height: Int
        var variants: Variants
        var blurhash: String
        var highlighted: Bool
        var seen: Bool
        var viewCount: Int?
        var video: StoryVideoJSON?
    }

    /// A video story's video.
    struct StoryVideoJSON: Codable, Sendable, SchemaDocumented {
        var media: String
        var duration: Double
        var fps: Double
        var bytes: Int
        var hasAudio: Bool
    }

    /// An account's live stories in the stories row.
    struct StoryAuthor: Codable, Sendable, SchemaDocumented {
        var user: User
        var stories: [Story]
        var hasUnseen: Bool
    }

    /// The stories row (`stories.schema.json`).
    struct StoriesRow: Codable, Sendable, SchemaDocumented {
        var authors: [StoryAuthor]
    }

    /// A profile's highlights (`highlights.schema.json`).
    struct Highlights: Codable, Sendable, SchemaDocumented {
        var stories: [Story]
    }
}

extension ResultJSON.Story: NamedResult {
    static let schemaName = "story"
    static let schemaDescription: String? =
        "A story: a photo shown for a day after postedAt (until expiresAt), or for as long as it is a highlight."
    static let memberDescriptions = [
        "image": "The photo's image id (its `full` variant): GET /v1/images/{image}.",
        "highlighted": "Whether its author keeps it on their profile (it does not expire).",
        "seen": "Whether the viewer has seen it (their own: true).",
        "viewCount": "How many have seen it: told to its author only.",
        "video": "A video story's video (absent for a photo's): it plays at GET /v1/videos/{media}; the photo is its "
            + "poster frame."
    ]
    static let memberSchemas: [String: JSONSchema] = [
        "id": ResultJSON.identifier, "author": ResultJSON.identifier, "postedAt": ResultJSON.timestamp,
        "expiresAt": ResultJSON.timestamp, "viewCount": JSONSchema.integer.with("minimum", 0)
    ]

    init(_ s: Timeline.Story) {
        id = s.id.rawValue
        author = s.author.rawValue
        authorUsername = s.authorUsername
        postedAt = JSONOutput.timestamp(s.postedAt)
        expiresAt = JSONOutput.timestamp(s.expiresAt)
        image = s.variants.full.rawValue
        width = s.width
        height = s.height
        variants = ResultJSON.Variants(s.variants)
        blurhash = s.blurhash
        highlighted = s.highlighted
        seen = s.seen
        viewCount = s.viewCount
        video = s.video.map {
            ResultJSON.StoryVideoJSON(
                media: $0.media.rawValue, duration: $0.file.seconds, fps: $0.file.fps, bytes: $0.file.bytes,
                hasAudio: $0.file.hasAudio)
        }
    }
}

extension ResultJSON.StoryVideoJSON: NamedResult {
    static let schemaName = "storyVideo"
    static let schemaDescription: String? =
        "A video story's video: an H.264 + AAC MP4, played at GET /v1/videos/{media}."
    static let memberDescriptions = [
        "media": "The video's media id.", "duration": "Its duration in seconds.", "fps": "Its frame rate.",
        "bytes": "The size of its MP4 file.", "hasAudio": "Whether it has a sound track."
    ]
    static let memberSchemas = ["media": ResultJSON.identifier, "bytes": ResultJSON.count(from: 1)]
}

extension ResultJSON.StoryAuthor {
    static let schemaDescription: String? = "An account's live stories, oldest first (the order they play in)."
    static let memberDescriptions = ["hasUnseen": "Whether the viewer has stories of theirs to see still."]

    init(_ a: Timeline.StoryAuthor) {
        user = ResultJSON.User(a.user)
        stories = a.stories.map(ResultJSON.Story.init)
        hasUnseen = a.hasUnseen
    }
}

extension ResultJSON.StoriesRow: NamedResult {
    static let schemaName = "stories"
    static let schemaDescription: String? =
        "The bearer's stories row: their own first, then the accounts they follow with live stories, those with "
        + "stories not seen yet first (newest unseen first), then the rest (newest first)."
}

extension ResultJSON.Highlights: NamedResult {
    static let schemaName = "highlights"
    static let schemaDescription: String? = "A profile's highlights (stories kept past their day), newest first."
}
