import JSONModel

// Media: photos uploaded first and attached to a post later, as apps do it (the upload runs
// while the person writes the caption). `uploadMedia` records `MediaUploaded` (what the image
// pipeline produced, the blurhash and the alt text); `updateMedia` records `MediaUpdated` (a new
// alt text); `addPost` with `media` attaches 1–10 of one's own; media nobody attached within a
// day is deleted (`expireMedia`, run by the server, records `MediaDeleted`; `deleteMedia` does it
// at once for one's own upload no post holds), as is an erased
// user's unattached media. The one-shot `addPost` {image} keeps its one photo in its
// `PostAdded`, as before albums, with the photo's blurhash.

/// The payload of `MediaUploaded`: a photo as the image pipeline produced it, not yet in a post.
public struct MediaUploaded: Equatable, Sendable {
    /// The media concerned.
    public var mediaId: MediaID
    /// Who uploaded it: the only one who may attach it (their key seals the alt text).
    public var uploaderId: UserID
    /// Its `full` variant's width in pixels, after orientation.
    public var width: Int
    /// Its `full` variant's height in pixels.
    public var height: Int
    /// The variants produced.
    public var variants: ImageVariants
    /// Its colours as a BlurHash (Wolt's algorithm, 4×4 components).
    public var blurhash: String
    /// Its description for people who cannot see it, if given (`nil` too once the uploader is erased).
    public var alt: String?
    /// A `MediaUploaded` payload.
    public init(
        mediaId: MediaID, uploaderId: UserID, width: Int, height: Int, variants: ImageVariants, blurhash: String,
        alt: String?
    ) {
        self.mediaId = mediaId
        self.uploaderId = uploaderId
        self.width = width
        self.height = height
        self.variants = variants
        self.blurhash = blurhash
        self.alt = alt
    }
}

extension MediaUploaded: EventPayload {
    /// The aggregate `MediaUploaded` events belong to: the user stream of `uploaderId`.
    package var stream: String { StreamName.user(uploaderId) }
    /// Every user a `MediaUploaded` payload names: `uploaderId`.
    package var users: [UserID] { [uploaderId] }
    /// The images stored with a `MediaUploaded` event (a cluster node ships them with it).
    package var storedImages: [ImageID] { variants.all }

    /// Writes a `MediaUploaded` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(mediaId.rawValue)
        w.string(uploaderId.rawValue)
        w.int(width)
        w.int(height)
        w.variants(variants)
        w.string(blurhash)
        try sealer.seal(uploaderId, into: &w) { $0.optionalString(alt) }
    }

    /// Reads a stored `MediaUploaded` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let media = MediaID(try r.string()), uploader = UserID(try r.string())
        let width = try r.int(), height = try r.int()
        let variants = try r.variants()
        let blurhash = try r.string()
        let alt = try opener.personal(uploader, from: &r) { try $0.optionalString() } ?? nil
        self.init(
            mediaId: media, uploaderId: uploader, width: width, height: height, variants: variants, blurhash: blurhash,
            alt: alt)
    }

    /// A one-line human summary of a `MediaUploaded` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(uploaderId)) uploaded \(mediaId)"
    }
}

/// The payload of `MediaUpdated`: a new alt text for a photo (its uploader's).
public struct MediaUpdated: Equatable, Sendable {
    /// The media concerned.
    public var mediaId: MediaID
    /// Its uploader (whose key seals the alt text).
    public var uploaderId: UserID
    /// The new alt text; `nil` clears it (and reads back so once the uploader is erased).
    public var alt: String?
    /// A `MediaUpdated` payload.
    public init(mediaId: MediaID, uploaderId: UserID, alt: String?) {
        self.mediaId = mediaId
        self.uploaderId = uploaderId
        self.alt = alt
    }
}

extension MediaUpdated: EventPayload {
    /// The aggregate `MediaUpdated` events belong to: the user stream of `uploaderId`.
    package var stream: String { StreamName.user(uploaderId) }
    /// Every user a `MediaUpdated` payload names: `uploaderId`.
    package var users: [UserID] { [uploaderId] }

    /// Writes a `MediaUpdated` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(mediaId.rawValue)
        w.string(uploaderId.rawValue)
        try sealer.seal(uploaderId, into: &w) { $0.optionalString(alt) }
    }

    /// Reads a stored `MediaUpdated` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let media = MediaID(try r.string()), uploader = UserID(try r.string())
        self.init(
            mediaId: media, uploaderId: uploader,
            alt: try opener.personal(uploader, from: &r) { try $0.optionalString() } ?? nil)
    }

    /// A one-line human summary of a `MediaUpdated` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(uploaderId)) described \(mediaId)"
    }
}

