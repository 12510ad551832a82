import CFFmpeg

/// Video through FFmpeg's libraries (libavformat, libavcodec, libswscale, libswresample): the
/// only code that calls them. One call does one whole job (`shim.h`): a phone's or a browser's
/// video in, an H.264 + AAC MP4 out.
public enum VideoTranscoder {
    /// What a transcode takes and makes.
    public struct Limits: Sendable {
        /// The longest video taken, in seconds.
        public var maxSeconds: Double
        /// The largest frame taken, in pixels (width × height): past it, a decompression bomb.
        public var maxPixels: Int
        /// The output's bounds: its long side and its short side at most these (1080p).
        public var maxLong: Int, maxShort: Int
        /// Codec threads.
        public var threads: Int

        /// Limits with these values (by default: 3 minutes, 8K frames, 1920 × 1080, 2 threads).
        public init(
            maxSeconds: Double = 180, maxPixels: Int = 7680 * 4320, maxLong: Int = 1920, maxShort: Int = 1080,
            threads: Int = 2
        ) {
            self.maxSeconds = maxSeconds
            self.maxPixels = maxPixels
            self.maxLong = maxLong
            self.maxShort = maxShort
            self.threads = threads
        }
    }

    /// What a transcode made.
    public struct Transcoded: Sendable, Equatable {
        /// The output's size in pixels (after rotation).
        public var width: Int, height: Int
        /// Its duration in seconds and its frame rate.
        public var seconds: Double, fps: Double
        /// Whether it has a sound track.
        public var hasAudio: Bool
        /// Its first frame: RGB, 3 bytes a pixel, `width` × `height`, row after row.
        public var posterRGB: [UInt8]
    }

    /// Transcodes the video file at `input` into an MP4 at `output` (H.264 High, CRF 23, x264's
    /// veryfast preset with a lookahead of 5 frames — half its own, which keeps a 1080p job's
    /// memory well under 300 MiB —, and AAC
    /// 128 kb/s 48 kHz stereo when it has sound; `+faststart`; no metadata of any kind; the
    /// rotation the file asks for applied; within `limits`' size, never enlarged).
    public static func transcode(input: String, output: String, limits: Limits = Limits()) throws(VideoError)
        -> Transcoded
    {
        var bounds = timeline_video_limits(
            max_seconds: limits.maxSeconds, max_pixels: Int32(clamping: limits.maxPixels),
            max_long: Int32(limits.maxLong), max_short: Int32(limits.maxShort), threads: Int32(limits.threads))
        var info = timeline_video_info()
        var message = [CChar](repeating: 0, count: 256)
        let code = timeline_transcode(input, output, &bounds, &info, &message, message.count)
        guard code == 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw VideoError(VideoError.Code(rawValue: Int(code)) ?? .failed, text)
        }
        defer { timeline_video_free(info.poster) }
        let size = Int(info.width) * Int(info.height) * 3
        let poster = info.poster.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        return Transcoded(
            width: Int(info.width), height: Int(info.height), seconds: info.seconds, fps: info.fps,
            hasAudio: info.has_audio != 0, posterRGB: poster)
    }
}

/// A video FFmpeg could not take: why, in a sentence for the person who sent it.
public struct VideoError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Int, Sendable {
        /// Not a container read here (MP4, MOV, WebM), or truncated.
        case unreadable = 1
        /// No video stream.
        case noVideo = 2
        /// A codec not taken.
        case unsupported = 3
        /// Longer than the limit.
        case tooLong = 4
        /// Frames larger than the limit.
        case tooLarge = 5
        /// Decoding or encoding failed.
        case failed = 6
    }
    /// What went wrong.
    public let code: Code
    /// The sentence.
    public let description: String

    init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
