import Foundation
import Testing
@testable import Timeline

/// Trends (`trendingTags`, `trendingPosts`, `tagHistory`; `/v1/trends/…`; Mastodon's
/// `/api/v1/trends/tags` and `/statuses`), computed from the last days' public posts, and a
/// moderator's `hideTrend` / `showTrend`.
@Suite struct TrendsTests {
    /// ann, bob, cat and eve post in public; dan's account is locked; mod is a moderator.
    struct Network {
        let clock = TestClock()
        let service: TimelineService
        var users: [String: UserID] = [:]
        subscript(_ name: String) -> UserID { users[name]! }

        init() async throws {
            service = try openService(clock: clock)
            for name in ["ann", "bob", "cat", "dan", "eve", "mod"] {
                users[name] = try await service.createUser(name).id
            }
            try await service.run(
                .updateProfile(username: nil, bio: nil, url: nil, discoverable: nil, locked: true), as: self["dan"])
            _ = try await service.execute(.grantRole(user: self["mod"].rawValue), as: .operator)
        }

        @discardableResult
        func post(_ name: String, _ caption: String, visibility: PostVisibility? = nil) async throws -> PostID {
            guard
                case .post(let post) = try await service.run(
                    .addPost(
                        image: gifBase64(Int(clock.nowMilliseconds() % 1000)), caption: caption, visibility: visibility),
                    as: self[name])
            else { throw TimelineError(.internal, "no post") }
            return post.id
        }
    }

    @Test func hashtagsTrendByTheAccountsUsingThemInPublicPosts() async throws {
        let net = try await Network()
        let service = net.service
        // Eight days ago #old was everyone's; it has left the week.
        for name in ["ann", "bob", "cat"] { try await net.post(name, "#old") }
        net.clock.advance(8 * 86_400_000)
        // Three days ago (outside the two-day window, inside the week) bob used #sea.
        try await net.post("bob", "#sea yesterday's")
        net.clock.advance(3 * 86_400_000)
        // Now: #sea by ann, cat and eve (eve twice), #sky by ann and bob, #solo by cat alone;
        // #hidden only in a followers-only post and in the locked account's posts.
        for (name, caption) in [
            ("ann", "#sea #sky"), ("cat", "#sea #solo"), ("eve", "#sea"), ("eve", "#Sea again"), ("bob", "#sky")
        ] {
            net.clock.advance(60_000)
            try await net.post(name, caption)
        }
        try await net.post("ann", "#hidden", visibility: .followers)
        try await net.post("dan", "#hidden")
        try await net.post("dan", "#sea from a private account")

        let before = try service.lastSequence()
        let trending = try service.trendingTags()
        #expect(trending.items.map(\.name) == ["sea", "sky"])
        #expect(trending.next == nil)
        // Seven days, today first: #sea today 4 uses by 3 accounts, 3 days ago 1 by bob.
        let sea = trending.items[0].history
        #expect(sea.count == 7 && sea[0].uses == 4 && sea[0].accounts == 3)
        #expect(sea[3].uses == 1 && sea[3].accounts == 1 && sea.map(\.uses).reduce(0, +) == 5)
        #expect(sea[0].day % 86_400_000 == 0 && sea[0].day - sea[1].day == 86_400_000)
        #expect(try service.tagHistory("#SEA") == sea)
        #expect(try service.tagHistory("hidden").allSatisfy { $0.uses == 0 }, "never a post for followers")
        // Paged by offset.
        let first = try service.trendingTags(PageRequest(limit: 1))
        #expect(first.items.map(\.name) == ["sea"] && first.next == "1")
        #expect(try service.trendingTags(PageRequest(limit: 1, before: "1")).items.map(\.name) == ["sky"])
        await expectError(.invalidArgument, field: "before") { _ = try service.trendingTags(PageRequest(before: "x")) }
        #expect(try service.lastSequence() == before, "reading trends records nothing")

        // A moderator hides #sea; again changes nothing; showing it brings it back.
        await expectError(.forbidden) { _ = try await service.run(.hideTrend(tag: "sea"), as: net["ann"]) }
        #expect(try await service.run(.hideTrend(tag: "#SEA"), as: net["mod"]) == .changed(true))
        #expect(try await service.run(.hideTrend(tag: "sea"), as: net["mod"]) == .changed(false))
        #expect(try service.trendingTags().items.map(\.name) == ["sky"])
        #expect(try await service.run(.showTrend(tag: "sea"), as: net["mod"]) == .changed(true))
        #expect(try service.trendingTags().items.map(\.name) == ["sea", "sky"])
        await expectError(.invalidArgument, field: "tag") {
            _ = try await service.run(.hideTrend(tag: "#"), as: net["mod"])
        }
        await expectError(.notFound) { _ = try await service.run(.hideTrend(post: "nope"), as: net["mod"]) }
        // exec names them too.
        #expect(try ask(service, "trendingTags", ["limit": 1]) == .trendingTags(first))
    }

