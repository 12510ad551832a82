import Foundation
import JSONModel

// Posts: `addPost` records `PostAdded` (and `PostPlaced` when it has a location), `deletePost`
// records `PostDeleted`; `timeline media reprocess` records `PostImageProcessed`.

/// The payload of `PostAdded`. Version 2 seals the caption and hashtags; version 3 adds what the
/// image pipeline produced; version 4 the visibility; version 5 the media it holds (an album),
/// or the one photo's blurhash; version 6 a direct post's addressees (and a direct post may hold
/// no photo: its `imageId` is then empty); version 7 the direct post a direct answer answers.
public struct PostAdded: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's author.
    public var authorId: UserID
    /// The photo's content address.
    public var imageId: ImageID
    /// The caption, if any.
    public var caption: String?
    /// The caption's hashtags (normalised, without `#`).
    public var hashtags: [String]
    /// The `full` variant's width and height after orientation (v3; `nil` for older posts,
    /// whose single image is served as it was stored).
    public var width: Int?
    /// See `width`.
    public var height: Int?
    /// The variants produced (v3): `full` is `imageId`.
    public var variants: ImageVariants?
    /// Who sees the post (v4; older posts are public).
    public var visibility: PostVisibility
    /// The photos it holds, in order (v5; `MediaUploaded` each): the first is `imageId`'s. Empty
    /// for a post from before media, whose one photo is `imageId`.
    public var media: [MediaID]
    /// The blurhash of a post given its one photo at once (v5; an album's are its media's).
    public var blurhash: String?
    /// Whom a direct post addresses (v6): the users its caption `@mentions`, decided when posted
    /// (known, not its author, no block either way). Empty for every other post.
    public var addressees: [UserID]
    /// The direct post it answers in its conversation (v7; `addPost`'s `inReplyTo`), if any.
    public var inReplyTo: PostID?
    /// A `PostAdded` payload.
    public init(
        postId: PostID, authorId: UserID, imageId: ImageID, caption: String?, hashtags: [String],
        width: Int? = nil, height: Int? = nil, variants: ImageVariants? = nil, visibility: PostVisibility = .public,
        media: [MediaID] = [], blurhash: String? = nil, addressees: [UserID] = [], inReplyTo: PostID? = nil
    ) {
        self.postId = postId
        self.authorId = authorId
        self.imageId = imageId
        self.caption = caption
        self.hashtags = hashtags
        self.width = width
        self.height = height
        self.variants = variants
        self.visibility = visibility
        self.media = media
        self.blurhash = blurhash
        self.addressees = addressees
        self.inReplyTo = inReplyTo
    }

    /// The byte after the sealed part (v4): what follows it, and the visibility.
    private enum Flags {
        static let sized: UInt8 = 1
        static let followersOnly: UInt8 = 2
        /// v5: the media ids follow (after the variants).
        static let album: UInt8 = 4
        /// v5: the blurhash follows (after the media ids).
        static let blurhash: UInt8 = 8
        /// v6: a direct post; its addressees follow (after the blurhash).
        static let direct: UInt8 = 16
        /// v7: an answer; the answered post's id follows (after the addressees).
        static let answer: UInt8 = 32
    }
}

extension PostAdded: Codable {
    /// The JSON keys: the properties' names.
    enum CodingKeys: String, CodingKey {
        case postId, authorId, imageId, caption, hashtags, width, height, variants, visibility, media, blurhash
        case addressees, inReplyTo
    }

