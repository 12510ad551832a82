import Foundation
import Synchronization
import JSONModel
import Testing
@testable import Timeline
import TimelineDomain

/// `timeline media reprocess` on databases written before the image pipeline, and the `image`
/// query's `variant`. The slow, blocking work (libvips and exiftool processes, reprocessing)
/// runs on threads of its own (`offPool`), never on the cooperative pool's few threads.
@Suite struct MediaReprocessTests {
    /// Runs blocking work on a thread of its own.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Appends a post the way Timeline wrote them before the image pipeline: the upload stored
    /// as it came (only its first bytes checked), `PostAdded` v2 with no size and no variants.
    static func addOldPost(_ service: TimelineService, by author: UserID, _ bytes: [UInt8], caption: String = "old")
        throws -> PostID
    {
        let post = PostID(service.newID())
        let image = ImageID(TimelineService.contentID(author, bytes))
        let event = Event.postAdded(
            PostAdded(postId: post, authorId: author, imageId: image, caption: caption, hashtags: []))
        try service.environment.write { txn in
            let models = try #require(try service.registry.models(in: txn))
            try models.storeImage(
                image, ImageUpload(encoded: bytes, mediaType: MediaType.sniff(bytes) ?? .jpeg), owner: author,
                key: try service.log.keys.ensureKey(for: author), txn)
            var pending = PendingEvent(
                id: EventID(service.newID()), event: event, timestamp: 1_700_000_000_000, actor: author.rawValue)
            // Version 2's bytes: the current encoding without the byte of flags that ends it
            // (no variants, public).
            pending.encodedPayload = (2, Array(try PayloadCodec.encode(event, keys: service.log.keys).dropLast()))
            try models.apply(try service.log.append([pending], txn), txn)
            try models.setCheckpoint(try service.log.head(txn).sequence, txn)
        }
        return post
    }

    /// A sideways 1200×900 photo (EXIF orientation 6) with a GPS position, as a phone takes it.
    static func sidewaysPhoto(in dir: String, _ name: String = "photo.jpg", width: Int = 1200, height: Int = 900) throws
        -> [UInt8]
    {
        try PhotoTests.halves(width, height, name, in: dir)
        try PhotoTests.tool(
            "exiftool", "-overwrite_original", "-Orientation#=6", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N",
            "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", name, in: dir)
        return try PhotoTests.bytes(dir, name)
    }

    func processedEvents(_ service: TimelineService) throws -> [EventEnvelope] {
        try service.events(from: 1, limit: 100_000).filter { $0.type == .postImageProcessed }
    }

