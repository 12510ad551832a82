import Foundation
import Testing
import TimelineDomain

@testable import Timeline
@testable import TimelineHTTP

/// Other servers' posts with a video (#43): kept in the journal while the video is transcoded,
/// recorded once it is ready — after a restart too, from the journal read again — with the
/// videos the transcoder took; one left with nothing to show is dropped.
@Suite(.serialized) struct AwaitedVideoPostsTests {
    static let object = "https://two.example/users/bob/statuses/1"

    static func waiting(_ bob: UserID, _ media: [MediaID], object: String = object) -> AwaitedVideoPosts.Post {
        AwaitedVideoPosts.Post(
            author: bob, object: object, caption: "Sea #waves", media: media, visibility: .public, sensitive: false,
            warning: nil, addressees: [], inReplyTo: nil)
    }

    /// A video cut short: recorded as one by its first bytes, then refused by the transcoder.
    static func cutVideo() throws -> String {
        let whole = try Data(contentsOf: URL(fileURLWithPath: try VideoTranscoderTests.phoneVideo()))
        let cut = NSTemporaryDirectory() + "cut-\(UUID().uuidString).mov"
        try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: cut))
        return cut
    }

    /// One round of `publishAwaitedVideoPosts`, by an API made for it (and stopped after).
    static func publish(_ service: TimelineService, _ journal: AwaitedVideoPosts) async {
        var options = TimelineAPI.Options()
        options.awaitedVideoPosts = journal
        let api = TimelineAPI(service: service, options: options)
        await api.publishAwaitedVideoPosts()
        api.stop()
    }

    @Test func aPostWaitsForItsVideoAcrossARestartAndIsRecordedOnceItIsReady() async throws {
        let path = temporaryPath()
        var service = try openService(path: path)
        let bob = try #require(try await service.execute(RemoteAccountTests.record(), as: .operator).profile).id
        let video = try await VideoUploadTests.upload(service, try VideoTranscoderTests.phoneVideo(), by: bob)
        var journal = try AwaitedVideoPosts(directory: path + "/awaiting-videos")
        try journal.keep(Self.waiting(bob, [video]))
        // While the video is being made, the post waits.
        await Self.publish(service, journal)
        #expect(journal.isAwaited(Self.object))
        #expect(try service.remotePost(object: Self.object) == nil)

        // A restart: the journal is read again, the video worker resumes, the post is recorded.
        service.close()
        service = try openService(path: path, seed: 43)
        journal = try AwaitedVideoPosts(directory: path + "/awaiting-videos")
        try await service.processPendingVideos()
        await Self.publish(service, journal)
        let post = try #require(try service.remotePost(object: Self.object))
        let shown = try service.post(post).post
        #expect(shown.caption == "Sea #waves" && shown.author == bob)
        guard case .ready? = shown.media.first?.video, shown.media.count == 1 else {
            Issue.record("the post does not hold its video, ready: \(shown.media)")
            return
        }
        #expect(journal.all.isEmpty)
        // Recorded once: a second round finds nothing to do.
        await Self.publish(service, journal)
        #expect(try service.events(limit: 1000).filter { $0.type == .remotePostSeen }.count == 1)
    }

    @Test func twoNotesVideosAreFetchedAtOnceAtMostAndADeletedNoteIsNotFetchedAgain() throws {
        let journal = try AwaitedVideoPosts(directory: temporaryPath())
        for _ in 0..<AwaitedVideoPosts.fetchSlots { try journal.startFetchingVideos() }
        #expect(throws: TimelineError(.rateLimited, "other servers' videos are being fetched: try again later")) {
            try journal.startFetchingVideos()
        }
        journal.endFetchingVideos()
        try journal.startFetchingVideos()
        // One delivery of a Note fetches its media; a second at the same time does not.
        #expect(journal.claimFetching(Self.object))
        #expect(!journal.claimFetching(Self.object))
        journal.endFetching(Self.object)
        // Deleted: no delivery of it is fetched or recorded for a day.
        journal.noteDeleted(Self.object)
        #expect(journal.wasDeleted(Self.object) && !journal.claimFetching(Self.object))
        #expect(!journal.wasDeleted(Self.object, now: Date() + AwaitedVideoPosts.deletionMemory + 1))
    }

    @Test func aPostWhoseOnlyVideoFailsIsDroppedAndOneWithAPhotoKeepsThePhoto() async throws {
        let service = try openService()
        let bob = try #require(try await service.execute(RemoteAccountTests.record(), as: .operator).profile).id
        let journal = try AwaitedVideoPosts(directory: temporaryPath())
        let broken = try await VideoUploadTests.upload(service, try Self.cutVideo(), by: bob)
        try journal.keep(Self.waiting(bob, [broken]))
        try await service.processPendingVideos()
        await Self.publish(service, journal)
        #expect(journal.all.isEmpty)
        #expect(try service.remotePost(object: Self.object) == nil)

        guard case .media(let photo) = try await service.run(.uploadMedia(image: gifBase64(1)), as: bob) else {
            Issue.record("no photo")
            return
        }
        let alsoBroken = try await VideoUploadTests.upload(
            service, try Self.cutVideo(), by: bob)
        let second = Self.object + "2"
        try journal.keep(Self.waiting(bob, [MediaID(photo.id), alsoBroken], object: second))
        try await service.processPendingVideos()
        await Self.publish(service, journal)
        let post = try #require(try service.remotePost(object: second))
        #expect(try service.post(post).post.media.map(\.id) == [photo.id])
        #expect(journal.all.isEmpty)
    }
}
