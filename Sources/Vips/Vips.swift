private import CVips

/// The image library (libvips), started once, behind a few safe calls: no C pointer leaves this
/// module. Every call is thread-safe; each image uses one libvips worker thread, so callers
/// bound the parallelism (the pipeline runs one image per core).
public enum Vips {
    /// Formats this layer accepts (libvips may know others: they are refused).
    public enum Format: String, Sendable {
        /// JPEG.
        case jpeg
        /// PNG.
        case png
        /// GIF.
        case gif
        /// WebP.
        case webp
        /// HEIF (HEIC photos).
        case heif
    }

    /// An image's format and size, read from its header alone.
    public struct Header: Sendable, Equatable {
        /// The format.
        public var format: Format
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
    }

    private static let started: Bool = timeline_vips_start(1) == 0

    /// Reads the format and size without decoding pixels. Throws `.unsupported` for anything
    /// that is none of the five formats or whose header does not parse.
    public static func header(_ bytes: [UInt8]) throws(VipsError) -> Header {
        try ensureStarted()
        let result: Result<Header, VipsError> = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0,
                let loader = timeline_vips_loader(base, raw.count).map({ String(cString: $0).lowercased() }),
                let format = [Format.jpeg, .png, .gif, .webp, .heif].first(where: { loader.contains($0.rawValue) })
            else {
                timeline_vips_clear_error()
                return .failure(VipsError(.unsupported, "not a JPEG, PNG, GIF, WebP or HEIF image"))
            }
            guard let image = timeline_vips_header(base, raw.count) else { return .failure(lastError(.unsupported)) }
            defer { timeline_vips_release(image) }
            return .success(
                Header(format: format, width: Int(timeline_vips_width(image)), height: Int(timeline_vips_height(image)))
            )
        }
        return try result.get()
    }

    /// Decodes `bytes` in full, upright (EXIF orientation applied) in sRGB, fitted within
    /// `width`×`height` (never enlarged); shrink-on-load keeps a large JPEG small in memory.
    /// Throws `.unsupported` when the pixels do not decode (truncated or corrupt data).
    public static func decode(_ bytes: [UInt8], fittingIn width: Int, _ height: Int) throws(VipsError) -> Image {
        try ensureStarted()
        let pointer = bytes.withUnsafeBytes { raw in
            raw.baseAddress.flatMap { timeline_vips_fit_buffer($0, raw.count, Int32(width), Int32(height)) }
        }
        guard let pointer else { throw lastError(.unsupported) }
        return try Image(owning: pointer).srgb()
    }

    /// A `width`×`height` photo-like image (a vertical gradient from `top` to `bottom`, RGB
    /// 0–255, with a soft grain drawn from `seed`), for demos and benchmarks that want a real
    /// photo's size without shipping one.
    public static func gradient(
        width: Int, height: Int, from top: (Double, Double, Double), to bottom: (Double, Double, Double),
        seed: Int32
    ) throws(VipsError) -> Image {
        try ensureStarted()
        let made = withUnsafePointer(to: top) { topTuple in
            withUnsafePointer(to: bottom) { bottomTuple in
                topTuple.withMemoryRebound(to: Double.self, capacity: 3) { topPointer in
                    bottomTuple.withMemoryRebound(to: Double.self, capacity: 3) { bottomPointer in
                        timeline_vips_gradient(Int32(width), Int32(height), topPointer, bottomPointer, seed)
                    }
                }
            }
        }
        guard let made else { throw lastError(.failed) }
        return Image(owning: made)
    }

    /// A `width`×`height` grey image of `pixels` (one byte a pixel, 0 black to 255 white, row
    /// after row): a drawing made in memory (a QR code) to be encoded.
    public static func gray(_ pixels: [UInt8], width: Int, height: Int) throws(VipsError) -> Image {
        try image(pixels, width: width, height: height, bands: 1)
    }

    /// A `width`×`height` sRGB image of `pixels` (three bytes a pixel, row after row): a frame
    /// decoded elsewhere (a video's poster).
    public static func rgb(_ pixels: [UInt8], width: Int, height: Int) throws(VipsError) -> Image {
        try image(pixels, width: width, height: height, bands: 3)
    }

    private static func image(_ pixels: [UInt8], width: Int, height: Int, bands: Int) throws(VipsError) -> Image {
        try ensureStarted()
        guard width > 0, height > 0, pixels.count == width * height * bands else {
            throw VipsError(.failed, "the pixels are not width × height × \(bands) bytes")
        }
        let made = pixels.withUnsafeBufferPointer {
            timeline_vips_pixels($0.baseAddress, Int32(width), Int32(height), Int32(bands))
        }
        guard let made else { throw lastError(.failed) }
        return Image(owning: made)
    }

    private static func ensureStarted() throws(VipsError) {
        guard started else { throw VipsError(.failed, "libvips did not start") }
    }

    /// The error of a failed call. libvips keeps one error buffer for the whole process, which
    /// every thread appends to: its text may be another image's (another user's upload), so it
    /// is cleared and never passed on; the code says what failed.
    static func lastError(_ code: VipsError.Code) -> VipsError {
        timeline_vips_clear_error()
        return VipsError(code, code == .unsupported ? "libvips could not decode the image" : "libvips failed")
    }

    /// A decoded image in memory (owned; released when the last reference goes).
    public final class Image: @unchecked Sendable {
        // Immutable once made: libvips images are safe to read from any thread.
        private let pointer: UnsafeMutablePointer<VipsImage>

        fileprivate init(owning pointer: UnsafeMutablePointer<VipsImage>) { self.pointer = pointer }
        deinit { timeline_vips_release(pointer) }

        /// Width in pixels.
        public var width: Int { Int(timeline_vips_width(pointer)) }
        /// Height in pixels.
        public var height: Int { Int(timeline_vips_height(pointer)) }
        /// Whether it has an alpha channel.
        public var hasAlpha: Bool { timeline_vips_has_alpha(pointer) != 0 }

        fileprivate func srgb() throws(VipsError) -> Image {
            guard let out = timeline_vips_srgb(pointer) else { throw Vips.lastError(.failed) }
            return Image(owning: out)
        }

        /// Fitted within `width`×`height` (never enlarged), or with `crop` filling it exactly,
        /// cropped around the centre.
        public func resized(_ width: Int, _ height: Int, crop: Bool = false) throws(VipsError) -> Image {
            guard let out = timeline_vips_resize(pointer, Int32(width), Int32(height), crop ? 1 : 0) else {
                throw Vips.lastError(.failed)
            }
            return try Image(owning: out).srgb()
        }

        /// Progressive JPEG at `quality`, with no metadata.
        public func jpeg(quality: Int) throws(VipsError) -> [UInt8] {
            try encode { timeline_vips_jpeg(pointer, Int32(quality), &$0, &$1) }
        }

        /// The pixels as 8-bit sRGB, `r g b` per pixel, row after row (alpha flattened onto white).
        public func rgbPixels() throws(VipsError) -> [UInt8] {
            var length = 0
            guard let buffer = timeline_vips_rgb_pixels(pointer, &length) else { throw Vips.lastError(.failed) }
            defer { timeline_vips_free(buffer) }
            return Array(UnsafeRawBufferPointer(start: buffer, count: length))
        }

        /// PNG (keeps alpha), with no metadata.
        public func png() throws(VipsError) -> [UInt8] {
            try encode { timeline_vips_png(pointer, &$0, &$1) }
        }

        private func encode(_ save: (inout UnsafeMutableRawPointer?, inout Int) -> Int32) throws(VipsError) -> [UInt8] {
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            guard save(&buffer, &length) == 0, let buffer else { throw Vips.lastError(.failed) }
            defer { timeline_vips_free(buffer) }
            return Array(UnsafeRawBufferPointer(start: buffer, count: length))
        }
    }
}

/// A libvips failure: the input is not an image it can decode, or an operation failed.
public struct VipsError: Error, Sendable, CustomStringConvertible {
    /// The codes a `VipsError` has.
    public struct Code: Hashable, Sendable {
        private enum Value { case unsupported, failed }
        private let value: Value
        /// The bytes are not a decodable image of an accepted format.
        public static let unsupported = Code(value: .unsupported)
        /// Resizing or encoding failed.
        public static let failed = Code(value: .failed)
    }
    /// Which kind of failure.
    public let code: Code
    /// libvips's message.
    public let message: String
    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    /// libvips's message, as it is.
    public var description: String { message }
}
