import Foundation
import Testing
@testable import Timeline
@testable import TimelineHTTP
import TimelineDomain
import Vips

/// What apps call as they start (issue #40), through Mastodon.py against a real `timeline
/// serve` (Tests/mastodon/test_startup.py), and the profile header through the library.
@Suite struct MastodonStartupTests {
    @Test(.timeLimit(.minutes(3))) func mastodonPyStartUpCalls() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let open = try await api.addPost(alice.token, caption: "a view #sea", image: 0x30)
            let reply = try await api.send(
                "POST", "/v1/posts", json: ["image": gifBase64(0x60), "caption": "friends", "visibility": "followers"],
                bearer: alice.token)
            let hidden = try #require(reply.json["id"] as? String, "\(reply)")
            // Two notifications for alice: a like and a comment.
            #expect(try await api.send("PUT", "/v1/posts/\(open)/like", bearer: bob.token).status == 200)
            let comment = try await api.send(
                "POST", "/v1/posts/\(open)/comments", json: ["text": "lovely"], bearer: bob.token)
            #expect(comment.status == 201, "\(comment)")
            let header = try AvatarTests.image(800, shade: 90)
            let path = PhotoTests.directory() + "/header.png"
            try Data(header).write(to: URL(fileURLWithPath: path))
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_startup.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token, path,
                    try await server.mastodonID("post", open), try await server.mastodonID("post", hidden)
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - every start-up call"), "\(text)")
        }
    }

    /// The instance's source URL and contact email: `timeline serve`'s options, or the server's
    /// own origin and `postmaster@` its host; `api_versions`, the icon; the credential role.
    @Test func instanceOptionsAndRole() async throws {
        try await withServer { server in
            let instance = try await server.api.get("/api/v2/instance")
            let base = "http://127.0.0.1:\(server.port)"
            #expect(instance.json["source_url"] as? String == base + "/", "\(instance)")
            let contact = try #require(instance.json["contact"] as? [String: Any])
            #expect(contact["email"] as? String == "postmaster@127.0.0.1")
            #expect((instance.json["api_versions"] as? [String: Any])?["mastodon"] as? Int == 2)
            let icon = try #require((instance.json["icon"] as? [[String: Any]])?.first)
            #expect(icon["size"] as? String == "192x192")
            let src = try #require(icon["src"] as? String)
            #expect(try await server.api.get(String(src.dropFirst(base.count))).status == 200)
            let alice = try await server.api.signUp("alice")
            let me = try await server.api.get("/api/v1/accounts/verify_credentials", bearer: alice.token)
            #expect((me.json["role"] as? [String: Any])?["id"] as? String == "-99", "\(me)")
            #expect((me.json["source"] as? [String: Any])?["indexable"] as? Bool == false)
        }
        try await withServer(arguments: [
            "--source-url", "https://code.example/timeline", "--contact-email", "admin@photos.example"
        ]) { server in
            let v1 = try await server.api.get("/api/v1/instance")
            #expect(v1.json["email"] as? String == "admin@photos.example", "\(v1)")
            let v2 = try await server.api.get("/api/v2/instance")
            #expect(v2.json["source_url"] as? String == "https://code.example/timeline")
            #expect((v2.json["contact"] as? [String: Any])?["email"] as? String == "admin@photos.example")
        }
    }

    /// The credential account's role: Mastodon's Moderator for a moderator, the everyone role otherwise.
    @Test func roleFromTheModeratorRole() {
        var record = UserRecord(
            id: UserID("u1"), username: "mod", emailHash: nil, passwordHash: nil, bio: nil, url: nil, createdAt: 0)
        #expect(MastodonEntities.role(Profile(record, own: true)).id == "-99")
        #expect(MastodonEntities.role(Profile(record, own: true)).permissions == "0")
        record.moderator = true
        let role = MastodonEntities.role(Profile(record, own: true))
        #expect(role.id == "1" && role.name == "Moderator" && role.permissions == String(16 | 1024))
    }

    /// `PUT /v1/me/header` (multipart or raw bytes) and `DELETE /v1/me/header`, as the avatar's.
    @Test func v1HeaderRoute() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            let png = try AvatarTests.image(700, shade: 120)
            var form = MultipartBody()
            form.file("image", filename: "band.png", type: "image/png", png)
            let set = try await api.send(
                "PUT", "/v1/me/header", body: form.finished(), contentType: form.contentType, bearer: alice.token)
            let bands = try #require(set.json["header"] as? [String: String], "\(set)")
            let large = try #require(bands["large"]), small = try #require(bands["small"])
            #expect(try await api.get("/v1/images/\(large)").status == 200)
            #expect(try await api.get("/v1/users/\(alice.id)").json["header"] as? [String: String] == bands)
            #expect(set.json["avatar"] is NSNull)
            let raw = try await api.send(
                "PUT", "/v1/me/header", body: Data(try AvatarTests.image(600, shade: 10)), contentType: "image/png",
                bearer: alice.token)
            #expect(raw.status == 200 && raw.json["header"] as? [String: String] != bands, "\(raw)")
            let notImage = try await api.send(
                "PUT", "/v1/me/header", body: Data("text".utf8), contentType: "image/png", bearer: alice.token)
            #expect(notImage.status == 415, "\(notImage)")
            #expect(try await api.send("PUT", "/v1/me/header", body: Data(png), contentType: "image/png").status == 401)
            #expect(
                try await api.send("DELETE", "/v1/me/header", json: ["x": 1], bearer: alice.token).errorField == "x")
            let removed = try await api.send("DELETE", "/v1/me/header", bearer: alice.token)
            #expect(removed.status == 200 && removed.json["header"] is NSNull, "\(removed)")
            #expect(try await api.get("/v1/images/\(large)").status == 404)
            #expect(try await api.get("/v1/images/\(small)").status == 404)
        }
    }

    /// The header: two bands, stored and served, beside the photo; removed; rebuilt alike; erased.
    @Test func headerSetRemovedRebuiltAndErased() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let image = Data(try AvatarTests.image(900, shade: 70)).base64EncodedString()
        let photo = Data(try AvatarTests.image(300, shade: 20)).base64EncodedString()
        try await service.run(
            .updateProfile(username: nil, bio: nil, url: nil, avatar: .set(photo), header: .set(image)), as: alice.id)
        let user = try service.user(alice.id)
        let header = try #require(user.header)
        let avatar = try #require(user.avatar)
        for (id, width, height) in [(header.large, 1500, 500), (header.small, 600, 200)] {
            let stored = try Vips.header(try service.image(id).bytes)
            #expect(stored.width == width && stored.height == height)
        }
        let last = try #require(try service.events(from: try service.lastSequence()).last)
        #expect(last.schemaVersion == 6)
        #expect(
            last.event
                == .profileUpdated(ProfileUpdated(userId: alice.id, avatar: .set(avatar), header: .set(header))))
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)

        // Removing the photo keeps the header; removing the header lets its bands go.
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, avatar: .remove), as: alice.id)
        #expect(try service.user(alice.id).header == header && service.user(alice.id).avatar == nil)
        _ = try service.image(header.large)
        let before = try service.lastSequence()
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, header: .remove), as: alice.id)
        #expect(try service.user(alice.id).header == nil)
        await expectError(.notFound) { _ = try service.image(header.large) }
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, header: .remove), as: alice.id)
        #expect(try service.lastSequence() == before + 1)

        // Set again, then erased: gone.
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, header: .set(image)), as: alice.id)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        try await service.run(.eraseUser(user: alice.id.rawValue, password: "password-123"), as: alice.id)
        for id in [header.large, header.small] { await expectError(.notFound) { _ = try service.image(id) } }
    }
}
