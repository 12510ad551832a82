import Foundation
import Testing
@testable import Timeline
@testable import TimelineHTTP
import TimelineDomain

/// Direct messages over HTTP: `/v1` (posting `visibility: direct` with text alone, the
/// conversations, read and removed) and the Mastodon API through Mastodon.py
/// (Tests/mastodon/test_direct.py) against a real `timeline serve`.
@Suite struct DirectMessageHTTPTests {
    @Test func v1PostsListsReadsAndRemovesConversations() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let eve = try await api.signUp("eve")
            let sent = try await api.send(
                "POST", "/v1/posts", json: ["caption": "@bob lunch?", "visibility": "direct"], bearer: alice.token)
            #expect(sent.status == 201, "\(sent)")
            let id = try #require(sent.json["id"] as? String)
            #expect(sent.json["visibility"] as? String == "direct")
            #expect(sent.json["addressees"] as? [String] == [bob.id])
            #expect(sent.json["image"] is NSNull && (sent.json["media"] as? [Any])?.isEmpty == true)
            // A public post still needs a photo.
            let bare = try await api.send("POST", "/v1/posts", json: ["caption": "hello"], bearer: alice.token)
            #expect(bare.status == 400, "\(bare)")
            let list = try await api.send("GET", "/v1/conversations", bearer: bob.token)
            #expect(list.status == 200, "\(list)")
            let items = try #require(list.json["items"] as? [[String: Any]])
            #expect(items.count == 1 && items.first?["id"] as? String == id && items.first?["unread"] as? Bool == true)
            #expect(items.first?["accounts"] as? [String] == [alice.id])
            #expect((items.first?["lastPost"] as? [String: Any])?["id"] as? String == id)
            // Eve sees nothing of it, and cannot touch bob's conversation.
            #expect(try await api.send("GET", "/v1/posts/\(id)", bearer: eve.token).status == 404)
            let eves = try await api.send("GET", "/v1/conversations", bearer: eve.token)
            #expect((eves.json["items"] as? [Any])?.isEmpty == true, "\(eves)")
            #expect(try await api.send("POST", "/v1/conversations/\(id)/read", bearer: eve.token).status == 404)
            let direct = try await api.send("GET", "/v1/conversations/posts", bearer: bob.token)
            #expect((direct.json["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [id], "\(direct)")
            // Read, then removed from bob's list only.
            #expect(try await api.send("POST", "/v1/conversations/\(id)/read", bearer: bob.token).status == 204)
            let read = try await api.send("GET", "/v1/conversations", bearer: bob.token)
            #expect((read.json["items"] as? [[String: Any]])?.first?["unread"] as? Bool == false)
            #expect(try await api.send("DELETE", "/v1/conversations/\(id)", bearer: bob.token).status == 204)
            let gone = try await api.send("GET", "/v1/conversations", bearer: bob.token)
            #expect((gone.json["items"] as? [Any])?.isEmpty == true)
            let kept = try await api.send("GET", "/v1/conversations", bearer: alice.token)
            #expect((kept.json["items"] as? [Any])?.count == 1)
            #expect(try await api.send("DELETE", "/v1/conversations/\(id)", bearer: bob.token).status == 404)
        }
    }

    @Test(.timeLimit(.minutes(3))) func mastodonPyDirectMessages() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_direct.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token, carol.token
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - every direct message call"), "\(text)")
        }
    }
}