    /// Reads the JSON form: a post without `visibility` is public, one without `media` has none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            postId: try c.decode(PostID.self, forKey: .postId), authorId: try c.decode(UserID.self, forKey: .authorId),
            imageId: try c.decodeIfPresent(ImageID.self, forKey: .imageId) ?? ImageID(""),
            caption: try c.decodeIfPresent(String.self, forKey: .caption),
            hashtags: try c.decode([String].self, forKey: .hashtags),
            width: try c.decodeIfPresent(Int.self, forKey: .width),
            height: try c.decodeIfPresent(Int.self, forKey: .height),
            variants: try c.decodeIfPresent(ImageVariants.self, forKey: .variants),
            visibility: try c.decodeIfPresent(PostVisibility.self, forKey: .visibility) ?? .public,
            media: try c.decodeIfPresent([MediaID].self, forKey: .media) ?? [],
            blurhash: try c.decodeIfPresent(String.self, forKey: .blurhash),
            addressees: try c.decodeIfPresent([UserID].self, forKey: .addressees) ?? [],
            inReplyTo: try c.decodeIfPresent(PostID.self, forKey: .inReplyTo))
    }

    /// Writes the JSON form: the size and variants only together (a post from before the image
    /// pipeline has neither), the visibility only when not public, the media only when some.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(postId, forKey: .postId)
        try c.encode(authorId, forKey: .authorId)
        // A direct message of text alone has no image.
        if !imageId.rawValue.isEmpty { try c.encode(imageId, forKey: .imageId) }
        try c.encodeIfPresent(caption, forKey: .caption)
        try c.encode(hashtags, forKey: .hashtags)
        if let width, let height, let variants {
            try c.encode(width, forKey: .width)
            try c.encode(height, forKey: .height)
            try c.encode(variants, forKey: .variants)
        }
        if visibility != .public { try c.encode(visibility, forKey: .visibility) }
        if !media.isEmpty { try c.encode(media, forKey: .media) }
        try c.encodeIfPresent(blurhash, forKey: .blurhash)
        if visibility == .direct { try c.encode(addressees, forKey: .addressees) }
        try c.encodeIfPresent(inReplyTo, forKey: .inReplyTo)
    }
}

extension PostAdded: EventPayload {
    /// New `PostAdded` events are written at version 7.
    package static var currentVersion: UInt8 { 7 }
    /// Version 1 of `PostAdded` held its personal fields in clear (version 2 seals them).
    package static var legacyPlainV1: Bool { true }
    /// The aggregate `PostAdded` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// The images stored with a `PostAdded` event (a cluster node ships them with it).
    package var storedImages: [ImageID] { (imageId.rawValue.isEmpty ? [] : [imageId]) + (variants?.all ?? []) }
    /// Every user a `PostAdded` payload names: `authorId`, and a direct post's addressees.
    package var users: [UserID] { [authorId] + addressees }
    /// The post a `PostAdded` event is about: `postId`.
    package var post: PostID? { postId }