/// The payload of `MediaDeleted`: an unattached photo went (a day passed, or its uploader was erased).
public struct MediaDeleted: Equatable, Sendable {
    /// The media concerned.
    public var mediaId: MediaID
    /// Its uploader.
    public var uploaderId: UserID
    /// A `MediaDeleted` payload.
    public init(mediaId: MediaID, uploaderId: UserID) {
        self.mediaId = mediaId
        self.uploaderId = uploaderId
    }
}

extension MediaDeleted: EventPayload {
    /// The aggregate `MediaDeleted` events belong to: the user stream of `uploaderId`.
    package var stream: String { StreamName.user(uploaderId) }
    /// Every user a `MediaDeleted` payload names: `uploaderId`.
    package var users: [UserID] { [uploaderId] }
    /// Writes a `MediaDeleted` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(mediaId.rawValue)
        w.string(uploaderId.rawValue)
    }

    /// Reads a stored `MediaDeleted` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(mediaId: MediaID(try r.string()), uploaderId: UserID(try r.string()))
    }

    /// A one-line human summary of a `MediaDeleted` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(mediaId) of \(name(uploaderId)) was deleted"
    }
}

/// A photo as deciding sees it.
package struct MediaRecord: Equatable, Sendable {
    /// The media's id.
    package var id: MediaID
    /// Who uploaded it.
    package var uploader: UserID
    /// When it was uploaded (ms since 1970).
    package var uploadedAt: Int64
    /// The post it is in, once attached.
    package var post: PostID?
    /// Its `full` variant's size, and its variants.
    package var width: Int
    /// Its `full` variant's height.
    package var height: Int
    /// Its variants.
    package var variants: ImageVariants
    /// Its alt text, if any.
    package var alt: String?
    /// For a video, where its transcoding stands (nil for a photo).
    package var video: VideoState?
    /// The story that shows it, once posted as one (a video story).
    package var story: StoryID?
    /// Its colours as a BlurHash (a video's: its poster frame's).
    package var blurhash = ""

    /// A media record.
    package init(
        id: MediaID, uploader: UserID, uploadedAt: Int64, post: PostID?, width: Int, height: Int,
        variants: ImageVariants,
        alt: String? = nil, video: VideoState? = nil
    ) {
        self.video = video
        self.id = id
        self.uploader = uploader
        self.uploadedAt = uploadedAt
        self.post = post
        self.width = width
        self.height = height
        self.variants = variants
        self.alt = alt
    }
}

/// How media is kept: how long an unattached photo waits, how many a post holds, how long an
/// alt text may be.
public enum MediaPolicy {
    /// Media not in a post this long after its upload is deleted (ms): a day.
    public static let unattachedLifetime: Int64 = 24 * 3600 * 1000
    /// The most photos in one post (Instagram's carousel and Pixelfed's album hold ten).
    public static let maxPerPost = 10
    /// The longest alt text, in characters (Mastodon's limit).
    public static let maxAlt = 1500
    /// The most unattached photos one `expireMedia` deletes (the server runs it again).
    public static let expiryBatch = 500
}

extension Validation {
    /// An alt text: at most `MediaPolicy.maxAlt` characters; empty or blank is none.
    public static func alt(_ raw: String) throws(TimelineError) -> String? {
        let text = try Validation.text(raw, field: "alt", max: MediaPolicy.maxAlt, allowEmpty: true)
        return text.allSatisfy(\.isWhitespace) ? nil : text
    }
}

extension Decider {
    /// The photo the image pipeline produced (prepared before deciding), addressed as `me`'s images.
    func processedPhoto(by me: UserRecord) throws -> (
        width: Int, height: Int, variants: ImageVariants, blurhash: String,
        blobs: [ImageID: ImageUpload]
    ) {
        guard let processed = context.prepared.processedImage else {
            throw TimelineError(.internal, "the image was not processed")
        }
        let photo = addressed(processed, owner: me.id)
        return (processed.width, processed.height, photo.variants, processed.blurhash, photo.blobs)
    }

    /// `processed`'s variants addressed as `owner`'s images, and the bytes to store at each.
    func addressed(_ processed: ProcessedImage, owner: UserID) -> (
        variants: ImageVariants, blobs: [ImageID: ImageUpload]
    ) {
        func address(_ upload: ImageUpload) -> ImageID { ImageID(context.contentID(owner, upload.bytes)) }
        let variants = ImageVariants(
            full: address(processed.full), feed: address(processed.feed), thumb: address(processed.thumb))
        // A small photo's variants can be the same bytes (sizes never enlarge), hence one address.
        let blobs = Dictionary(
            [(variants.full, processed.full), (variants.feed, processed.feed), (variants.thumb, processed.thumb)],
            uniquingKeysWith: { first, _ in first })
        return (variants, blobs)
    }

