import Archive
import Foundation
import Testing
import TimelineDomain

@testable import Timeline

/// Videos through the library: an upload recorded and transcoded off the command (a phone's MOV
/// with GPS and a rotation, checked by `ffprobe`), attached only once ready, served only to whom
/// its post or story shows, in its owner's export, resumed after a restart, a broken one failed
/// with its reason, and a refused one leaving nothing behind.
@Suite(.serialized) struct VideoUploadTests {
    static func upload(_ service: TimelineService, _ path: String, by user: UserID) async throws -> MediaID {
        let video = try Data(contentsOf: URL(fileURLWithPath: path)).base64EncodedString()
        guard case .media(let media) = try await service.run(.uploadVideo(video: video, alt: "A test card"), as: user)
        else { throw TimelineError(.internal, "no media") }
        return MediaID(media.id)
    }

    @Test func aVideoIsTranscodedThenPostedAndPlaysForWhomItsPostShows() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id
        let media = try await Self.upload(service, try VideoTranscoderTests.phoneVideo(), by: alice)
        #expect(try service.media(media, viewer: alice).video == .processing)
        // Not attachable, and not playable, until it is transcoded.
        await #expect(throws: TimelineError.self) {
            try await service.run(.addPost(media: [media.rawValue], caption: "Sea"), as: alice)
        }
        #expect(throws: TimelineError.self) { try service.videoFile(media.rawValue, viewer: alice) }

        try await service.processPendingVideos()
        let attachment = try service.media(media, viewer: alice)
        guard case .ready(let file) = attachment.video else {
            Issue.record("\(attachment)")
            return
        }
        // Upright (recorded sideways), H.264 + AAC, nothing of the phone's metadata.
        #expect(attachment.width == 360 && attachment.height == 640 && attachment.alt == "A test card")
        #expect(abs(file.seconds - 2) < 0.1 && abs(file.fps - 30) < 0.01 && file.hasAudio)
        let played = try service.videoFile(media.rawValue, viewer: alice)
        #expect(played.bytes == file.bytes)
        let probe = try VideoTranscoderTests.probe(played.path)
        let streams = try #require(probe["streams"] as? [[String: Any]])
        #expect(streams.compactMap { $0["codec_name"] as? String }.sorted() == ["aac", "h264"])
        let tags = (probe["format"] as? [String: Any])?["tags"] as? [String: Any] ?? [:]
        #expect(!tags.keys.contains { $0.contains("location") }, "\(tags)")
        // Unattached, it is alice's alone; its poster is an image of hers too.
        #expect(throws: TimelineError.self) { try service.videoFile(media.rawValue, viewer: bob) }
        #expect(attachment.blurhash?.isEmpty == false && attachment.variants?.full.rawValue.isEmpty == false)

        // Posted for followers only: bob sees it once he follows alice.
        guard
            case .post(let post) = try await service.run(
                .addPost(media: [media.rawValue], caption: "Sea", visibility: .followers), as: alice)
        else {
            Issue.record("no post")
            return
        }
        #expect(post.media.first?.video == .ready(file))
        #expect(throws: TimelineError.self) { try service.videoFile(media.rawValue, viewer: bob) }
        #expect(throws: TimelineError.self) { try service.videoFile(media.rawValue, viewer: nil) }
        try await service.run(.follow(user: alice.rawValue), as: bob)
        #expect(try service.videoFile(media.rawValue, viewer: bob).bytes == file.bytes)

        // Her data's export holds the video itself, beside its poster.
        var archive: [UInt8] = []
        try service.export(user: alice) { archive += $0 }
        let exported = NSTemporaryDirectory() + "export-\(UUID().uuidString).zip"
        try Data(archive).write(to: URL(fileURLWithPath: exported))
        let reader = try ZipReader(path: exported)
        var entries: [String: Int] = [:]
        while let entry = try reader.next() { entries[entry.path] = try reader.read(limit: 1 << 27).count }
        #expect(
            entries["videos/\(post.id.rawValue)/1.mp4"] == file.bytes
                && entries["photos/\(post.id.rawValue)/1.jpg"] != nil)

        // Deleted with its post: no longer served, and the sweep removes its file.
        try await service.run(.deletePost(post: post.id.rawValue), as: alice)
        #expect(throws: TimelineError.self) { try service.videoFile(media.rawValue, viewer: alice) }
        #expect(FileManager.default.fileExists(atPath: played.path))
        try service.sweepVideoStore(minimumAge: 0)
        #expect(!FileManager.default.fileExists(atPath: played.path))
    }

    @Test func anUploadRecordedBeforeARestartIsTranscodedAfterIt() async throws {
        let path = temporaryPath()
        var service = try openService(path: path)
        let alice = try await service.createUser("alice").id
        let media = try await Self.upload(service, try VideoTranscoderTests.phoneVideo(), by: alice)
        service.close()
        service = try openService(path: path, seed: 43)  // another seed: ids of its own after the restart
        #expect(try service.videosProcessing().map(\.media) == [media])
        try await service.processPendingVideos()
        guard case .ready = try service.media(media, viewer: alice).video else {
            Issue.record("not transcoded after the restart")
            return
        }
        #expect(try service.videosProcessing().isEmpty)
        // The upload itself is gone once transcoded.
        #expect(try FileManager.default.contentsOfDirectory(atPath: service.videos.uploadsDirectory).isEmpty)

        // One whose transcoding was begun twice and never ended (the process stopped on it) is
        // not tried a third time: it fails, so a restart does not stop on it again.
        let stopper = try await Self.upload(service, try VideoTranscoderTests.phoneVideo(), by: alice)
        let upload = try #require(try service.videosProcessing().first?.upload)
        service.videos.beginAttempt(upload)
        service.videos.beginAttempt(upload)
        try await service.processPendingVideos()
        guard case .failed(let reason) = try service.media(stopper, viewer: alice).video else {
            Issue.record("tried a third time")
            return
        }
        #expect(reason.contains("stopped the transcoder"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: service.videos.uploadsDirectory).isEmpty)
    }

    @Test func aBrokenVideoFailsWithItsReasonAndARefusedOneLeavesNothing() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id
        // Cut short: a video by its first bytes, so recorded, then refused by the transcoder.
        let whole = try Data(contentsOf: URL(fileURLWithPath: try VideoTranscoderTests.phoneVideo()))
        let cut = NSTemporaryDirectory() + "cut-\(UUID().uuidString).mov"
        try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: cut))
        let media = try await Self.upload(service, cut, by: alice)
        try await service.processPendingVideos()
        guard case .failed(let reason) = try service.media(media, viewer: alice).video else {
            Issue.record("a cut video was not refused")
            return
        }
        #expect(!reason.isEmpty)
        await #expect(throws: TimelineError.self) {
            try await service.run(.addPost(media: [media.rawValue], caption: "Cut"), as: alice)
        }

        // Not a video at all, or too large: refused at once; nothing appended, nothing kept.
        let before = try service.lastSequence()
        let text = Data("not a video, only words".utf8).base64EncodedString()
        await #expect(throws: TimelineError.self) { try await service.run(.uploadVideo(video: text), as: alice) }
        let spooled = service.uploadSpoolDirectory + "/upload-test"
        try Data(repeating: 0, count: 64).write(to: URL(fileURLWithPath: spooled))
        do {
            _ = try await service.uploadVideo(file: spooled, alt: nil, as: .user(alice.rawValue))
            Issue.record("a file of zeros was taken as a video")
        } catch {
            #expect(error.code == .unsupportedMediaType)
        }
        #expect(!FileManager.default.fileExists(atPath: spooled))
        // A real video refused by deciding (no one signed in): its staged upload goes too.
        await #expect(throws: TimelineError.self) {
            try await service.execute(.uploadVideo(video: whole.base64EncodedString()), as: .anonymous)
        }
        #expect(try service.lastSequence() == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: service.videos.uploadsDirectory).isEmpty)
    }

    @Test func aVideoStoryPlaysForWhomItShowsAndItsVideoGoesWithIt() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id
        let dave = try await service.createUser("dave").id
        try await service.run(.follow(user: alice.rawValue), as: bob)
        try await service.run(.block(user: dave.rawValue), as: alice)
        let media = try await Self.upload(service, try VideoTranscoderTests.phoneVideo(), by: alice)
        // Not before it is transcoded.
        await #expect(throws: TimelineError.self) {
            try await service.run(.postVideoStory(video: media.rawValue), as: alice)
        }
        try await service.processPendingVideos()
        guard case .story(let story) = try await service.run(.postVideoStory(video: media.rawValue), as: alice) else {
            Issue.record("no story")
            return
        }
        #expect(story.video?.media == media && story.width == 360 && story.height == 640)
        #expect(try service.stories(for: bob).first?.stories.first?.video?.media == media)
        // Its video plays for bob, not for dave (blocked); it is in a story, so in no post.
        #expect(try service.videoFile(media.rawValue, viewer: bob).bytes > 0)
        #expect(throws: TimelineError.self) { try service.videoFile(media.rawValue, viewer: dave) }
        await #expect(throws: TimelineError.self) {
            try await service.run(.addPost(media: [media.rawValue], caption: "again"), as: alice)
        }
        // Deleted: its video is no longer served, and the sweep removes its file.
        let path = try service.videoFile(media.rawValue, viewer: alice).path
        try await service.run(.deleteStory(story: story.id.rawValue), as: alice)
        #expect(throws: TimelineError.self) { try service.videoFile(media.rawValue, viewer: alice) }
        try service.sweepVideoStore(minimumAge: 0)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
