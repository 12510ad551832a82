import Foundation
import Synchronization
import Testing
import TimelineDomain
import TimelineImport

@testable import Timeline

/// Moving in from Instagram: exports in the layout of "Download your information" (JSON),
/// written by Python's `zipfile` and `json` (Instagram's Latin-1-escaped UTF-8 included), with
/// photos libvips makes and a video the ffmpeg command line makes. A single photo with a place,
/// an album, a video, a video that is no video and a post whose photo is missing; the bio; the
/// original dates; a second run that adds nothing; a hostile archive and a truncated one
/// refused with nothing written.
@Suite struct InstagramImportTests {
    static let directory: String = {
        let path = NSTemporaryDirectory() + "timeline-instagram-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// 2019-01-01T00:00:00Z and 2020-05-05T00:00:00Z, in seconds.
    static let first: Int64 = 1_546_300_800, second: Int64 = 1_588_636_800

    /// Builds `name` in the export's layout with Python, the photos made by libvips.
    static func export(_ name: String, hostile: Bool = false) throws -> String {
        for (file, shade) in [("a.jpg", 40), ("b.jpg", 120), ("c.jpg", 200)] {
            let path = directory + "/" + file
            if !FileManager.default.fileExists(atPath: path) {
                try Data(try AvatarTests.image(96, shade: shade)).write(to: URL(fileURLWithPath: path))
            }
        }
        let video = try VideoTranscoderTests.make(
            "v.mp4", ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "1", "-pix_fmt", "yuv420p"])
        let script = """
            import json, zipfile
            def ig(text):  # Instagram's escaping: each UTF-8 byte as a Latin-1 character
                return text.encode('utf-8').decode('latin-1')
            posts = [
                {"media": [{"uri": "media/posts/201901/a.jpg", "creation_timestamp": \(first),
                            "title": ig("Café at dawn #sea"),
                            "media_metadata": {"photo_metadata": {"exif_data": [{"latitude": 48.8577, "longitude": 2.295}]}}}]},
                {"title": ig("two of the harbour #harbour"), "creation_timestamp": \(second),
                 "media": [{"uri": "media/posts/202005/b.jpg", "creation_timestamp": \(second), "title": ""},
                           {"uri": "media/posts/202005/c.jpg", "creation_timestamp": \(second), "title": ""}]},
                {"media": [{"uri": "media/posts/202101/v.mp4", "creation_timestamp": 1609459200, "title": "a video"}]},
                {"media": [{"uri": "media/posts/202101/w.mp4", "creation_timestamp": 1609459300, "title": "no video"}]},
                {"media": [{"uri": "media/posts/202102/gone.jpg", "creation_timestamp": 1612137600, "title": "lost"}]},
            ]
            profile = {"profile_user": [{"string_map_data": {"Bio": {"value": ig("Photos of the sea ☀")}},
                                         "media_map_data": {"Profile Photo": {"uri": "media/other/me.jpg"}}}]}
            with zipfile.ZipFile('\(name)', 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('your_instagram_activity/content/posts_1.json', json.dumps(posts))
                z.writestr('personal_information/personal_information/personal_information.json', json.dumps(profile))
                z.write('a.jpg', 'media/posts/201901/a.jpg')
                z.write('b.jpg', 'media/posts/202005/b.jpg')
                z.write('c.jpg', 'media/posts/202005/c.jpg')
                z.write('b.jpg', 'media/other/me.jpg')
                z.write('\(video)', 'media/posts/202101/v.mp4')
                z.writestr('media/posts/202101/w.mp4', b'not really a video')
                if \(hostile ? "True" : "False"):
                    z.writestr('../../outside.txt', 'x')
            """
        try ZipReaderTests.python(script, in: directory)
        return directory + "/" + name
    }

    @Test func anExportBecomesTheUsersPostsOnceAtTheirDates() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id
        _ = try await service.addPost(by: alice, caption: "already here")
        let path = try Self.export("export.zip")

        let told = Mutex<[(done: Int, total: Int)]>([])
        let report = try service.importInstagram(path: path, as: alice) { done, total in
            told.withLock { $0.append((done, total)) }
        }
        #expect(report.imported["posts"] == 3 && report.imported["profile"] == 1, "\(report.text)")
        let skipped = report.skipped.keys.sorted()
        #expect(skipped.count == 2 && skipped[0] == "a post whose photos are not all in the export", "\(report.text)")
        #expect(skipped.last?.hasPrefix("a video that cannot be used (") == true, "\(report.text)")
        // Told as it went: from none done to all (four photos, two videos and five posts).
        let steps = told.withLock { $0 }
        #expect(steps.first?.done == 0 && steps.last.map { $0.done == $0.total && $0.total == 11 } == true, "\(steps)")