    /// Writes a `PostAdded` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        w.string(imageId.rawValue)
        try sealer.seal(authorId, into: &w) {
            $0.optionalString(caption)
            $0.strings(hashtags)
        }
        // What the image pipeline produced (so a rebuild never re-encodes; an import's image is
        // stored as it came, without it), after a byte saying whether it is there and who sees the post.
        let sized = variants.flatMap { v in width.flatMap { w in height.map { h in (v, w, h) } } }
        w.u8(
            (sized == nil ? 0 : Flags.sized) | (visibility == .followers ? Flags.followersOnly : 0)
                | (media.isEmpty ? 0 : Flags.album)
                | (blurhash == nil ? 0 : Flags.blurhash) | (visibility == .direct ? Flags.direct : 0)
                | (inReplyTo == nil ? 0 : Flags.answer))
        if let (variants, width, height) = sized {
            w.int(width)
            w.int(height)
            w.string(variants.feed.rawValue)
            w.string(variants.thumb.rawValue)
        }
        if !media.isEmpty { w.strings(media.map(\.rawValue)) }
        if let blurhash { w.string(blurhash) }
        if visibility == .direct { w.strings(addressees.map(\.rawValue)) }
        if let inReplyTo { w.string(inReplyTo.rawValue) }
    }

    /// Reads a stored `PostAdded` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let post = PostID(try r.string()), author = UserID(try r.string()), image = ImageID(try r.string())
        let personal = try opener.personal(author, from: &r) {
            (caption: try $0.optionalString(), tags: try $0.strings())
        }
        self.init(
            postId: post, authorId: author, imageId: image, caption: personal?.caption, hashtags: personal?.tags ?? [])
        // v3 has the pipeline's output when anything follows; v4 says so in a byte of flags.
        var sized = opener.version == 3 && !r.isAtEnd
        var album = false, hashed = false, direct = false, answer = false
        if opener.version >= 4 {
            let flags = try r.u8()
            sized = flags & Flags.sized != 0
            if flags & Flags.followersOnly != 0 { visibility = .followers }
            album = opener.version >= 5 && flags & Flags.album != 0
            hashed = opener.version >= 5 && flags & Flags.blurhash != 0
            direct = opener.version >= 6 && flags & Flags.direct != 0
            answer = opener.version >= 7 && flags & Flags.answer != 0
        }
        if sized {
            width = try r.int()
            height = try r.int()
            variants = ImageVariants(full: image, feed: ImageID(try r.string()), thumb: ImageID(try r.string()))
        }
        if album { media = try r.strings().map(MediaID.init) }
        if hashed { blurhash = try r.string() }
        if direct {
            visibility = .direct
            addressees = try r.strings().map(UserID.init)
        }
        if answer { inReplyTo = PostID(try r.string()) }
    }

    /// A one-line human summary of a `PostAdded` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) posted \(postId) \(clip(caption))"
    }
}

/// The payload of `PostPlaced`: where a post's photo was taken. Appended right after the
/// post's `PostAdded`, in the same commit; the place is sealed with the author's key.
public struct PostPlaced: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's author (whose key seals the place).
    public var authorId: UserID
    /// The place; `nil` only when read back after the author was erased.
    public var place: Place?
    /// A `PostPlaced` payload.
    public init(postId: PostID, authorId: UserID, place: Place?) {
        self.postId = postId
        self.authorId = authorId
        self.place = place
    }
}

extension PostPlaced: Codable {
    /// The JSON keys: the ids, and the place's members beside them.
    enum CodingKeys: String, CodingKey {
        case postId, authorId, latitude, longitude, name
    }

    /// Reads the JSON form: a place without its coordinates is the place of an erased author.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let post = try c.decode(PostID.self, forKey: .postId), author = try c.decode(UserID.self, forKey: .authorId)
        let latitude = try c.decodeIfPresent(Double.self, forKey: .latitude)
        let longitude = try c.decodeIfPresent(Double.self, forKey: .longitude)
        let name = try c.decodeIfPresent(String.self, forKey: .name)
        self.init(
            postId: post, authorId: author,
            place: latitude.flatMap { latitude in
                longitude.map { Place(latitude: latitude, longitude: $0, name: name) }
            })
    }

    /// Writes the JSON form: the place's members (absent once the author is erased) beside the ids.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(postId, forKey: .postId)
        try c.encode(authorId, forKey: .authorId)
        try c.encodeIfPresent(place?.latitude, forKey: .latitude)
        try c.encodeIfPresent(place?.longitude, forKey: .longitude)
        try c.encodeIfPresent(place?.name, forKey: .name)
    }
}

extension PostPlaced: EventPayload {
    /// The aggregate `PostPlaced` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `PostPlaced` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `PostPlaced` event is about: `postId`.
    package var post: PostID? { postId }

