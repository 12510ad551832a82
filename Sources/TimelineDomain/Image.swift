import Foundation
import JSONModel

/// Image media types accepted for posts, recognised by content, never by name.
public enum MediaType: String, Sendable, CaseIterable {
    /// JPEG.
    case jpeg = "image/jpeg"
    /// PNG.
    case png = "image/png"
    /// GIF.
    case gif = "image/gif"
    /// HEIC.
    case heic = "image/heic"
    /// WebP.
    case webp = "image/webp"

    /// Recognises the format from the file's leading bytes.
    public static func sniff(_ bytes: [UInt8]) -> MediaType? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heic }
        }
        return nil
    }
}

/// An uploaded image, decoded and checked.
public struct ImageUpload: Sendable, Equatable {
    /// The largest image accepted (10 MiB).
    public static let maxBytes = 10 << 20
    /// The image's bytes.
    public let bytes: [UInt8]
    /// Its type, recognised from its content.
    public let mediaType: MediaType

    /// Decodes base64 and checks size and format.
    public init(base64: String) throws(TimelineError) {
        // 4 base64 characters carry 3 bytes: refuse oversized input before decoding it.
        guard base64.utf8.count <= (Self.maxBytes + 2) / 3 * 4 + 4 else {
            throw TimelineError(.payloadTooLarge, "image must be at most 10 MiB", field: "image")
        }
        guard let data = Data(base64Encoded: base64), !data.isEmpty else {
            throw .invalid("image", "image must be non-empty base64")
        }
        try self.init(bytes: [UInt8](data))
    }

    /// Bytes the image pipeline produced (already decoded and re-encoded: not checked again).
    public init(encoded bytes: [UInt8], mediaType: MediaType) {
        self.bytes = bytes
        self.mediaType = mediaType
    }

    /// Checks `bytes`: more than 10 MiB is `payload_too_large`, content of no supported type
    /// `unsupported_media_type`.
    public init(bytes: [UInt8]) throws(TimelineError) {
        guard bytes.count <= Self.maxBytes else {
            throw TimelineError(.payloadTooLarge, "image must be at most 10 MiB", field: "image")
        }
        guard let type = MediaType.sniff(bytes) else {
            throw TimelineError(.unsupportedMediaType, "image must be JPEG, PNG, GIF, HEIC or WebP", field: "image")
        }
        self.bytes = bytes
        self.mediaType = type
    }
}

/// A post's photo as the image pipeline produced it: decoded, upright, in sRGB, without
/// metadata, re-encoded in three sizes (the upload itself is not kept).
public struct ProcessedImage: Sendable, Equatable {
    /// The `full` variant's width in pixels (after orientation).
    public var width: Int
    /// The `full` variant's height in pixels (after orientation).
    public var height: Int
    /// Long side at most 1080 px.
    public var full: ImageUpload
    /// Long side at most 640 px.
    public var feed: ImageUpload
    /// 320 px square, cropped around the centre.
    public var thumb: ImageUpload
    /// Its colours as a BlurHash, for a placeholder while it loads.
    public var blurhash: String
    /// A processed image.
    public init(width: Int, height: Int, full: ImageUpload, feed: ImageUpload, thumb: ImageUpload, blurhash: String) {
        self.width = width
        self.height = height
        self.full = full
        self.feed = feed
        self.thumb = thumb
        self.blurhash = blurhash
    }
}

/// One of a photo's sizes, as the `image` query names it.
public enum ImageVariant: String, Sendable, CaseIterable {
    /// Long side at most 1080 px (the post's `image`).
    case full
    /// Long side at most 640 px.
    case feed
    /// 320 px square, cropped around the centre.
    case thumb
}

/// The content addresses of a photo's variants.
public struct ImageVariants: Equatable, Sendable, Codable {
    /// Long side at most 1080 px (the post's `image`).
    public var full: ImageID
    /// Long side at most 640 px.
    public var feed: ImageID
    /// 320 px square.
    public var thumb: ImageID
    /// A photo's variants.
    public init(full: ImageID, feed: ImageID, thumb: ImageID) {
        self.full = full
        self.feed = feed
        self.thumb = thumb
    }

    /// The address of `variant`.
    public subscript(variant: ImageVariant) -> ImageID {
        switch variant {
        case .full: full
        case .feed: feed
        case .thumb: thumb
        }
    }

    /// Every address, each once (a small photo's variants can be the same bytes).
    public var all: [ImageID] {
        var seen: [ImageID] = []
        for id in [full, feed, thumb] where !seen.contains(id) { seen.append(id) }
        return seen
    }
}

extension ImageVariants: SchemaDocumented {
    /// What each variant is.
    public static let memberDescriptions = [
        "full": "Long side at most 1080 px: the post's image (a PostAdded's imageId).",
        "feed": "Long side at most 640 px.",
        "thumb": "320 px square, centre crop."
    ]
}

extension ByteWriter {
    /// Writes `variants`' three image ids: full, feed, thumb.
    package mutating func variants(_ variants: ImageVariants) {
        string(variants.full.rawValue)
        string(variants.feed.rawValue)
        string(variants.thumb.rawValue)
    }
}

extension ByteReader {
    /// Reads three image ids as `ByteWriter.variants(_:)` wrote them.
    package mutating func variants() throws(CorruptRecord) -> ImageVariants {
        ImageVariants(full: ImageID(try string()), feed: ImageID(try string()), thumb: ImageID(try string()))
    }
}