        let posts = try service.posts(by: alice).items
        #expect(posts.map(\.caption) == ["a video", "two of the harbour #harbour", "Café at dawn #sea", "already here"])
        // Newest first by id: the imported ones after the account's own, oldest first among them;
        // each at its original date.
        #expect(posts[1].createdAt == Self.second * 1000 && posts[2].createdAt == Self.first * 1000)
        #expect(posts[1].media.count == 2 && posts[2].media.count <= 1)
        #expect(posts[2].location?.latitude == 48.8577)
        #expect(try service.hashtag("sea").items.map(\.id) == [posts[2].id])
        // The video: transcoded as an upload is, and playable.
        guard case .ready(let file)? = posts[0].media.first?.video else {
            Issue.record("the video was not imported as one: \(posts[0].media)")
            return
        }
        #expect(abs(file.seconds - 1) < 0.2 && posts[0].media.first?.width == 160)
        let played = try service.videoFile(posts[0].media[0].id, viewer: alice)
        #expect(played.bytes == file.bytes)
        let profile = try service.user(alice, viewer: alice)
        #expect(profile.bio == "Photos of the sea ☀" && profile.avatar != nil)

        // Again: nothing added, nothing appended.
        let before = try service.lastSequence()
        let again = try service.importInstagram(path: path, as: alice)
        #expect(again.totalImported == 0 && again.alreadyPresent["posts"] == 3, "\(again.text)")
        #expect(try service.lastSequence() == before)
        #expect(try service.posts(by: alice).items.count == 4)
    }

    /// A thousand posts, a hundred of them albums of two, each photo a different colour, ten of
    /// them videos and ten albums ending with one: all of them come in, and a second run adds none.
    @Test(.timeLimit(.minutes(5))) func aThousandPostsComeInOnce() async throws {
        let clip = try VideoTranscoderTests.make(
            "thousand-clip.mp4", ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "1", "-pix_fmt", "yuv420p"]
        )
        let script = """
            import json, struct, zipfile, zlib
            video = open('\(clip)', 'rb').read()
            def png(r, g, b):
                raw = b''.join(b'\\x00' + bytes([r, g, b]) * 16 for _ in range(16))
                def chunk(kind, data):
                    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
                return (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 16, 16, 8, 2, 0, 0, 0))
                        + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
            posts, files = [], {}
            for i in range(1000):
                count = 2 if i % 10 == 0 else 1
                media = []
                for k in range(count):
                    # Ten posts are a video, and ten albums end with one.
                    if (i % 100 == 5 and k == 0) or (i % 100 == 50 and k == 1):
                        uri = f'media/posts/{i}-{k}.mp4'
                        files[uri] = video
                    else:
                        uri = f'media/posts/{i}-{k}.png'
                        n = i * 2 + k
                        files[uri] = png(n % 256, (n // 256) * 40 % 256, (n * 7) % 256)
                    media.append({"uri": uri, "creation_timestamp": 1500000000 + i * 3600, "title": f"post {i} #n{i % 7}"})
                posts.append({"media": media, "title": f"post {i} #n{i % 7}", "creation_timestamp": 1500000000 + i * 3600})
            with zipfile.ZipFile('thousand.zip', 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('your_instagram_activity/content/posts_1.json', json.dumps(posts))
                for uri, data in files.items():
                    z.writestr(uri, data)
            """
        try #require(try ZipReaderTests.python(script, in: Self.directory))
        let service = try openService()
        let zoe = try await service.createUser("zoe").id
        let report = try service.importInstagram(path: Self.directory + "/thousand.zip", as: zoe)
        #expect(report.imported["posts"] == 1000 && report.skipped.isEmpty, "\(report.text)")
        let posts = try service.all(limit: 100) { try service.posts(by: zoe, $0) }
        #expect(posts.count == 1000 && posts.filter { $0.media.count == 2 }.count == 100)
        let videos = posts.flatMap(\.media).filter { if case .ready = $0.video { true } else { false } }
        #expect(videos.count == 20)
        #expect(posts.first?.caption == "post 999 #n5" && posts.last?.caption == "post 0 #n0")
        let again = try service.importInstagram(path: Self.directory + "/thousand.zip", as: zoe)
        #expect(again.totalImported == 0 && again.alreadyPresent["posts"] == 1000)
    }

    @Test func aHostileOrTruncatedExportIsRefusedWithNothingWritten() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id
        let before = try service.lastSequence()
        let hostile = try Self.export("hostile.zip", hostile: true)
        #expect(throws: TimelineError.self) { try service.importInstagram(path: hostile, as: alice) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Self.export("whole.zip")))
        let truncated = Self.directory + "/truncated.zip"
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: truncated))
        #expect(throws: TimelineError.self) { try service.importInstagram(path: truncated, as: alice) }
        #expect(try service.lastSequence() == before)
        #expect(try service.posts(by: alice).items.isEmpty)
    }
}

