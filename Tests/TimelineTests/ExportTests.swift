import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// "Download your data": a zip archive (libarchive) of a user's profile, posts with their
/// photos, comments, likes, bookmarks, follows, blocks, mutes, and their own events, read back
/// by a zip reader written by others (Python's `zipfile`).
@Suite struct ExportTests {
    /// The archive at `path` as Python's zipfile reads it: `{name: size}` and the named JSON files' contents.
    static func unzip(_ path: String, json names: [String]) throws -> (sizes: [String: Int], files: [String: Any]) {
        let script = """
            import json, sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            out = {"sizes": {i.filename: i.file_size for i in z.infolist()}, "files": {}}
            for name in filter(None, sys.argv[2].split(",")):
                data = z.read(name).decode()
                out["files"][name] = data if name.endswith(".jsonl") else json.loads(data)
            print(json.dumps(out))
            """
        let output = try PhotoTests.tool(
            "python3", "-c", script, path, names.joined(separator: ","), in: NSTemporaryDirectory())
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "zipfile answered \(output)")
        return (object["sizes"] as? [String: Int] ?? [:], object["files"] as? [String: Any] ?? [:])
    }

    @Test func theArchiveHoldsEverythingOfTheUserAndNothingOfOthers() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        var album: [String] = []
        for n in [0xFF, 0xFF00] {
            guard
                case .media(let media) = try await service.execute(
                    .uploadMedia(image: gifBase64(n), alt: "photo \(n)"), as: .user(alice.id.rawValue))
            else { throw TimelineError(.internal, "no media") }
            album.append(media.id)
        }
        let albumPost = try #require(
            try await service.run(.addPost(media: album, caption: "an album"), as: alice.id).post)
        let single = try await service.addPost(by: alice.id, image: 0xFF0000)
        let bobs = try await service.addPost(by: bob.id, caption: "bob's secret-free post")
        _ = try await service.addComment(by: alice.id, on: bobs.id, "alice comments")
        _ = try await service.addComment(by: bob.id, on: single.id, "bob comments on alice")
        try await service.run(.like(post: bobs.id.rawValue), as: alice.id)
        try await service.run(.bookmark(post: bobs.id.rawValue), as: alice.id)
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        try await service.run(.follow(user: alice.id.rawValue), as: carol.id)
        try await service.run(.block(user: carol.id.rawValue), as: bob.id)
        try await service.run(.mute(user: carol.id.rawValue), as: alice.id)
        try await service.run(.setAccountNote(user: bob.id.rawValue, note: "met at the lake"), as: alice.id)
        try await service.run(.setAccountNote(user: alice.id.rawValue, note: "bob's note on alice"), as: bob.id)
        try await service.run(.endorse(user: bob.id.rawValue), as: alice.id)
        try await service.run(.pin(post: single.id.rawValue), as: alice.id)
        try await service.run(.featureTag(tag: "sea"), as: alice.id)

        let path = temporaryPath("alice.zip")
        FileManager.default.createFile(atPath: path, contents: nil)
        let file = try #require(FileHandle(forWritingAtPath: path))
        var chunks: [Int] = []
        try service.export(user: alice.id) { bytes in
            chunks.append(bytes.count)
            try file.write(contentsOf: bytes)
        }
        try file.close()

        let names = [
            "profile.json", "posts.json", "comments.json", "likes.json", "bookmarks.json", "following.json",
            "followers.json",
            "blocks.json", "mutes.json", "notes.json", "endorsements.json", "pinned.json", "featured-tags.json",
            "events.jsonl"
        ]
        let (sizes, files) = try Self.unzip(path, json: names)
        for name in names { #expect(sizes[name] != nil, "\(name) is missing: \(sizes.keys.sorted())") }
        #expect((files["profile.json"] as? [String: Any])?["username"] as? String == "alice")
        let posts = files["posts.json"] as? [[String: Any]] ?? []
        #expect(Set(posts.compactMap { $0["id"] as? String }) == [albumPost.id.rawValue, single.id.rawValue])
        // Every photo of hers, the bytes the server serves.
        let photos = sizes.keys.filter { $0.hasPrefix("photos/") }.sorted()
        #expect(photos.count == 3, "\(photos)")
        let first = try service.image(albumPost.media[0].image)
        #expect(sizes["photos/\(albumPost.id.rawValue)/1.\(first.mediaType.fileExtension)"] == first.bytes.count)
        #expect((files["comments.json"] as? [[String: Any]])?.map { $0["text"] as? String } == ["alice comments"])
        #expect(files["likes.json"] as? [String] == [bobs.id.rawValue])
        #expect((files["bookmarks.json"] as? [[String: Any]])?.map { $0["id"] as? String } == [bobs.id.rawValue])
        #expect((files["following.json"] as? [[String: Any]])?.map { $0["username"] as? String } == ["bob"])
        #expect((files["followers.json"] as? [[String: Any]])?.map { $0["username"] as? String } == ["carol"])
        #expect((files["mutes.json"] as? [[String: Any]])?.map { $0["username"] as? String } == ["carol"])
        #expect((files["blocks.json"] as? [Any])?.isEmpty == true, "bob's block is bob's")
        // Her notes (not bob's note on her), endorsements, pins and featured tags.
        #expect((files["notes.json"] as? [[String: Any]])?.map { $0["noteByViewer"] as? String } == ["met at the lake"])
        #expect((files["endorsements.json"] as? [[String: Any]])?.map { $0["username"] as? String } == ["bob"])
        #expect(files["pinned.json"] as? [String] == [single.id.rawValue])
        #expect(files["featured-tags.json"] as? [String] == ["sea"])

        // Her own events only, valid against schemas/, her personal fields in clear.
        let lines = (files["events.jsonl"] as? String ?? "").split(separator: "\n").map(String.init)
        let events = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(!events.isEmpty && events.allSatisfy { $0["actor"] as? String == alice.id.rawValue })
        #expect(lines.contains { $0.contains("alice comments") } && !lines.contains { $0.contains("bob comments") })
        let (status, output) = try SchemaTests().check("events", lines)
        #expect(status == 0, "\(output)")
        let everything = try String(decoding: Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        #expect(
            !everything.contains("bob@example.com") && !everything.contains("alice@example.com")
                && !everything.contains("argon2") && !everything.contains("bob's note on alice"))

        // Written as it was made: pieces no larger than the largest file and its header, never
        // the archive whole.
        let largest = try #require(chunks.max())
        #expect(chunks.count > photos.count + names.count)
        #expect(largest <= (sizes.values.max() ?? 0) + 4096 && largest < chunks.reduce(0, +) / 2, "\(chunks)")
    }

    @Test func overHTTPAndFromTheCommandLine() async throws {
        let database = temporaryPath()
        try await withServer(database: database) { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            _ = try await api.addPost(alice.token, caption: "for the archive", image: 0xFF)
            let reply = try await api.get("/v1/me/export", bearer: alice.token)
            #expect(
                reply.status == 200 && reply.header("Content-Type") == "application/zip",
                "\(reply.status) \(reply.headers)")
            #expect(reply.header("Content-Disposition")?.hasPrefix("attachment") == true)
            let path = temporaryPath("http.zip")
            try reply.body.write(to: URL(fileURLWithPath: path))
            let (sizes, files) = try Self.unzip(path, json: ["posts.json"])
            #expect(sizes.keys.contains { $0.hasPrefix("photos/") }, "\(sizes)")
            #expect((files["posts.json"] as? [[String: Any]])?.first?["caption"] as? String == "for the archive")
            #expect(try await api.get("/v1/me/export").status == 401)
            #expect(try await api.get("/v1/me/export?everything=1", bearer: alice.token).status == 400)
        }
        // The operator's command writes the same archive to a file, and refuses to overwrite one.
        let out = temporaryPath("cli.zip")
        let tool = try ToolProcess(["export-user", "--db", database, "--user", "@alice", "--out", out])
        tool.process.waitUntilExit()
        #expect(tool.process.terminationStatus == 0)
        #expect(try Self.unzip(out, json: ["profile.json"]).files["profile.json"] != nil)
        let again = try ToolProcess(["export-user", "--db", database, "--user", "@alice", "--out", out])
        again.process.waitUntilExit()
        #expect(again.process.terminationStatus != 0)
    }
}
