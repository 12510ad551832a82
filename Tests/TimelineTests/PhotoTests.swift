import Foundation
import Testing
@testable import Timeline
import TimelineDomain
import Vips

/// The image pipeline, on photos made here with Debian's `vips` and `exiftool`.
@Suite struct PhotoTests {
    /// Runs a tool; returns its standard output (throws on a non-zero exit).
    @discardableResult
    static func tool(_ arguments: String..., in dir: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: dir)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try spawn(process)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TimelineError(.internal, "\(arguments) failed") }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func directory() -> String {
        let dir = temporaryPath("images")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func bytes(_ dir: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
    }

    /// A `width`×`height` RGB image whose left half is white and right half black, as `name`.
    static func halves(_ width: Int, _ height: Int, _ name: String, in dir: String) throws {
        try tool("vips", "xyz", "xy.v", "\(width)", "\(height)", in: dir)
        try tool("vips", "extract_band", "xy.v", "x.v", "0", in: dir)
        try tool("vips", "relational_const", "x.v", "m.v", "less", "\(width / 2)", in: dir)
        try tool("vips", "bandjoin", "m.v m.v m.v", "rgb.v", in: dir)
        try tool("vips", "copy", "rgb.v", name, in: dir)
    }

    func post(_ service: TimelineService, _ user: UserID, _ bytes: [UInt8]) async throws -> Post {
        try #require(
            try await service.run(.addPost(image: Data(bytes).base64EncodedString(), caption: nil), as: user).post)
    }

    @Test func portraitPhotoIsUprightSizedAndStripped() async throws {
        let dir = Self.directory()
        try Self.halves(4032, 3024, "photo.jpg", in: dir)
        try Self.tool(
            "exiftool", "-overwrite_original", "-Orientation#=6", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N",
            "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", "-Comment=secret", "photo.jpg", in: dir)
        #expect(try Self.tool("exiftool", "-s3", "-GPSLatitude", "photo.jpg", in: dir).isEmpty == false)
        let service = try openService()
        let alice = try await service.createUser("alice")
        let post = try await post(service, alice.id, try Self.bytes(dir, "photo.jpg"))
        #expect(post.width == 810 && post.height == 1080)
        let variants = try #require(post.variants)
        #expect(variants.full == post.image)
        let full = try service.image(variants.full)
        #expect(full.mediaType == .jpeg)
        try Data(full.bytes).write(to: URL(fileURLWithPath: dir + "/full.jpg"))
        #expect(try Self.tool("vipsheader", "-f", "width", "full.jpg", in: dir) == "810")
        #expect(try Self.tool("vipsheader", "-f", "height", "full.jpg", in: dir) == "1080")
        // Upright: the stored image's left half (white) is now the top.
        func grey(_ x: Int, _ y: Int) throws -> Double {
            Double(
                try Self.tool("vips", "getpoint", "full.jpg", "\(x)", "\(y)", in: dir).split(separator: " ").first ?? ""
            ) ?? -1
        }
        let (top, bottom) = (try grey(405, 100), try grey(405, 980))
        #expect(top > 200 && bottom < 50, "top \(top), bottom \(bottom)")
        // No metadata at all: no EXIF, GPS, XMP, IPTC or comment.
        let tags = try Self.tool(
            "exiftool", "-s", "-EXIF:all", "-GPS:all", "-XMP:all", "-IPTC:all", "-Comment", "full.jpg", in: dir)
        #expect(tags.isEmpty, "\(tags)")
        for (id, side) in [(variants.feed, 640), (variants.thumb, 320)] {
            try Data(try service.image(id).bytes).write(to: URL(fileURLWithPath: dir + "/v.jpg"))
            #expect(try Self.tool("vipsheader", "-f", "height", "v.jpg", in: dir) == "\(side)")
        }
        // What was produced is in the event: a rebuild re-encodes nothing.
        let added = try service.events(from: 1, limit: 100).compactMap { e -> PostAdded? in
            if case .postAdded(let p) = e.event { return p } else { return nil }
        }
        #expect(added.first?.variants == variants && added.first?.width == 810)
    }

    @Test func transparencyIsKept() async throws {
        let dir = Self.directory()
        try Self.tool("vips", "black", "clear.png", "64", "48", "--bands", "4", in: dir)
        let service = try openService()
        let alice = try await service.createUser("alice")
        let post = try await post(service, alice.id, try Self.bytes(dir, "clear.png"))
        let full = try service.image(post.image)
        #expect(full.mediaType == .png)
        try Data(full.bytes).write(to: URL(fileURLWithPath: dir + "/out.png"))
        #expect(try Self.tool("vipsheader", "-f", "bands", "out.png", in: dir) == "4")
        #expect(post.width == 64 && post.height == 48)
    }

    /// A photo in a wider colour space (Display P3, with its profile embedded) is converted to
    /// sRGB, then the profile is stripped: P3's red, stored as (234, 51, 35), is served as
    /// sRGB's (255, 0, 0) with no profile left.
    @Test func aColourProfileIsAppliedThenStripped() async throws {
        let dir = Self.directory()
        try Self.tool("vips", "black", "black.v", "64", "64", "--bands", "3", in: dir)
        try Self.tool("vips", "linear", "black.v", "red.v", "1 1 1", "255 0 0", in: dir)
        try Self.tool("vips", "cast", "red.v", "red8.v", "uchar", in: dir)
        try Self.tool("vips", "icc_transform", "red8.v", "p3.jpg[Q=95]", "p3", "--input-profile", "srgb", in: dir)
        #expect(try Self.tool("vipsheader", "-a", "p3.jpg", in: dir).contains("icc-profile-data"))
        #expect(try Self.tool("vips", "getpoint", "p3.jpg", "32", "32", in: dir) != "255 0 0")
        let service = try openService()
        let alice = try await service.createUser("alice")
        let post = try await post(service, alice.id, try Self.bytes(dir, "p3.jpg"))
        try Data(try service.image(post.image).bytes).write(to: URL(fileURLWithPath: dir + "/out.jpg"))
        let rgb = try Self.tool("vips", "getpoint", "out.jpg", "32", "32", in: dir).split(separator: " ").compactMap {
            Double($0)
        }
        #expect(rgb.count == 3 && rgb[0] > 245 && rgb[1] < 12 && rgb[2] < 12, "\(rgb)")
        #expect(!(try Self.tool("vipsheader", "-a", "out.jpg", in: dir).contains("icc-profile-data")))
    }

    @Test func heicBecomesJPEG() async throws {
        let dir = Self.directory()
        try Self.halves(400, 300, "photo.heic", in: dir)
        let service = try openService()
        let alice = try await service.createUser("alice")
        let post = try await post(service, alice.id, try Self.bytes(dir, "photo.heic"))
        let variants = try #require(post.variants)
        for id in [variants.full, variants.feed, variants.thumb] { #expect(try service.image(id).mediaType == .jpeg) }
        #expect(post.width == 400 && post.height == 300)
    }

    @Test func polyglotsAndTruncatedFilesAreRefused() async throws {
        let dir = Self.directory()
        try Self.tool("vips", "black", "small.png", "8", "8", in: dir)
        let png = try Self.bytes(dir, "small.png")
        let zip: [UInt8] = [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)  // an empty ZIP archive
        let refused: [(String, [UInt8])] = [
            ("3-byte JPEG", [0xFF, 0xD8, 0xFF]),
            ("bare GIF89a", Array("GIF89a".utf8)),
            ("PNG with a ZIP appended", png + zip),
            ("JPEG magic then HTML", [0xFF, 0xD8, 0xFF] + Array("<html><script>alert(1)</script></html>".utf8)),
            ("truncated PNG", Array(png.prefix(png.count - 20)))
        ]
        let service = try openService()
        let alice = try await service.createUser("alice")
        let before = try service.events(from: 1, limit: 1000).count
        for (name, bytes) in refused {
            do {
                _ = try await post(service, alice.id, bytes)
                Issue.record("\(name) was accepted")
            } catch let error as TimelineError {
                #expect(error.code == .unsupportedMediaType, "\(name): \(error)")
            }
        }
        #expect(try service.events(from: 1, limit: 1000).count == before)
        _ = try await post(service, alice.id, png)  // the same PNG, whole, is fine
    }

    @Test func decompressionBombIsRefusedOnItsHeader() async throws {
        let dir = Self.directory()
        try Self.tool("vips", "black", "big.png", "7746", "7746", "--bands", "3", in: dir)  // 60 MP, ~180 MB decoded
        let bytes = try Self.bytes(dir, "big.png")
        let service = try openService()
        let alice = try await service.createUser("alice")
        let before = try service.events(from: 1, limit: 1000).count
        let peak = Self.peakRSS()
        await expectError(.invalidArgument, field: "image") { _ = try await post(service, alice.id, bytes) }
        #expect(Self.peakRSS() - peak < 100 << 20, "the refusal decoded pixels")
        #expect(try service.events(from: 1, limit: 1000).count == before)
        try Self.tool("vips", "black", "wide.png", "12001", "10", in: dir)
        await expectError(.invalidArgument, field: "image") {
            _ = try await post(service, alice.id, try Self.bytes(dir, "wide.png"))
        }
    }

    /// A 1×12000 strip (a 100-byte PNG, within every limit) gets its square thumbnail from its
    /// centre: scaling the whole strip to cover 320×320 first made it 320×3,840,000 (seconds of
    /// CPU and hundreds of MB per upload, a denial of service).
    @Test func aStripGetsItsSquareFromItsCentreCheaply() async throws {
        let dir = Self.directory()
        try Self.tool("vips", "black", "strip.png", "1", "12000", in: dir)
        let service = try openService()
        let alice = try await service.createUser("alice")
        let peak = Self.peakRSS()
        let post = try await post(service, alice.id, try Self.bytes(dir, "strip.png"))
        #expect(Self.peakRSS() - peak < 100 << 20, "the thumbnail scaled the whole strip")
        let thumb = try Vips.header(try service.image(try #require(post.variants).thumb).bytes)
        #expect(thumb.width == 320 && thumb.height == 320)
        #expect(post.width == 1 && post.height == 1080)
    }

    /// The process's peak resident memory (VmHWM), in bytes.
    static func peakRSS() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }
}
