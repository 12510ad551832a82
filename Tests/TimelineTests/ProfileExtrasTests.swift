import Foundation
import Testing
@testable import Timeline
import TimelineDomain

extension InMemoryState {
    func pinned(_ user: UserID, _ post: PostID) -> Bool { pinEdges.contains([user.rawValue, post.rawValue]) }
    func pinCount(_ user: UserID) -> Int { pinEdges.filter { $0[0] == user.rawValue }.count }
    func mutesConversation(_ user: UserID, _ post: PostID) -> Bool {
        conversationMuteEdges.contains([user.rawValue, post.rawValue])
    }
    func accountNote(_ writer: UserID, _ target: UserID) -> String? { accountNotes[[writer, target]] }
    func endorses(_ user: UserID, _ target: UserID) -> Bool { endorsementEdges.contains([user, target]) }
    func annualReportRead(_ user: UserID, _ year: Int) -> Bool? { annualReportMarks[[user.rawValue, String(year)]] }
    func dismissedSuggestion(_ user: UserID, _ target: UserID) -> Bool {
        dismissedSuggestionEdges.contains([user, target])
    }
    func featuresTag(_ user: UserID, _ tag: String) -> Bool { featuredTagEdges.contains([user.rawValue, tag]) }
    func featuredTagCount(_ user: UserID) -> Int { featuredTagEdges.filter { $0[0] == user.rawValue }.count }
}

