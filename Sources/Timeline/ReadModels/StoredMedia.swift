import LMDB
import TimelineDomain

/// A photo as the media table keeps it, from its upload until it goes (unattached for a day, or
/// with its post): what deciding reads (`MediaRecord`) and what a post shows of it.
struct StoredMedia: Equatable {
    var record: MediaRecord
    var blurhash: String

    /// The photo as an album shows it.
    var albumItem: AlbumItem {
        AlbumItem(
            id: record.id, width: record.width, height: record.height, variants: record.variants, blurhash: blurhash,
            alt: record.alt, video: record.video.flatMap { if case .ready(let file) = $0 { file } else { nil } })
    }

    /// As the library hands it to its uploader: a video's state as it stands (no size, poster
    /// or blurhash before it is transcoded).
    var attachment: MediaAttachment {
        switch record.video {
        case .processing, .failed:
            MediaAttachment(
                id: record.id.rawValue, width: nil, height: nil, variants: nil, blurhash: nil, alt: record.alt,
                video: record.video)
        case .ready, nil: albumItem.attachment
        }
    }
}

/// One photo of a post's album, as the post's record keeps it (copied when the post attached
/// it, so a page reads no other record).
struct AlbumItem: Equatable {
    var id: MediaID
    var width: Int
    var height: Int
    var variants: ImageVariants
    var blurhash: String
    var alt: String?
    /// For a video, its file (the variants are then its poster's).
    var video: VideoFile?

    /// id ‖ full ‖ feed ‖ thumb ‖ width ‖ height ‖ blurhash ‖ alt? ‖ 0 | 1 ‖ video
    func encode(to w: inout ByteWriter) {
        w.string(id.rawValue)
        w.variants(variants)
        w.int(width)
        w.int(height)
        w.string(blurhash)
        w.optionalString(alt)
        if let video {
            w.u8(1)
            video.encode(to: &w)
        } else {
            w.u8(0)
        }
    }

    init(
        id: MediaID, width: Int, height: Int, variants: ImageVariants, blurhash: String, alt: String?,
        video: VideoFile? = nil
    ) {
        self.id = id
        self.width = width
        self.height = height
        self.variants = variants
        self.blurhash = blurhash
        self.alt = alt
        self.video = video
    }

    init(from r: inout ByteReader) throws {
        id = MediaID(try r.string())
        variants = try r.variants()
        width = try r.int()
        height = try r.int()
        blurhash = try r.string()
        alt = try r.optionalString()
        video = try r.u8() == 1 ? try VideoFile(from: &r) : nil
    }

    /// As the library hands it out.
    var attachment: MediaAttachment {
        MediaAttachment(
            id: id.rawValue, width: width, height: height, variants: variants, blurhash: blurhash, alt: alt,
            video: video.map(VideoState.ready))
    }
}

/// mediaId → StoredMedia: version ‖ id ‖ uploader ‖ uploadedAt ‖ post? ‖ width ‖ height ‖ full ‖
/// feed ‖ thumb ‖ blurhash ‖ alt? ‖ video state (version 2: 0 a photo, 1 processing, 2 ready ‖
/// VideoFile, 3 failed ‖ reason) ‖ story? (version 2: the story that shows it).
enum MediaRecords: TableLayout {
    static func key(_ id: MediaID) -> [UInt8] { Array(id.rawValue.utf8) }

    static func encode(_ media: StoredMedia) -> [UInt8] {
        var w = ByteWriter()
        let r = media.record
        w.u8(2)
        w.string(r.id.rawValue)
        w.string(r.uploader.rawValue)
        w.int64(r.uploadedAt)
        w.optionalString(r.post?.rawValue)
        w.int(r.width)
        w.int(r.height)
        w.variants(r.variants)
        w.string(media.blurhash)
        w.optionalString(r.alt)
        switch r.video {
        case nil: w.u8(0)
        case .processing: w.u8(1)
        case .ready(let file):
            w.u8(2)
            file.encode(to: &w)
        case .failed(let reason):
            w.u8(3)
            w.string(reason)
        }
        w.optionalString(r.story?.rawValue)
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> StoredMedia {
        var r = ByteReader(bytes)
        let version = try r.u8()
        guard version == 1 || version == 2 else { throw CorruptRecord(message: "unknown media record version") }
        let id = MediaID(try r.string()), uploader = UserID(try r.string()), uploadedAt = try r.int64(),
            post = try r.optionalString().map(PostID.init)
        let width = try r.int(), height = try r.int()
        let variants = try r.variants()
        var record = MediaRecord(
            id: id, uploader: uploader, uploadedAt: uploadedAt, post: post, width: width, height: height,
            variants: variants)
        let blurhash = try r.string()
        record.alt = try r.optionalString()
        if version == 2 {
            switch try r.u8() {
            case 0: break
            case 1: record.video = .processing
            case 2: record.video = .ready(try VideoFile(from: &r))
            case 3: record.video = .failed(try r.string())
            default: throw CorruptRecord(message: "unknown video state")
            }
            record.story = try r.optionalString().map(StoryID.init)
        }
        return StoredMedia(record: record, blurhash: blurhash)
    }
}

/// The media no post holds, oldest upload first: `uploadedAt` (8 bytes, big-endian) ‖ mediaId
/// → its uploader, so expiry reads only what is due.
enum UnattachedMedia: TableLayout {
    static func key(_ key: (uploadedAt: Int64, media: MediaID)) -> [UInt8] {
        BigEndian.bytes(UInt64(max(0, key.uploadedAt))) + Array(key.media.rawValue.utf8)
    }
    static func encode(_ uploader: UserID) -> [UInt8] { Array(uploader.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> UserID { UserID(String(decoding: bytes, as: UTF8.self)) }
}

/// The videos uploaded and not transcoded yet: mediaId → the upload's name in the video store
/// (what the video worker does next, and again after a restart).
enum ProcessingVideos: TableLayout {
    static func key(_ id: MediaID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ upload: String) -> [UInt8] { Array(upload.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// The videos stories show, by their author: author ‖ 0 ‖ storyId → the video's media id (what
/// goes with a story when it ends, and with an erased author's stories).
enum StoryVideos: TableLayout {
    static func key(_ key: (author: UserID, story: StoryID)) -> [UInt8] {
        prefix(key.author) + Array(key.story.rawValue.utf8)
    }
    static func prefix(_ author: UserID) -> [UInt8] { Array(author.rawValue.utf8) + [0] }
    static func encode(_ media: MediaID) -> [UInt8] { Array(media.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> MediaID { MediaID(String(decoding: bytes, as: UTF8.self)) }
}