    /// Writes a `PostPlaced` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        guard let place else { throw CorruptRecord(message: "PostPlaced without its place") }
        try sealer.seal(authorId, into: &w) {
            $0.double(place.latitude)
            $0.double(place.longitude)
            $0.optionalString(place.name)
        }
    }

    /// Reads a stored `PostPlaced` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let post = PostID(try r.string()), author = UserID(try r.string())
        let place = try opener.personal(author, from: &r) {
            Place(latitude: try $0.double(), longitude: try $0.double(), name: try $0.optionalString())
        }
        self.init(postId: post, authorId: author, place: place)
    }

    /// A one-line human summary of a `PostPlaced` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        guard let place else { return "\(name(authorId)) placed \(postId) (erased)" }
        let at = String(format: "%.3f, %.3f", place.latitude, place.longitude)
        return "\(name(authorId)) placed \(postId) at " + (place.name.map { "\(clip($0)) (\(at))" } ?? at)
    }
}

/// The payload of `PostImageProcessed`: the image of a post written before the image pipeline
/// (stored as uploaded) went through it (`timeline media reprocess`). What was produced is
/// recorded, so replaying the log never decodes or encodes an image; from then on the post's
/// `image` is `variants.full`. Recorded by the operator, in the post's stream.
public struct PostImageProcessed: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's author (the variants are sealed with their key, like every image of theirs).
    public var authorId: UserID
    /// The image the variants were made from (the post's `image` until now; still stored).
    public var sourceImageId: ImageID
    /// The `full` variant's width in pixels, after orientation.
    public var width: Int
    /// The `full` variant's height in pixels, after orientation.
    public var height: Int
    /// The variants produced.
    public var variants: ImageVariants
    /// A `PostImageProcessed` payload.
    public init(
        postId: PostID, authorId: UserID, sourceImageId: ImageID, width: Int, height: Int, variants: ImageVariants
    ) {
        self.postId = postId
        self.authorId = authorId
        self.sourceImageId = sourceImageId
        self.width = width
        self.height = height
        self.variants = variants
    }
}

extension PostImageProcessed: EventPayload {
    /// The aggregate `PostImageProcessed` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// The images stored with a `PostImageProcessed` event (a cluster node ships them with it).
    package var storedImages: [ImageID] { variants.all }
    /// Every user a `PostImageProcessed` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `PostImageProcessed` event is about: `postId`.
    package var post: PostID? { postId }

    /// Writes a `PostImageProcessed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        w.string(sourceImageId.rawValue)
        w.int(width)
        w.int(height)
        w.variants(variants)
    }

    /// Reads a stored `PostImageProcessed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let post = PostID(try r.string()), author = UserID(try r.string()), source = ImageID(try r.string())
        let width = try r.int(), height = try r.int()
        let variants = try r.variants()
        self.init(
            postId: post, authorId: author, sourceImageId: source, width: width, height: height, variants: variants)
    }

    /// A one-line human summary of a `PostImageProcessed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "image of \(name(authorId))'s post \(postId) processed: \(width)×\(height), full/feed/thumb variants"
    }
}

/// The payload of `PostDeleted`.
public struct PostDeleted: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's author.
    public var authorId: UserID
    /// A `PostDeleted` payload.
    public init(postId: PostID, authorId: UserID) {
        self.postId = postId
        self.authorId = authorId
    }
}

extension PostDeleted: EventPayload {
    /// The aggregate `PostDeleted` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `PostDeleted` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `PostDeleted` event is about: `postId`.
    package var post: PostID? { postId }
    /// Writes a `PostDeleted` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
    }

    /// Reads a stored `PostDeleted` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(postId: PostID(try r.string()), authorId: UserID(try r.string()))
    }

    /// A one-line human summary of a `PostDeleted` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) deleted post \(postId)"
    }
}

