import TimelineDomain

/// What the posts table keeps of a post: the domain's record and what every answer about the
/// post shows, so that presenting it needs no other lookup — its author's username (rewritten
/// when they change it), its place, how many of its reports stand (a post none of whose
/// reports could reach the hiding threshold is shown without reading them), how many boosts it
/// has and its poll's id.
struct StoredPost: Equatable {
    var record: PostRecord
    var authorUsername: String
    var place: Place?
    var standingReports: Int
    /// When the caption was last edited (ms since 1970), if ever.
    var editedAt: Int64?
    /// Whether the photo is to be blurred until the viewer asks to see it.
    var sensitive = false
    /// The content warning shown over it, if any.
    var warning: String?
    /// Its photos (none for a post given its one photo at once: that is the record's image).
    var album: [AlbumItem] = []
    /// The blurhash of a post's one photo given at once (an album's photos have their own).
    var blurhash: String?
    /// The direct post it answers (`PostAdded.inReplyTo`).
    var inReplyTo: PostID?
    /// How many boosts stand of it (`PostBoosted`, `BoostRemoved`).
    var boostCount = 0
    /// Its poll, if it has one (`PollSet`, `PollRemoved`).
    var poll: PollID?

    /// The record's layout version (the posts projection's layout 4 wrote only this one).
    static let version: UInt8 = 4

    /// `version` ‖ id ‖ author ‖ username ‖ image ‖ caption? ‖ hashtags ‖ likes ‖ comments ‖
    /// createdAt ‖ standing reports ‖ boosts ‖ poll? ‖ flags (1: sized, 2: placed, 4: edited, 8: sensitive, 16: followers only,
    /// 32: album, 64: blurhash, 128: direct) ‖ [width ‖ height ‖ feed ‖ thumb] ‖ [latitude ‖ longitude ‖ name?] ‖
    /// [editedAt] ‖ [warning?] ‖ [count ‖ `AlbumItem`…] ‖ [blurhash] ‖ [addressees] ‖ [inReplyTo].
    /// The order is `PostFields`' too. The answered post's id is written last, for an answer only:
    /// the flags are all taken, so its presence is the record going on past the addressees.
    func encoded() -> [UInt8] {
        let p = record
        var w = ByteWriter(capacity: 256)
        w.u8(Self.version)
        w.string(p.id.rawValue)
        w.string(p.author.rawValue)
        w.string(authorUsername)
        w.string(p.image.rawValue)
        w.optionalString(p.caption)
        w.strings(p.hashtags)
        w.int(p.likeCount)
        w.int(p.commentCount)
        w.int64(p.createdAt)
        w.int(standingReports)
        w.int(boostCount)
        w.optionalString(poll?.rawValue)
        let sized = p.variants.flatMap { v in p.width.flatMap { w in p.height.map { h in (v, w, h) } } }
        w.u8(
            (sized == nil ? 0 : PostFields.sizedFlag) | (place == nil ? 0 : PostFields.placedFlag)
                | (editedAt == nil ? 0 : PostFields.editedFlag)
                | (sensitive ? PostFields.sensitiveFlag : 0)
                | (p.visibility == .followers ? PostFields.followersOnlyFlag : 0)
                | (album.isEmpty ? 0 : PostFields.albumFlag) | (blurhash == nil ? 0 : PostFields.blurhashFlag)
                | (p.visibility == .direct ? PostFields.directFlag : 0))
        if let (variants, width, height) = sized {
            w.int(width)
            w.int(height)
            w.string(variants.feed.rawValue)
            w.string(variants.thumb.rawValue)
        }
        if let place {
            w.double(place.latitude)
            w.double(place.longitude)
            w.optionalString(place.name)
        }
        if let editedAt { w.int64(editedAt) }
        if sensitive { w.optionalString(warning) }
        if !album.isEmpty {
            w.varint(UInt64(album.count))
            for item in album { item.encode(to: &w) }
        }
        if let blurhash { w.string(blurhash) }
        if p.visibility == .direct { w.strings(p.addressees.map(\.rawValue)) }
        if let inReplyTo { w.string(inReplyTo.rawValue) }
        return w.bytes
    }

