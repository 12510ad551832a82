import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Boosts (Mastodon's reblogs): the decision (a status of its own, boosting again answers the
/// same boost, followers-only and private accounts' posts refused), the fan-out (each post once,
/// the first entry by which it came in; a pulled booster's boost costs one entry), the ways a
/// boost goes (unreblog, its post, a block, erasure, suspension, `reblogs` false), privacy on
/// every read path, and the surfaces: /v1 over HTTP and Mastodon.py.
@Suite struct BoostTests {
    /// The id `reblog` answers.
    static func reblog(
        _ service: TimelineService, _ post: PostID, by user: UserID, visibility: String? = nil
    ) async throws -> PostID {
        let result = try await service.run(.reblog(post: post.rawValue, visibility: visibility), as: user)
        guard case .created(let id) = result else { throw TimelineError(.internal, "reblog answered \(result)") }
        return PostID(id)
    }

    @Test func aBoostIsAStatusOfItsOwnAndBoostingAgainAnswersTheSameOne() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id
        let post = try await service.addPost(by: alice, image: 1).id
        let boost = try await Self.reblog(service, post, by: bob, visibility: "unlisted")
        #expect(boost != post)
        let before = try service.events(from: 1, limit: 1000).count
        #expect(try await Self.reblog(service, post, by: bob) == boost)
        #expect(try service.events(from: 1, limit: 1000).count == before, "boosting again appends nothing")
        let events = try service.events(from: 1, limit: 1000).map(\.event)
        #expect(
            events.contains(
                .postBoosted(
                    Boost(boostId: boost, postId: post, authorId: alice, userId: bob, visibility: .unlisted))))
        // The post counts it, the booster sees it boosted, the boost reads as its post with who boosted it.
        let seen = try service.post(post, viewer: bob).post
        #expect(seen.boostCount == 1 && seen.boostedByViewer == true)
        #expect(try service.post(post, viewer: alice).post.boostedByViewer == false)
        let alone = try service.boost(boost, viewer: alice)
        #expect(alone.id == post && alone.boost?.by == bob && alone.boost?.visibility == .unlisted)
        #expect(try service.boosters(of: post, viewer: alice).items.map(\.id) == [bob])
        // Its own numeric id, in the statuses' space, not the post's.
        #expect(try service.numericID(of: .boost(boost)) != service.numericID(of: .post(post)))
        // Alice is told (Mastodon's reblog); unreblog takes the boost and the notification back.
        #expect(try service.activity(of: alice).items.map(\.kind) == [.boost])
        #expect(try await service.run(.unreblog(post: post.rawValue), as: bob) == .changed(true))
        #expect(try await service.run(.unreblog(post: post.rawValue), as: bob) == .changed(false))
        #expect(try service.activity(of: alice).items.isEmpty)
        #expect(try service.post(post, viewer: bob).post.boostCount == 0)
        await expectError(.notFound) { _ = try service.boost(boost, viewer: alice) }
        await expectError(.invalidArgument) {
            _ = try await service.run(.reblog(post: post.rawValue, visibility: "direct"), as: bob)
        }
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func followersOnlyAndPrivateAccountsPostsCannotBeBoosted() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id
        try await service.run(.follow(user: alice.rawValue), as: bob)
        let friends = try #require(
            try await service.run(.addPost(image: gifBase64(1), caption: nil, visibility: .followers), as: alice).post
        ).id
        await expectError(.forbidden) { _ = try await service.run(.reblog(post: friends.rawValue), as: bob) }
        let open = try await service.addPost(by: alice, image: 2).id
        let boost = try await Self.reblog(service, open, by: bob)
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: alice)
        await expectError(.forbidden) { _ = try await service.run(.reblog(post: open.rawValue), as: alice) }
        // Locked since: the boost stands, but a non-follower of alice sees nothing of it.
        let carol = try await service.createUser("carol").id
        try await service.run(.follow(user: bob.rawValue), as: carol)
        #expect(try service.timeline(of: carol).items.isEmpty)
        await expectError(.notFound) { _ = try service.boost(boost, viewer: carol) }
        await expectError(.notFound) { _ = try service.boosters(of: open, viewer: carol) }
        #expect(try service.timeline(of: bob).items.map(\.entryId).contains(open))
    }

    @Test func aPostComesInOnceAtTheFirstEntryByWhichItCameIn() async throws {
        let service = try openService()
        let names = ["reader", "author", "b1", "b2"]
        var users: [UserID] = []
        for name in names { users.append(try await service.createUser(name).id) }
        let (reader, author, b1, b2) = (users[0], users[1], users[2], users[3])
        for booster in [b1, b2] { try await service.run(.follow(user: booster.rawValue), as: reader) }
        let post = try await service.addPost(by: author, image: 1).id
        let first = try await Self.reblog(service, post, by: b1)
        let second = try await Self.reblog(service, post, by: b2)
        // The first boost brought it in: shown once, as b1's boost.
        var items = try service.timeline(of: reader).items
        #expect(
            items.map(\.entryId) == [first] && items.first?.boost?.by == b1 && items.first?.boost?.byUsername == "b1")
        // b1 takes it back: b2's boost is now the first way it came in.
        try await service.run(.unreblog(post: post.rawValue), as: b1)
        #expect(try service.timeline(of: reader).items.map(\.entryId) == [second])
        // Hiding b2's boosts (follow's reblogs false) hides it; showing them brings it back.
        try await service.run(.follow(user: b2.rawValue, reblogs: false), as: reader)
        #expect(try service.timeline(of: reader).items.isEmpty)
        #expect(try service.showsBoosts(of: b2, to: reader) == false)
        try await service.run(.follow(user: b2.rawValue, reblogs: true), as: reader)
        #expect(try service.timeline(of: reader).items.map(\.entryId) == [second])
        // Following its author: the post itself is earlier, shown as itself, once.
        try await service.run(.follow(user: author.rawValue), as: reader)
        items = try service.timeline(of: reader).items
        #expect(items.map(\.entryId) == [post] && items.first?.boost == nil)
        try await service.run(.unfollow(user: author.rawValue), as: reader)
        // A block between the reader and the author hides every boost of the author's posts.
        try await service.run(.block(user: author.rawValue), as: reader)
        #expect(try service.timeline(of: reader).items.isEmpty)
        try await service.run(.unblock(user: author.rawValue), as: reader)
        #expect(try service.timeline(of: reader).items.map(\.entryId) == [second])
        // A mute of the booster, or its suspension, hides its boost.
        try await service.run(.mute(user: b2.rawValue), as: reader)
        #expect(try service.timeline(of: reader).items.isEmpty)
        try await service.run(.unmute(user: b2.rawValue), as: reader)
        _ = try await service.execute(.suspendUser(user: b2.rawValue), as: .operator)
        #expect(try service.timeline(of: reader).items.isEmpty)
        _ = try await service.execute(.unsuspendUser(user: b2.rawValue), as: .operator)
        // A block between the booster and the author ends the boost (recorded).
        try await service.run(.block(user: b2.rawValue), as: author)
        #expect(try service.timeline(of: reader).items.isEmpty)
        #expect(try service.boosters(of: post, viewer: reader).items.isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func aBoostGoesWithItsPostAndWithItsBoostersErasure() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id,
            carol = try await service.createUser("carol").id
        try await service.run(.follow(user: bob.rawValue), as: carol)
        let gone = try await service.addPost(by: alice, image: 1).id,
            kept = try await service.addPost(by: alice, image: 2).id
        _ = try await Self.reblog(service, gone, by: bob)
        let keptBoost = try await Self.reblog(service, kept, by: bob)
        try await service.run(.deletePost(post: gone.rawValue), as: alice)
        #expect(try service.timeline(of: carol).items.map(\.entryId) == [keptBoost])
        #expect(try service.timeline(of: bob).items.map(\.entryId) == [keptBoost], "the booster's own home shows it")
        try await service.run(.eraseUser(user: bob.rawValue, password: "password-123"), as: bob)
        #expect(try service.timeline(of: carol).items.isEmpty)
        #expect(try service.post(kept, viewer: alice).post.boostCount == 0)
        let events = try service.events(from: 1, limit: 1000).map(\.event)
        #expect(events.contains { if case .boostRemoved(let e) = $0 { e.boostId == keptBoost } else { false } })
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func aBoostByAPulledAuthorCostsWhatAPostByItCosts() async throws {
        let service = try openService { $0.fanoutThreshold = 3 }
        let star = try await service.createUser("star").id, author = try await service.createUser("author").id
        var fans: [UserID] = []
        for index in 0..<5 { fans.append(try await service.createUser("fan\(index)").id) }
        for fan in fans { try await service.run(.follow(user: star.rawValue), as: fan) }
        let post = try await service.addPost(by: author, image: 1).id
        func entries() throws -> Int { try service.projectionStatus().first { $0.name == .timeline }!.entries }
        let before = try entries()
        _ = try await service.addPost(by: star, image: 2)
        let perPost = try entries() - before
        let boost = try await Self.reblog(service, post, by: star)
        #expect(try entries() - before == 2 * perPost, "a boost writes what a post writes: the booster's own entry")
        for fan in fans { #expect(try service.timeline(of: fan).items.map(\.entryId).contains(boost)) }
        try await service.run(.unfollow(user: star.rawValue), as: fans[0])
        #expect(try !service.timeline(of: fans[0]).items.map(\.entryId).contains(boost))
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func aBoostShowsLiveAndTellsAndPushesItsPostsAuthor() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id,
            carol = try await service.createUser("carol").id, dave = try await service.createUser("dave").id
        for follower in [carol, dave] { try await service.run(.follow(user: bob.rawValue), as: follower) }
        try await service.run(.block(user: dave.rawValue), as: alice)
        let post = try await service.addPost(by: alice, image: 1).id
        let boost = try await Self.reblog(service, post, by: bob)
        let envelope = try #require(try service.events(from: 1, limit: 1000).last)
        // Carol's open home stream gets the boost; dave, whom alice blocks, nothing of it.
        let live = try service.liveUpdates(for: envelope, viewer: carol)
        #expect(live.contains { if case .post(let p) = $0 { p.id == post && p.boost?.id == boost } else { false } })
        #expect(try service.liveUpdates(for: envelope, viewer: dave).isEmpty)
        // Alice is told, live and by push (Mastodon's reblog alert).
        #expect(try service.usersNotified(by: envelope).contains(alice))
        let told = try service.activityItems(madeBy: envelope, for: alice)
        #expect(told.map(\.kind) == [.boost] && told.first?.kind.mastodonType == "reblog")
        #expect(
            try service.liveUpdates(for: envelope, viewer: alice).contains {
                if case .activity(let item) = $0 { item.kind == .boost } else { false }
            })
    }

    @Test func execBoostsAndShowsTheBoostOnTimelineItems() async throws {
        let service = try openService()
        let session = ExecSession(service: service)
        func send(_ request: [String: Any]) async throws -> [String: Any] {
            let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            let answer = try JSONSerialization.jsonObject(with: Data(await session.handle(line: line).utf8))
            return try #require(answer as? [String: Any])
        }
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id,
            carol = try await service.createUser("carol").id
        try await service.run(.follow(user: bob.rawValue), as: carol)
        let post = try await service.addPost(by: alice, image: 1).id
        let made = try await send(["command": "reblog", "as": bob.rawValue, "post": post.rawValue])
        let boost = try #require((made["result"] as? [String: Any])?["id"] as? String, "\(made)")
        let home = try await send(["query": "timeline", "user": carol.rawValue])
        let item = try #require(((home["result"] as? [String: Any])?["items"] as? [[String: Any]])?.first, "\(home)")
        let by = try #require(item["boost"] as? [String: Any], "\(item)")
        #expect(item["id"] as? String == post.rawValue && by["id"] as? String == boost)
        #expect(by["by"] as? String == bob.rawValue && by["byUsername"] as? String == "bob")
        let boosters = try await send(["query": "boosts", "post": post.rawValue])
        let ids = ((boosters["result"] as? [String: Any])?["items"] as? [[String: Any]])?.map { $0["id"] as? String }
        #expect(ids == [bob.rawValue], "\(boosters)")
        let undone = try await send(["command": "unreblog", "as": bob.rawValue, "post": post.rawValue])
        #expect((undone["result"] as? [String: Any])?["changed"] as? Bool == true, "\(undone)")
    }

    /// Over HTTP: /v1's boost routes and the home page's `boost`; Mastodon's through Mastodon.py
    /// (Tests/mastodon/test_boosts.py): the boost a status of its own, reblogged_by, the home
    /// timeline's boost, the notification, and a blocked user who sees nothing of it.
    @Test(.timeLimit(.minutes(3))) func boostsThroughV1AndMastodonPy() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol"), dave = try await api.signUp("dave")
            let post = try await api.addPost(alice.token, caption: "a view", image: 0x31)
            let boosted = try await api.send(
                "PUT", "/v1/posts/\(post)/boost", json: ["visibility": "public"], bearer: bob.token)
            #expect(boosted.status == 200, "\(boosted)")
            let boost = try #require(boosted.json["id"] as? String)
            let again = try await api.send("PUT", "/v1/posts/\(post)/boost", bearer: bob.token)
            #expect(again.json["id"] as? String == boost, "\(again)")
            #expect(try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: carol.token).status == 200)
            let home = try await api.get("/v1/timeline", bearer: carol.token)
            let item = try #require(home.items.first, "\(home)")
            #expect(item["id"] as? String == post)
            let by = try #require(item["boost"] as? [String: Any])
            #expect(by["id"] as? String == boost && by["byUsername"] as? String == "bob")
            #expect(item["boostCount"] as? Int == 1)
            #expect(try await api.get("/v1/posts/\(post)/boosts", bearer: carol.token).ids == [bob.id])
            // Dave, blocked by alice, sees nothing of it.
            #expect(try await api.send("PUT", "/v1/me/blocks/\(dave.id)", bearer: alice.token).status == 200)
            #expect(try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: dave.token).status == 200)
            #expect(try await api.get("/v1/timeline", bearer: dave.token).items.isEmpty)
            #expect(try await api.get("/v1/posts/\(post)/boosts", bearer: dave.token).status == 404)
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_boosts.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token, carol.token, dave.token,
                    try await server.mastodonID("post", post), try await server.mastodonID("boost", boost)
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - boosts"), "\(text)")
            // Mastodon.py took the boost back: nothing left to take back, nothing in carol's home.
            let unboosted = try await api.send("DELETE", "/v1/posts/\(post)/boost", bearer: bob.token)
            #expect(unboosted.json["changed"] as? Bool == false, "\(unboosted)")
            #expect(try await api.get("/v1/timeline", bearer: carol.token).items.isEmpty)
        }
    }
}