/// Pinned posts, muted conversations, private notes, endorsements, removing a follower and
/// familiar followers (#41): through the library, rebuilt equal, and over /v1.
@Suite struct ProfileExtrasTests {
    @Test func pinsAreOwnAtMostFiveFirstAndLeaveWithTheirPost() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        var posts: [Post] = []
        for index in 0..<6 { posts.append(try await service.addPost(by: alice.id, image: index)) }
        for post in posts.prefix(5) {
            #expect(try await service.run(.pin(post: post.id.rawValue), as: alice.id) == .changed(true))
        }
        #expect(try await service.run(.pin(post: posts[0].id.rawValue), as: alice.id) == .changed(false))
        // A sixth is refused (Mastodon's 422), and so is someone else's post.
        await expectError(.invalidArgument, field: "post") {
            _ = try await service.run(.pin(post: posts[5].id.rawValue), as: alice.id)
        }
        await expectError(.invalidArgument, field: "post") {
            _ = try await service.run(.pin(post: posts[5].id.rawValue), as: bob.id)
        }
        // The latest pinned first, to anyone who may see them.
        let pinned = posts.prefix(5).reversed().map(\.id)
        #expect(try service.pinnedPosts(of: alice.id).map(\.id) == Array(pinned))
        #expect(try service.pinnedPosts(of: alice.id, viewer: bob.id).map(\.id) == Array(pinned))
        #expect(
            try ask(service, "pinnedPosts", ["user": .string(alice.id.rawValue)])
                == .posts(
                    Page(items: try service.pinnedPosts(of: alice.id), next: nil)))
        // A deleted post leaves the pins, and makes room for another.
        try await service.run(.deletePost(post: posts[4].id.rawValue), as: alice.id)
        #expect(try service.pinnedPosts(of: alice.id).count == 4)
        #expect(try await service.run(.pin(post: posts[5].id.rawValue), as: alice.id) == .changed(true))
        #expect(try await service.run(.unpin(post: posts[0].id.rawValue), as: alice.id) == .changed(true))
        #expect(try service.pinnedPosts(of: alice.id).map(\.id) == [posts[5].id, posts[3].id, posts[2].id, posts[1].id])
        // A block either way hides them.
        try await service.run(.block(user: bob.id.rawValue), as: alice.id)
        #expect(try service.pinnedPosts(of: alice.id, viewer: bob.id).isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func aFollowersOnlyPinShowsOnlyToFollowers() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        let post = try #require(
            try await service.run(
                .addPost(image: gifBase64(1), caption: "friends", visibility: .followers), as: alice.id
            )
            .post)
        try await service.run(.pin(post: post.id.rawValue), as: alice.id)
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        #expect(try service.pinnedPosts(of: alice.id, viewer: bob.id).map(\.id) == [post.id])
        #expect(try service.pinnedPosts(of: alice.id, viewer: carol.id).isEmpty)
        #expect(try service.pinnedPosts(of: alice.id).isEmpty)
    }

    @Test func aMutedConversationNotifiesNothing() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let muted = try await service.addPost(by: alice.id, image: 1),
            open = try await service.addPost(by: alice.id, image: 2)
        #expect(try await service.run(.muteConversation(post: muted.id.rawValue), as: alice.id) == .changed(true))
        #expect(try await service.run(.muteConversation(post: muted.id.rawValue), as: alice.id) == .changed(false))
        _ = try await service.addComment(by: bob.id, on: muted.id, "hello @alice")
        try await service.run(.like(post: muted.id.rawValue), as: bob.id)
        _ = try await service.addComment(by: bob.id, on: open.id)
        #expect(try service.activity(of: alice.id).items.map(\.post) == [open.id])
        #expect(try await service.run(.unmuteConversation(post: muted.id.rawValue), as: alice.id) == .changed(true))
        _ = try await service.addComment(by: bob.id, on: muted.id)
        #expect(try service.activity(of: alice.id).items.map(\.post) == [muted.id, open.id])
        #expect(try service.mutesConversation(alice.id, muted.id) == false)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func aNoteIsSeenOnlyByItsWriterAndGoesWithTheirErasure() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        #expect(
            try await service.run(.setAccountNote(user: bob.id.rawValue, note: "met at the lake"), as: alice.id)
                == .changed(true))
        #expect(
            try await service.run(.setAccountNote(user: bob.id.rawValue, note: "met at the lake"), as: alice.id)
                == .changed(false))
        #expect(try service.user(bob.id, viewer: alice.id).noteByViewer == "met at the lake")
        #expect(try service.user(bob.id, viewer: carol.id).noteByViewer == "")
        #expect(try service.user(bob.id, viewer: bob.id).noteByViewer == "")
        #expect(try service.user(bob.id).noteByViewer == nil)
        await expectError(.invalidArgument, field: "note") {
            _ = try await service.run(
                .setAccountNote(user: bob.id.rawValue, note: String(repeating: "x", count: 2001)), as: alice.id)
        }
        // Sealed with its writer's key: erasing the writer takes it from the log's reading too.
        try await service.run(.eraseUser(user: alice.id.rawValue, password: "password-123"), as: alice.id)
        let notes = try service.events(from: 1, limit: 1000).compactMap { envelope -> AccountNote? in
            if case .accountNoteSet(let note) = envelope.event { note } else { nil }
        }
        #expect(notes.count == 1 && notes[0].note == "")
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func endorsementsNeedAFollowEndWithItAndHideAcrossBlocks() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol"), dave = try await service.createUser("dave")
        await expectError(.invalidArgument, field: "user") {
            _ = try await service.run(.endorse(user: bob.id.rawValue), as: alice.id)
        }
        for user in [bob, carol] { try await service.run(.follow(user: user.id.rawValue), as: alice.id) }
        #expect(try await service.run(.endorse(user: bob.id.rawValue), as: alice.id) == .changed(true))
        #expect(try await service.run(.endorse(user: carol.id.rawValue), as: alice.id) == .changed(true))
        #expect(try service.endorsements(of: alice.id, viewer: dave.id).map(\.id) == [carol.id, bob.id])
        #expect(try service.user(bob.id, viewer: alice.id).endorsedByViewer == true)
        // Unfollowing ends it; a block hides the list from the blocked.
        try await service.run(.unfollow(user: carol.id.rawValue), as: alice.id)
        #expect(try service.endorsements(of: alice.id).map(\.id) == [bob.id])
        try await service.run(.block(user: dave.id.rawValue), as: alice.id)
        #expect(try service.endorsements(of: alice.id, viewer: dave.id).isEmpty)
        // An endorsed account that blocks the viewer is left out for them.
        try await service.run(.block(user: carol.id.rawValue), as: bob.id)
        #expect(try service.endorsements(of: alice.id, viewer: carol.id).isEmpty)
        #expect(try await service.run(.unendorse(user: bob.id.rawValue), as: alice.id) == .changed(true))
        #expect(try service.endorsements(of: alice.id).isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func removingAFollowerIsTheirUnfollow() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let post = try await service.addPost(by: alice.id)
        #expect(try service.timeline(of: bob.id).items.map(\.id) == [post.id])
        #expect(try await service.run(.removeFromFollowers(user: bob.id.rawValue), as: alice.id) == .changed(true))
        #expect(try await service.run(.removeFromFollowers(user: bob.id.rawValue), as: alice.id) == .changed(false))
        #expect(try service.follows(bob.id, alice.id) == false)
        #expect(try service.timeline(of: bob.id).items.isEmpty)
        #expect(try service.user(alice.id).followerCount == 0)
        let last = try #require(try service.events(from: 1, limit: 1000).last)
        #expect(last.event == .unfollowed(Follow(followerId: bob.id, followeeId: alice.id)))
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func familiarFollowersAreWhomYouFollowWhoFollowThem() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol"), dave = try await service.createUser("dave")
        for user in [bob, carol] { try await service.run(.follow(user: user.id.rawValue), as: alice.id) }
        for user in [bob, carol, alice] { try await service.run(.follow(user: dave.id.rawValue), as: user.id) }
        #expect(Set(try service.familiarFollowers(of: dave.id, viewer: alice.id).map(\.id)) == [bob.id, carol.id])
        // One who blocks the viewer is out of their sight.
        try await service.run(.block(user: alice.id.rawValue), as: carol.id)
        #expect(try service.familiarFollowers(of: dave.id, viewer: alice.id).map(\.id) == [bob.id])
        await expectError(.unauthenticated) {
            _ = try ask(service, "familiarFollowers", ["user": .string(dave.id.rawValue)])
        }
    }

    @Test func featuredTagsCountTheOwnersVisiblePosts() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        _ = try await service.addPost(by: alice.id, caption: "#cats one", image: 1)
        let later = try await service.addPost(by: alice.id, caption: "#Cats #dogs two", image: 2)
        _ = try await service.addPost(by: bob.id, caption: "#cats not hers", image: 3)
        #expect(try service.featuredTagSuggestions(for: alice.id) == ["cats", "dogs"])
        #expect(try await service.run(.featureTag(tag: "#CATS"), as: alice.id) == .changed(true))
        #expect(try await service.run(.featureTag(tag: "cats"), as: alice.id) == .changed(false))
        await expectError(.invalidArgument, field: "tag") {
            _ = try await service.run(.featureTag(tag: "two words"), as: alice.id)
        }
        let featured = try service.featuredTags(of: alice.id, viewer: bob.id)
        #expect(featured == [FeaturedTagSummary(tag: "cats", postCount: 2, lastPostAt: later.createdAt)])
        #expect(try service.featuredTagSuggestions(for: alice.id) == ["dogs"])
        for index in 0..<9 { try await service.run(.featureTag(tag: "tag\(index)"), as: alice.id) }
        await expectError(.invalidArgument, field: "tag") {
            _ = try await service.run(.featureTag(tag: "eleven"), as: alice.id)
        }
        #expect(try await service.run(.unfeatureTag(tag: "tag0"), as: alice.id) == .changed(true))
        #expect(try service.featuredTags(of: alice.id).count == 9)
        // A block either way hides them.
        try await service.run(.block(user: alice.id.rawValue), as: bob.id)
        #expect(try service.featuredTags(of: alice.id, viewer: bob.id).isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func overV1() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let post = try await api.addPost(alice.token, caption: "pin me")
            #expect(
                try await api.send("PUT", "/v1/posts/\(post)/pin", bearer: alice.token).json["changed"] as? Bool == true
            )
            #expect(try await api.send("PUT", "/v1/posts/\(post)/pin", bearer: bob.token).status == 400)
            #expect(try await api.get("/v1/users/\(alice.id)/pins").ids == [post])
            #expect(try await api.send("PUT", "/v1/posts/\(post)/mute", bearer: alice.token).status == 200)
            let note = try await api.send(
                "PUT", "/v1/me/notes/\(bob.id)", json: ["note": "neighbour"], bearer: alice.token)
            #expect(note.json["changed"] as? Bool == true, "\(note)")
            #expect(
                try await api.get("/v1/users/\(bob.id)", bearer: alice.token).json["noteByViewer"] as? String
                    == "neighbour")
            #expect(try await api.get("/v1/users/\(bob.id)", bearer: bob.token).json["noteByViewer"] as? String == "")
            #expect(try await api.send("PUT", "/v1/me/endorsements/\(bob.id)", bearer: alice.token).status == 400)
            #expect(try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: alice.token).status == 200)
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
            #expect(try await api.send("PUT", "/v1/me/endorsements/\(bob.id)", bearer: alice.token).status == 200)
            #expect(try await api.get("/v1/users/\(alice.id)/endorsements").ids == [bob.id])
            #expect(try await api.get("/v1/users/\(bob.id)/familiar-followers", bearer: alice.token).ids == [])
            #expect(try await api.get("/v1/users/\(bob.id)/familiar-followers").status == 401)
            #expect(
                try await api.send("PUT", "/v1/me/featured-tags/Sea", bearer: alice.token).json["changed"] as? Bool
                    == true)
            let tags = try await api.get("/v1/users/\(alice.id)/featured-tags")
            #expect(tags.items.compactMap { $0["name"] as? String } == ["sea"], "\(tags)")
            let removed = try await api.send("DELETE", "/v1/me/followers/\(bob.id)", bearer: alice.token)
            #expect(removed.json["changed"] as? Bool == true, "\(removed)")
            #expect(try await api.get("/v1/users/\(alice.id)/followers").ids == [])
            // Blocked: the pins and endorsements of the blocker are out of sight.
            #expect(try await api.send("PUT", "/v1/me/blocks/\(bob.id)", bearer: alice.token).status == 200)
            #expect(try await api.get("/v1/users/\(alice.id)/pins", bearer: bob.token).ids == [])
            #expect(try await api.get("/v1/users/\(alice.id)/endorsements", bearer: bob.token).ids == [])
            #expect(try await api.get("/v1/users/\(alice.id)/featured-tags", bearer: bob.token).items.isEmpty)
        }
    }

    /// Through Mastodon.py (Tests/mastodon/test_profile_extras.py) against a real server.
    @Test(.timeLimit(.minutes(3))) func throughMastodonPy() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            var posts: [String] = []
            for index in 0..<6 {
                posts.append(try await api.addPost(alice.token, caption: "post \(index) #extra", image: index))
            }
            for (follower, followee) in [(bob, alice), (carol, alice), (alice, bob), (carol, bob)] {
                #expect(
                    try await api.send("PUT", "/v1/me/following/\(followee.id)", bearer: follower.token).status == 200)
            }
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_profile_extras.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token, carol.token,
                    try await server.mastodonIDs("post", posts).joined(separator: ",")
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - every profile extra"), "\(text)")
        }
    }
}