    @Test func oldPostsGetVariantsOnceAndUndecodableOnesAreReported() async throws {
        let dir = PhotoTests.directory()
        let photo = try await Self.offPool {
            try PhotoTests.tool("vips", "black", "clear.png", "64", "48", "--bands", "4", in: dir)
            return try Self.sidewaysPhoto(in: dir)
        }
        let service = try openService()
        let alice = try await service.createUser("alice")
        let old = try Self.addOldPost(service, by: alice.id, photo)
        let clear = try Self.addOldPost(service, by: alice.id, try PhotoTests.bytes(dir, "clear.png"))
        // Accepted before the pipeline (its first bytes say JPEG), but no image.
        let broken = try Self.addOldPost(
            service, by: alice.id, [0xFF, 0xD8, 0xFF] + Array("<html>not a photo</html>".utf8))
        let fresh = try await service.addPost(by: alice.id, caption: "new")
        let rawID = try service.post(old).post.image

        // Before: served as stored, whatever the variant.
        #expect(try service.post(old).post.variants == nil)
        for variant in ImageVariant.allCases { #expect(try service.image(rawID, variant: variant).bytes == photo) }

        let seen = Mutex<[ReprocessedPost]>([])
        let report = try await Self.offPool { try service.reprocessMedia { item in seen.withLock { $0.append(item) } } }
        #expect(report.processed == 2 && report.failed == 1 && report.alreadyProcessed == 1, "\(report)")
        let failure = try #require(seen.withLock { $0 }.first { $0.post == broken })
        guard case .failure(let error) = failure.outcome else {
            Issue.record("\(failure)")
            return
        }
        #expect(error.code == .unsupportedMediaType)
        #expect(try service.post(broken).post.variants == nil)

        // The old post now shows its processed image: upright, sized, without metadata.
        let post = try service.post(old).post
        let variants = try #require(post.variants)
        #expect(post.image == variants.full && post.width == 810 && post.height == 1080)
        try Data(try service.image(post.image).bytes).write(to: URL(fileURLWithPath: dir + "/full.jpg"))
        let (width, tags) = try await Self.offPool {
            (
                try PhotoTests.tool("vipsheader", "-f", "width", "full.jpg", in: dir),
                try PhotoTests.tool("exiftool", "-s", "-EXIF:all", "-GPS:all", "full.jpg", in: dir)
            )
        }
        #expect(width == "810" && tags.isEmpty, "\(width) \(tags)")
        #expect(try service.image(post.image, variant: .thumb).id == variants.thumb)
        // Its original stays stored under its id; with a variant, it names the post's image.
        #expect(try service.image(rawID).bytes == photo)
        #expect(try service.image(rawID, variant: .feed).id == variants.feed)
        #expect(try service.image(rawID, variant: .full).id == variants.full)
        #expect(try service.image(service.post(clear).post.image).mediaType == .png)  // transparency kept
        #expect(try service.post(fresh.id).post.variants != nil)

        // Recorded by the operator in the post's stream; replaying the log gives the same models.
        let events = try processedEvents(service)
        #expect(events.count == 2)
        #expect(events.allSatisfy { $0.actor == EventEnvelope.systemActor && $0.stream.hasPrefix("post-") })
        let line = try #require(events.first { $0.event.post == old }).jsonObject()
        #expect(line.payload["sourceImageId"]?.string == rawID.rawValue)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)

        // A second run changes nothing (the undecodable image is reported again).
        let again = try await Self.offPool { try service.reprocessMedia() }
        #expect(again.processed == 0 && again.failed == 1 && again.alreadyProcessed == 3 && again.changedNothing)
        #expect(try processedEvents(service).count == 2)
    }

    @Test func erasureTakesTheProcessedImagesToo() async throws {
        let dir = PhotoTests.directory()
        let service = try openService()
        let eve = try await service.createUser("eve")
        let old = try Self.addOldPost(service, by: eve.id, try await Self.offPool { try Self.sidewaysPhoto(in: dir) })
        _ = try await Self.offPool { try service.reprocessMedia() }
        let variants = try #require(try service.post(old).post.variants)
        _ = try await service.execute(.eraseUser(user: eve.id.rawValue), as: .operator)
        for id in variants.all { await expectError(.notFound) { _ = try service.image(id) } }
        await expectError(.notFound) { _ = try service.post(old) }
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func unknownVariantIsInvalid() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let post = try await service.addPost(by: alice.id)
        let input = JSONInput(object: ["image": .string(post.image.rawValue), "variant": "huge"])
        #expect(throws: TimelineError.self) { _ = try Catalogue.query(named: "image", input) }
        let thumb = try Catalogue.query(
            named: "image", JSONInput(object: ["image": .string(post.image.rawValue), "variant": "thumb"]))
        guard case .image(let stored) = try thumb.answer(service, viewer: nil) else {
            Issue.record("not an image")
            return
        }
        #expect(stored.id == post.variants?.thumb)
    }

    /// Killed midway (SIGKILL), the tool keeps what it committed; run again, it carries on with
    /// the posts still without variants and never records a post twice.
    @Test func aKilledRunIsResumed() async throws {
        let dir = PhotoTests.directory()
        let path = temporaryPath()
        let total = 16
        do {
            let service = try openService(path: path, durable: true)
            defer { service.close() }
            let alice = try await service.createUser("alice")
            let photos = try await Self.offPool {
                try (0..<2).map { try Self.sidewaysPhoto(in: dir, "p\($0).jpg", width: 1600 + $0, height: 1200) }
            }
            for n in 0..<total { _ = try Self.addOldPost(service, by: alice.id, photos[n % 2], caption: "old \(n)") }
        }
        let printed = try await Self.offPool {
            let first = try ToolProcess(["media", "reprocess", "--db", path])
            let printed = waitForOutput(first.output, containing: "processed ")
            first.kill()
            return printed
        }
        #expect(printed.contains("processed "))
        let (status, output) = try await Self.offPool {
            try ToolProcess(["media", "reprocess", "--db", path, "--json"]).finish()
        }
        #expect(status == 0)
        let lines = output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let summary = try #require(lines.last?["summary"] as? [String: Int])
        #expect(summary["processed"]! > 0, "the first run finished before it was killed: nothing left to resume")
        #expect(summary["processed"]! + summary["alreadyProcessed"]! == total && summary["failed"] == 0)
        #expect(lines.dropLast().allSatisfy { $0["processed"] != nil })
        let (_, third) = try await Self.offPool { try ToolProcess(["media", "reprocess", "--db", path]).finish() }
        #expect(third.contains("nothing to do"), "\(third)")

        let service = try openService(path: path)
        defer { service.close() }
        let events = try processedEvents(service)
        #expect(events.count == total && Set(events.compactMap(\.event.post)).count == total)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }
}
