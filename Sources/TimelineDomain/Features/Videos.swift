import JSONModel

// Videos: uploaded like photos to be attached to a post later, but transcoded after the upload
// is recorded, off the request (a minute of 1080p takes the cores for a while). `uploadVideo`
// records `VideoUploaded` (the upload kept as it came, in the server's video store); the
// server's video worker transcodes it (H.264 + AAC MP4, a poster frame through the image
// pipeline) and runs `finishVideo`, which records `VideoProcessed`, or `VideoFailed` with the
// reason. Until then the media is processing and no post can hold it; after, it is media like
// a photo (alt text, expiry when unattached, deletion with its post), played from the store.

/// A transcoded video as its media record keeps it: what players are told about it.
public struct VideoFile: Equatable, Sendable, Codable {
    /// Its duration in milliseconds.
    public var durationMilliseconds: Int
    /// Its frame rate, in frames per thousand seconds (30 fps is 30,000).
    public var millihertz: Int
    /// The size of its MP4 file in bytes.
    public var bytes: Int
    /// Whether it has a sound track.
    public var hasAudio: Bool

    /// A transcoded video's description.
    public init(durationMilliseconds: Int, millihertz: Int, bytes: Int, hasAudio: Bool) {
        self.durationMilliseconds = durationMilliseconds
        self.millihertz = millihertz
        self.bytes = bytes
        self.hasAudio = hasAudio
    }

    /// Its duration in seconds.
    public var seconds: Double { Double(durationMilliseconds) / 1000 }
    /// Its frame rate in frames a second.
    public var fps: Double { Double(millihertz) / 1000 }

    /// Writes it: duration ‖ frame rate ‖ bytes ‖ sound (a record's or an event's part).
    package func encode(to w: inout ByteWriter) {
        w.int(durationMilliseconds)
        w.int(millihertz)
        w.int(bytes)
        w.u8(hasAudio ? 1 : 0)
    }

    /// Reads what `encode` wrote.
    package init(from r: inout ByteReader) throws {
        self.init(
            durationMilliseconds: try r.int(), millihertz: try r.int(), bytes: try r.int(), hasAudio: try r.u8() == 1)
    }
}

/// Where a video upload stands: being transcoded, playable, or refused with a reason.
public enum VideoState: Equatable, Sendable {
    /// Uploaded, not transcoded yet.
    case processing
    /// Transcoded: playable.
    case ready(VideoFile)
    /// The transcoder could not take it: why, for the uploader.
    case failed(String)
}

/// A video upload as the service stored it before deciding (`uploadVideo`): its name in the
/// video store's uploads and its size.
public struct StagedVideo: Equatable, Sendable {
    /// The upload's name in the store.
    public var upload: String
    /// Its size in bytes.
    public var bytes: Int
    /// A staged upload.
    public init(upload: String, bytes: Int) {
        self.upload = upload
        self.bytes = bytes
    }
}

/// What the video worker made of an upload (`finishVideo`): the video and its poster frame
/// through the image pipeline, or why it could not.
public enum FinishedVideo: Equatable, Sendable {
    /// Transcoded: the video's own size, its file, its poster's variants.
    case ready(width: Int, height: Int, video: VideoFile, poster: ProcessedImage)
    /// Refused, with the reason.
    case failed(String)
}

/// How video is taken: the largest upload and the longest video.
public enum VideoPolicy {
    /// The largest upload, in bytes (100 MB).
    public static let maxUploadBytes = 100_000_000
    /// The longest video, in seconds (3 minutes).
    public static let maxSeconds = 180.0
    /// The longest reason a failure records, in characters.
    static let maxReason = 300
}

/// The payload of `VideoUploaded`: a video was uploaded, to be transcoded, then attached to a post.
public struct VideoUploaded: Equatable, Sendable {
    /// The media concerned.
    public var mediaId: MediaID
    /// Who uploaded it.
    public var uploaderId: UserID
    /// The upload's name in the video store (the worker reads it from there).
    public var upload: String
    /// Its size in bytes, as it came.
    public var bytes: Int
    /// Its description for people who cannot see it, if given (sealed with the uploader's key).
    public var alt: String?
    /// A `VideoUploaded` payload.
    public init(mediaId: MediaID, uploaderId: UserID, upload: String, bytes: Int, alt: String?) {
        self.mediaId = mediaId
        self.uploaderId = uploaderId
        self.upload = upload
        self.bytes = bytes
        self.alt = alt
    }
}

