import FFmpeg
import Foundation
import Testing

/// The FFmpeg layer against videos the `ffmpeg` command line makes (a phone's MOV with GPS and a
/// rotation, HEVC, WebM), checked by `ffprobe` (an independent reader) and, for the rotation, by
/// the `ffmpeg` command line's own rotated frame; then the bad inputs, each refused with its
/// reason and never a crash.
@Suite(.serialized) struct VideoTranscoderTests {
    static let directory: String = {
        let path = NSTemporaryDirectory() + "timeline-video-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Runs `tool` with `arguments` in `directory`; its standard output.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments) failed"])
        }
        return data
    }

    /// Makes `name` with the `ffmpeg` command line (`arguments` after the quiet flags).
    static func make(_ name: String, _ arguments: [String]) throws -> String {
        try run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments + [name])
        return directory + "/" + name
    }

    /// `ffprobe`'s view of `path`: its format and streams.
    static func probe(_ path: String) throws -> [String: Any] {
        let data = try run("ffprobe", ["-v", "error", "-show_format", "-show_streams", "-of", "json", path])
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The first frame of `path` as 8-bit grey, `width` × `height`, by the `ffmpeg` command line.
    static func firstFrame(_ path: String, _ width: Int, _ height: Int) throws -> [UInt8] {
        let out = directory + "/frame-\(UUID().uuidString).raw"
        try run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-i", path, "-frames:v", "1", "-s", "\(width)x\(height)",
                "-pix_fmt", "gray", "-f", "rawvideo", out
            ])
        return Array(try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    /// A phone's video: H.264 and AAC in a MOV, recorded sideways (a 90° display matrix), with
    /// its place in the container's metadata.
    static func phoneVideo() throws -> String {
        let plain = try make(
            "plain.mov",
            [
                "-f", "lavfi", "-i", "testsrc=size=640x360:rate=30", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=44100", "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a",
                "aac"
            ])
        return try make(
            "phone.mov",
            ["-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", "-metadata", "location=+48.8577+002.2950/"])
    }

    @Test func aPhonesVideoBecomesH264AndAACWithoutMetadataAndUpright() throws {
        let input = try Self.phoneVideo()
        let output = Self.directory + "/phone.mp4"
        let made = try VideoTranscoder.transcode(input: input, output: output)
        #expect(made.width == 360 && made.height == 640 && made.hasAudio)
        #expect(abs(made.seconds - 2) < 0.1 && abs(made.fps - 30) < 0.01)
        #expect(made.posterRGB.count == 360 * 640 * 3)

        let probed = try Self.probe(output)
        let streams = try #require(probed["streams"] as? [[String: Any]])
        #expect(streams.map { $0["codec_name"] as? String } == ["h264", "aac"])
        #expect(streams[0]["width"] as? Int == 360 && streams[0]["height"] as? Int == 640)
        #expect(streams[0]["side_data_list"] == nil, "a display matrix is left: \(streams[0])")
        let format = try #require(probed["format"] as? [String: Any])
        let tags = (format["tags"] as? [String: String]) ?? [:]
        #expect(tags["location"] == nil && tags["encoder"] == nil && tags["creation_time"] == nil, "\(tags)")
        #expect((format["format_name"] as? String)?.contains("mp4") == true)
        // +faststart: the index (moov) before the data (mdat).
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        let moov = try #require(bytes.range(of: Data("moov".utf8))),
            mdat = try #require(bytes.range(of: Data("mdat".utf8)))
        #expect(moov.lowerBound < mdat.lowerBound)

        // Upright as the ffmpeg command line turns it (its autorotate): the same first frame.
        let reference = try Self.make("reference.mp4", ["-i", input, "-c:v", "libx264", "-an"])
        let ours = try Self.firstFrame(output, 36, 64), theirs = try Self.firstFrame(reference, 36, 64)
        let difference = zip(ours, theirs).map { abs(Int($0) - Int($1)) }.reduce(0, +) / ours.count
        #expect(ours.count == 36 * 64 && difference < 12, "mean difference \(difference) from ffmpeg's own rotation")
    }

    @Test func hevcAndWebMAreTaken() throws {
        let hevc = try Self.make(
            "hevc.mp4",
            ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "1", "-c:v", "libx265", "-tag:v", "hvc1"])
        let webm = try Self.make(
            "vp9.webm",
            [
                "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-f", "lavfi", "-i", "sine", "-t", "1", "-c:v",
                "libvpx-vp9", "-c:a", "libopus"
            ])
        let fromHEVC = try VideoTranscoder.transcode(input: hevc, output: Self.directory + "/hevc-out.mp4")
        #expect(fromHEVC.width == 320 && fromHEVC.height == 240 && !fromHEVC.hasAudio)
        let fromWebM = try VideoTranscoder.transcode(input: webm, output: Self.directory + "/vp9-out.mp4")
        #expect(fromWebM.hasAudio)
        let streams = try #require(try Self.probe(Self.directory + "/vp9-out.mp4")["streams"] as? [[String: Any]])
        #expect(streams.map { $0["codec_name"] as? String } == ["h264", "aac"])
        // A browser's recording (a live WebM) tells no length: measured as it is decoded.
        let live = try Self.make(
            "live.webm",
            ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-t", "2", "-c:v", "libvpx", "-live", "1"])
        let fromLive = try VideoTranscoder.transcode(input: live, output: Self.directory + "/live-out.mp4")
        #expect(abs(fromLive.seconds - 2) < 0.2, "\(fromLive)")
        #expect(throws: VideoError.self) {
            try VideoTranscoder.transcode(
                input: live, output: Self.directory + "/live-short.mp4", limits: .init(maxSeconds: 0.5))
        }
    }

    @Test func aLargeVideoIsScaledTo1080p() throws {
        let big = try Self.make(
            "big.mp4", ["-f", "lavfi", "-i", "testsrc=size=2560x1440:rate=5", "-t", "1", "-c:v", "libx264"])
        let made = try VideoTranscoder.transcode(input: big, output: Self.directory + "/big-out.mp4")
        #expect(made.width == 1920 && made.height == 1080)
    }

    @Test func badInputIsRefusedWithItsReason() throws {
        func refusal(_ input: String, _ limits: VideoTranscoder.Limits = .init()) -> VideoError.Code? {
            do {
                _ = try VideoTranscoder.transcode(input: input, output: Self.directory + "/bad-out.mp4", limits: limits)
                return nil
            } catch { return error.code }
        }
        // Not a video: text, a zip renamed .mp4, nothing at all.
        let text = Self.directory + "/text.mp4"
        try Data("this is not a video".utf8).write(to: URL(fileURLWithPath: text))
        #expect(refusal(text) == .unreadable)
        let zip = Self.directory + "/archive.mp4"
        try Data([0x50, 0x4b, 0x03, 0x04] + [UInt8](repeating: 0, count: 4096)).write(to: URL(fileURLWithPath: zip))
        #expect(refusal(zip) == .unreadable)
        #expect(refusal(Self.directory + "/missing.mp4") == .unreadable)
        // Truncated: half of a faststart MP4 (its index promises frames that are not there).
        let whole = try Self.make(
            "whole.mp4",
            [
                "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "2", "-c:v", "libx264", "-movflags",
                "+faststart"
            ])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let half = Self.directory + "/half.mp4"
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: half))
        #expect(refusal(half) == .unreadable)
        // Ten hours of a still frame: refused by its length before any decoding.
        let long = try Self.make(
            "long.mp4", ["-f", "lavfi", "-i", "color=size=16x16:rate=1", "-t", "36000", "-c:v", "libx264"])
        #expect(refusal(long) == .tooLong)
        // Frames larger than taken (a decompression bomb's header), and a codec not taken.
        #expect(refusal(whole, .init(maxPixels: 10_000)) == .tooLarge)
        let mjpeg = try Self.make(
            "mjpeg.mov", ["-f", "lavfi", "-i", "testsrc=size=64x64:rate=5", "-t", "1", "-c:v", "mjpeg"])
        #expect(refusal(mjpeg) == .unsupported)
        // A header that lies: a minute of frames whose MP4 boxes say 5 ms (mvhd, tkhd, mdhd).
        let minute = try Self.make(
            "minute.mp4",
            ["-f", "lavfi", "-i", "color=size=16x16:rate=1", "-t", "60", "-c:v", "libx264", "-use_editlist", "0"])
        let lying = Self.directory + "/lying.mp4"
        try Self.run(
            "python3",
            [
                "-c",
                """
                import struct, sys
                data = bytearray(open(sys.argv[1], 'rb').read())
                def walk(at, end):
                    while at + 8 <= end:
                        size, kind = struct.unpack('>I4s', data[at:at + 8])
                        if kind in (b'moov', b'trak', b'mdia'): walk(at + 8, at + size)
                        if kind in (b'mvhd', b'mdhd', b'tkhd') and data[at + 8] == 0:
                            struct.pack_into('>I', data, at + 8 + 12 + (4 if kind == b'tkhd' else 0) + 4, 5)
                        at += size
                walk(0, len(data))
                open(sys.argv[2], 'wb').write(data)
                """, minute, lying
            ])
        #expect(refusal(lying, .init(maxSeconds: 10)) == .tooLong)
        // Sound that turns from stereo to mono midway (MP3 frames of each): taken, not a crash.
        let stereo = try Self.make(
            "stereo.mp3",
            ["-f", "lavfi", "-i", "sine", "-t", "1.5", "-ac", "2", "-write_xing", "0", "-id3v2_version", "0"])
        let mono = try Self.make(
            "mono.mp3",
            ["-f", "lavfi", "-i", "sine", "-t", "1.5", "-ac", "1", "-write_xing", "0", "-id3v2_version", "0"])
        let mixed = Self.directory + "/mixed.mp3"
        try (try Data(contentsOf: URL(fileURLWithPath: stereo)) + Data(contentsOf: URL(fileURLWithPath: mono)))
            .write(to: URL(fileURLWithPath: mixed))
        let changing = try Self.make(
            "changing.mp4",
            [
                "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-i", mixed, "-t", "3", "-c:v", "libx264", "-c:a",
                "copy"
            ])
        let made = try VideoTranscoder.transcode(input: changing, output: Self.directory + "/changing-out.mp4")
        #expect(made.hasAudio && abs(made.seconds - 3) < 0.2, "\(made)")
        // Sound alone.
        let audio = try Self.make("sound.m4a", ["-f", "lavfi", "-i", "sine", "-t", "1", "-c:a", "aac"])
        #expect(refusal(audio) == .noVideo)
    }
}
