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

        let edited = try #require(try await service.run(.editPost(post: first.id.rawValue, caption: .some("harbour at dawn #fog")), as: alice.id).post)
        #expect(edited.caption == "harbour at dawn #fog" && edited.hashtags == ["fog"] && edited.editedAt == clock.nowMilliseconds())
        // Its place in the timeline does not move; every answer shows the edit.
        #expect(try service.timeline(of: bob.id).items.map(\.id) == [second.id, first.id])
        #expect(try service.timeline(of: bob.id).items.last?.caption == "harbour at dawn #fog")
        #expect(try service.post(first.id).post.editedAt != nil)
        // Hashtags are indexed anew.
        #expect(try service.hashtag("sea").items.isEmpty)
        #expect(try service.hashtag("fog").items.map(\.id) == [first.id])

        // The same caption again records nothing; absent keeps it; null clears it.
        let before = try service.lastSequence()
        _ = try await service.run(.editPost(post: first.id.rawValue, caption: .some("harbour at dawn #fog")), as: alice.id)
        _ = try await service.run(.editPost(post: first.id.rawValue, caption: nil), as: alice.id)
        #expect(try service.lastSequence() == before)
        clock.advance(1000)
        #expect(try await service.run(.editPost(post: first.id.rawValue, caption: .some(nil)), as: alice.id).post?.caption == nil)
        #expect(try service.hashtag("fog").items.isEmpty)

        let history = try service.history(of: first.id)
        #expect(history.map(\.caption) == ["harbour #sea", "harbour at dawn #fog", nil])
        #expect(history.map(\.hashtags) == [["sea"], ["fog"], []])
        #expect(history.map(\.at) == history.map(\.at).sorted())

        // Only the author; not a post that is gone; bad captions refused; nothing recorded.
        let refusedFrom = try service.lastSequence()
        await expectError(.forbidden) { _ = try await service.run(.editPost(post: first.id.rawValue, caption: .some("mine now")), as: bob.id) }
        await expectError(.invalidArgument, field: "caption") {
            _ = try await service.run(.editPost(post: first.id.rawValue, caption: .some(String(repeating: "x", count: Validation.maxCaption + 1))), as: alice.id)
        }
        try await service.run(.deletePost(post: second.id.rawValue), as: alice.id)
        await expectError(.notFound) { _ = try await service.run(.editPost(post: second.id.rawValue, caption: .some("back")), as: alice.id) }
        await expectError(.notFound) { _ = try service.history(of: second.id) }
        #expect(try service.lastSequence() == refusedFrom + 1)  // the deletion only
    }

    @Test func overHTTP() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let post = try await api.addPost(alice.token, caption: "first words")
            let edited = try await api.send("PATCH", "/v1/posts/\(post)", json: ["caption": "better words #now"], bearer: alice.token)
            #expect(edited.status == 200 && edited.json["caption"] as? String == "better words #now" && edited.json["editedAt"] is String, "\(edited)")
            #expect(try await api.send("PATCH", "/v1/posts/\(post)", json: ["caption": "not yours"], bearer: bob.token).status == 403)
            #expect(try await api.send("PATCH", "/v1/posts/\(post)", json: ["caption": 7], bearer: alice.token).errorField == "caption")
            let history = try await api.get("/v1/posts/\(post)/history")
            let versions = try #require(history.json["versions"] as? [[String: Any]], "\(history)")
            #expect(versions.map { $0["caption"] as? String } == ["first words", "better words #now"])
            let page = try await api.get("/v1/users/\(alice.id)/posts")
            #expect((page.json["items"] as? [[String: Any]])?.first?["editedAt"] is String, "\(page)")
            #expect(try await api.get("/v1/posts/-NoSuchPost000000000/history").status == 404)
        }
    }
}