    @Test func postsTrendByLikesAndCommentsForTheirAgeOnlyWhereTheReaderMaySeeThem() async throws {
        let net = try await Network()
        let service = net.service
        let older = try await net.post("ann", "older, liked by three")
        net.clock.advance(6 * 3_600_000)
        let newer = try await net.post("bob", "newer, liked by two")
        let once = try await net.post("cat", "liked once")
        let closed = try await net.post("cat", "for followers", visibility: .followers)
        let locked = try await net.post("dan", "a private account's")
        for name in ["bob", "cat", "eve"] { try await service.run(.like(post: older.rawValue), as: net[name]) }
        try await service.run(.like(post: newer.rawValue), as: net["ann"])
        _ = try await service.addComment(by: net["eve"], on: newer)
        try await service.run(.like(post: once.rawValue), as: net["ann"])
        // Posts not for everyone never trend, however liked, even for those who may see them.
        try await service.run(.follow(user: net["cat"].rawValue), as: net["ann"])
        for (post, author) in [(closed, "cat"), (locked, "dan")] {
            try await service.run(.like(post: post.rawValue), as: net[author])
            _ = try await service.addComment(by: net[author], on: post)
        }
        try await service.run(.like(post: closed.rawValue), as: net["ann"])
        net.clock.advance(3_600_000)
        // Three interactions 7 hours ago (3 / 9^1.5 = 0.11) rank below two an hour ago (2 / 3^1.5 = 0.38).
        #expect(try service.trendingPosts().items.map(\.id) == [newer, older])
        #expect(try service.trendingPosts(viewer: net["ann"]).items.map(\.id) == [newer, older])
        #expect(try service.trendingPosts(viewer: net["cat"]).items.map(\.id) == [newer, older])
        // What a reader may not see is left out for them: eve blocks ann, and ann's post is gone for both.
        try await service.run(.block(user: net["ann"].rawValue), as: net["eve"])
        #expect(try service.trendingPosts(viewer: net["eve"]).items.map(\.id) == [newer])
        #expect(try service.trendingPosts(viewer: net["ann"]).items.map(\.id) == [newer, older])
        // Mutes hide too.
        try await service.run(.mute(user: net["bob"].rawValue), as: net["cat"])
        #expect(try service.trendingPosts(viewer: net["cat"]).items.map(\.id) == [older])
        // A moderator's hidden post is gone for everyone.
        #expect(try await service.run(.hideTrend(post: newer.rawValue), as: net["mod"]) == .changed(true))
        #expect(try service.trendingPosts(viewer: net["ann"]).items.map(\.id) == [older])
        #expect(
            try ask(service, "trendingPosts", ["limit": 1], viewer: net["ann"])
                == .posts(try service.trendingPosts(PageRequest(limit: 1), viewer: net["ann"])))
        // A week on, nothing trends.
        net.clock.advance(7 * 86_400_000)
        #expect(try service.trendingPosts().items.isEmpty)
    }

    @Test func trendsOverBothAPIs() async throws {
        try await withServer { server in
            let api = server.api
            let ann = try await api.signUp("ann"), bob = try await api.signUp("bob")
            let mod = try await api.signUp("mod")
            let grant = try ToolProcess(["moderation", "--db", server.database, "grant", "@mod"])
            grant.process.waitUntilExit()
            try #require(grant.process.terminationStatus == 0)
            let first = try await api.addPost(ann.token, caption: "#sea at dawn")
            _ = try await api.addPost(bob.token, caption: "#sea at dusk", image: 1)
            for (bearer, post) in [(bob.token, first), (mod.token, first)] {
                #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: bearer).status < 300)
            }
            // /v1: the tag with its days, the post.
            let tags = try await api.get("/v1/trends/tags")
            #expect(tags.items.map { $0["name"] as? String } == ["sea"], "\(tags)")
            #expect((tags.items.first?["history"] as? [[String: Any]])?.first?["uses"] as? Int == 2)
            #expect(try await api.get("/v1/trends/posts", bearer: ann.token).ids == [first])
            // Mastodon: Tag entities with string history, statuses with numeric ids.
            let masto = try await api.get("/api/v1/trends/tags?limit=5")
            let list = try JSONSerialization.jsonObject(with: masto.body) as? [[String: Any]] ?? []
            let history = list.first?["history"] as? [[String: Any]]
            #expect(list.first?["name"] as? String == "sea" && history?.first?["uses"] as? String == "2", "\(masto)")
            #expect(history?.first?["accounts"] as? String == "2" && history?.count == 7)
            let statuses = try await api.get("/api/v1/trends/statuses?offset=0", bearer: bob.token)
            let ids = (try JSONSerialization.jsonObject(with: statuses.body) as? [[String: Any]] ?? []).map {
                $0["id"] as? String
            }
            #expect(ids == [try await server.mastodonID("post", first)], "\(statuses)")
            #expect(try await api.get("/api/v1/trends/tags?offset=1").text == "[]")
            #expect(try await api.get("/api/v1/trends/tags?offset=x").status == 422)
            // Only a moderator hides, and then it is gone from both APIs.
            let refused = try await api.send("POST", "/v1/admin/trends/hide", json: ["tag": "sea"], bearer: ann.token)
            #expect(refused.status == 403, "\(refused)")
            let hidden = try await api.send("POST", "/v1/admin/trends/hide", json: ["post": first], bearer: mod.token)
            #expect(hidden.status == 200 && hidden.json["changed"] as? Bool == true, "\(hidden)")
            let both = try await api.send(
                "POST", "/v1/admin/trends/hide", json: ["post": first, "tag": "sea"], bearer: mod.token)
            #expect(both.status == 400 && both.errorField == "tag", "\(both)")
            #expect(try await api.get("/api/v1/trends/statuses").text == "[]")
            #expect(try await api.get("/v1/trends/posts").ids.isEmpty)
        }
    }

    /// Tests/browser/test_trends.py: the search screen's "Trending now" in headless Chromium
    /// (see that file).
    @Test(.timeLimit(.minutes(3))) func inARealBrowser() async throws {
        try await WebAppTests.browserScript(
            "test_trends.py", passes: "ok - a moderator's hidden tag leaves the trends")
    }
}
