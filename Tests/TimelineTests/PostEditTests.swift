import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Editing a post: only its author may; its caption and hashtags change everywhere it shows, it
/// says `editedAt`, its place in timelines stays, and its history keeps every version.
@Suite struct PostEditTests {
    @Test func theAuthorEditsAndEveryVersionIsKept() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let first = try await service.addPost(by: alice.id, caption: "harbour #sea")
        let second = try await service.addPost(by: alice.id, caption: "later", image: 1)
        #expect(first.editedAt == nil)
        clock.advance(60_000)

        let edited = try #require(
            try await service.run(
                .editPost(post: first.id.rawValue, caption: .some("harbour at dawn #fog")), as: alice.id
            ).post)
        #expect(
            edited.caption == "harbour at dawn #fog" && edited.hashtags == ["fog"]
                && edited.editedAt == clock.nowMilliseconds())
        // Its place in the timeline does not move; every answer shows the edit.
        #expect(try service.timeline(of: bob.id).items.map(\.id) == [second.id, first.id])
        #expect(try service.timeline(of: bob.id).items.last?.caption == "harbour at dawn #fog")
        #expect(try service.post(first.id).post.editedAt != nil)
        // Hashtags are indexed anew.
        #expect(try service.hashtag("sea").items.isEmpty)
        #expect(try service.hashtag("fog").items.map(\.id) == [first.id])

        // The same caption again records nothing; absent keeps it; null clears it.
        let before = try service.lastSequence()
        _ = try await service.run(
            .editPost(post: first.id.rawValue, caption: .some("harbour at dawn #fog")), as: alice.id)
        _ = try await service.run(.editPost(post: first.id.rawValue, caption: nil), as: alice.id)
        #expect(try service.lastSequence() == before)
        clock.advance(1000)
        #expect(
            try await service.run(.editPost(post: first.id.rawValue, caption: .some(nil)), as: alice.id).post?.caption
                == nil)
        #expect(try service.hashtag("fog").items.isEmpty)

        let history = try service.history(of: first.id)
        #expect(history.map(\.caption) == ["harbour #sea", "harbour at dawn #fog", nil])
        #expect(history.map(\.hashtags) == [["sea"], ["fog"], []])
        #expect(history.map(\.at) == history.map(\.at).sorted())

        // Only the author; not a post that is gone; bad captions refused; nothing recorded.
        let refusedFrom = try service.lastSequence()
        await expectError(.forbidden) {
            _ = try await service.run(.editPost(post: first.id.rawValue, caption: .some("mine now")), as: bob.id)
        }
        await expectError(.invalidArgument, field: "caption") {
            _ = try await service.run(
                .editPost(
                    post: first.id.rawValue, caption: .some(String(repeating: "x", count: Validation.maxCaption + 1))),
                as: alice.id)
        }
        try await service.run(.deletePost(post: second.id.rawValue), as: alice.id)
        await expectError(.notFound) {
            _ = try await service.run(.editPost(post: second.id.rawValue, caption: .some("back")), as: alice.id)
        }
        await expectError(.notFound) { _ = try service.history(of: second.id) }
        #expect(try service.lastSequence() == refusedFrom + 1)  // the deletion only
    }

    @Test func overHTTP() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let post = try await api.addPost(alice.token, caption: "first words")
            let edited = try await api.send(
                "PATCH", "/v1/posts/\(post)", json: ["caption": "better words #now"], bearer: alice.token)
            #expect(
                edited.status == 200 && edited.json["caption"] as? String == "better words #now"
                    && edited.json["editedAt"] is String, "\(edited)")
            #expect(
                try await api.send("PATCH", "/v1/posts/\(post)", json: ["caption": "not yours"], bearer: bob.token)
                    .status == 403)
            #expect(
                try await api.send("PATCH", "/v1/posts/\(post)", json: ["caption": 7], bearer: alice.token).errorField
                    == "caption")
            let history = try await api.get("/v1/posts/\(post)/history")
            let versions = try #require(history.json["versions"] as? [[String: Any]], "\(history)")
            #expect(versions.map { $0["caption"] as? String } == ["first words", "better words #now"])
            let page = try await api.get("/v1/users/\(alice.id)/posts")
            #expect((page.json["items"] as? [[String: Any]])?.first?["editedAt"] is String, "\(page)")
            #expect(try await api.get("/v1/posts/-NoSuchPost000000000/history").status == 404)
        }
    }
}

