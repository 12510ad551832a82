import Timeline

/// What a route promises its clients: the part of the route table that the OpenAPI document
/// (`OpenAPI.document`) is generated from. Statuses of errors come from their codes
/// (`TimelineError.Code.httpStatus`), limits from `Validation` and the services' constants.
struct Operation: Sendable {
    /// The OpenAPI `operationId`: the command or query's name where the route runs one.
    var id: String
    /// One line: what the operation does.
    var summary: String
    var tag: Tag
    /// More than the summary says (errors particular to it, semantics), if anything.
    var description: String? = nil
    /// The status and body of success.
    var answer: Answer
    /// The error codes the operation may answer beyond those of every operation
    /// (`invalid_argument`, `internal`, and `unauthenticated` where a bearer may be sent).
    var errors: [TimelineError.Code] = []
    /// The path, query and header parameters (the page's `limit` and `before` come with `paged`).
    var parameters: [Parameter] = []
    /// Whether the answer is a page (`limit` and `before` parameters, a `Link` header).
    var paged = false
    /// The request's body, if it takes one.
    var body: RequestBody? = nil
    /// Answers besides success and the errors (a `304`, a `503`).
    var otherAnswers: [(status: Int, answer: Answer)] = []

    /// The errors of a command that takes a body: too large, not JSON, or a full disk.
    static let writeErrors: [TimelineError.Code] = [.payloadTooLarge, .unsupportedMediaType, .storageFull]
}

/// A success (or other non-error) answer.
struct Answer: Sendable {
    /// Its status code.
    var status: Int
    /// What the answer means.
    var description: String
    /// Its body, by media type (none for an empty answer).
    var content: [(mediaType: String, schema: BodySchema)] = []
    var headers: [ResponseHeader] = []

    /// A JSON body of the component schema `schema`.
    static func json(_ description: String, _ schema: String, status: Int = 200, headers: [ResponseHeader] = [])
        -> Answer
    {
        Answer(
            status: status, description: description, content: [("application/json", .component(schema))],
            headers: headers)
    }

    /// No body.
    static func empty(_ status: Int = 204) -> Answer { Answer(status: status, description: "Done.") }
}

/// The schema of a body (or of a body's part).
enum BodySchema: Sendable {
    /// A schema of `components/schemas`.
    case component(String)
    /// Bytes (an image).
    case binary
    /// Text (a stream of events).
    case text
    /// Any JSON object.
    case object
}

/// A header an answer carries (`components/headers`).
enum ResponseHeader: String, CaseIterable, Sendable {
    case link = "Link"
    case location = "Location"
    case eTag = "ETag"
    case cacheControl = "Cache-Control"
    case retryAfter = "Retry-After"
    case acceptRanges = "Accept-Ranges"
    case contentRange = "Content-Range"
}

/// A request body.
enum RequestBody: Sendable {
    /// The JSON fields of the command `command` (its exec schema without the exec-only fields
    /// and the fields `path` gives), as the component `<command>Request`.
    case command(String, path: [String] = [], description: String? = nil)
    /// The emails of `findContacts`.
    case contacts
    /// A photo post: multipart (the image's bytes and the other fields) or JSON (the image in base64).
    case photoPost
    /// A photo uploaded to attach later: multipart (the image's bytes and its alt text) or JSON (`uploadMedia`).
    case mediaUpload
    /// A profile image (the photo, or the header): the image itself, or multipart with one part, `image`.
    case avatar
    /// A story's photo: multipart (one part, `media`) or JSON (`postStory`).
    case storyUpload
    /// A video: multipart (the file in the part `video`, and `alt`) or JSON (`uploadVideo`).
    case videoUpload
    /// An archive to import: multipart, the zip in the part `archive`.
    case archiveUpload
}

/// A parameter of the path, query or headers (`components/parameters`).
enum Parameter: String, CaseIterable, Sendable {
    case limit, before, prefix, user, post, comment, image, media, latitude, longitude, radiusKm, variant, tag, ticket,
        types, order, filter, keyword, filterStatus, poll, list, collection, item, conversation, scheduledPost, year,
        story, host
    case importJob = "import"
    case lastEventID = "Last-Event-ID"
    case ifNoneMatch = "If-None-Match"
    case range = "Range"
}

/// The groups of operations (OpenAPI tags), in the document's order.
enum Tag: String, CaseIterable, Sendable {
    case account, users, posts, comments, likes, bookmarks, blocks, mutes, filters, lists, collections, conversations,
        feeds, images, stream, moderation,
        operations

    var description: String {
        switch self {
        case .account: "Sign-up, sessions and the bearer's own account."
        case .users: "Profiles, search, followers and following."
        case .posts: "Posting photos, post detail, deleting and reporting."
        case .comments: "Comments on posts."
        case .likes: "Likes of posts."
        case .bookmarks: "Posts a user saved for later, visible only to them."
        case .blocks: "Users a user blocks, visible only to them."
        case .mutes: "Users a user mutes (their posts and doings hidden from them), visible only to them."
        case .filters: "A user's filters: muted words and posts, warned, hidden or blurred where they surface."
        case .lists:
            "The bearer's lists of people they follow, each read as a timeline of its own, visible only to them."
        case .collections:
            "Collections of accounts their owners feature (Mastodon's collections), and the featured accounts' say."
        case .conversations:
            "Direct messages: posts seen only by their author and the users they @mention, in conversations."
        case .feeds: "Home timeline, hashtags and activity."
        case .images: "Image and video bytes."
        case .moderation:
            "The moderators' report queue and what they decide (the `moderator` role, which the operator grants)."
        case .stream: "Live updates (Server-Sent Events)."
        case .operations:
            "Health, readiness and this document (the Prometheus metrics are on the operator's own listener, "
                + "`timeline serve --metrics-listen`)."
        }
    }
}