    init(record: PostRecord, authorUsername: String, place: Place? = nil, standingReports: Int = 0) {
        self.record = record
        self.authorUsername = authorUsername
        self.place = place
        self.standingReports = standingReports
    }

    init(decoding bytes: [UInt8]) throws {
        let fields = try PostFields(bytes.span)
        let r = PostReadings(bytes: bytes, fields: fields)
        record = PostRecord(
            id: r.id, author: r.author, image: r.image, caption: r.caption, hashtags: r.hashtags,
            likeCount: fields.likeCount, commentCount: fields.commentCount, createdAt: fields.createdAt,
            width: fields.width, height: fields.height, variants: r.variants,
            visibility: fields.visibility, addressees: r.addressees)
        authorUsername = r.authorUsername
        place = r.place
        standingReports = fields.standingReports
        editedAt = fields.editedAt
        sensitive = fields.sensitive
        warning = r.warning
        album = r.album
        blurhash = fields.blurhash.map(r.string)
        inReplyTo = r.inReplyTo
        boostCount = fields.boostCount
        poll = r.poll
    }
}

/// Where each field of a stored post record lies (`StoredPost.encoded`), found in one pass over
/// the bytes wherever they are (in place in the map, or copied): strings stay bytes until asked
/// for, and are made then with `String(decoding:as:)` or written into JSON by
/// `CompactJSONWriter.writeString` (well-formed, whatever the bytes: a damaged record's
/// ill-formed bytes read as U+FFFD, as its structure is still checked).
struct PostFields: Equatable, Sendable {
    static let sizedFlag: UInt8 = 1
    static let placedFlag: UInt8 = 2
    static let editedFlag: UInt8 = 4
    static let sensitiveFlag: UInt8 = 8
    static let followersOnlyFlag: UInt8 = 16
    static let albumFlag: UInt8 = 32
    static let blurhashFlag: UInt8 = 64
    static let directFlag: UInt8 = 128

    var id: Range<Int>
    var author: Range<Int>
    var authorUsername: Range<Int>
    var image: Range<Int>
    var caption: Range<Int>?
    /// Where the hashtag list starts (its count), and how many it holds.
    var hashtags: Int
    var hashtagCount: Int
    var likeCount: Int
    var commentCount: Int
    var createdAt: Int64
    var standingReports: Int
    var boostCount = 0
    var poll: Range<Int>?
    var width: Int?
    var height: Int?
    var feed: Range<Int>?
    var thumb: Range<Int>?
    var latitude: Double?
    var longitude: Double?
    var placeName: Range<Int>?
    var editedAt: Int64?
    var sensitive = false
    var warning: Range<Int>?
    /// Whether only its author's followers see it (`PostVisibility.followers`).
    var followersOnly = false
    /// Where the album starts (its count), if the post has one.
    var album: Int?
    var blurhash: Range<Int>?
    /// Where a direct post's addressees start (their count); nil for every other post.
    var addressees: Int?
    /// The answered post's id, for a direct answer.
    var inReplyTo: Range<Int>?

    /// Who sees the post.
    var visibility: PostVisibility { addressees != nil ? .direct : followersOnly ? .followers : .public }

