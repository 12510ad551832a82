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
            alt: record.alt)
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

    /// id ‖ full ‖ feed ‖ thumb ‖ width ‖ height ‖ blurhash ‖ alt?
    func encode(to w: inout ByteWriter) {
        w.string(id.rawValue)
        w.variants(variants)
        w.int(width)
        w.int(height)
        w.string(blurhash)
        w.optionalString(alt)
    }

    init(id: MediaID, width: Int, height: Int, variants: ImageVariants, blurhash: String, alt: String?) {
        self.id = id
        self.width = width
        self.height = height
        self.variants = variants
        self.blurhash = blurhash
        self.alt = alt
    }

    init(from r: inout ByteReader) throws {
        id = MediaID(try r.string())
        variants = try r.variants()
        width = try r.int()
        height = try r.int()
        blurhash = try r.string()
        alt = try r.optionalString()
    }

    /// As the library hands it out.
    var attachment: MediaAttachment {
        MediaAttachment(id: id.rawValue, width: width, height: height, variants: variants, blurhash: blurhash, alt: alt)
    }
}

/// mediaId → StoredMedia: version ‖ id ‖ uploader ‖ uploadedAt ‖ post? ‖ width ‖ height ‖ full ‖
/// feed ‖ thumb ‖ blurhash ‖ alt?.
enum MediaRecords: TableLayout {
    static func key(_ id: MediaID) -> [UInt8] { Array(id.rawValue.utf8) }

    static func encode(_ media: StoredMedia) -> [UInt8] {
        var w = ByteWriter()
        let r = media.record
        w.u8(1)
        w.string(r.id.rawValue)
        w.string(r.uploader.rawValue)
        w.int64(r.uploadedAt)
        w.optionalString(r.post?.rawValue)
        w.int(r.width)
        w.int(r.height)
        w.variants(r.variants)
        w.string(media.blurhash)
        w.optionalString(r.alt)
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> StoredMedia {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown media record version") }
        let id = MediaID(try r.string()), uploader = UserID(try r.string()), uploadedAt = try r.int64(),
            post = try r.optionalString().map(PostID.init)
        let width = try r.int(), height = try r.int()
        let variants = try r.variants()
        var record = MediaRecord(
            id: id, uploader: uploader, uploadedAt: uploadedAt, post: post, width: width, height: height,
            variants: variants)
        let blurhash = try r.string()
        record.alt = try r.optionalString()
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
