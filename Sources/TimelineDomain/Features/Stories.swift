import JSONModel

// Stories: a photo or a video that disappears after 24 hours (`StoryPolicy.lifetime`), unless its author
// keeps it as a highlight on their profile. `postStory` records `StoryPosted` (the photo as the
// image pipeline made it); `postVideoStory` records it of a video uploaded and transcoded before
// (`uploadVideo`): the story holds the video, its poster frame standing as its photo; `viewStory` records `StoryViewed` once per viewer (the author sees who
// viewed); `replyToStory` records a direct message to the author (`PostAdded`, as `addPost` with
// `visibility: direct` decides it); `highlightStory` / `unhighlightStory` record
// `StoryHighlighted` / `StoryUnhighlighted`; `deleteStory` records `StoryDeleted`. Expiry is
// read: nothing is written when a story's day passes. The server's sweep (`expireStory`, the
// operator's) then records `StoryExpired` for a story that is past its day and not a highlight,
// which lets its photo go. Who may see a story is `Privacy`'s, on the `stories` surface: its
// author's posts' rules (a locked account's for its followers; blocks and mutes hide it).

/// A story's identifier.
public struct StoryID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Stories' fixed terms.
package enum StoryPolicy {
    /// How long a story shows (ms): a day.
    package static let lifetime: Int64 = 24 * 3600 * 1000
}

/// A video story's video: its media (the file is played from the video store under its id) and
/// what a player is told of it.
public struct StoryVideo: Equatable, Sendable, Codable {
    /// The video's media id.
    public var media: MediaID
    /// The transcoded file.
    public var file: VideoFile
    /// A story's video.
    public init(media: MediaID, file: VideoFile) {
        self.media = media
        self.file = file
    }

    /// Writes it, or that there is none: 0, or 1 ‖ media ‖ file (an event's or a record's part).
    package static func encode(_ video: StoryVideo?, to w: inout ByteWriter) {
        guard let video else { return w.u8(0) }
        w.u8(1)
        w.string(video.media.rawValue)
        video.file.encode(to: &w)
    }

    /// Reads what `encode` wrote.
    package static func decode(from r: inout ByteReader) throws -> StoryVideo? {
        guard try r.u8() == 1 else { return nil }
        return StoryVideo(media: MediaID(try r.string()), file: try VideoFile(from: &r))
    }
}

/// The payload of `StoryPosted`: a story's photo, as the image pipeline produced it (for a video
/// story, its video's poster frame, and the video).
public struct StoryPosted: Equatable, Sendable {
    /// The story concerned.
    public var storyId: StoryID
    /// Its author.
    public var authorId: UserID
    /// Its `full` variant's width in pixels.
    public var width: Int
    /// Its `full` variant's height in pixels.
    public var height: Int
    /// The variants produced.
    public var variants: ImageVariants
    /// Its colours as a BlurHash.
    public var blurhash: String
    /// For a video story, its video (version 2).
    public var video: StoryVideo?
    /// A `StoryPosted` payload.
    public init(
        storyId: StoryID, authorId: UserID, width: Int, height: Int, variants: ImageVariants, blurhash: String,
        video: StoryVideo? = nil
    ) {
        self.video = video
        self.storyId = storyId
        self.authorId = authorId
        self.width = width
        self.height = height
        self.variants = variants
        self.blurhash = blurhash
    }
}

extension StoryPosted: EventPayload {
    /// The aggregate `StoryPosted` events belong to: the user stream of `authorId`.
    package var stream: String { StreamName.user(authorId) }
    /// Every user a `StoryPosted` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The images stored with a `StoryPosted` event (a cluster node ships them with it): a
    /// photo story's (a video story's poster was stored with its `VideoProcessed`).
    package var storedImages: [ImageID] { video == nil ? variants.all : [] }
    /// Version 2 adds the video of a video story.
    package static var currentVersion: UInt8 { 2 }