    init(_ span: Span<UInt8>) throws(CorruptRecord) {
        typealias R = SpanReading
        var o = 0
        guard try R.u8(span, &o) == StoredPost.version else {
            throw CorruptRecord(message: "unknown post record version")
        }
        id = try Self.string(span, &o)
        author = try Self.string(span, &o)
        authorUsername = try Self.string(span, &o)
        image = try Self.string(span, &o)
        caption = try Self.optionalString(span, &o)
        hashtags = o
        let count = try R.varint(span, &o)
        guard count <= UInt64(span.count - o) else { throw CorruptRecord(message: "list count past the end") }
        hashtagCount = Int(count)
        for _ in 0..<hashtagCount { _ = try Self.string(span, &o) }
        likeCount = try R.int(span, &o)
        commentCount = try R.int(span, &o)
        createdAt = try R.int64(span, &o)
        standingReports = try R.int(span, &o)
        boostCount = try R.int(span, &o)
        poll = try Self.optionalString(span, &o)
        let flags = try R.u8(span, &o)
        if flags & Self.sizedFlag != 0 {
            width = try R.int(span, &o)
            height = try R.int(span, &o)
            feed = try Self.string(span, &o)
            thumb = try Self.string(span, &o)
        }
        if flags & Self.placedFlag != 0 {
            latitude = try Self.double(span, &o)
            longitude = try Self.double(span, &o)
            placeName = try Self.optionalString(span, &o)
        }
        if flags & Self.editedFlag != 0 { editedAt = try R.int64(span, &o) }
        if flags & Self.sensitiveFlag != 0 {
            sensitive = true
            warning = try Self.optionalString(span, &o)
        }
        followersOnly = flags & Self.followersOnlyFlag != 0
        if flags & Self.albumFlag != 0 {
            album = o
            let count = try R.varint(span, &o)
            guard count <= UInt64(span.count - o) else { throw CorruptRecord(message: "list count past the end") }
            for _ in 0..<count {
                for _ in 0..<4 { _ = try Self.string(span, &o) }
                _ = try R.int(span, &o)
                _ = try R.int(span, &o)
                _ = try Self.string(span, &o)
                _ = try Self.optionalString(span, &o)
                // A video's `VideoFile`: duration, frame rate, bytes, sound.
                if try R.u8(span, &o) == 1 {
                    for _ in 0..<3 { _ = try R.int(span, &o) }
                    _ = try R.u8(span, &o)
                }
            }
        }
        if flags & Self.blurhashFlag != 0 { blurhash = try Self.string(span, &o) }
        if flags & Self.directFlag != 0 {
            addressees = o
            let count = try R.varint(span, &o)
            guard count <= UInt64(span.count - o) else { throw CorruptRecord(message: "list count past the end") }
            for _ in 0..<count { _ = try Self.string(span, &o) }
        }
        if o < span.count { inReplyTo = try Self.string(span, &o) }
    }

    /// Whether the author's id is `user`'s (compared as bytes: no string is made).
    func isAuthor(_ user: UserID, in span: Span<UInt8>) -> Bool {
        var index = author.lowerBound
        for byte in user.rawValue.utf8 {
            guard index < author.upperBound, span[index] == byte else { return false }
            index += 1
        }
        return index == author.upperBound
    }

    /// Where a string lies. Its bytes are not checked here (a page's profile showed that cost a
    /// tenth of the page): `PostReadings.string` makes a string with `String(decoding:as:)`,
    /// and the page writer copies a field's bytes only when well-formed, both repairing a damaged
    /// record's (`CompactJSONWriter.writeString`).
    private static func string(_ span: Span<UInt8>, _ o: inout Int) throws(CorruptRecord) -> Range<Int> {
        let n = try SpanReading.length(span, &o)
        let range = o..<o + n
        o += n
        return range
    }

    private static func optionalString(_ span: Span<UInt8>, _ o: inout Int) throws(CorruptRecord) -> Range<Int>? {
        switch try SpanReading.u8(span, &o) {
        case 0: return nil
        case 1: return try string(span, &o)
        default: throw CorruptRecord(message: "bad optional flag")
        }
    }

    private static func double(_ span: Span<UInt8>, _ o: inout Int) throws(CorruptRecord) -> Double {
        guard span.count - o >= 8 else { throw CorruptRecord(message: "truncated") }
        var bits: UInt64 = 0
        for index in o..<o + 8 { bits = bits << 8 | UInt64(span[index]) }
        o += 8
        return Double(bitPattern: bits)
    }
}

