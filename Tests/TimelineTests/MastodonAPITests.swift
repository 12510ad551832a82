import Foundation
import Testing
@testable import Timeline
@testable import TimelineHTTP

/// The Mastodon client API, checked by a client written by others: Mastodon.py (PyPI), run
/// against a real `timeline serve` (Tests/mastodon/test_mastodon_py.py).
@Suite struct MastodonAPITests {
    @Test func mastodonPyReadsAndWrites() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let photo = try pixelFile()
            var posts: [String] = []
            for n in 0..<4 {
                posts.insert(
                    try await api.addPost(alice.token, caption: "view \(n) #sea", image: 0x30 << (n * 4)), at: 0)
            }
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_mastodon_py.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, try await server.mastodonID("account", alice.id),
                    try await server.mastodonID("account", bob.id), bob.token, photo
                ] + (try await server.mastodonIDs("post", posts)),
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - revoke_access_token ends the token"), "\(text)")
        }
    }

    /// The authorize page in headless Chromium, as a person uses it: sign in, Authorize or
    /// Deny, landing on the app's redirect URI; framing by another site is refused.
    @Test(.timeLimit(.minutes(3))) func theAuthorizePageInARealBrowser() async throws {
        try await withServer { server in
            _ = try await server.api.signUp("alice")
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_authorize_browser.py").path,
                    "http://127.0.0.1:\(server.port)"
                ], executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(150))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - another site cannot show the page in a frame"), "\(text)")
        }
    }

    /// toot, the Mastodon command-line client, logs in through the authorize page (out of
    /// band), posts a photo with its alt text and reads the home timeline.
    @Test func tootLogsInPostsAPhotoAndReadsTheHomeTimeline() async throws {
        try await withServer { server in
            _ = try await server.api.signUp("alice")
            let photo = try pixelFile()
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_toot.py").path,
                    "http://127.0.0.1:\(server.port)", photo
                ], executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - the photo's alt text is kept"), "\(text)")
        }
    }

    /// Errors are Mastodon's: `{"error": "…"}`, 401 without a token, 422 for a bad parameter.
    @Test func errorsAreMastodons() async throws {
        try await withServer { server in
            let api = server.api
            let missing = try await api.get("/api/v1/timelines/home")
            #expect(missing.status == 401 && missing.json["error"] is String, "\(missing)")
            let alice = try await api.signUp("alice")
            let bad = try await api.get("/api/v1/timelines/home?limit=zero", bearer: alice.token)
            #expect(bad.status == 422 && bad.json["error"] is String, "\(bad)")
            #expect(try await api.get("/api/v1/instance/").status == 200)
            // An id that is no identifier names no record, and is never looked up.
            let hostile = try await api.get(
                "/api/v1/accounts/\(String(repeating: "a", count: 700))", bearer: alice.token)
            #expect(hostile.status == 404 && hostile.json["error"] as? String == "Record not found", "\(hostile)")
            let token = try await api.send(
                "POST", "/oauth/token",
                body: Data(
                    "grant_type=password&client_id=\(String(repeating: "x", count: 700))&client_secret=s&username=a&password=b"
                        .utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(token.status == 401 && token.json["error"] as? String == "invalid_client", "\(token)")
            // The /v1 API keeps its own error shape.
            #expect(try await api.get("/v1/timeline").error["code"] as? String == "unauthenticated")
        }
    }

    /// One request limit for both APIs (`--rate-limit`): every answer says it; past it, 429 in
    /// the API's own shape. A valid token has its own window whatever the case of `Bearer`;
    /// requests without a valid token — made-up ones too — count as their address's.
    @Test func oneRequestLimitForBothAPIs() async throws {
        try await withServer(arguments: ["--rate-limit", "3"]) { server in
            let api = server.api
            // Two sign-ups: the address's first two requests.
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            var remaining: [String] = []
            for (path, scheme) in [
                ("/api/v1/timelines/home", "Bearer"), ("/v1/timeline", "bearer"), ("/v1/me", "BEARER")
            ] {
                let answer = try await api.get(path, headers: ["Authorization": "\(scheme) \(alice.token)"])
                #expect(answer.status == 200 && answer.header("X-RateLimit-Limit") == "3", "\(answer)")
                #expect(answer.header("X-RateLimit-Reset").map { $0.hasSuffix("Z") } == true, "\(answer)")
                remaining.append(answer.header("X-RateLimit-Remaining") ?? "")
            }
            #expect(remaining == ["2", "1", "0"])
            let refused = try await api.get(
                "/api/v1/timelines/home", headers: ["Authorization": "bEaReR \(alice.token)"])
            #expect(
                refused.status == 429 && refused.json["error"] is String
                    && refused.header("X-RateLimit-Remaining") == "0", "\(refused)")
            let refusedV1 = try await api.get("/v1/timeline", bearer: alice.token)
            #expect(refusedV1.status == 429 && refusedV1.error["code"] as? String == "rate_limited", "\(refusedV1)")
            #expect(refusedV1.header("Retry-After") != nil)
            // Another bearer counts on its own.
            #expect(try await api.get("/v1/timeline", bearer: bob.token).status == 200)
            // Made-up tokens are their sender's requests: the address's third, then refused.
            #expect(try await api.get("/api/v1/timelines/home", bearer: "made-up-1").status == 401)
            #expect(try await api.get("/api/v1/timelines/home", bearer: "made-up-2").status == 429)
            #expect(try await api.get("/api/v1/instance").status == 429)
            // The web app's files and images are not counted.
            #expect(try await api.get("/").status == 200)
        }
    }

    /// The windows table is bounded, and ended windows leave it as requests come (no scan).
    @Test func requestWindowsAreBounded() {
        let windows = RequestWindows(limit: 2, window: 300, capacity: 100)
        let start = Date()
        for n in 0..<10_000 { _ = windows.take("key \(n)", now: start) }
        #expect(windows.count == 100)
        #expect(windows.take("key 9999", now: start).allowed == true)
        #expect(windows.take("key 9999", now: start).allowed == false)
        #expect(windows.take("later", now: start + 301).allowed == true)
        #expect(windows.count == 1, "every window that ended has left")
    }
}