    /// Writes a `StoryPosted` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(storyId.rawValue)
        w.string(authorId.rawValue)
        w.int(width)
        w.int(height)
        w.variants(variants)
        w.string(blurhash)
        StoryVideo.encode(video, to: &w)
    }

    /// Reads a stored `StoryPosted` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let story = StoryID(try r.string()), author = UserID(try r.string())
        let width = try r.int(), height = try r.int()
        let variants = try r.variants()
        let blurhash = try r.string()
        let video = opener.version >= 2 ? try StoryVideo.decode(from: &r) : nil
        self.init(
            storyId: story, authorId: author, width: width, height: height, variants: variants, blurhash: blurhash,
            video: video)
    }

    /// A one-line human summary of a `StoryPosted` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) posted story \(storyId)"
    }
}

/// The payload of `StoryViewed`: `viewerId` saw the story (recorded once per viewer).
public struct StoryViewed: Equatable, Sendable {
    /// The story concerned.
    public var storyId: StoryID
    /// Its author (who sees who viewed it).
    public var authorId: UserID
    /// Who saw it.
    public var viewerId: UserID
    /// A `StoryViewed` payload.
    public init(storyId: StoryID, authorId: UserID, viewerId: UserID) {
        self.storyId = storyId
        self.authorId = authorId
        self.viewerId = viewerId
    }
}

extension StoryViewed: EventPayload {
    /// The aggregate `StoryViewed` events belong to: the user stream of `viewerId`.
    package var stream: String { StreamName.user(viewerId) }
    /// Every user a `StoryViewed` payload names: the author and the viewer.
    package var users: [UserID] { [authorId, viewerId] }
    /// Writes a `StoryViewed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(storyId.rawValue)
        w.string(authorId.rawValue)
        w.string(viewerId.rawValue)
    }
    /// Reads a stored `StoryViewed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(storyId: StoryID(try r.string()), authorId: UserID(try r.string()), viewerId: UserID(try r.string()))
    }
    /// A one-line human summary of a `StoryViewed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(viewerId)) viewed \(name(authorId))'s story \(storyId)"
    }
}

/// The payload of `StoryHighlighted`, `StoryUnhighlighted`, `StoryDeleted` and `StoryExpired`.
public struct StoryChange: Equatable, Sendable {
    /// The story concerned.
    public var storyId: StoryID
    /// Its author.
    public var authorId: UserID
    /// A `StoryChange` payload.
    public init(storyId: StoryID, authorId: UserID) {
        self.storyId = storyId
        self.authorId = authorId
    }
}

extension StoryChange: EventPayload {
    /// The aggregate these events belong to: the user stream of `authorId`.
    package var stream: String { StreamName.user(authorId) }
    /// Every user a `StoryChange` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// What each event type carrying the payload records.
    package static var eventDescriptions: [EventType: String] {
        [
            .storyHighlighted: "The author keeps the story on their profile as a highlight: it does not expire.",
            .storyUnhighlighted: "The story is no longer a highlight (past its day, it expires).",
            .storyDeleted: "The author deleted the story (its photo goes with it).",
            .storyExpired: "The story's day passed and it is no highlight: its photo goes (the server's sweep)."
        ]
    }
    /// Writes a `StoryChange` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(storyId.rawValue)
        w.string(authorId.rawValue)
    }
    /// Reads a stored `StoryChange` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(storyId: StoryID(try r.string()), authorId: UserID(try r.string()))
    }
    /// A one-line human summary of an event carrying a `StoryChange`.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        let what =
            switch type {
            case .storyHighlighted: "highlighted"
            case .storyUnhighlighted: "unhighlighted"
            case .storyDeleted: "deleted"
            default: "let expire"
            }
        return "\(name(authorId)) \(what) story \(storyId)"
    }
}