/// Sensitive photos: a post marked sensitive (or with a content warning) says so in every
/// answer, the warning is sealed with the author's key (gone with them), and over HTTP a
/// multipart upload marks it with text fields.
@Suite struct SensitivePostTests {
    @Test func aSensitivePostSaysSoEverywhereAndItsWarningIsPersonal() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let plain = try await service.addPost(by: alice.id, caption: "plain")
        #expect(plain.sensitive == false && plain.warning == nil)
        let warned = try #require(
            try await service.run(.addPost(image: gifBase64(1), caption: "surgery", warning: "medical"), as: alice.id)
                .post)
        #expect(warned.sensitive && warned.warning == "medical")
        let blurred = try #require(
            try await service.run(.addPost(image: gifBase64(2), caption: "x", sensitive: true), as: alice.id).post)
        #expect(blurred.sensitive && blurred.warning == nil)
        let page = try service.timeline(of: bob.id).items
        #expect(page.map(\.sensitive) == [true, true, false])
        #expect(
            JSONOutput.postPageBytes(Page(items: page, next: nil))
                == JSONOutput.bytes(JSONOutput.answer(.posts(Page(items: page, next: nil)))))
        let before = try service.lastSequence()
        await expectError(.invalidArgument, field: "warning") {
            _ = try await service.run(
                .addPost(
                    image: gifBase64(3), caption: nil, warning: String(repeating: "w", count: Validation.maxWarning + 1)
                ), as: alice.id)
        }
        #expect(try service.lastSequence() == before)
        try await service.run(.eraseUser(user: alice.id.rawValue, password: "password-123"), as: alice.id)
        let events = try service.events(from: 1).filter { $0.type == .postMarkedSensitive }
        #expect(events.count == 2)
        for envelope in events {
            guard case .postMarkedSensitive(let e) = envelope.event else {
                Issue.record("not PostMarkedSensitive")
                continue
            }
            #expect(envelope.erased && e.warning == nil, "the warning outlived its author's key")
        }
    }

    @Test func aMultipartUploadMarksItWithTextFields() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            let boundary = "sensitive-boundary"
            var body = Data()
            func part(_ name: String, _ value: Data, filename: String? = nil) {
                body += Data(
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\(filename.map { "; filename=\"\($0)\"" } ?? "")\r\n\r\n"
                        .utf8)
                body += value + Data("\r\n".utf8)
            }
            part("image", Data(gifBytes(4)), filename: "photo.gif")
            part("sensitive", Data("true".utf8))
            part("warning", Data("spiders".utf8))
            body += Data("--\(boundary)--\r\n".utf8)
            let posted = try await api.send(
                "POST", "/v1/posts", body: body, contentType: "multipart/form-data; boundary=\(boundary)",
                bearer: alice.token)
            #expect(
                posted.status == 201 && posted.json["sensitive"] as? Bool == true
                    && posted.json["warning"] as? String == "spiders", "\(posted)")
            var wrong = Data()
            wrong +=
                Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.gif\"\r\n\r\n".utf8)
                + Data(gifBytes(5)) + Data("\r\n".utf8)
            wrong += Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"sensitive\"\r\n\r\nyes\r\n--\(boundary)--\r\n"
                    .utf8)
            let refused = try await api.send(
                "POST", "/v1/posts", body: wrong, contentType: "multipart/form-data; boundary=\(boundary)",
                bearer: alice.token)
            #expect(refused.status == 400 && refused.errorField == "sensitive", "\(refused)")
        }
    }
}