extension Decider {
    func addPost(
        photos: PostPhotos, caption: String?, location: Place?, sensitive: Bool = false, warning: String? = nil,
        visibility: PostVisibility? = nil, poll: PollDraft? = nil, inReplyTo: String? = nil,
        addressing: [UserID]? = nil, publishing schedule: ScheduledPostID? = nil, by me: UserRecord
    ) throws -> Decision {
        let caption = try caption.map(Validation.caption).flatMap(nonEmpty)
        let tags = try caption.map(Validation.hashtags(in:)) ?? []
        let place = try location.map(Validation.place)
        let warning = try warning.flatMap(Validation.warning)
        let id = PostID(context.newID())
        // A locked account's posts are for its followers unless it says otherwise.
        var event = PostAdded(
            postId: id, authorId: me.id, imageId: ImageID(""), caption: caption, hashtags: tags,
            visibility: visibility ?? (me.locked ? .followers : .public))
        // A direct message addresses whom it mentions (`DirectMessages.swift`), or, when it came
        // from another server, whom its `Note` was addressed to here.
        if event.visibility == .direct {
            event.addressees = try addressing.map { try addressable($0, by: me) } ?? addressees(of: caption, by: me)
        }
        // An answer in a conversation addresses its other participants too (`DirectMessages.swift`).
        if let inReplyTo {
            guard event.visibility == .direct else {
                throw TimelineError.invalid("inReplyTo", "only a direct message answers in a conversation")
            }
            event.addressees = try answerAddressees(inReplyTo, mentioned: event.addressees, by: me)
            event.inReplyTo = PostID(inReplyTo)
        }
        var blobs: [ImageID: ImageUpload] = [:]
        switch photos {
        case .none:
            // Text alone: a direct message only, and it says something.
            guard event.visibility == .direct else {
                throw TimelineError.invalid("image", "image (or media) is required")
            }
            guard caption != nil else {
                throw TimelineError.invalid("caption", "a direct message without a photo needs a caption")
            }
        case .image(let image):
            // One photo, stored with the post itself. Decoding, checking and re-encoding
            // happened before deciding (off the writer).
            guard context.prepared.processedImage != nil else {
                _ = try ImageUpload(base64: image)
                throw TimelineError(.internal, "the image was not processed")
            }
            let photo = try processedPhoto(by: me)
            (event.imageId, event.width, event.height, event.variants) = (
                photo.variants.full, photo.width, photo.height, photo.variants
            )
            event.blurhash = photo.blurhash
            blobs = photo.blobs
        case .media(let ids):
            // An album: the photos uploaded before; the first is the post's image.
            let media = try attachableMedia(ids, of: me, publishing: schedule)
            let cover = media[0]
            (event.imageId, event.width, event.height, event.variants) = (
                cover.variants.full, cover.width, cover.height, cover.variants
            )
            event.media = media.map(\.id)
        }
        var events: [Event] = [.postAdded(event)]
        // The place is an event of its own, so `PostAdded`'s encoding stays as it was.
        if let place { events.append(.postPlaced(PostPlaced(postId: id, authorId: me.id, place: place))) }
        if sensitive || warning != nil {
            events.append(.postMarkedSensitive(PostMarkedSensitive(postId: id, authorId: me.id, warning: warning)))
        }
        // The poll is an event of its own too (`Polls.swift`).
        if let poll { events.append(try newPoll(poll, id: PollID(context.newID()), on: id, by: me.id)) }
        return Decision(events: events, blobs: blobs, outcome: .success(.post(id)))
    }

    func deletePost(_ post: String, by me: UserRecord) throws -> Decision {
        let post = try ownPost(post, of: me, "delete")
        return Decision(
            events: [.postDeleted(PostDeleted(postId: post.id, authorId: post.author))], outcome: .success(.done))
    }
}

// MARK: - Commands

/// `deletePost`: deletes one of the acting user's posts, with its comments and likes.
package struct DeletePostCommand: OneFieldCommand {
    /// The command's public name, `deletePost`, and its one field, `post`.
    package static let name = "deletePost", field = "post"
    /// The `post` field, raw user input.
    package let value: String

    /// A `deletePost` command naming `post` `value`.
    package init(value: String) { self.value = value }

    /// Decides `deletePost` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.deletePost(value, by: $0) }
    }
}