/// A story as deciding and reading see it.
package struct StoryRecord: Equatable, Sendable {
    /// The story.
    package var id: StoryID
    /// Its author.
    package var author: UserID
    /// When it was posted (ms since 1970).
    package var postedAt: Int64
    /// Its photo's `full` width and height in pixels.
    package var width: Int, height: Int
    /// Its photo's variants.
    package var variants: ImageVariants
    /// Its photo's BlurHash.
    package var blurhash: String
    /// Whether its author keeps it as a highlight.
    package var highlighted: Bool
    /// A video story's video.
    package var video: StoryVideo?

    /// A record with these fields.
    package init(
        id: StoryID, author: UserID, postedAt: Int64, width: Int, height: Int, variants: ImageVariants,
        blurhash: String, highlighted: Bool = false, video: StoryVideo? = nil
    ) {
        self.video = video
        self.id = id
        self.author = author
        self.postedAt = postedAt
        self.width = width
        self.height = height
        self.variants = variants
        self.blurhash = blurhash
        self.highlighted = highlighted
    }

    /// When its day ends (ms since 1970).
    package var expiresAt: Int64 { postedAt + StoryPolicy.lifetime }
    /// Whether it shows in the stories row at `now` (within its day).
    package func isLive(at now: Int64) -> Bool { now < expiresAt }
    /// Whether it shows at all at `now`: within its day, or as a highlight.
    package func isShown(at now: Int64) -> Bool { highlighted || isLive(at: now) }
}

extension Decider {
    /// Posts the photo the pipeline produced as a story of `me`'s.
    func postStory(by me: UserRecord) throws -> Decision {
        let photo = try processedPhoto(by: me)
        let event = StoryPosted(
            storyId: StoryID(context.newID()), authorId: me.id, width: photo.width, height: photo.height,
            variants: photo.variants, blurhash: photo.blurhash)
        return Decision(events: [.storyPosted(event)], blobs: photo.blobs, outcome: .success(.story(event.storyId)))
    }

    /// Posts `me`'s video `raw` (uploaded, transcoded, in no post or story) as a story: its
    /// poster frame stands as its photo.
    func postVideoStory(_ raw: String, by me: UserRecord) throws -> Decision {
        let media = try ownMedia(raw, of: me, field: "video")
        guard case .ready(let file) = media.video else {
            throw TimelineError.invalid(
                "video", "media \(media.id) is not a video ready to be shown (it may be processing)")
        }
        guard media.post == nil, media.story == nil, try state.scheduledPost(holding: media.id) == nil else {
            throw TimelineError.invalid(
                "video", "the video \(media.id) is already in a post, a story or a scheduled post")
        }
        let event = StoryPosted(
            storyId: StoryID(context.newID()), authorId: me.id, width: media.width, height: media.height,
            variants: media.variants, blurhash: media.blurhash, video: StoryVideo(media: media.id, file: file))
        return Decision(events: [.storyPosted(event)], outcome: .success(.story(event.storyId)))
    }

    /// The story `raw` as `me` may see it: shown (live, or a highlight) and its author's stories
    /// reach them (`Privacy` on `stories`; mutes do not stop acting); `not_found` otherwise.
    private func shownStory(_ raw: String, to me: UserRecord) throws -> StoryRecord {
        let id: StoryID = try Validation.identifier(raw, field: "story")
        guard let story = try state.story(id), story.isShown(at: context.now) else {
            throw TimelineError.notFound("story", id.rawValue)
        }
        let privacy = Privacy(viewer: me.id, mutes: [], reportThreshold: .max, state: state)
        guard try privacy.mayShow(postsBy: story.author, on: .stories) else {
            throw TimelineError.notFound("story", id.rawValue)
        }
        return story
    }

    /// `me`'s own story `raw` (another's, or none, is `not_found`).
    private func ownStory(_ raw: String, of me: UserRecord) throws -> StoryRecord {
        let id: StoryID = try Validation.identifier(raw, field: "story")
        guard let story = try state.story(id), story.author == me.id else {
            throw TimelineError.notFound("story", id.rawValue)
        }
        return story
    }

    /// Marks the story seen by `me` (once; the author's own views are not recorded).
    func viewStory(_ raw: String, by me: UserRecord) throws -> Decision {
        let story = try shownStory(raw, to: me)
        guard story.author != me.id, try !state.hasViewed(story.id, me.id) else {
            return Decision(outcome: .success(.changed(false)))
        }
        let event = StoryViewed(storyId: story.id, authorId: story.author, viewerId: me.id)
        return Decision(events: [.storyViewed(event)], outcome: .success(.changed(true)))
    }

