import Foundation
import JSONModel
import Testing
@testable import Timeline
import TimelineDomain

/// Albums: photos uploaded first (`uploadMedia`, with alt text and a blurhash) and attached to
/// a post later (1–10, in order, the uploader's own, once); unattached ones go after a day.
@Suite struct MediaTests {
    func upload(_ service: TimelineService, _ user: UserID, _ n: Int, alt: String? = nil) async throws
        -> MediaAttachment
    {
        guard
            case .media(let media) = try await service.execute(
                .uploadMedia(image: gifBase64(n), alt: alt), as: .user(user.rawValue))
        else { throw TimelineError(.internal, "uploadMedia answered no media") }
        return media
    }

    @Test func anAlbumHoldsItsPhotosInOrderWithAltTextAndBlurhash() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let first = try await upload(service, alice.id, 0xFF, alt: "A red square")
        let second = try await upload(service, alice.id, 0xFF00)
        #expect(first.alt == "A red square" && second.alt == nil)
        #expect(first.blurhash?.count == 36, "4×4 components: 1 + 1 + 4 + 15·2 characters, \(first.blurhash ?? "none")")
        #expect(first.variants?.full == first.image && first.width == 2 && first.height == 1)

        let post = try #require(
            try await service.run(.addPost(media: [second.id, first.id], caption: "two #colours"), as: alice.id).post)
        #expect(post.media.map(\.id) == [second.id, first.id])
        #expect(post.media.map(\.alt) == [nil, "A red square"])
        #expect(post.image == second.image && post.variants == second.variants, "the first photo is the post's image")
        #expect(try service.post(post.id, viewer: bob.id).post.media == post.media)
        #expect(try service.timeline(of: alice.id).items.first?.media == post.media)
        // Each photo's sizes are served, the second's too.
        let thumb = try #require(first.variants?.thumb)
        #expect(try service.image(first.image, variant: .thumb).id == thumb)
        #expect(try service.image(second.image, variant: .feed).id == second.variants?.feed)

        // The alt text changes in the post too; only its uploader changes it.
        _ = try await service.execute(
            .updateMedia(media: second.id, alt: "A green square"), as: .user(alice.id.rawValue))
        #expect(try service.post(post.id).post.media.first?.alt == "A green square")
        await expectError(.forbidden) {
            _ = try await service.execute(.updateMedia(media: second.id, alt: "mine"), as: .user(bob.id.rawValue))
        }
        await expectError(.invalidArgument, field: "alt") {
            _ = try await service.execute(
                .updateMedia(media: second.id, alt: String(repeating: "a", count: MediaPolicy.maxAlt + 1)),
                as: .user(alice.id.rawValue))
        }

        // editPost changes alt texts too (its own post's photos only), with or without the caption.
        let edited = try #require(
            try await service.run(
                .editPost(post: post.id.rawValue, caption: nil, alts: [first.id: "Red, edited", second.id: nil]),
                as: alice.id
            ).post)
        #expect(edited.media.map(\.alt) == [nil, "Red, edited"] && edited.caption == "two #colours")
        let before = try service.lastSequence()
        _ = try await service.run(
            .editPost(post: post.id.rawValue, caption: nil, alts: [first.id: "Red, edited"]), as: alice.id)
        #expect(try service.lastSequence() == before, "the same alt text again records nothing")
        let lone = try await service.addPost(by: alice.id, image: 0xFF0000)
        await expectError(.invalidArgument, field: "alts") {
            _ = try await service.run(
                .editPost(post: lone.id.rawValue, caption: nil, alts: [first.id: "not this post's"]), as: alice.id)
        }
        await expectError(.invalidArgument, field: "alts") {
            let fields: JSONValue = ["post": .string(post.id.rawValue), "alts": .object([(first.id, .integer(3))])]
            _ = try Catalogue.command(named: "editPost", JSONInput(object: fields))
        }

        // Deleting the post takes its photos with it.
        try await service.run(.deletePost(post: post.id.rawValue), as: alice.id)
        await expectError(.notFound) { _ = try service.image(first.image) }
        await expectError(.notFound) {
            _ = try await service.execute(.updateMedia(media: first.id, alt: nil), as: .user(alice.id.rawValue))
        }
    }

    @Test func onlyTheUploaderAttachesAPhotoOnceAndAPostHoldsOneToTen() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let bobs = try await upload(service, bob.id, 1)
        var mine: [String] = []
        for n in 0..<(MediaPolicy.maxPerPost + 1) { mine.append(try await upload(service, alice.id, 100 + n).id) }
        let before = try service.lastSequence()
        await expectError(.forbidden, field: "media") {
            _ = try await service.run(.addPost(media: [bobs.id], caption: nil), as: alice.id)
        }
        await expectError(.invalidArgument, field: "media") {
            _ = try await service.run(.addPost(media: mine, caption: nil), as: alice.id)
        }
        await expectError(.invalidArgument, field: "media") {
            _ = try await service.run(.addPost(media: [], caption: nil), as: alice.id)
        }
        await expectError(.invalidArgument, field: "media") {
            _ = try await service.run(.addPost(media: [mine[0], mine[0]], caption: nil), as: alice.id)
        }
        await expectError(.notFound) {
            _ = try await service.run(.addPost(media: ["-NoSuchMedia00000000"], caption: nil), as: alice.id)
        }
        await expectError(.invalidArgument, field: "media") {
            let fields: JSONValue = ["image": .string(gifBase64(1)), "media": [.string(mine[0])]]
            _ = try Catalogue.command(named: "addPost", JSONInput(object: fields))
        }
        await expectError(.invalidArgument, field: "image") {
            _ = try Catalogue.command(named: "addPost", JSONInput(object: ["caption": "no photo"]))
        }
        #expect(try service.lastSequence() == before, "a refused post appends nothing")

        _ = try await service.run(
            .addPost(media: Array(mine.prefix(MediaPolicy.maxPerPost)), caption: "ten"), as: alice.id)
        await expectError(.invalidArgument, field: "media") {
            _ = try await service.run(.addPost(media: [mine[0]], caption: nil), as: alice.id)
        }
    }

    @Test func aPhotoNobodyAttachedGoesAfterADayAndWithItsUploader() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice"), carol = try await service.createUser("carol")
        // (Photos of distinct colours: the pipeline's JPEGs of two close ones are the same bytes.)
        let kept = try await upload(service, alice.id, 0xFF)
        let left = try await upload(service, alice.id, 0xFF00)
        _ = try await service.run(.addPost(media: [kept.id], caption: nil), as: alice.id)
        let carols = try await upload(service, carol.id, 0xFF0000)
        #expect(try await service.expireUnattachedMedia() == false, "nothing is a day old yet")
        #expect(
            try service.image(left.image, viewer: alice.id).bytes.isEmpty == false,
            "an unposted upload is its uploader's alone")

        clock.advance(MediaPolicy.unattachedLifetime + 1)
        #expect(try await service.expireUnattachedMedia())
        await expectError(.notFound) { _ = try service.image(left.image, viewer: alice.id) }
        await expectError(.notFound) {
            _ = try await service.run(.addPost(media: [left.id], caption: nil), as: alice.id)
        }
        #expect(try service.image(kept.image).bytes.isEmpty == false, "an attached photo stays")
        await expectError(.forbidden) { _ = try await service.execute(.expireMedia, as: .user(alice.id.rawValue)) }

        // Erasure takes an uploader's unattached photos too.
        let fresh = try await upload(service, carol.id, 0xFFFF)
        try await service.run(.eraseUser(user: carol.id.rawValue, password: "password-123"), as: carol.id)
        await expectError(.notFound) { _ = try service.image(fresh.image, viewer: carol.id) }
        await expectError(.notFound) { _ = try service.image(carols.image, viewer: carol.id) }
    }

    /// The blurhash against an implementation written by others (PyPI's `blurhash`): for a
    /// photo of one colour (which the pipeline keeps exactly) its encoder makes the same hash
    /// from the same pixels; and its decoder paints a photo white on the left and black on the
    /// right light on the left and dark on the right (four components blur the edge, and the
    /// algorithm's quantisation lightens the dark side).
    @Test func theBlurhashDecodesToThePhotosColoursElsewhere() async throws {
        let dir = PhotoTests.directory()
        try PhotoTests.halves(400, 300, "halves.png", in: dir)
        _ = try PhotoTests.tool("vips", "black", "black.v", "40", "30", "--bands", "3", in: dir)
        _ = try PhotoTests.tool("vips", "linear", "black.v", "solid.v", "1 1 1", "200 100 50", "--uchar", in: dir)
        _ = try PhotoTests.tool("vips", "copy", "solid.v", "solid.png", in: dir)
        let service = try openService()
        let alice = try await service.createUser("alice")
        func hash(_ file: String) async throws -> String {
            guard
                case .media(let media) = try await service.execute(
                    .uploadMedia(image: Data(try PhotoTests.bytes(dir, file)).base64EncodedString()),
                    as: .user(alice.id.rawValue))
            else { throw TimelineError(.internal, "no media") }
            return try #require(media.blurhash)
        }
        // Decoded 32×24: the mean of each colour over the left tenth and the right tenth.
        let script = """
            import blurhash, sys
            pixels = blurhash.decode(sys.argv[1], 32, 24)
            def mean(xs, c): return int(sum(pixels[y][x][c] for y in range(24) for x in xs) / (24 * len(xs)))
            left, right = range(0, 3), range(29, 32)
            print(*[mean(left, c) for c in range(3)], *[mean(right, c) for c in range(3)])
            """
        func decoded(_ hash: String) throws -> [Int] {
            let output = try PhotoTests.tool("python3", "-c", script, hash, in: dir)
            let values = output.split(separator: " ").compactMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            try #require(values.count == 6, "the decoder answered \(output)")
            return values
        }
        let solid = try await hash("solid.png")
        let theirs = try PhotoTests.tool(
            "python3", "-c",
            """
            import blurhash
            print(blurhash.encode([[[200, 100, 50]] * 40] * 30, 4, 4))
            """, in: dir
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(solid == theirs)
        let halves = try await hash("halves.png")
        let split = try decoded(halves)
        #expect(
            split[0] > 200 && split[3] < 140 && split[0] - split[3] > 90,
            "decoded \(split) from \(halves): light left, dark right")
    }

    /// Over HTTP, as an app does it: POST /v1/media (multipart with the alt text, and JSON),
    /// PATCH /v1/media/{id}, then POST /v1/posts with `media`; someone else's photo is refused.
    @Test func overHTTP() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            var form = MultipartBody()
            form.field("alt", "A red pixel")
            form.file("image", filename: "pixel.png", type: "image/png", pngBytes)
            let first = try await api.send(
                "POST", "/v1/media", body: form.finished(), contentType: form.contentType, bearer: alice.token)
            #expect(
                first.status == 201 && first.json["alt"] as? String == "A red pixel"
                    && first.json["blurhash"] is String, "\(first)")
            let second = try await api.send(
                "POST", "/v1/media", json: ["image": gifBase64(0xFF00)], bearer: alice.token)
            #expect(second.status == 201 && second.json["alt"] is NSNull, "\(second)")
            let ids = [try #require(second.json["id"] as? String), try #require(first.json["id"] as? String)]
            let described = try await api.send(
                "PATCH", "/v1/media/\(ids[0])", json: ["alt": "A green pixel"], bearer: alice.token)
            #expect(described.status == 200 && described.json["alt"] as? String == "A green pixel", "\(described)")
            #expect(
                try await api.send("PATCH", "/v1/media/\(ids[0])", json: ["alt": "mine"], bearer: bob.token).status
                    == 403)
            #expect(try await api.send("POST", "/v1/media", json: ["image": gifBase64(1)]).status == 401)
            #expect(
                try await api.send("POST", "/v1/media", json: ["image": "bm90IGFuIGltYWdl"], bearer: alice.token).status
                    == 415)

            #expect(try await api.send("POST", "/v1/posts", json: ["media": ids], bearer: bob.token).status == 403)
            let post = try await api.send(
                "POST", "/v1/posts", json: ["media": ids, "caption": "pixels"], bearer: alice.token)
            #expect(post.status == 201, "\(post)")
            let media = post.json["media"] as? [[String: Any]] ?? []
            #expect(
                media.map { $0["id"] as? String } == ids
                    && media.map { $0["alt"] as? String } == ["A green pixel", "A red pixel"], "\(post)")
            let id = try #require(post.json["id"] as? String)
            let timeline = try await api.get("/v1/users/\(alice.id)/posts", bearer: bob.token)
            #expect((timeline.items.first?["media"] as? [[String: Any]])?.count == 2, "\(timeline)")
            #expect(try await api.get("/v1/posts/\(id)").json["media"] as? NSArray == post.json["media"] as? NSArray)
            // Each photo's variants are served.
            for item in media {
                let thumb = try #require((item["variants"] as? [String: Any])?["thumb"] as? String)
                #expect(try await api.get("/v1/images/\(thumb)").status == 200)
            }
            #expect(
                try await api.send("POST", "/v1/posts", json: ["media": [ids[0]]], bearer: alice.token).errorField
                    == "media")
            // The one-shot form has one photo, with its blurhash.
            let single = try await api.send(
                "POST", "/v1/posts", json: ["image": gifBase64(0xFF0000)], bearer: alice.token)
            #expect(
                ((single.json["media"] as? [[String: Any]])?.first?["blurhash"] as? String)?.count == 36, "\(single)")
        }
    }
}