    /// Records the photo the pipeline produced as new media of `me`.
    func uploadedMedia(alt: String?, by me: UserRecord) throws -> (event: MediaUploaded, blobs: [ImageID: ImageUpload])
    {
        let alt = try alt.flatMap(Validation.alt)
        let photo = try processedPhoto(by: me)
        let event = MediaUploaded(
            mediaId: MediaID(context.newID()), uploaderId: me.id, width: photo.width, height: photo.height,
            variants: photo.variants, blurhash: photo.blurhash, alt: alt)
        return (event, photo.blobs)
    }

    /// `me`'s media `raw`, which must exist (`not_found`) and be theirs (`forbidden`).
    func ownMedia(_ raw: String, of me: UserRecord, field: String = "media") throws -> MediaRecord {
        let id: MediaID = try Validation.identifier(raw, field: field)
        guard let media = try state.media(id) else { throw TimelineError.notFound("media", id.rawValue) }
        guard media.uploader == me.id else {
            throw TimelineError(.forbidden, "media \(id) belongs to someone else", field: field)
        }
        return media
    }

    /// The photos `ids` name, for `me` to attach: 1–10, distinct, each theirs and in no post,
    /// story or scheduled post (but `schedule`, the one being published).
    func attachableMedia(_ ids: [String], of me: UserRecord, publishing schedule: ScheduledPostID? = nil) throws
        -> [MediaRecord]
    {
        guard (1...MediaPolicy.maxPerPost).contains(ids.count) else {
            throw TimelineError.invalid("media", "a post holds 1–\(MediaPolicy.maxPerPost) photos")
        }
        guard Set(ids).count == ids.count else { throw TimelineError.invalid("media", "a photo can be in a post once") }
        return try ids.map { raw in
            let media = try ownMedia(raw, of: me)
            guard media.post == nil, media.story == nil else {
                throw TimelineError.invalid("media", "media \(media.id) is already in a post or a story")
            }
            // A scheduled post's photos are its own until it is published (by `schedule` itself).
            if let holder = try state.scheduledPost(holding: media.id), holder != schedule {
                throw TimelineError.invalid("media", "media \(media.id) is already in a scheduled post")
            }
            switch media.video {
            case .processing:
                throw TimelineError.invalid(
                    "media", "the video \(media.id) has not finished processing: try again soon")
            case .failed(let reason):
                throw TimelineError.invalid("media", "the video \(media.id) could not be processed: \(reason)")
            case .ready, nil: break
            }
            return media
        }
    }

    /// Deletes the media nobody attached within `MediaPolicy.unattachedLifetime` (a batch of them).
    func expireMedia() throws -> Decision {
        let expired = try state.unattachedMedia(
            uploadedBefore: context.now - MediaPolicy.unattachedLifetime, limit: MediaPolicy.expiryBatch)
        return Decision(
            events: expired.map { .mediaDeleted(MediaDeleted(mediaId: $0.id, uploaderId: $0.uploader)) },
            outcome: .success(.changed(!expired.isEmpty)))
    }
}

// MARK: - Commands

/// `uploadMedia`: uploads a photo (`image`, base64) with an optional `alt` text, to attach to a
/// post later (`addPost` `media`); answers the media, with its blurhash.
package struct UploadMediaCommand: CommandDefinition {
    /// The command's public name, `uploadMedia`.
    package static let name = "uploadMedia"
    /// The `image` field.
    package let image: String
    /// The `alt` field.
    package let alt: String?

    /// A `uploadMedia` command with these fields.
    package init(image: String, alt: String?) {
        self.image = image
        self.alt = alt
    }

    /// Reads `uploadMedia`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        image = try fields.string("image")
        alt = try fields.optionalString("alt")
    }

    /// Writes `uploadMedia`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("image", image)
        fields.set("alt", alt)
    }

    /// Decides `uploadMedia` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { me in
            let (event, blobs) = try decider.uploadedMedia(alt: alt, by: me)
            return Decision(events: [.mediaUploaded(event)], blobs: blobs, outcome: .success(.media(event.mediaId)))
        }
    }
}

extension Command {
    /// Uploads a photo (`image`, base64) with an optional `alt` text (≤ 1,500 characters), to
    /// attach to a post within a day (`addPost` `media`).
    public static func uploadMedia(image: String, alt: String? = nil) -> Command {
        Command(UploadMediaCommand(image: image, alt: alt))
    }
}

/// `updateMedia`: sets the alt text of one of the acting user's photos (`nil` or "" clears it),
/// attached or not.
package struct UpdateMediaCommand: CommandDefinition {
    /// The command's public name, `updateMedia`.
    package static let name = "updateMedia"
    /// The `media` field.
    package let media: String
    /// The `alt` field.
    package let alt: String?

    /// A `updateMedia` command with these fields.
    package init(media: String, alt: String?) {
        self.media = media
        self.alt = alt
    }

    /// Reads `updateMedia`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        media = try fields.string("media")
        alt = try fields.optionalString("alt")
    }

    /// Writes `updateMedia`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("media", media)
        fields.set("alt", alt)
    }

    /// Decides `updateMedia` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { me in
            let media = try decider.ownMedia(self.media, of: me)
            let alt = try alt.flatMap(Validation.alt)
            return Decision(
                events: [.mediaUpdated(MediaUpdated(mediaId: media.id, uploaderId: me.id, alt: alt))],
                outcome: .success(.media(media.id)))
        }
    }
}