/// The values of a stored post's fields, made from its bytes when asked for.
///
/// A class: a page hands each post through several closures and into its items, and
/// `PostFields` is some 300 bytes, so a copy of a reference is what keeps a page near the
/// cost of reading its records.
final class PostReadings: Sendable {
    let bytes: [UInt8]
    let fields: PostFields

    init(bytes: [UInt8], fields: PostFields) {
        self.bytes = bytes
        self.fields = fields
    }

    func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    var id: PostID { PostID(string(fields.id)) }
    var author: UserID { UserID(string(fields.author)) }
    var authorUsername: String { string(fields.authorUsername) }
    var image: ImageID { ImageID(string(fields.image)) }
    var caption: String? { fields.caption.map(string) }

    var hashtags: [String] {
        var out: [String] = []
        out.reserveCapacity(fields.hashtagCount)
        forEachHashtag { out.append(string($0)) }
        return out
    }

    /// Calls `body` with the range of each hashtag, in order (the record was checked whole
    /// when its fields were found, so this cannot fail).
    func forEachHashtag(_ body: (Range<Int>) -> Void) {
        var o = fields.hashtags
        let bytes = bytes
        let span = bytes.span
        _ = try? SpanReading.varint(span, &o)
        for _ in 0..<fields.hashtagCount {
            guard let n = try? SpanReading.length(span, &o) else { return }
            body(o..<o + n)
            o += n
        }
    }

    var variants: ImageVariants? {
        guard let feed = fields.feed, let thumb = fields.thumb else { return nil }
        return ImageVariants(full: image, feed: ImageID(string(feed)), thumb: ImageID(string(thumb)))
    }

    /// Whether the author's id is `user`'s (compared as bytes: no string is made).
    func isAuthor(_ user: UserID) -> Bool {
        let bytes = bytes
        return fields.isAuthor(user, in: bytes.span)
    }

    var place: Place? {
        guard let latitude = fields.latitude, let longitude = fields.longitude else { return nil }
        return Place(latitude: latitude, longitude: longitude, name: fields.placeName.map(string))
    }

    var warning: String? { fields.warning.map(string) }

    /// The direct post it answers, if it is an answer.
    var inReplyTo: PostID? { fields.inReplyTo.map { PostID(string($0)) } }

    /// Its poll, if it has one.
    var poll: PollID? { fields.poll.map { PollID(string($0)) } }

    /// Whom a direct post addresses (none for every other post).
    var addressees: [UserID] {
        var out: [UserID] = []
        forEachAddressee {
            out.append(UserID(string($0)))
            return true
        }
        return out
    }

    /// Calls `body` with the range of each addressee's id, in order.
    func forEachAddressee(_ body: (Range<Int>) -> Bool) {
        guard var o = fields.addressees else { return }
        let bytes = bytes
        let span = bytes.span
        guard let count = try? SpanReading.varint(span, &o) else { return }
        for _ in 0..<count {
            guard let n = try? SpanReading.length(span, &o) else { return }
            guard body(o..<o + n) else { return }
            o += n
        }
    }

    /// Whether a direct post addresses `user` (compared as bytes).
    func isAddressed(_ user: UserID) -> Bool {
        let wanted = Array(user.rawValue.utf8)
        var found = false
        forEachAddressee { range in
            found = bytes[range].elementsEqual(wanted)
            return !found
        }
        return found
    }

    /// The album's items (none for a post from before media).
    var album: [AlbumItem] {
        guard let start = fields.album else { return [] }
        var r = ByteReader(Array(bytes[start...]))
        guard let count = try? r.varint() else { return [] }
        return (0..<count).compactMap { _ in try? AlbumItem(from: &r) }
    }

    /// Its photos as the library hands them out: the album's, or its one image.
    var media: [MediaAttachment] {
        let album = album
        guard album.isEmpty else { return album.map(\.attachment) }
        // A direct message of text alone has no photo.
        guard !fields.image.isEmpty else { return [] }
        return [
            MediaAttachment(
                id: string(fields.image), width: fields.width, height: fields.height, variants: variants, image: image,
                blurhash: fields.blurhash.map(string), alt: nil)
        ]
    }
}
