import JSONModel

/// A result type with a schema of its own: `schemas/results/<schemaName>.schema.json`, and the
/// OpenAPI component `<schemaName>`; other schemas refer to it by that name.
protocol NamedResult: Decodable {
    /// The schema's name.
    static var schemaName: String { get }
}

extension ResultJSON {
    /// An identifier (the envelope's definition).
    static let identifier = JSONSchema.reference("../envelope.schema.json#/$defs/identifier")
    /// A timestamp as `JSONOutput.timestamp` writes it.
    static let timestamp = JSONSchema.string(
        pattern: #"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$"#, format: "date-time")
    /// A count: an integer, at least `minimum`.
    static func count(from minimum: Int) -> JSONSchema { JSONSchema.integer.with("minimum", .integer(minimum)) }
    /// A reference to the named result `T`'s schema.
    static func reference<T: NamedResult>(_ type: T.Type) -> JSONSchema { .reference("\(T.schemaName).schema.json") }
    /// The description of a photo's `variants`.
    static let variantsDescription =
        "Image ids of the photo's variants (each served by GET /v1/images/{id}); null for "
        + "posts from before the image pipeline, whose single image is `image`."

    /// Every result that has a schema file: its name, its title and its schema (references
    /// relative to `schemas/results/`), in the files' name order.
    package static func schemas() throws -> [(name: String, title: String, schema: JSONSchema)] {
        func result<T: NamedResult>(_ type: T.Type, title: String? = nil) throws -> (String, String, JSONSchema) {
            (T.schemaName, title ?? "\(T.schemaName) (a result)", try JSONSchema.of(type))
        }
        let page = try JSONSchema.of(Page<User>.self).described(
            "One page of a paginated answer. The item schema depends on the query; the OpenAPI document names a page "
                + "type per item type (userPage, postPage, commentPage, activityPage).")
        let anyItems = JSONSchema.array(of: .any).json.setting("maxItems", 100).members.filter { $0.key != "items" }
        let list: [(String, String, JSONSchema)] = [
            try activityItem(), try result(AnnualReport.self), try result(App.self),
            try result(Changed.self), try result(Collection.self), try result(Collections.self),
            try result(Created.self), try result(Comment.self), try result(Contacts.self),
            try result(Conversation.self),
            try result(Failure.self), try result(Filters.self),
            try result(Follows.self), try result(Health.self, title: "health (the answer of /healthz and /readyz)"),
            try result(Image.self), try result(List.self), try result(Lists.self), try result(MastodonID.self),
            try result(Media.self),
            try result(Video.self), try result(StoryVideoJSON.self),
            try result(ModerationQueue.self), try result(NotificationPolicy.self), try result(NotificationRequest.self),
            try result(Servers.self),
            try result(Poll.self),
            (
                "page", "page (a result)",
                JSONSchema(
                    page.json.setting(
                        "properties",
                        page.json["properties"]!.setting("items", .object(anyItems))))
            ),
            try result(Post.self), try result(PostDetail.self), try result(ScheduledPost.self),
            try result(PostHistory.self, title: "A post's versions (postHistory)"),
            try result(PushSubscription.self, title: "A token's push subscription (GET /v1/me/push)"),
            try result(Session.self), try result(StreamTicket.self),
            try result(Suggestion.self, title: "suggestion (a result item)"),
            try result(Tag.self, title: "tag (a result item)"), try result(Token.self),
            try result(ImportJob.self), try result(ImportReportJSON.self), try result(ImportSkipped.self),
            try result(TwoFactorEnrollment.self), try result(RecoveryCodes.self), try result(TwoFactorStatus.self),
            try result(Story.self), try result(StoriesRow.self), try result(Highlights.self),
            try result(TrendingTag.self, title: "trendingTag (a result item)"),
            try result(User.self)
        ]
        return list.map { (name: $0.0, title: $0.1, schema: $0.2) }
    }

    /// The pages of the OpenAPI document, one per item type: name, schema (references relative
    /// to `schemas/results/`).
    package static func pages() throws -> [(name: String, schema: JSONSchema)] {
        func page<Item: NamedResult & Codable & Sendable>(_ name: String, _ item: Item.Type, _ description: String)
            throws
            -> (name: String, schema: JSONSchema)
        {
            (name, try JSONSchema.of(Page<Item>.self).described(description))
        }
        return [
            try page("userPage", User.self, "A page of users."),
            try page("postPage", Post.self, "A page of posts, newest first."),
            try page("commentPage", Comment.self, "A page of comments, oldest first."),
            try page(
                "conversationPage", Conversation.self,
                "A page of conversations of direct messages, the newest last message first."),
            try page("activityPage", ActivityItem.self, "A page of activity, newest first."),
            try page(
                "notificationRequestPage", NotificationRequest.self,
                "A page of notification requests, by account id descending."),
            try page(
                "suggestionPage", Suggestion.self,
                "A page of suggested users, the most followed by the bearer's follows first."),
            try page("tagPage", Tag.self, "A page of hashtags, in tag order."),
            try page(
                "scheduledPostPage", ScheduledPost.self,
                "A page of the bearer's scheduled posts, the latest scheduled first."),
            try page("trendingTagPage", TrendingTag.self, "A page of trending hashtags, the most used first.")
        ]
    }

    /// The activity item's schema, with what depends on its kind: a removal has a post and a
    /// reason and no actor; every other kind has an actor.
    private static func activityItem() throws -> (String, String, JSONSchema) {
        let schema = try JSONSchema.of(ActivityItem.self)
            .with("if", ["properties": ["kind": ["const": "removed"]]])
            .with(
                "then",
                [
                    "required": ["post", "reason"],
                    "not": ["anyOf": [["required": ["actor"]], ["required": ["actorUsername"]]]]
                ]
            )
            .with("else", ["required": ["actor", "actorUsername"]])
        return (ActivityItem.schemaName, "activityItem (a result)", schema)
    }

    /// `schema` as the file `schemas/results/<name>.schema.json` holds it: its `$schema`, `$id`
    /// and `title` first, then its description and the rest.
    package static func file(_ name: String, title: String, _ schema: JSONSchema) -> JSONValue {
        let head: [(key: String, value: JSONValue)] = [
            ("$schema", "https://json-schema.org/draft/2020-12/schema"),
            ("$id", .string("https://timeline.example/schemas/results/\(name).schema.json")),
            ("title", .string(title))
        ]
        let description = schema.json.members.filter { $0.key == "description" }
        return .object(head + description + schema.json.members.filter { $0.key != "description" })
    }
}

extension ResultJSON.User: NamedResult {
    static let schemaName = "user"
    static let schemaDescription: String? = "A user's public profile: a result of `timeline exec` and of the HTTP API."
    static let memberDescriptions = [
        "id": "The user's identifier.",
        "username": "Unique case-insensitively; stored lowercased.",
        "url": "An http or https URL.",
        "postCount": "Posts of this user that are not deleted.",
        "followerCount": "Users following this user.",
        "followingCount": "Users this user follows.",
        "followedByViewer": "Whether the viewer (the bearer) follows this user; present only when there is a viewer.",
        "blockedByViewer": "Whether the viewer (the bearer) blocks this user; present only when there is a viewer.",
        "mutedByViewer": "Whether the viewer (the bearer) mutes this user now; present only when there is a viewer.",
        "mutedUntil":
            "When the viewer's mute of this user ends by itself (ms since 1970); present only for a timed mute.",
        "discoverable": "Whether others may find this user by email (findContacts); present only in the user's own "
            + "profile (GET /v1/me, their own profile read with their bearer, and the answer to updateProfile).",
        "avatar": "The profile photo's squares (image ids), or null when the user has none.",
        "header": "The profile header's bands (image ids), or null when the user has none.",
        "unreadActivity": "How many of the user's activity items they have not read (counted up to 1000); only in "
            + "the user's own profile.",
        "locked": "Whether following the user needs their approval (a private account).",
        "requestedByViewer": "Whether the viewer asked to follow this locked account and awaits an answer; absent "
            + "without a viewer.",
        "notifiesViewer": "Whether the viewer asked to be notified of each of this user's posts (follow's notify); "
            + "absent without a viewer.",
        "noteByViewer": "The viewer's private note on this user (\"\" when none), seen only by its writer; absent "
            + "without a viewer.",
        "endorsedByViewer": "Whether the viewer features this user on their profile (endorse); absent without a "
            + "viewer.",
        "moderator": "Whether the user holds the moderator role; shown only to the user themself."
    ]
    static let memberSchemas = [
        "id": ResultJSON.identifier, "postCount": ResultJSON.count(from: 0), "followerCount": ResultJSON.count(from: 0),
        "followingCount": ResultJSON.count(from: 0), "unreadActivity": ResultJSON.count(from: 0)
    ]
}

extension ResultJSON.Avatar {
    static let memberDescriptions = [
        "large": "Image id of the 320 px square (GET /v1/images/{id}).", "small": "Image id of the 96 px square."
    ]
}

extension ResultJSON.Header {
    static let memberDescriptions = [
        "large": "Image id of the 1500×500 band (GET /v1/images/{id}).", "small": "Image id of the 600×200 band."
    ]
}

extension ResultJSON.Suggestion: NamedResult {
    static let schemaName = "suggestion"
    static let schemaDescription: String? =
        "Someone the viewer might follow (`suggestions`): followed by people the viewer follows."
    static let memberDescriptions = [
        "user": "The suggested user's profile, as the viewer sees it.",
        "followedByCount": "How many of the people the viewer follows follow this user (among those sampled: the "
            + "viewer's 200 most recent follows, 500 most recent follows of each); the list is ranked by it, then "
            + "by user id. 0 when the viewer's follows suggest nobody and the list is the most followed, then "
            + "most active, public accounts instead.",
        "followedBy": "Usernames of up to three of them, the viewer's most recent follows first (for \"followed by "
            + "@x and 2 others\")."
    ]
    static let memberSchemas = [
        "user": ResultJSON.reference(ResultJSON.User.self), "followedByCount": ResultJSON.count(from: 0),
        "followedBy": JSONSchema.array(of: .string).with("maxItems", 3)
    ]
}

extension ResultJSON.Post: NamedResult {
    static let schemaName = "post"
    static let schemaDescription: String? =
        "A post as lists, timelines and addPost give it: enough to draw its row without another request."
    static let memberDescriptions = [
        "id": "The post's identifier (time-sortable: newer posts sort after older ones).",
        "author": "The author's user id.",
        "authorUsername": "The author's username, to draw the row without another request.",
        "image":
            "The image id (the full variant for posts with variants): fetch the bytes from GET /v1/images/{image}. "
            + "Null for a direct message of text alone.",
        "addressees": "Whom a direct post addresses (the users its caption @mentioned when posted); present only "
            + "for a direct post.",
        "inReplyTo": "The direct post it answers in its conversation (addPost's inReplyTo); present only for such "
            + "an answer.",
        "hashtags": "The caption's hashtags without '#', lowercased, in order of first appearance.",
        "likeCount": "Likes of the post.",
        "commentCount": "Comments on the post (not deleted).",
        "createdAt": "When the post was added: RFC 3339, UTC, with milliseconds (2026-12-01T03:04:05.123Z).",
        "editedAt": "When the caption was last edited (RFC 3339, UTC); absent when never.",
        "likedByViewer": "Whether the viewer (the bearer) liked the post; present only when there is a viewer.",
        "width": "The full image's width in pixels after EXIF orientation, to lay out a row before it loads; null "
            + "for posts from before the image pipeline.",
        "height": "The full image's height in pixels after EXIF orientation; null for posts from before the image "
            + "pipeline.",
        "variants": ResultJSON.variantsDescription,
        "bookmarkedByViewer": "Whether the post is in the viewer's (the bearer's) bookmarks; present only when there "
            + "is a viewer.",
        "location": "Where the photo was taken; present only when the author said.",
        "sensitive": "Whether apps should blur the photo until the viewer asks to see it.",
        "warning": "The content warning to show over a sensitive photo; absent when none.",
        "visibility": "Who sees the post: everyone, or only its author's followers.",
        "media": "Its photos in order (an album); the first is `image`'s.",
        "filtered": "The viewer's warn and blur filters it matched where it was read; absent when none.",
        "poll": "The id of its poll (`GET /v1/polls/{poll}`); absent when it has none.",
        "boostCount": "Boosts of the post.",
        "boostedByViewer": "Whether the viewer (the bearer) boosted the post; present only when there is a viewer.",
        "boost": "In a home timeline, the boost by which the post came in (boosted by someone the viewer follows); "
            + "absent for the post itself. The timeline's cursors are the boost's id then."
    ]
    static let memberSchemas = [
        "id": ResultJSON.identifier, "author": ResultJSON.identifier, "image": ResultJSON.identifier.nullable,
        "addressees": JSONSchema.array(of: ResultJSON.identifier).with("uniqueItems", true),
        "poll": ResultJSON.identifier, "inReplyTo": ResultJSON.identifier,
        "hashtags": JSONSchema.array(of: JSONSchema.string.with("minLength", 1))
            .with("maxItems", .integer(Validation.maxHashtags)).with("uniqueItems", true),
        "likeCount": ResultJSON.count(from: 0), "commentCount": ResultJSON.count(from: 0),
        "createdAt": ResultJSON.timestamp, "editedAt": ResultJSON.timestamp,
        "width": ResultJSON.count(from: 1).nullable, "height": ResultJSON.count(from: 1).nullable,
        "location": JSONSchema.reference("../envelope.schema.json#/$defs/place"),
        "visibility": JSONSchema.enumeration(PostVisibility.allCases.map(\.rawValue)),
        "media": JSONSchema.array(of: ResultJSON.reference(ResultJSON.Media.self))
            .with("maxItems", .integer(MediaPolicy.maxPerPost)),
        "boostCount": ResultJSON.count(from: 0)
    ]
}

extension ResultJSON.Boost {
    static let schemaDescription: String? = "A boost: someone showed the post to their followers."
    static let memberDescriptions = [
        "id": "The boost's own id (time-sortable, as posts' ids).", "by": "Who boosted the post.",
        "byUsername": "The booster's username.", "at": "When they boosted it (RFC 3339, UTC).",
        "visibility": "Who sees the boost: public, unlisted or private (the booster's followers)."
    ]
    static let memberSchemas = [
        "id": ResultJSON.identifier, "by": ResultJSON.identifier, "at": ResultJSON.timestamp,
        "visibility": JSONSchema.enumeration(BoostVisibility.allCases.map(\.rawValue))
    ]
}

extension ResultJSON.FilterResult {
    static let memberDescriptions = [
        "filter": "The filter's id.", "title": "The filter's title.",
        "action": "warn: shown behind a warning naming the filter; blur: its photos hidden until asked.",
        "keywordMatches": "The text each matching keyword matched; absent when none did.",
        "statusMatches": "The post's id when the filter names it; absent otherwise."
    ]
    static let memberSchemas = [
        "filter": ResultJSON.identifier, "action": JSONSchema.enumeration(["warn", "blur"])
    ]
}

extension ResultJSON.Variants {
    static let memberDescriptions = [
        "full": "Long side at most 1080 px (the same as image).", "feed": "Long side at most 640 px.",
        "thumb": "320 px square, centre crop, for grids."
    ]
    static let memberSchemas = [
        "full": ResultJSON.identifier, "feed": ResultJSON.identifier, "thumb": ResultJSON.identifier
    ]
}

extension ResultJSON.Media: NamedResult {
    static let schemaName = "media"
    static let schemaDescription: String? =
        "A photo or a video: uploaded (uploadMedia, POST /v1/media; uploadVideo, POST /v1/videos) to be attached to "
        + "a post within a day, or one of a post's photos and videos (its `media`). A post given its one photo at "
        + "once has one, whose id is its image's and whose alt is null (its blurhash is null too for a post from "
        + "before blurhashes). A video's sizes, variants and blurhash are its poster frame's once it is transcoded "
        + "(null before); it plays at GET /v1/videos/{id}."
    static let memberDescriptions = [
        "video": "For a video (absent for a photo): where its transcoding stands and, once ready, what a player is "
            + "told of it.",
        "id": "The media id (what addPost's media takes).",
        "image": "The full variant's image id.",
        "width": "The full variant's width in pixels, after orientation (null for a photo from before the image "
            + "pipeline).",
        "height": "The full variant's height in pixels.",
        "variants": ResultJSON.variantsDescription,
        "blurhash": "The photo's colours as a BlurHash (4×4 components), for a placeholder while it loads.",
        "alt": "Its description for people who cannot see it."
    ]
    static let memberSchemas = [
        "id": ResultJSON.identifier, "image": ResultJSON.identifier,
        "width": ResultJSON.count(from: 1).nullable, "height": ResultJSON.count(from: 1).nullable,
        "blurhash": JSONSchema.string(pattern: #"^[0-9A-Za-z#$%*+,\-.:;=?@\[\]^_{|}~]{6,}$"#).nullable,
        "alt": JSONSchema.string.with("maxLength", .integer(MediaPolicy.maxAlt)).nullable
    ]
}

extension ResultJSON.Video: NamedResult {
    static let schemaName = "video"
    static let schemaDescription: String? =
        "A video's state: `processing` (uploaded, being transcoded: no post can hold it yet), `ready` (an H.264 + "
        + "AAC MP4, with its duration, frame rate, size and whether it has sound) or `failed` (with the reason)."
    static let memberDescriptions = [
        "state": "processing, ready or failed.",
        "duration": "Its duration in seconds (ready).",
        "fps": "Its frame rate in frames a second (ready).",
        "bytes": "The size of its MP4 file (ready).",
        "hasAudio": "Whether it has a sound track (ready).",
        "reason": "Why it could not be transcoded (failed)."
    ]
    static let memberSchemas = [
        "state": JSONSchema.enumeration(["processing", "ready", "failed"]),
        "duration": JSONSchema.number.with("minimum", .integer(0)),
        "fps": JSONSchema.number.with("minimum", .integer(0)),
        "bytes": ResultJSON.count(from: 1)
    ]
}

extension ResultJSON.PostDetail: NamedResult {
    static let schemaName = "postDetail"
    static let schemaDescription: String? =
        "The answer of the `post` query (GET /v1/posts/{post}): a post with its first page of comments and whether "
        + "the viewer liked it."
    static let memberDescriptions = ResultJSON.Post.memberDescriptions.merging([
        "likedByViewer": "Whether the viewer liked the post: always in exec's answer (false without a viewer); over "
            + "HTTP only with a bearer.",
        "comments": "The first page of comments, oldest first."
    ]) { $1 }
    static let memberSchemas = ResultJSON.Post.memberSchemas
}

extension ResultJSON.Comment: NamedResult {
    static let schemaName = "comment"
    static let schemaDescription: String? = "A comment on a post."
    static let memberDescriptions = [
        "id": "The comment's identifier.",
        "post": "The post it comments on.",
        "author": "The author's user id.",
        "authorUsername": "The author's username.",
        "createdAt": "When the comment was added: RFC 3339, UTC, with milliseconds.",
        "replyTo": "The comment it replies to (a top-level comment of the same post); absent for a top-level comment.",
        "filtered": "The viewer's warn and blur filters it matched in the thread; absent when none."
    ]
    static let memberSchemas = [
        "id": ResultJSON.identifier, "post": ResultJSON.identifier, "author": ResultJSON.identifier,
        "text": JSONSchema.string.with("minLength", 1), "createdAt": ResultJSON.timestamp,
        "replyTo": ResultJSON.identifier
    ]
}

extension ResultJSON.ActivityItem: NamedResult {
    static let schemaName = "activityItem"
    static let schemaDescription: String? =
        "Something that happened to a user: a comment or like on one of their posts, a new follower or a request to "
        + "follow (follow_request, until it is answered), or the removal of one of their posts by the operator "
        + "(kind removed: no actor, and the reason), or someone featuring them in a collection (added_to_collection)."
    static let memberDescriptions = [
        "id": "The item's id: its cursor (a page's `next`), and what markActivityRead takes as `upTo`.",
        "actor": "The user who commented, liked or followed (absent for removed: the operator is nobody in "
            + "particular).",
        "actorUsername": "The actor's username.",
        "post": "The post commented on, liked, removed, mentioned in or newly posted (absent for follow).",
        "comment": "The comment (kind comment only).",
        "at": "When, in milliseconds since 1970.",
        "createdAt": "When, as RFC 3339, UTC, with milliseconds (the same instant as `at`).",
        "reason": "Why the operator removed the post (kind removed only).",
        "collection": "The collection the actor featured the user in (kind added_to_collection only)."
    ]
    static let memberSchemas = [
        "kind": JSONSchema.enumeration(Timeline.ActivityItem.Kind.allCases.map(\.rawValue)),
        "actor": ResultJSON.identifier, "post": ResultJSON.identifier, "comment": ResultJSON.identifier,
        "collection": ResultJSON.identifier, "at": ResultJSON.count(from: 0), "createdAt": ResultJSON.timestamp
    ]
}

extension ResultJSON.Page: SchemaDocumented {
    /// The items (their schema a reference to the item's, for a named item) and the cursor.
    static var memberSchemas: [String: JSONSchema] {
        let item = (Item.self as? any NamedResult.Type).map { JSONSchema.reference("\($0.schemaName).schema.json") }
        return [
            "items": JSONSchema.array(of: item ?? .any).with("maxItems", .integer(PageRequest.maxLimit)),
            "next": JSONSchema.string.with("minLength", 1).nullable
        ]
    }
    /// What the cursor is.
    static var memberDescriptions: [String: String] {
        ["next": "The cursor of the next page (pass it as `before`), or null when the oldest item has been shown."]
    }
}

extension ResultJSON.PostHistory: NamedResult {
    static let schemaName = "postHistory"
    static let memberDescriptions = ["versions": "Every version of the caption, the first first (newest last)."]
}

extension ResultJSON.PostHistory.Version {
    static let memberDescriptions = ["createdAt": "When this version was made."]
    static let memberSchemas = ["createdAt": ResultJSON.timestamp]
}

extension ResultJSON.Image: NamedResult {
    static let schemaName = "image"
    static let schemaDescription: String? =
        "The answer of the `image` query in `timeline exec` (HTTP sends the bytes themselves)."
    static let memberDescriptions = ["image": "The image id (its content hash)."]
    static let memberSchemas = [
        "image": ResultJSON.identifier, "mediaType": JSONSchema.enumeration(MediaType.allCases.map(\.rawValue)),
        "data": JSONSchema.string.with("contentEncoding", "base64")
    ]
}

extension ResultJSON.ModerationQueue: NamedResult {
    static let schemaName = "moderationQueue"
    static let schemaDescription: String? = "The moderators' report queue: reported posts and reported accounts."
}

extension ResultJSON.ModerationQueue.ReportedPost {
    static let memberDescriptions = [
        "hidden": "Whether the reports hide the post from everyone but its author.",
        "preview": "The post as it stands, whatever hides it."
    ]
    static let memberSchemas = [
        "post": ResultJSON.identifier, "count": ResultJSON.count(from: 1),
        "reporters": JSONSchema.array(of: ResultJSON.identifier),
        "preview": JSONSchema.oneOf([.null, ResultJSON.reference(ResultJSON.Post.self)])
    ]
}

extension ResultJSON.ModerationQueue.ReportedAccount {
    static let memberDescriptions = ["posts": "The account's posts the reports name."]
    static let memberSchemas = [
        "user": ResultJSON.identifier, "count": ResultJSON.count(from: 1),
        "reporters": JSONSchema.array(of: ResultJSON.identifier), "posts": JSONSchema.array(of: ResultJSON.identifier)
    ]
}

extension ResultJSON.Session: NamedResult {
    static let schemaName = "session"
    static let schemaDescription: String? =
        "The answer of createUser over HTTP and of signIn: a bearer session token and the signed-in user."
    static let memberDescriptions = ["session": "Send as `Authorization: Bearer <session>`."]
    static let memberSchemas = [
        "session": JSONSchema.string.with("minLength", 1), "user": ResultJSON.reference(ResultJSON.User.self)
    ]
}

extension ResultJSON.Created: NamedResult {
    static let schemaName = "created"
    static let schemaDescription: String? =
        "A record made that has no read of its own, by its new id (addInstanceRule, addAnnouncement; operator only)."
    static let memberSchemas = ["id": JSONSchema.identifier]
}

extension ResultJSON.Changed: NamedResult {
    static let schemaName = "changed"
    static let schemaDescription: String? =
        "The answer of follow, unfollow, like, unlike, bookmark, unbookmark, block, unblock and reportPost: false "
        + "when nothing changed (idempotent repeat)."
}

extension ResultJSON.Follows: NamedResult {
    static let schemaName = "follows"
    static let schemaDescription: String? = "The answer of the `follows` query."
}

extension ResultJSON.MastodonID: NamedResult {
    static let schemaName = "mastodonId"
    static let schemaDescription: String? =
        "The answer of the `mastodonId` query: the object's id in the Mastodon API, the decimal text of a 64-bit "
        + "number (its creation's milliseconds since 1970 in the high 48 bits)."
}

extension ResultJSON.TrendingTag: NamedResult {
    static let schemaName = "trendingTag"
    static let schemaDescription: String? =
        "A hashtag trending now (`trendingTags`): used by at least two accounts in public posts over the last two "
        + "days."
    static let memberDescriptions = [
        "name": "The hashtag, normalised, without #.",
        "history": "Its last seven days, today first: `day` (the day's start, 00:00 UTC), `uses` (public posts "
            + "with it that day), `accounts` (how many accounts posted them)."
    ]
}

extension ResultJSON.Servers: NamedResult {
    static let schemaName = "servers"
    static let schemaDescription: String? =
        "The answer of `blockedServers`: the servers the acting user blocks (`blockAccountDomain`), by host (with "
        + "its port, if it has one), in order (not paged)."
    static let memberSchemas = ["servers": JSONSchema.array(of: JSONSchema.string.with("minLength", 1))]
}

extension ResultJSON.Contacts: NamedResult {
    static let schemaName = "contacts"
    static let schemaDescription: String? =
        "The answer of `findContacts`: the discoverable users among the emails given, in the emails' order, each "
        + "once (not paged). A non-discoverable user's email is answered exactly as an unknown one: by its absence."
    static let memberSchemas = [
        "users": JSONSchema.array(of: ResultJSON.reference(ResultJSON.User.self))
            .with("maxItems", .integer(TimelineService.maxContactEmails))
    ]
}

extension ResultJSON.Tag: NamedResult {
    static let schemaName = "tag"
    static let schemaDescription: String? = "A hashtag with a post the viewer may see (`tags`)."
    static let memberDescriptions = ["name": "The tag, folded to lower case, without `#`."]
    static let memberSchemas = ["name": JSONSchema.string.with("minLength", 1)]
}

extension ResultJSON.Token: NamedResult {
    static let schemaName = "token"
    static let schemaDescription: String? = "A one-time token (requestPasswordReset, operator only)."
    static let memberSchemas = ["token": JSONSchema.string.with("minLength", 1)]
}

extension ResultJSON.TwoFactorEnrollment: NamedResult {
    static let schemaName = "twoFactorEnrollment"
    static let schemaDescription: String? =
        "An authenticator app's enrolment (enrollTwoFactor), shown once: confirm it with a first code."
    static let memberDescriptions = [
        "secret": "The secret, base32 (RFC 4648), for an app that cannot scan.",
        "otpauthURI": "The otpauth://totp/ URI of the secret (SHA1, 6 digits, 30 s).",
        "qrCode": "A QR code of otpauthURI: a PNG, base64."
    ]
    static let memberSchemas = [
        "secret": JSONSchema.string(pattern: "^[A-Z2-7]{32}$"),
        "otpauthURI": JSONSchema.string(pattern: "^otpauth://totp/"),
        "qrCode": JSONSchema.string.with("contentEncoding", "base64").with("contentMediaType", "image/png")
    ]
}

extension ResultJSON.TwoFactorStatus: NamedResult {
    static let schemaName = "twoFactorStatus"
    static let schemaDescription: String? = "Whether the bearer's two-factor sign-in is on (GET /v1/me/two-factor)."
    static let memberDescriptions = [
        "enabled": "Whether a sign-in needs a one-time code (an enrolment not yet confirmed is not).",
        "recoveryCodesLeft": "How many recovery codes are not used yet (0 when off)."
    ]
    static let memberSchemas = ["recoveryCodesLeft": JSONSchema.integer.with("minimum", 0).with("maximum", 10)]
}

extension ResultJSON.ImportJob: NamedResult {
    static let schemaName = "import"
    static let schemaDescription: String? =
        "An import the server runs for the bearer (POST /v1/me/imports: an Instagram export): how far it is, and, "
        + "once it ended, what it did or why it failed. Kept while the server runs; importing the same export "
        + "again adds nothing."
    static let memberDescriptions = [
        "id": "The import's id (GET /v1/me/imports/{import}).",
        "state": "running, done or failed.",
        "done": "Items (photos, videos, posts) done so far.",
        "total": "Items to do (0 until the archive was read through once).",
        "report": "What it did (done).", "error": "Why it failed (failed)."
    ]
    static let memberSchemas = [
        "state": JSONSchema.enumeration(ImportProgress.State.allCases.map(\.rawValue)),
        "done": ResultJSON.count(from: 0), "total": ResultJSON.count(from: 0)
    ]
}

extension ResultJSON.ImportReportJSON: NamedResult {
    static let schemaName = "importReport"
    static let schemaDescription: String? =
        "What an import did: records added and already there, by kind (posts, profile), and what it skipped, by reason."
}

extension ResultJSON.ImportSkipped: NamedResult {
    static let schemaName = "importSkipped"
    static let schemaDescription: String? = "Records an import skipped for one reason, with up to three of their paths."
}

extension ResultJSON.RecoveryCodes: NamedResult {
    static let schemaName = "recoveryCodes"
    static let schemaDescription: String? =
        "Two-factor sign-in's ten recovery codes (confirmTwoFactor), shown once: each signs in once in place of a code."
    static let memberSchemas = [
        "recoveryCodes": JSONSchema.array(of: JSONSchema.string(pattern: "^[a-z2-7]{4}(-[a-z2-7]{4}){3}$"))
            .with("minItems", 10).with("maxItems", 10)
    ]
}

extension ResultJSON.Failure: NamedResult {
    static let schemaName = "error"
    static let schemaDescription: String? =
        "A failure: the body of every HTTP error response (in `timeline exec` the `error` member of a failed line)."
}

extension ResultJSON.Failure.Detail {
    static let memberDescriptions = [
        "message": "For people, not programs: may change.",
        "field": "The field, path or query parameter at fault (invalid_argument, username_taken, email_taken)."
    ]
    static let memberSchemas = [
        "code": JSONSchema.enumeration(TimelineError.Code.allCases.map(\.rawValue))
    ]
}

extension ResultJSON.StreamTicket: NamedResult {
    static let schemaName = "streamTicket"
    static let schemaDescription: String? =
        "A short-lived, single-use ticket for GET /v1/stream?ticket=… (browsers' EventSource cannot send headers)."
    static let memberDescriptions = ["expiresIn": "Seconds until the ticket expires."]
    static let memberSchemas = [
        "ticket": JSONSchema.string.with("minLength", 1), "expiresIn": ResultJSON.count(from: 1)
    ]
}

extension ResultJSON.PushSubscription: NamedResult {
    static let schemaName = "pushSubscription"
    static let memberDescriptions = [
        "endpoint": "The push service's https URL.",
        "standard": "aes128gcm (RFC 8291).",
        "alerts": "The notification types pushed (Mastodon's alert names).",
        "serverKey": "The server's VAPID public key (base64url): the applicationServerKey to subscribe with."
    ]
    static let memberSchemas = ["policy": JSONSchema.enumeration(PushPolicy.allCases.map(\.rawValue))]
}

extension ResultJSON.App: NamedResult, SchemaDocumented {
    static let schemaName = "app"
    static let schemaDescription: String? =
        "An OAuth app (the answer of registerApp in `timeline exec`): its client id, and its client secret this once."
    static let memberDescriptions = [
        "id": "The app's client_id.",
        "redirectUris": "Where an authorization may send its code.",
        "scopes": "The scopes it may ask for.",
        "clientSecret": "Its client secret, answered this once (only its hash is kept)."
    ]
    static let memberSchemas = ["id": JSONSchema.string.with("minLength", 1)]
}

extension ResultJSON.Health: NamedResult, SchemaDocumented {
    static let schemaName = "health"
    static let schemaDescription: String? = "The answer of /healthz and /readyz."
    static let memberDescriptions = [
        "status": "ok, or why the server is not ready.",
        "behind": "How many logged events the read models have yet to apply (/readyz while catching up)."
    ]
    static let memberSchemas = ["behind": ResultJSON.count(from: 1)]
}