extension VideoUploaded: EventPayload {
    /// The aggregate `VideoUploaded` events belong to: the user stream of `uploaderId`.
    package var stream: String { StreamName.user(uploaderId) }
    /// Every user a `VideoUploaded` payload names: `uploaderId`.
    package var users: [UserID] { [uploaderId] }

    /// Writes a `VideoUploaded` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(mediaId.rawValue)
        w.string(uploaderId.rawValue)
        w.string(upload)
        w.int(bytes)
        try sealer.seal(uploaderId, into: &w) { $0.optionalString(alt) }
    }

    /// Reads a stored `VideoUploaded` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let media = MediaID(try r.string()), uploader = UserID(try r.string())
        let upload = try r.string(), bytes = try r.int()
        let alt = try opener.personal(uploader, from: &r) { try $0.optionalString() } ?? nil
        self.init(mediaId: media, uploaderId: uploader, upload: upload, bytes: bytes, alt: alt)
    }

    /// A one-line human summary of a `VideoUploaded` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(uploaderId)) uploaded the video \(mediaId)"
    }
}

/// The payload of `VideoProcessed`: a video upload was transcoded and can be played and attached.
public struct VideoProcessed: Equatable, Sendable {
    /// The media concerned.
    public var mediaId: MediaID
    /// Its uploader.
    public var uploaderId: UserID
    /// The video's size in pixels, after rotation.
    public var width: Int
    /// Its height.
    public var height: Int
    /// The transcoded file.
    public var video: VideoFile
    /// Its poster frame's variants (stored images, like a photo's).
    public var poster: ImageVariants
    /// The poster's colours as a BlurHash.
    public var blurhash: String
    /// A `VideoProcessed` payload.
    public init(
        mediaId: MediaID, uploaderId: UserID, width: Int, height: Int, video: VideoFile, poster: ImageVariants,
        blurhash: String
    ) {
        self.mediaId = mediaId
        self.uploaderId = uploaderId
        self.width = width
        self.height = height
        self.video = video
        self.poster = poster
        self.blurhash = blurhash
    }
}

extension VideoProcessed: EventPayload {
    /// The aggregate `VideoProcessed` events belong to: the user stream of `uploaderId`.
    package var stream: String { StreamName.user(uploaderId) }
    /// Every user a `VideoProcessed` payload names: `uploaderId`.
    package var users: [UserID] { [uploaderId] }
    /// The poster's images, stored with the event.
    package var storedImages: [ImageID] { poster.all }

    /// Writes a `VideoProcessed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(mediaId.rawValue)
        w.string(uploaderId.rawValue)
        w.int(width)
        w.int(height)
        video.encode(to: &w)
        w.variants(poster)
        w.string(blurhash)
    }

    /// Reads a stored `VideoProcessed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let media = MediaID(try r.string()), uploader = UserID(try r.string())
        let width = try r.int(), height = try r.int()
        let video = try VideoFile(from: &r)
        let poster = try r.variants()
        self.init(
            mediaId: media, uploaderId: uploader, width: width, height: height, video: video, poster: poster,
            blurhash: try r.string())
    }

    /// A one-line human summary of a `VideoProcessed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the video \(mediaId) of \(name(uploaderId)) is ready (\(width)×\(height), \(video.seconds) s)"
    }
}

/// The payload of `VideoFailed`: a video upload could not be transcoded.
public struct VideoFailed: Equatable, Sendable {
    /// The media concerned.
    public var mediaId: MediaID
    /// Its uploader.
    public var uploaderId: UserID
    /// Why, in a sentence for the uploader.
    public var reason: String
    /// A `VideoFailed` payload.
    public init(mediaId: MediaID, uploaderId: UserID, reason: String) {
        self.mediaId = mediaId
        self.uploaderId = uploaderId
        self.reason = reason
    }
}

extension VideoFailed: EventPayload {
    /// The aggregate `VideoFailed` events belong to: the user stream of `uploaderId`.
    package var stream: String { StreamName.user(uploaderId) }
    /// Every user a `VideoFailed` payload names: `uploaderId`.
    package var users: [UserID] { [uploaderId] }