extension Command {
    /// Deletes one of the acting user's posts, with its comments and likes.
    public static func deletePost(post: String) -> Command { Command(DeletePostCommand(value: post)) }
}

/// What a post shows: one photo given with it, photos uploaded before (`uploadMedia`), or none
/// (a direct message may be text alone).
public enum PostPhotos: Sendable, Equatable {
    /// No photo: a direct message's text alone.
    case none
    /// One photo, base64: uploaded and attached at once.
    case image(String)
    /// 1–10 of the acting user's media ids, in order (an album).
    case media([String])
}

/// `addPost`: posts a photo (`image`, base64) or an album of 1–10 uploaded photos (`media`, their
/// ids; exactly one of the two); `location`, where the photo was taken (recorded sealed, as
/// `PostPlaced`); `visibility`, who sees it (by default `followers` for a locked account,
/// `public` otherwise).
package struct AddPostCommand: CommandDefinition {
    /// The command's public name, `addPost`.
    package static let name = "addPost"
    /// The `photos` field.
    package let photos: PostPhotos
    /// The `caption` field.
    package let caption: String?
    /// The `location` field.
    package let location: Place?
    /// Whether the photo is sensitive (a `warning` makes it so too).
    package let sensitive: Bool?
    /// The content warning shown over a sensitive photo.
    package let warning: String?
    /// Who sees the post (`nil`: as the author's lock says).
    package let visibility: PostVisibility?
    /// The poll the post carries, if any.
    package let poll: PollDraft?
    /// The direct message a direct post answers: its conversation's participants are addressed too.
    package let inReplyTo: String?

    /// A `addPost` command with these fields.
    package init(
        photos: PostPhotos, caption: String?, location: Place?, sensitive: Bool?, warning: String?,
        visibility: PostVisibility? = nil, poll: PollDraft? = nil, inReplyTo: String? = nil
    ) {
        self.inReplyTo = inReplyTo
        self.photos = photos
        self.caption = caption
        self.location = location
        self.sensitive = sensitive
        self.warning = warning
        self.visibility = visibility
        self.poll = poll
    }

    /// Reads `addPost`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        let visibility = try fields.optionalString("visibility").map { raw throws(TimelineError) in
            guard let visibility = PostVisibility(rawValue: raw) else {
                throw TimelineError.invalid("visibility", "visibility must be public, followers or direct")
            }
            return visibility
        }
        self.visibility = visibility
        switch (fields.has("image"), try fields.optionalList("media")) {
        case (true, nil): photos = .image(try fields.string("image"))
        case (false, let ids?): photos = .media(ids)
        case (true, _?): throw .invalid("media", "give image or media, not both")
        case (false, nil) where visibility == .direct: photos = .none
        case (false, nil): throw .invalid("image", "image (or media) is required")
        }
        caption = try fields.optionalString("caption")
        location = try fields.optionalPlace("location")
        sensitive = try fields.optionalBool("sensitive")
        warning = try fields.optionalString("warning")
        poll = try PollFields.read(fields)
        inReplyTo = try fields.optionalString("inReplyTo")
    }

    /// Writes `addPost`'s fields.
    package func encode(to fields: inout CommandJSON) {
        switch photos {
        case .none: break
        case .image(let image): fields.set("image", image)
        case .media(let ids): fields.set("media", strings: ids)
        }
        fields.set("caption", caption)
        if let location { fields.set("location", json: location.jsonValue) }
        fields.set("sensitive", sensitive)
        fields.set("warning", warning)
        fields.set("visibility", visibility?.rawValue)
        PollFields.write(poll, to: &fields)
        fields.set("inReplyTo", inReplyTo)
    }

    /// Decides `addPost` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) {
            try decider.addPost(
                photos: photos, caption: caption, location: location, sensitive: sensitive ?? false, warning: warning,
                visibility: visibility, poll: poll, inReplyTo: inReplyTo, by: $0)
        }
    }
}

