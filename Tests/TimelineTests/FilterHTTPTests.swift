import Foundation
import Testing
@testable import Timeline
@testable import TimelineHTTP
import TimelineDomain

/// Filters over HTTP, through a real `timeline serve`: `/v1` (the bearer's filters, warn marking
/// a post with `filtered`, hide leaving it out, another user's filter 404), and Mastodon.py
/// (Tests/mastodon/test_filters.py: v2 and v1 filters and every surface they apply to).
@Suite struct FilterHTTPTests {
    @Test(.timeLimit(.minutes(2))) func v1FiltersWarnAndHide() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            #expect(try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: alice.token).status < 300)
            let post = try await api.addPost(bob.token, caption: "The finale was great")
            let made = try await api.send(
                "POST", "/v1/me/filters",
                json: [
                    "title": "Spoilers", "context": ["home"], "action": "warn",
                    "keywords": [["keyword": "finale", "wholeWord": true]]
                ], bearer: alice.token)
            #expect(made.status == 201, "\(made)")
            let filter = try #require(made.json["id"] as? String)
            let listed = try await api.get("/v1/me/filters", bearer: alice.token)
            let filters = try #require(listed.json["filters"] as? [[String: Any]], "\(listed)")
            #expect(filters.map { $0["title"] as? String } == ["Spoilers"])
            let keyword = try #require(((filters.first?["keywords"] as? [[String: Any]])?.first)?["id"] as? String)

            let home = try await api.get("/v1/timeline", bearer: alice.token)
            let items = try #require(home.json["items"] as? [[String: Any]], "\(home)")
            let warned = try #require(items.first { $0["id"] as? String == post })
            let results = try #require(warned["filtered"] as? [[String: Any]], "\(warned)")
            #expect(results.first?["filter"] as? String == filter && results.first?["action"] as? String == "warn")
            #expect(results.first?["keywordMatches"] as? [String] == ["finale"])
            // Bob's own timeline: his post is never filtered for him, and alice's filter is not his.
            let bobs = try await api.get("/v1/timeline", bearer: bob.token)
            #expect((bobs.json["items"] as? [[String: Any]])?.first?["filtered"] == nil)
            #expect(try await api.send("DELETE", "/v1/me/filters/\(filter)", bearer: bob.token).status == 404)

            #expect(
                try await api.send("PATCH", "/v1/me/filters/\(filter)", json: ["action": "hide"], bearer: alice.token)
                    .status == 200)
            let hidden = try await api.get("/v1/timeline", bearer: alice.token)
            #expect((hidden.json["items"] as? [[String: Any]])?.contains { $0["id"] as? String == post } == false)
            #expect(
                try await api.send("DELETE", "/v1/me/filter-keywords/\(keyword)", bearer: alice.token).status == 204)
            let back = try await api.get("/v1/timeline", bearer: alice.token)
            #expect((back.json["items"] as? [[String: Any]])?.contains { $0["id"] as? String == post } == true)
            #expect(try await api.send("DELETE", "/v1/me/filters/\(filter)", bearer: alice.token).status == 204)
        }
    }

    @Test(.timeLimit(.minutes(3))) func mastodonPyFilters() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            #expect(try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: alice.token).status < 300)
            let open = try await api.addPost(bob.token, caption: "the #finale was great")
            // Carol's followers-only post: out of alice's sight (she does not follow carol).
            let carol = try await api.signUp("carol")
            let hidden = try await api.send(
                "POST", "/v1/posts", json: ["image": gifBase64(0x61), "caption": "finale", "visibility": "followers"],
                bearer: carol.token)
            let secret = try #require(hidden.json["id"] as? String, "\(hidden)")
            let mine = try await api.addPost(alice.token, caption: "my photo", image: 3)
            let comment = try await api.send(
                "POST", "/v1/posts/\(mine)/comments", json: ["text": "what a finale"], bearer: bob.token)
            let commentID = try #require(comment.json["id"] as? String, "\(comment)")
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_filters.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token,
                    try await server.mastodonID("post", open), try await server.mastodonID("post", secret),
                    try await server.mastodonID("comment", commentID)
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(150))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - every filter call"), "\(text)")
        }
    }
}
