import Foundation
import MicroHTTPD
import Testing
@testable import TimelineHTTP

/// The web app: how `timeline serve` serves `web/`, and the whole app in a real browser.
@Suite struct WebAppTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func api() throws -> TimelineAPI {
        var options = TimelineAPI.Options()
        options.accessLog = false
        return TimelineAPI(service: try openService(), options: options)
    }

    func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    @Test func servesTheAppWithAStrictPolicy() async throws {
        let api = try api()
        defer { api.stop() }
        let page = await api.handle(HTTPRequest(method: "GET", path: "/"))
        #expect(page.status == 200)
        #expect(header(page, "Content-Type") == "text/html; charset=utf-8")
        #expect(header(page, "Cache-Control") == "no-cache")
        let policy = try #require(header(page, "Content-Security-Policy"))
        #expect(
            policy.contains("default-src 'self'") && policy.contains("script-src 'self'")
                && policy.contains("style-src 'self'"))
        #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
        guard case .bytes(let body) = page.body else {
            Issue.record("no body")
            return
        }
        let html = String(decoding: body, as: UTF8.self)
        #expect(html.contains("<script type=\"module\" src=\"/app/js/app.js\"></script>"))
        #expect(!html.contains("<script>") && !html.contains("style=") && !html.contains(" onclick="))

        for (path, type) in [
            ("/app/app.css", "text/css; charset=utf-8"), ("/app/js/api.js", "text/javascript; charset=utf-8"),
            ("/app/icon.svg", "image/svg+xml")
        ] {
            let response = await api.handle(HTTPRequest(method: "GET", path: path))
            #expect(response.status == 200, "\(path)")
            #expect(header(response, "Content-Type") == type, "\(path)")
            #expect(header(response, "X-Content-Type-Options") == "nosniff", "\(path)")
        }
    }

    @Test func revalidatesByETag() async throws {
        let api = try api()
        defer { api.stop() }
        let first = await api.handle(HTTPRequest(method: "GET", path: "/app/js/app.js"))
        let tag = try #require(header(first, "ETag"))
        let again = await api.handle(
            HTTPRequest(method: "GET", path: "/app/js/app.js", headers: ["if-none-match": tag]))
        #expect(again.status == 304)
        let changed = await api.handle(
            HTTPRequest(method: "GET", path: "/app/js/app.js", headers: ["if-none-match": "\"other\""]))
        #expect(changed.status == 200)
    }

    @Test func refusesTraversalAndUnknownFiles() async throws {
        let api = try api()
        defer { api.stop() }
        for path in [
            "/app/..", "/app/../README.md", "/app/js/../../Package.swift", "/app/js/..%2f..%2fREADME.md",
            "/app/.hidden.js",
            "/app/missing.js", "/app/js/missing.js", "/app/app.css.bak", "/app/README", "/app/js/", "/app/x/y/z.js",
            "/app/%00.js", "/index.html/"
        ] {
            let response = await api.handle(HTTPRequest(method: "GET", path: path))
            #expect(response.status == 404, "\(path)")
        }
        #expect(WebApp.isAssetName("app.css") && WebApp.isAssetName("api.js"))
        // The service worker is served at the root (its scope is the whole app), as a script under the same policy.
        let worker = await api.handle(HTTPRequest(method: "GET", path: "/sw.js"))
        #expect(
            worker.status == 200
                && worker.headers.contains { $0.name == "Content-Type" && $0.value.hasPrefix("text/javascript") }
                && worker.headers.contains { $0.name == "Content-Security-Policy" })
        #expect(
            !WebApp.isAssetName("..") && !WebApp.isAssetName(".js") && !WebApp.isAssetName("a/b.js")
                && !WebApp.isAssetName("a..js"))
        let post = await api.handle(HTTPRequest(method: "POST", path: "/"))
        #expect(post.status == 405)
    }

    /// Tests/browser/test_webapp.py: Selenium drives headless Chromium through the whole app
    /// against a real `timeline serve` (see that file for what it covers). Its minute of work is
    /// waited for without holding a thread of the test pool (the other suites run meanwhile).
    @Test(.timeLimit(.minutes(5))) func inARealBrowser() async throws {
        let run = try ChildProcess(
            [
                "python3", Self.root.appendingPathComponent("Tests/browser/test_webapp.py").path,
                "--timeline", try timelineExecutable().path
            ],
            executable: URL(fileURLWithPath: "/usr/bin/env"), directory: Self.root)
        let status = await run.exitStatus(within: .seconds(280))
        let text = run.standardOutput + run.standardError
        #expect(
            status == 0,
            "the browser tests failed (tools/install-deps --tests installs chromium, chromium-driver and selenium):\n\(text)"
        )
        if status == 0 { print(text) }
    }

    /// Tests/browser/test_push_browser.py: "Notifications on this device" in headless Chromium —
    /// permission, /sw.js, a subscription with the server's VAPID key — then a comment pushed
    /// to a test push service (decrypted with http_ece) and shown by the service worker. Only
    /// the browser's own link to its push service (Google's, out of reach offline) is stood in
    /// for; see that file.
    @Test(.timeLimit(.minutes(3))) func pushNotificationsInARealBrowser() async throws {
        let run = try ChildProcess(
            [
                "python3", Self.root.appendingPathComponent("Tests/browser/test_push_browser.py").path,
                "--timeline", try timelineExecutable().path
            ],
            executable: URL(fileURLWithPath: "/usr/bin/env"), directory: Self.root)
        let status = await run.exitStatus(within: .seconds(170))
        let text = run.standardOutput + run.standardError
        #expect(status == 0, "\(text)")
        #expect(text.contains("ok - the service worker shows it"), "\(text)")
    }

    /// Tests/browser/test_filters.py: muted words in Settings, a warned post covered in the feed
    /// ("Shown because of filter …", then "Show anyway"), a hidden one left out, a removed
    /// filter's post back — in headless Chromium against a real `timeline serve`.
    @Test(.timeLimit(.minutes(3))) func filtersInARealBrowser() async throws {
        try await Self.browserScript("test_filters.py", passes: "ok - removing the filter brings the post back")
    }

    /// Tests/browser/test_polls.py: a poll made in New post, shown on the card in Home, voted
    /// in by a follower, whose card then shows the results.
    @Test(.timeLimit(.minutes(3))) func pollsInARealBrowser() async throws {
        try await Self.browserScript("test_polls.py", passes: "all poll browser checks passed")
    }

    /// Runs Tests/browser/`file` against this build's `timeline` and expects it to succeed,
    /// printing `line`.
    static func browserScript(_ file: String, passes line: String) async throws {
        let run = try ChildProcess(
            [
                "python3", root.appendingPathComponent("Tests/browser/\(file)").path,
                "--timeline", try timelineExecutable().path
            ],
            executable: URL(fileURLWithPath: "/usr/bin/env"), directory: root)
        let status = await run.exitStatus(within: .seconds(170))
        let text = run.standardOutput + run.standardError
        #expect(status == 0, "\(text)")
        #expect(text.contains(line), "\(text)")
    }

    /// Tests/browser/test_profile_extras.py: Pin to profile (first on the profile, labelled
    /// Pinned) and Unpin, Feature on profile, a private note seen only by its writer, and Remove
    /// follower, in headless Chromium (see that file).
    @Test(.timeLimit(.minutes(3))) func profileExtrasInARealBrowser() async throws {
        try await Self.browserScript(
            "test_profile_extras.py", passes: "ok - Remove follower in one's followers list ends their follow")
    }

    /// Tests/browser/test_boosts.py: the feed card's Boost button, and "Boosted by NAME" over a
    /// post that came into Home by a boost, gone once the boost is taken back.
    @Test(.timeLimit(.minutes(3))) func boostsInARealBrowser() async throws {
        try await Self.browserScript("test_boosts.py", passes: "ok - carol, who follows bob, sees alice's post")
    }

    /// Tests/browser/test_lists.py: the Lists screen in headless Chromium — make a list, add
    /// someone followed (a stranger refused), read the list's posts, remove, rename, delete.
    @Test(.timeLimit(.minutes(3))) func listsInARealBrowser() async throws {
        try await Self.browserScript("test_lists.py", passes: "all lists browser checks passed")
    }

    /// Tests/browser/test_collections.py: the Collections screen in headless Chromium — make a
    /// collection of two people, remove and add one, a non-discoverable account refused, the
    /// profile's panel, and the featured account leaving it.
    @Test(.timeLimit(.minutes(3))) func collectionsInARealBrowser() async throws {
        try await Self.browserScript("test_collections.py", passes: "all collections browser checks passed")
    }

    /// Tests/browser/test_messages.py: the Messages screen (write to @someone, text alone; open
    /// a conversation, read, answer; Remove from one's own list) and the composer's Direct choice;
    /// a follower not mentioned sees nothing of it; a conversation of 105 messages pages back to its first.
    @Test(.timeLimit(.minutes(3))) func messagesInARealBrowser() async throws {
        try await Self.browserScript("test_messages.py", passes: "all messages browser checks passed")
    }

    /// Tests/browser/test_scheduled.py: New post's "Schedule for later", and Scheduled posts —
    /// listed with its time, the time changed (a past one refused), cancelled, nothing published.
    @Test(.timeLimit(.minutes(3))) func scheduledPostsInARealBrowser() async throws {
        try await Self.browserScript("test_scheduled.py", passes: "all scheduled posts browser checks passed")
    }

    /// Tests/browser/test_annual_report.py: "Your year" from the profile's menu — Make my report,
    /// then its archetype, totals, months, top post and hashtags, marked read once shown.
    @Test(.timeLimit(.minutes(3))) func annualReportInARealBrowser() async throws {
        try await Self.browserScript("test_annual_report.py", passes: "all annual report browser checks passed")
    }

    /// Tests/browser/test_collection_notifications.py: Activity says someone added you to a
    /// collection (its Collections filter, the link to it), gone once you block them.
    @Test(.timeLimit(.minutes(3))) func collectionNotificationsInARealBrowser() async throws {
        try await Self.browserScript(
            "test_collection_notifications.py", passes: "all collection notifications browser checks passed")
    }
}
