import Dispatch
import Foundation
import TimelineDomain
import Vips

/// Every uploaded image goes through here before its command reaches the writer: decoded in
/// full by libvips (anything that is not a whole JPEG, PNG, GIF, WebP or HEIC/HEIF file is
/// refused), checked against decompression bombs on its header first, turned upright by its
/// EXIF orientation, converted to sRGB, and re-encoded without any metadata into the variants
/// that are stored. The upload itself is never stored.
package enum ImagePipeline {
    /// More pixels than this (50 megapixels) is refused before decoding.
    static let maxPixels = 50_000_000
    /// A side longer than this is refused before decoding.
    static let maxSide = 12_000
    /// JPEG quality of every variant.
    static let jpegQuality = 82

    /// One image at a time per core: a burst of uploads queues here, it does not grow memory
    /// without bound or take the cores from the writer.
    private static let slots = DispatchSemaphore(value: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// A post's photo: `full` (long side ≤ 1080 px), `feed` (≤ 640 px), `thumb` (320 px square).
    package static func post(_ upload: ImageUpload) throws(TimelineError) -> ProcessedImage {
        try checked(upload)
        return try withSlot { () throws(VipsError) -> ProcessedImage in
            try variants(of: try Vips.decode(upload.bytes, fittingIn: 1080, 1080))
        }
    }

    /// A video's poster frame (RGB, 3 bytes a pixel, as the transcoder decoded it), in a post
    /// photo's variants.
    package static func poster(rgb: [UInt8], width: Int, height: Int) throws(TimelineError) -> ProcessedImage {
        try withSlot { () throws(VipsError) -> ProcessedImage in
            try variants(of: try Vips.rgb(rgb, width: width, height: height).resized(1080, 1080))
        }
    }

    /// `full` (long side ≤ 1080 px) and its smaller variants and blurhash.
    private static func variants(of full: Vips.Image) throws(VipsError) -> ProcessedImage {
        let feed = try full.resized(640, 640)
        let thumb = try full.resized(320, 320, crop: true)
        // The blurhash reads a small copy: its few components need no more detail.
        let small = try full.resized(64, 64)
        let blurhash = Blurhash.encode(rgb: try small.rgbPixels(), width: small.width, height: small.height)
        return ProcessedImage(
            width: full.width, height: full.height,
            full: try encode(full), feed: try encode(feed), thumb: try encode(thumb), blurhash: blurhash)
    }

    /// A profile photo: 320 px and 96 px squares, cropped around the centre.
    package static func avatar(_ upload: ImageUpload) throws(TimelineError) -> (large: ImageUpload, small: ImageUpload)
    {
        try checked(upload)
        return try withSlot { () throws(VipsError) -> (large: ImageUpload, small: ImageUpload) in
            let decoded = try Vips.decode(upload.bytes, fittingIn: 1080, 1080)
            return (
                try encode(try decoded.resized(320, 320, crop: true)),
                try encode(try decoded.resized(96, 96, crop: true))
            )
        }
    }

    /// A profile header: 1500×500 and 600×200 bands, cropped around the centre (Mastodon's size).
    static func header(_ upload: ImageUpload) throws(TimelineError) -> (large: ImageUpload, small: ImageUpload) {
        try checked(upload)
        return try withSlot { () throws(VipsError) -> (large: ImageUpload, small: ImageUpload) in
            let decoded = try Vips.decode(upload.bytes, fittingIn: 3000, 3000)
            return (
                try encode(try decoded.resized(1500, 500, crop: true)),
                try encode(try decoded.resized(600, 200, crop: true))
            )
        }
    }

    /// Refuses, from the header alone, what is not a whole file of an accepted format and what
    /// would decode to too many pixels.
    private static func checked(_ upload: ImageUpload) throws(TimelineError) {
        let header: Vips.Header
        do { header = try Vips.header(upload.bytes) } catch { throw unsupported(error) }
        guard WholeFile.isWhole(upload.bytes, header.format) else {
            throw TimelineError(
                .unsupportedMediaType,
                "image must be one whole JPEG, PNG, GIF, HEIC or WebP file (it is cut short, or data follows its end)",
                field: "image")
        }
        guard header.width <= maxSide, header.height <= maxSide, header.width * header.height <= maxPixels else {
            throw TimelineError.invalid(
                "image", "image is \(header.width)×\(header.height): at most 50 megapixels and 12000 px a side")
        }
    }

    private static func withSlot<T>(_ body: () throws(VipsError) -> T) throws(TimelineError) -> T {
        slots.wait()
        defer { slots.signal() }
        do { return try body() } catch { throw unsupported(error) }
    }

    private static func unsupported(_ error: VipsError) -> TimelineError {
        error.code == .unsupported
            ? TimelineError(
                .unsupportedMediaType, "image must be a whole, decodable JPEG, PNG, GIF, HEIC or WebP file",
                field: "image")
            : TimelineError(.internal, "image processing failed: \(error.message)")
    }

    /// JPEG for opaque images, PNG where there is transparency.
    private static func encode(_ image: Vips.Image) throws(VipsError) -> ImageUpload {
        image.hasAlpha
            ? ImageUpload(encoded: try image.png(), mediaType: .png)
            : ImageUpload(encoded: try image.jpeg(quality: jpegQuality), mediaType: .jpeg)
    }
}
