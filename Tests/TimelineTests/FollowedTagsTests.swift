import Foundation
import Vips
import Testing
@testable import Timeline
@testable import TimelineHTTP
import TimelineDomain

extension InMemoryState {
    func followsTag(_ user: UserID, _ tag: String) -> Bool { followedTagEdges.contains([user.rawValue, tag]) }
    func followedTagCount(_ user: UserID) -> Int { followedTagEdges.filter { $0[0] == user.rawValue }.count }
}

/// Followed hashtags (#41): following is idempotent and normalised; a followed tag's public
/// posts come into the home timeline, each once (by a follow, a tag or a boost, whichever came
/// first), never one the reader may not see; rebuilt equal; over /v1.
@Suite struct FollowedTagsTests {
    private func ids(_ page: Page<Post>) -> [String] {
        page.items.map { $0.boost.map { "boost:" + $0.id.rawValue } ?? $0.id.rawValue }
    }

    @Test func followingATagIsIdempotentNormalisedAndUnfollowingNoneAppendsNothing() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id
        #expect(try await service.run(.followTag(tag: "#Cats"), as: alice) == .changed(true))
        #expect(try await service.run(.followTag(tag: "cats"), as: alice) == .changed(false))
        #expect(try service.followsTag(alice, "CATS") && !service.followsTag(alice, "dogs"))
        #expect(try await service.run(.followTag(tag: "dogs"), as: alice) == .changed(true))
        #expect(try service.followedTags(of: alice).items == ["dogs", "cats"])
        let before = try service.appliedSequence()
        #expect(try await service.run(.unfollowTag(tag: "birds"), as: alice) == .changed(false))
        #expect(try service.appliedSequence() == before)
        await expectError(.invalidArgument, field: "tag") {
            _ = try await service.run(.followTag(tag: "two words"), as: alice)
        }
        #expect(try await service.run(.unfollowTag(tag: "#DOGS"), as: alice) == .changed(true))
        #expect(try service.followedTags(of: alice).items == ["cats"])
        // Paged, the latest followed first.
        #expect(try await service.run(.followTag(tag: "birds"), as: alice) == .changed(true))
        let first = try service.followedTags(of: alice, PageRequest(limit: 1))
        #expect(first.items == ["birds"])
        #expect(try service.followedTags(of: alice, PageRequest(limit: 1, before: first.next)).items == ["cats"])
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func aFollowedTagsPublicPostsComeHomeOnceAndNeverAHiddenOne() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id
        let bob = try await service.createUser("bob").id, carol = try await service.createUser("carol").id
        let dave = try await service.createUser("dave").id, erin = try await service.createUser("erin").id
        let mallory = try await service.createUser("mallory").id, oscar = try await service.createUser("oscar").id
        try await service.run(.follow(user: carol.rawValue), as: alice)
        try await service.run(.followTag(tag: "cats"), as: alice)
        try await service.run(.followTag(tag: "dogs"), as: alice)
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: dave)
        try await service.run(.block(user: mallory.rawValue), as: alice)
        try await service.run(.mute(user: oscar.rawValue), as: alice)
        let stranger = try await service.addPost(by: bob, caption: "#cats and #dogs")
        let followee = try await service.addPost(by: carol, caption: "#cats too")
        let untagged = try await service.addPost(by: bob, caption: "nothing")
        let locked = try await service.addPost(by: dave, caption: "#cats locked")
        let followersOnly = try await service.run(
            .addPost(image: gifBase64(1), caption: "#cats private", visibility: .followers), as: erin)
        let blocked = try await service.addPost(by: mallory, caption: "#cats blocked")
        let muted = try await service.addPost(by: oscar, caption: "#dogs muted")
        // Carol boosts bob's tagged post: it came in by its tag first, so the boost does not show again.
        _ = try await BoostTests.reblog(service, stranger.id, by: carol)
        let own = try await service.addPost(by: alice, caption: "#cats mine")
        #expect(ids(try service.timeline(of: alice)) == [own, followee, stranger].map(\.id.rawValue))
        _ = (untagged, locked, followersOnly, blocked, muted)
        // A post that came by a tag carries the reader's own marks.
        try await service.run(.like(post: stranger.id.rawValue), as: alice)
        try await service.run(.bookmark(post: stranger.id.rawValue), as: alice)
        let marked = try #require(try service.timeline(of: alice).items.first { $0.id == stranger.id })
        #expect(marked.likedByViewer == true && marked.bookmarkedByViewer == true)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        // Paging passes the tag's posts as any other: one at a time, each once.
        var paged: [String] = [], before: String?
        repeat {
            let page = try service.timeline(of: alice, PageRequest(limit: 1, before: before))
            paged += ids(page)
            before = page.next
        } while before != nil
        #expect(paged == [own, followee, stranger].map(\.id.rawValue))
        // Unfollowing the tags: bob's post leaves; carol's stays by the follow, and the boost now shows.
        try await service.run(.unfollowTag(tag: "cats"), as: alice)
        try await service.run(.unfollowTag(tag: "dogs"), as: alice)
        let home = ids(try service.timeline(of: alice))
        #expect(home.count == 3 && home[0] == own.id.rawValue && home[1].hasPrefix("boost:"), "\(home)")
        #expect(home[2] == followee.id.rawValue)
    }

    /// A follow of a tag writes its `tagBackfill` newest posts into the timeline and leaves the
    /// older ones to its list; later posts are pushed; a deleted post and an unfollow take the
    /// entries out again (the page alone would not tell: it skips a gone post's entry).
    @Test func aFollowedTagsPostsAreWrittenIntoTheTimelineAndTakenOut() async throws {
        let service = try openService { $0.tagBackfill = 2 }
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id
        func entries() throws -> Int { try service.projectionStatus().first { $0.name == .timeline }!.entries }
        var older: [PostID] = []
        for index in 0..<4 { older.append(try await service.addPost(by: bob, caption: "#cats \(index)").id) }
        let before = try entries()
        try await service.run(.followTag(tag: "cats"), as: alice)
        #expect(try entries() == before + 3, "the two newest are written, and the follow's boundary")
        #expect(try service.timeline(of: alice).items.map(\.id) == older.reversed(), "the two older are merged")
        let newer = try await service.addPost(by: bob, caption: "#cats new").id
        #expect(try entries() == before + 5, "the author's own entry and the follower's")
        #expect(try service.timeline(of: alice).items.map(\.id) == [newer] + older.reversed())
        try await service.run(.deletePost(post: newer.rawValue), as: bob)
        #expect(try entries() == before + 3)
        try await service.run(.unfollowTag(tag: "cats"), as: alice)
        #expect(try entries() == before)
        #expect(try service.timeline(of: alice).items.isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    // MARK: - Over HTTP

    @Test func followedTagsOverV1() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let followed = try await api.send("PUT", "/v1/me/followed-tags/Harbour", bearer: alice.token)
            #expect(followed.status == 200 && followed.json["changed"] as? Bool == true, "\(followed)")
            let again = try await api.send("PUT", "/v1/me/followed-tags/harbour", bearer: alice.token)
            #expect(again.json["changed"] as? Bool == false, "\(again)")
            #expect(
                try await api.get("/v1/me/followed-tags/harbour", bearer: alice.token).json["follows"] as? Bool == true)
            #expect(
                try await api.get("/v1/me/followed-tags/sea", bearer: alice.token).json["follows"] as? Bool == false)
            let list = try await api.get("/v1/me/followed-tags", bearer: alice.token)
            #expect((list.json["items"] as? [[String: Any]])?.map { $0["name"] as? String } == ["harbour"], "\(list)")
            let post = try await api.addPost(bob.token, caption: "#harbour at dawn", image: 1)
            let home = try await api.get("/v1/timeline", bearer: alice.token)
            #expect((home.json["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [post], "\(home)")
            #expect(
                try await api.get("/v1/me/followed-tags/harbour", bearer: bob.token).json["follows"] as? Bool == false)
            let gone = try await api.send("DELETE", "/v1/me/followed-tags/harbour", bearer: alice.token)
            #expect(gone.json["changed"] as? Bool == true, "\(gone)")
            let after = try await api.get("/v1/timeline", bearer: alice.token)
            #expect((after.json["items"] as? [[String: Any]])?.isEmpty == true, "\(after)")
            #expect(try await api.get("/v1/me/followed-tags").status == 401)
        }
    }
}

/// Followed hashtags and the hashtag stream through Mastodon.py against a real `timeline serve`
/// (Tests/mastodon/test_followed_tags.py): privacy on the stream and in the home timeline.
@Suite struct MastodonFollowedTagsTests {
    @Test(.timeLimit(.minutes(3))) func mastodonPyFollowedTagsFlow() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol"), dave = try await api.signUp("dave")
            let path = PhotoTests.directory() + "/tag.png"
            try Data(try AvatarTests.image(64, shade: 40)).write(to: URL(fileURLWithPath: path))
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_followed_tags.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token, carol.token, dave.token, path
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - followed hashtags through Mastodon.py"), "\(text)")
        }
    }
}

/// Tests/browser/test_followed_tags.py: Follow and Unfollow on a tag's page, the followed tags
/// listed, Home showing the tag's public post, in headless Chromium (see that file).
@Suite struct FollowedTagsWebAppTests {
    @Test(.timeLimit(.minutes(3))) func inARealBrowser() async throws {
        try await WebAppTests.browserScript(
            "test_followed_tags.py", passes: "ok - Unfollow takes the tag's post out of Home")
    }
}