    /// Writes a `VideoFailed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(mediaId.rawValue)
        w.string(uploaderId.rawValue)
        w.string(reason)
    }

    /// Reads a stored `VideoFailed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(mediaId: MediaID(try r.string()), uploaderId: UserID(try r.string()), reason: try r.string())
    }

    /// A one-line human summary of a `VideoFailed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the video \(mediaId) of \(name(uploaderId)) failed: \(reason)"
    }
}

// MARK: - Deciding

extension Decider {
    /// Records the video the service staged as new media of `me`, to be transcoded.
    func uploadVideo(alt: String?, by me: UserRecord) throws -> Decision {
        let alt = try alt.flatMap(Validation.alt)
        guard let staged = context.prepared.stagedVideo else {
            throw TimelineError(.internal, "the video was not stored")
        }
        let event = VideoUploaded(
            mediaId: MediaID(context.newID()), uploaderId: me.id, upload: staged.upload, bytes: staged.bytes, alt: alt)
        return Decision(events: [.videoUploaded(event)], outcome: .success(.media(event.mediaId)))
    }

    /// Records what the video worker made of the upload `raw`: the transcoded video, or why not.
    func finishVideo(_ raw: String, actor: Actor) throws -> Decision {
        try requireOperator(actor, "finish a video")
        let id: MediaID = try Validation.identifier(raw, field: "media")
        guard let media = try state.media(id) else { throw TimelineError.notFound("media", id.rawValue) }
        guard media.video == .processing else {
            throw TimelineError.invalid("media", "media \(id) is not a video being processed")
        }
        switch context.prepared.finishedVideo {
        case .ready(let width, let height, let video, let poster):
            let photo = addressed(poster, owner: media.uploader)
            let event = VideoProcessed(
                mediaId: id, uploaderId: media.uploader, width: width, height: height, video: video,
                poster: photo.variants, blurhash: poster.blurhash)
            var decision = Decision(events: [.videoProcessed(event)], blobs: photo.blobs, outcome: .success(.media(id)))
            decision.blobOwner = media.uploader
            return decision
        case .failed(let reason):
            let event = VideoFailed(
                mediaId: id, uploaderId: media.uploader, reason: String(reason.prefix(VideoPolicy.maxReason)))
            return Decision(events: [.videoFailed(event)], outcome: .success(.media(id)))
        case nil:
            throw TimelineError(.internal, "the video was not processed")
        }
    }
}

// MARK: - Commands

/// `uploadVideo`: uploads a video (`video`, base64; over HTTP the multipart file) with an
/// optional `alt` text, to be transcoded and then attached to a post (`addPost` `media`);
/// answers the media, processing.
package struct UploadVideoCommand: CommandDefinition {
    /// The command's public name, `uploadVideo`.
    package static let name = "uploadVideo"
    /// The `video` field: the file, base64 ("" when the service was handed the file itself).
    package let video: String
    /// The `alt` field.
    package let alt: String?

    /// An `uploadVideo` command with these fields.
    package init(video: String, alt: String?) {
        self.video = video
        self.alt = alt
    }

    /// Reads `uploadVideo`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        video = try fields.string("video")
        alt = try fields.optionalString("alt")
    }

    /// Writes `uploadVideo`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("video", video)
        fields.set("alt", alt)
    }

    /// Decides `uploadVideo` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.uploadVideo(alt: alt, by: $0) }
    }
}

/// `finishVideo`: records what the video worker made of an upload (the operator's: the
/// server's worker runs it).
package struct FinishVideoCommand: OneFieldCommand {
    /// The command's public name, `finishVideo`, and its one field, `media`.
    package static let name = "finishVideo", field = "media"
    /// The `media` field.
    package let value: String
    /// A `finishVideo` command naming `value`.
    package init(value: String) { self.value = value }
    /// Decides `finishVideo` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.finishVideo(value, actor: actor)
    }
}

extension Command {
    /// Uploads a video (`video`, base64: MP4, MOV or WebM, at most 100 MB and 3 minutes) with an
    /// optional `alt` text, to be transcoded, then attached to a post within a day.
    public static func uploadVideo(video: String, alt: String? = nil) -> Command {
        Command(UploadVideoCommand(video: video, alt: alt))
    }
    /// Records what the video worker made of the upload `media` (the operator's).
    public static func finishVideo(media: String) -> Command { Command(FinishVideoCommand(value: media)) }
}

// MARK: - JSON Schemas

extension UploadVideoCommand {
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "video": JSONSchema.string.with("contentEncoding", "base64")
    ]
}