extension Command {
    /// Posts a photo: `image` is base64; `location`, where the photo was taken (recorded sealed,
    /// as `PostPlaced`); `sensitive` (or a content `warning`) asks apps to blur it until tapped
    /// (recorded as `PostMarkedSensitive`); `visibility` says who sees it (by default
    /// `followers` for a locked account, `public` otherwise).
    public static func addPost(
        image: String, caption: String?, location: Place? = nil, sensitive: Bool? = nil, warning: String? = nil,
        visibility: PostVisibility? = nil, poll: PollDraft? = nil
    ) -> Command {
        Command(
            AddPostCommand(
                photos: .image(image), caption: caption, location: location, sensitive: sensitive, warning: warning,
                visibility: visibility, poll: poll))
    }

    /// Sends a direct message of text alone: seen only by the acting user and those `caption`
    /// `@mentions` (`DirectMessages.swift`); with `inReplyTo`, a direct message the acting user
    /// sees, an answer in its conversation (its other participants are addressed too).
    public static func addDirectPost(caption: String, inReplyTo: String? = nil) -> Command {
        Command(
            AddPostCommand(
                photos: .none, caption: caption, location: nil, sensitive: nil, warning: nil, visibility: .direct,
                inReplyTo: inReplyTo))
    }

    /// Posts an album of 1–10 of the acting user's uploaded photos (`uploadMedia`), in order;
    /// the other fields as in `addPost(image:…)`.
    public static func addPost(
        media: [String], caption: String?, location: Place? = nil, sensitive: Bool? = nil, warning: String? = nil,
        visibility: PostVisibility? = nil, poll: PollDraft? = nil
    ) -> Command {
        Command(
            AddPostCommand(
                photos: .media(media), caption: caption, location: location, sensitive: sensitive, warning: warning,
                visibility: visibility, poll: poll))
    }
}

// MARK: - JSON Schemas of the payloads

extension PostAdded {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "Version 6 adds `addressees`, whom a direct post addresses; version 5 added `media`, the album's photos, or `blurhash`, its one photo's; version 4 added `visibility`; "
        + "version 3 what the image pipeline produced. As in version 2, it stores the personal fields sealed "
        + "with the owner's key; in JSON they appear in clear, or are absent once the owner is erased (the "
        + "envelope then has \"erased\": true)."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "width": "The full variant's width in pixels, after EXIF orientation.",
        "height": "The full variant's height in pixels, after EXIF orientation.",
        "visibility": "Who sees the post: present only for a followers-only or direct post (absent: public). "
            + "Stored in clear, in a byte of flags after the sealed section that also says whether the variants "
            + "follow.",
        "addressees": "Whom a direct post addresses (version 6): the users its caption @mentions, known, not its "
            + "author, with no block either way, decided when posted. Present only for a direct post; a direct "
            + "post may have no photo (its imageId is then empty).",
        "media": "The photos it holds, in order (each a MediaUploaded); the first is imageId's. Absent for a post "
            + "from before media.",
        "blurhash": "The blurhash of a post given its one photo at once (an album's photos carry their own, in "
            + "MediaUploaded).",
        "inReplyTo": "The direct post a direct answer answers in its conversation (version 7); absent for every "
            + "other post."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "caption": JSONSchema.string.with("maxLength", 2200),
        "hashtags": JSONSchema.array(of: JSONSchema.string.with("minLength", 1)).with("maxItems", 30)
            .with("uniqueItems", true),
        "width": JSONSchema.integer.with("minimum", 1),
        "height": JSONSchema.integer.with("minimum", 1),
        "visibility": JSONSchema.enumeration(["followers", "direct"]),
        "addressees": JSONSchema.array(of: .identifier).with("maxItems", .integer(Validation.maxMentions))
            .with("uniqueItems", true),
        "media": JSONSchema.array(of: .identifier).with("minItems", 1).with("maxItems", 10).with("uniqueItems", true),
        "blurhash": JSONSchema.string.with("minLength", 6)
    ]
    /// Rules across members.
    public static let schemaKeywords: [String: JSONValue] = [
        "dependentRequired": [
            "variants": ["width", "height"], "width": ["variants", "height"], "height": ["variants", "width"]
        ],
        "not": ["required": ["media", "blurhash"]],
        "anyOf": [
            ["required": ["imageId"]], ["required": ["visibility"], "properties": ["visibility": ["const": "direct"]]]
        ]
    ]
}