/// Moving in over HTTP against a real `timeline serve`: the export uploaded to
/// `POST /v1/me/imports` (202, written to disk as it arrives), its progress read until it is
/// done, then its report and the posts it made; another user cannot read it; a hostile archive
/// fails with nothing added.
@Suite struct InstagramImportHTTPTests {
    /// Uploads `path` as `token`'s import; the answer.
    static func upload(_ api: APIClient, _ path: String, _ token: String) async throws -> Reply {
        var form = MultipartBody()
        form.file(
            "archive", filename: "export.zip", type: "application/zip",
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        return try await api.send(
            "POST", "/v1/me/imports", body: form.finished(), contentType: form.contentType, bearer: token)
    }

    /// Reads import `id` until it is no longer running; its last answer.
    static func ended(_ api: APIClient, _ id: String, _ token: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            let reply = try await api.get("/v1/me/imports/\(id)", bearer: token)
            try #require(reply.status == 200, "\(reply)")
            if reply.json["state"] as? String != "running" || ContinuousClock.now > deadline { return reply.json }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test(.timeLimit(.minutes(3))) func anExportUploadedIsImportedOffTheRequest() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let started = try await Self.upload(api, try InstagramImportTests.export("http-export.zip"), alice.token)
            #expect(started.status == 202 && started.json["state"] as? String == "running", "\(started)")
            let id = try #require(started.json["id"] as? String)
            #expect(started.header("Location") == "/v1/me/imports/\(id)")
            #expect(try await api.get("/v1/me/imports/\(id)", bearer: bob.token).status == 404)

            let done = try await Self.ended(api, id, alice.token)
            #expect(done["state"] as? String == "done" && done["done"] as? Int == done["total"] as? Int, "\(done)")
            let report = try #require(done["report"] as? [String: Any])
            #expect((report["imported"] as? [String: Int])?["posts"] == 3, "\(report)")
            #expect((report["skipped"] as? [[String: Any]])?.count == 2, "\(report)")
            let posts = try await api.get("/v1/users/\(alice.id)/posts", bearer: alice.token)
            let items = try #require(posts.json["items"] as? [[String: Any]])
            #expect(
                items.map { $0["caption"] as? String } == [
                    "a video", "two of the harbour #harbour", "Café at dawn #sea"
                ])
            let video = (items.first?["media"] as? [[String: Any]])?.first?["video"] as? [String: Any]
            #expect(video?["state"] as? String == "ready", "\(items.first ?? [:])")

            // A hostile archive: refused, nothing added.
            let hostile = try await Self.upload(
                api, try InstagramImportTests.export("http-hostile.zip", hostile: true), bob.token)
            let failed = try await Self.ended(api, try #require(hostile.json["id"] as? String), bob.token)
            #expect(failed["state"] as? String == "failed", "\(failed)")
            #expect((failed["error"] as? [String: Any])?["code"] as? String == "invalid_argument", "\(failed)")
            let bobs = try await api.get("/v1/users/\(bob.id)/posts", bearer: bob.token)
            #expect((bobs.json["items"] as? [Any])?.isEmpty == true)
        }
    }
}

/// Tests/browser/test_import.py: Settings' "Move in from Instagram" imports an export (a photo
/// and a video) in headless Chromium, telling its progress and what it did.
@Suite struct InstagramImportWebAppTests {
    @Test(.timeLimit(.minutes(3))) func inARealBrowser() async throws {
        try await WebAppTests.browserScript(
            "test_import.py", passes: "ok - her profile holds both posts, the video among them")
    }
}