    /// Answers the story with a direct message to its author (decided as `addPost` decides a
    /// direct message that mentions them).
    func replyToStory(_ raw: String, text: String, by me: UserRecord) throws -> Decision {
        let story = try shownStory(raw, to: me)
        guard story.author != me.id else { throw TimelineError.invalid("story", "a story of one's own") }
        guard let author = try state.user(story.author) else { throw TimelineError.notFound("story", raw) }
        let text = try Validation.caption(text)
        guard !text.isEmpty else { throw TimelineError.invalid("text", "a reply says something") }
        return try addPost(
            photos: .none, caption: "@\(author.username) \(text)", location: nil, visibility: .direct, by: me)
    }

    /// Keeps (`keep`) or lets go of `me`'s story as a highlight; one already so changes nothing.
    func highlightStory(_ raw: String, keep: Bool, by me: UserRecord) throws -> Decision {
        let story = try ownStory(raw, of: me)
        guard story.highlighted != keep else { return Decision(outcome: .success(.changed(false))) }
        let change = StoryChange(storyId: story.id, authorId: me.id)
        return Decision(
            events: [keep ? .storyHighlighted(change) : .storyUnhighlighted(change)], outcome: .success(.changed(true)))
    }

    /// Deletes `me`'s story (a highlight too).
    func deleteStory(_ raw: String, by me: UserRecord) throws -> Decision {
        let story = try ownStory(raw, of: me)
        return Decision(
            events: [.storyDeleted(StoryChange(storyId: story.id, authorId: me.id))], outcome: .success(.done))
    }

    /// The server's sweep: a story past its day and not a highlight lets its photo go. One
    /// gone is `not_found` (nothing appended: another node's sweep did it); one still shown is
    /// `invalid_argument`.
    func expireStory(_ raw: String, actor: Actor) throws -> Decision {
        try requireOperator(actor, "expire a story")
        let id: StoryID = try Validation.identifier(raw, field: "story")
        guard let story = try state.story(id) else { throw TimelineError.notFound("story", id.rawValue) }
        guard !story.isShown(at: context.now) else {
            throw TimelineError.invalid("story", "the story still shows (its day has not passed, or it is a highlight)")
        }
        return Decision(
            events: [.storyExpired(StoryChange(storyId: id, authorId: story.author))], outcome: .success(.done))
    }
}

// MARK: - Commands

/// `postStory`: posts a photo as a story of the acting user's for a day.
package struct PostStoryCommand: OneFieldCommand {
    /// The command's public name, `postStory`, and its one field, `media`.
    package static let name = "postStory", field = "media"
    /// The `media` field: the photo, base64 (over HTTP, the multipart part `media`).
    package let value: String
    /// A `postStory` command with the photo `value`.
    package init(value: String) { self.value = value }
    /// Decides `postStory` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.postStory(by: $0) }
    }
}

/// `postVideoStory`: posts one of the acting user's videos (`uploadVideo`, once transcoded) as a
/// story of theirs for a day.
package struct PostVideoStoryCommand: OneFieldCommand {
    /// The command's public name, `postVideoStory`, and its one field, `video`.
    package static let name = "postVideoStory", field = "video"
    /// The `video` field: the video's media id.
    package let value: String
    /// A `postVideoStory` command of the video `value`.
    package init(value: String) { self.value = value }
    /// Decides `postVideoStory` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.postVideoStory(value, by: $0) }
    }
}

/// `viewStory`: marks a story seen by the acting user.
package struct ViewStoryCommand: OneFieldCommand {
    /// The command's public name, `viewStory`, and its one field, `story`.
    package static let name = "viewStory", field = "story"
    /// The `story` field.
    package let value: String
    /// A `viewStory` command naming `value`.
    package init(value: String) { self.value = value }
    /// Decides `viewStory` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.viewStory(value, by: $0) }
    }
}