extension Command {
    /// Sets the alt text of one of the acting user's photos (`nil` or "" clears it).
    public static func updateMedia(media: String, alt: String?) -> Command {
        Command(UpdateMediaCommand(media: media, alt: alt))
    }
}

/// `deleteMedia`: deletes one of the acting user's photos that no post holds (Mastodon's
/// `DELETE /api/v1/media/:id`): another's, or none, is `not_found`; one in a post is
/// `invalid_argument`.
package struct DeleteMediaCommand: CommandDefinition {
    /// The command's public name, `deleteMedia`.
    package static let name = "deleteMedia"
    /// The `media` field.
    package let media: String

    /// A `deleteMedia` command with these fields.
    package init(media: String) { self.media = media }

    /// Reads `deleteMedia`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) { media = try fields.string("media") }

    /// Writes `deleteMedia`'s fields.
    package func encode(to fields: inout CommandJSON) { fields.set("media", media) }

    /// Decides `deleteMedia` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { me in
            let id: MediaID = try Validation.identifier(media, field: "media")
            // Someone else's media is not found: whether it exists is theirs to know.
            guard let record = try decider.state.media(id), record.uploader == me.id else {
                throw TimelineError.notFound("media", id.rawValue)
            }
            // A scheduled post's photo is in use too, until it is published or cancelled.
            guard record.post == nil, try decider.state.scheduledPost(holding: id) == nil else {
                throw TimelineError.invalid("media", "Media attachment is currently used by a status")
            }
            return Decision(
                events: [.mediaDeleted(MediaDeleted(mediaId: id, uploaderId: me.id))],
                outcome: .success(.changed(true)))
        }
    }
}

extension Command {
    /// Deletes one of the acting user's photos that no post holds.
    public static func deleteMedia(media: String) -> Command { Command(DeleteMediaCommand(media: media)) }
}

/// `expireMedia` (operator): deletes a batch of the photos nobody attached within a day
/// (`changed`: whether any went). `timeline serve` runs it on its own.
package struct ExpireMediaCommand: CommandDefinition {
    /// The command's public name, `expireMedia`.
    package static let name = "expireMedia"

    /// A `expireMedia` command with these fields.
    package init() {}
    /// Reads `expireMedia`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {}
    /// Writes `expireMedia`'s fields.
    package func encode(to fields: inout CommandJSON) {}

    /// Decides `expireMedia` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.requireOperator(actor, "expire media")
        return try decider.expireMedia()
    }
}

extension Command {
    /// Deletes a batch of the photos nobody attached within a day (operator only).
    public static var expireMedia: Command { Command(ExpireMediaCommand()) }
}

// MARK: - JSON Schemas of the payloads

extension MediaUploaded {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A photo uploaded to be attached to a post (what the image pipeline produced, its blurhash and alt text); "
        + "stream user-<uploaderId>."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "alt": "Sealed with the uploader's key; absent when none or once they are erased."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "width": JSONSchema.integer.with("minimum", 1),
        "height": JSONSchema.integer.with("minimum", 1),
        "blurhash": JSONSchema.string.with("minLength", 6),
        "alt": JSONSchema.string.with("maxLength", 1500)
    ]
}

extension MediaUpdated {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A photo's alt text changed."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "alt": "The new alt text (sealed); absent: cleared, or the uploader is erased."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "alt": JSONSchema.string.with("maxLength", 1500)
    ]
}

extension MediaDeleted {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A photo nobody attached to a post went: a day after its upload, or with its uploader's erasure."
}

// MARK: - JSON Schemas of the commands

extension ExpireMediaCommand {
    /// The schema's title.
    package static let schemaTitle = "expireMedia command (a timeline exec line; the operator only)"
}

extension UpdateMediaCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "media": "One of the acting user's photos.",
        "alt": "A description of the photo for people who cannot see it (at most 1,500 characters; null or empty: "
            + "none)."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "media": .identifier,
        "alt": JSONSchema.string.nullable
    ]
}

extension UploadMediaCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "alt": "A description of the photo for people who cannot see it (at most 1,500 characters; null or empty: "
            + "none)."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "image": JSONSchema.string.with("contentEncoding", "base64"),
        "alt": JSONSchema.string.nullable
    ]
}

extension DeleteMediaCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "media": "One of the acting user's photos that no post holds."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["media": .identifier]
}