extension PostPlaced {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "Where a post's photo was taken, appended right after its PostAdded in the same commit. The latitude, "
        + "longitude and name are sealed with the author's key: in JSON they appear in clear, or are absent once "
        + "the author is erased (the envelope then has \"erased\": true)."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "latitude": "Degrees north.",
        "longitude": "Degrees east.",
        "name": "The place's name (at most 100 characters, trimmed)."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "latitude": JSONSchema.number.with("minimum", -90).with("maximum", 90),
        "longitude": JSONSchema.number.with("minimum", -180).with("maximum", 180),
        "name": JSONSchema.string.with("maxLength", 100)
    ]
    /// Rules across members.
    public static let schemaKeywords: [String: JSONValue] = [
        "dependentRequired": ["latitude": ["longitude"], "longitude": ["latitude"], "name": ["latitude", "longitude"]]
    ]
}

extension PostImageProcessed {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "The image of a post written before the image pipeline (stored as uploaded) went through it (`timeline "
        + "media reprocess`, by the operator, in the post's stream). It records what was produced, so a rebuild "
        + "never decodes an image; from then on the post's `image` is `variants.full`, and the image it was made "
        + "from stays stored under its id. No personal field."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "authorId": "The post's author; the variants are sealed with their key.",
        "sourceImageId": "The image the variants were made from (the post's image until then).",
        "width": "The full variant's width in pixels, after EXIF orientation.",
        "height": "The full variant's height in pixels, after EXIF orientation."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "width": JSONSchema.integer.with("minimum", 1),
        "height": JSONSchema.integer.with("minimum", 1)
    ]
}

// MARK: - JSON Schemas of the commands

extension AddPostCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "image": "One photo, in base64 (uploaded and attached at once). Give image or media, not both.",
        "location": "Where the photo was taken (recorded sealed with the author's key, as a PostPlaced event).",
        "sensitive": "Blur the photo until the viewer asks to see it.",
        "warning": "A content warning shown over the photo (makes it sensitive).",
        "visibility": "Who sees the post: everyone, only the author's followers, or (direct) only the author and "
            + "the users its caption @mentions (to anyone else it does not exist). By default followers for a "
            + "locked account, public otherwise. A direct post may have no image nor media (text alone).",
        "media": "An album: 1–10 of the acting user's uploaded photos (uploadMedia), in order, not yet in a post.",
        "inReplyTo": "With visibility direct: a direct post the acting user sees, which this one answers in its "
            + "conversation: its author and addressees (other than the acting user, and none with a block either "
            + "way) are addressed too, besides whom the caption @mentions."
    ].merging(PollFields.memberDescriptions) { a, _ in a }
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "image": JSONSchema.string.with("contentEncoding", "base64"),
        "visibility": JSONSchema.enumeration(["public", "followers", "direct"]),
        "media": JSONSchema.array(of: .identifier).with("minItems", 1).with("maxItems", 10).with("uniqueItems", true),
        "inReplyTo": .identifier
    ].merging(PollFields.memberSchemas) { a, _ in a }
    /// Rules across fields: image or media, not both; neither only for a direct post.
    package static let schemaKeywords: [String: JSONValue] = [
        "not": ["required": ["image", "media"]],
        "anyOf": [
            ["required": ["image"]], ["required": ["media"]],
            ["required": ["visibility"], "properties": ["visibility": ["const": "direct"]]]
        ]
    ]
}