/// `replyToStory`: answers a story with a direct message to its author.
package struct ReplyToStoryCommand: CommandDefinition {
    /// The command's public name, `replyToStory`.
    package static let name = "replyToStory"
    /// The `story` field.
    package let story: String
    /// The `text` field.
    package let text: String
    /// A `replyToStory` command with these fields.
    package init(story: String, text: String) {
        self.story = story
        self.text = text
    }
    /// Reads `replyToStory`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        story = try fields.string("story")
        text = try fields.string("text")
    }
    /// Writes `replyToStory`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("story", story)
        fields.set("text", text)
    }
    /// Decides `replyToStory` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.replyToStory(story, text: text, by: $0) }
    }
}

/// `highlightStory`: keeps one's story on one's profile (it does not expire).
package struct HighlightStoryCommand: OneFieldCommand {
    /// The command's public name, `highlightStory`, and its one field, `story`.
    package static let name = "highlightStory", field = "story"
    /// The `story` field.
    package let value: String
    /// A `highlightStory` command naming `value`.
    package init(value: String) { self.value = value }
    /// Decides `highlightStory` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.highlightStory(value, keep: true, by: $0) }
    }
}

/// `unhighlightStory`: takes one's story off one's profile's highlights.
package struct UnhighlightStoryCommand: OneFieldCommand {
    /// The command's public name, `unhighlightStory`, and its one field, `story`.
    package static let name = "unhighlightStory", field = "story"
    /// The `story` field.
    package let value: String
    /// An `unhighlightStory` command naming `value`.
    package init(value: String) { self.value = value }
    /// Decides `unhighlightStory` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.highlightStory(value, keep: false, by: $0) }
    }
}

/// `deleteStory`: deletes one's story.
package struct DeleteStoryCommand: OneFieldCommand {
    /// The command's public name, `deleteStory`, and its one field, `story`.
    package static let name = "deleteStory", field = "story"
    /// The `story` field.
    package let value: String
    /// A `deleteStory` command naming `value`.
    package init(value: String) { self.value = value }
    /// Decides `deleteStory` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.deleteStory(value, by: $0) }
    }
}

/// `expireStory`: the operator's (the server's sweep's): a story past its day lets its photo go.
package struct ExpireStoryCommand: OneFieldCommand {
    /// The command's public name, `expireStory`, and its one field, `story`.
    package static let name = "expireStory", field = "story"
    /// The `story` field.
    package let value: String
    /// An `expireStory` command naming `value`.
    package init(value: String) { self.value = value }
    /// Decides `expireStory` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.expireStory(value, actor: actor)
    }
}

extension Command {
    /// Posts `media` (a photo, base64) as a story of the acting user's, for a day.
    public static func postStory(media: String) -> Command { Command(PostStoryCommand(value: media)) }
    /// Posts the acting user's transcoded video `video` (a media id) as a story of theirs, for a day.
    public static func postVideoStory(video: String) -> Command { Command(PostVideoStoryCommand(value: video)) }
    /// Marks `story` seen by the acting user.
    public static func viewStory(story: String) -> Command { Command(ViewStoryCommand(value: story)) }
    /// Answers `story` with a direct message (`text`) to its author.
    public static func replyToStory(story: String, text: String) -> Command {
        Command(ReplyToStoryCommand(story: story, text: text))
    }
    /// Keeps the acting user's `story` on their profile as a highlight.
    public static func highlightStory(story: String) -> Command { Command(HighlightStoryCommand(value: story)) }
    /// Takes the acting user's `story` off their highlights.
    public static func unhighlightStory(story: String) -> Command { Command(UnhighlightStoryCommand(value: story)) }
    /// Deletes the acting user's `story`.
    public static func deleteStory(story: String) -> Command { Command(DeleteStoryCommand(value: story)) }
    /// Lets a story past its day go (the operator's: the server's sweep runs it).
    public static func expireStory(story: String) -> Command { Command(ExpireStoryCommand(value: story)) }
}

// MARK: - JSON Schemas

extension PostStoryCommand {
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "media": JSONSchema.string.with("contentEncoding", "base64")
    ]
}

extension ReplyToStoryCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "text": "The reply, sent to the story's author as a direct message."
    ]
}
