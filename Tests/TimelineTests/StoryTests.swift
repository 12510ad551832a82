import Foundation
import Testing
import TimelineDomain

@testable import Timeline

/// Stories through the library, on a clock the test moves: the row and its order, views and who
/// saw, replies as direct messages, highlights, deletion, expiry at read time and the sweep that
/// lets expired photos go, and privacy (a locked account, blocks, mutes) on every read.
@Suite struct StoryTests {
    static let hour: Int64 = 3_600_000

    /// alice, bob and carol; bob and carol follow alice; carol follows bob.
    static func network() async throws -> (TimelineService, TestClock, alice: UserID, bob: UserID, carol: UserID) {
        let clock = TestClock(1_767_225_600_000)
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id
        let carol = try await service.createUser("carol").id
        try await service.run(.follow(user: alice.rawValue), as: bob)
        try await service.run(.follow(user: alice.rawValue), as: carol)
        try await service.run(.follow(user: bob.rawValue), as: carol)
        return (service, clock, alice, bob, carol)
    }

    /// Posts a story of `user`'s: a photo of shade `image` (different shades are different images;
    /// the same one posted twice is one image, held by both stories).
    static func post(_ service: TimelineService, by user: UserID, image: Int = 0) async throws -> Story {
        let photo = Data(try AvatarTests.image(64, shade: 20 + image * 30)).base64EncodedString()
        guard case .story(let story) = try await service.run(.postStory(media: photo), as: user) else {
            throw TimelineError(.internal, "no story")
        }
        return story
    }

    static func row(_ service: TimelineService, for user: UserID) throws -> [String: [StoryID]] {
        Dictionary(
            uniqueKeysWithValues: try service.stories(for: user).map { ($0.user.username, $0.stories.map(\.id)) })
    }

    @Test func theRowShowsLiveStoriesUnseenFirstAndTheyExpireAtReadTime() async throws {
        let (service, clock, alice, bob, carol) = try await Self.network()
        let first = try await Self.post(service, by: alice, image: 1)
        clock.advance(Self.hour)
        let bobs = try await Self.post(service, by: bob, image: 2)
        clock.advance(Self.hour)
        let second = try await Self.post(service, by: alice, image: 3)
        #expect(first.expiresAt == first.postedAt + 24 * Self.hour)

        // carol follows both: alice's newest unseen story is the newest, so alice comes first;
        // her stories play oldest first.
        var row = try service.stories(for: carol)
        #expect(row.map(\.user.username) == ["alice", "bob"])
        #expect(row[0].stories.map(\.id) == [first.id, second.id] && row[0].hasUnseen)
        // Once carol saw alice's, bob (unseen) comes first.
        #expect(try await service.run(.viewStory(story: first.id.rawValue), as: carol) == .changed(true))
        #expect(try await service.run(.viewStory(story: first.id.rawValue), as: carol) == .changed(false))
        _ = try await service.run(.viewStory(story: second.id.rawValue), as: carol)
        row = try service.stories(for: carol)
        #expect(row.map(\.user.username) == ["bob", "alice"])
        #expect(row[1].stories.allSatisfy(\.seen) && !row[1].hasUnseen)
        // One's own stories come first, with how many saw each.
        let own = try service.stories(for: alice)
        #expect(own.first?.user.username == "alice" && own.first?.stories.first?.viewCount == 1)
        #expect(try service.storyViewers(of: first.id, by: alice).items.map(\.username) == ["carol"])
        await #expect(throws: TimelineError.self) { try service.storyViewers(of: first.id, by: bob) }

        // A day after the first, it is gone from every read; nothing was written for it.
        let before = try service.lastSequence()
        clock.advance(22 * Self.hour + 1)
        #expect(try Self.row(service, for: carol) == ["alice": [second.id], "bob": [bobs.id]])
        #expect(throws: TimelineError.self) { try service.story(first.id, viewer: carol) }
        #expect(throws: TimelineError.self) { try service.image(first.variants.full, viewer: carol) }
        #expect(try service.lastSequence() == before)
        await #expect(throws: TimelineError.self) {
            try await service.run(.viewStory(story: first.id.rawValue), as: bob)
        }
    }

    @Test func theSweepLetsExpiredPhotosGoButNotAHighlights() async throws {
        let (service, clock, alice, bob, _) = try await Self.network()
        let kept = try await Self.post(service, by: alice, image: 1)
        let gone = try await Self.post(service, by: alice, image: 2)
        #expect(try await service.run(.highlightStory(story: kept.id.rawValue), as: alice) == .changed(true))
        #expect(try service.nextStoryExpiry() == gone.expiresAt)
        // Not due yet: the sweep does nothing, and the operator cannot expire it.
        try await service.expireDueStories()
        await #expect(throws: TimelineError.self) {
            try await service.execute(.expireStory(story: gone.id.rawValue), as: .operator)
        }
        clock.advance(24 * Self.hour)
        try await service.expireDueStories()
        #expect(try service.nextStoryExpiry() == nil)
        #expect(try service.read { view in try view.story(gone.id) } == nil)
        #expect(try service.read { view in try view.models.images.get(gone.variants.full, view.txn) } == nil)
        // The highlight stays on the profile, its photo served.
        #expect(try service.highlights(of: alice, viewer: bob).map(\.id) == [kept.id])
        #expect(try service.story(kept.id, viewer: bob).highlighted)
        _ = try service.image(kept.variants.full, viewer: bob)
        #expect(try service.stories(for: bob).isEmpty)
        // Taken off the highlights, past its day, the sweep lets it go too.
        _ = try await service.run(.unhighlightStory(story: kept.id.rawValue), as: alice)
        try await service.expireDueStories()
        #expect(try service.highlights(of: alice, viewer: bob).isEmpty)
        #expect(try service.read { view in try view.models.images.get(kept.variants.full, view.txn) } == nil)
    }

    @Test func onePhotoInTwoStoriesStaysWhileEitherShows() async throws {
        let (service, clock, alice, bob, _) = try await Self.network()
        let older = try await Self.post(service, by: alice, image: 4)
        clock.advance(Self.hour)
        let newer = try await Self.post(service, by: alice, image: 4)
        #expect(older.variants == newer.variants)
        clock.advance(23 * Self.hour + 1)
        try await service.expireDueStories()
        #expect(try service.read { view in try view.story(older.id) } == nil)
        _ = try service.image(newer.variants.full, viewer: bob)
        clock.advance(Self.hour)
        #expect(throws: TimelineError.self) { try service.image(newer.variants.full, viewer: bob) }
        try await service.expireDueStories()
        #expect(try service.read { view in try view.models.images.get(newer.variants.full, view.txn) } == nil)
    }

    @Test func aReplyIsADirectMessageToTheAuthor() async throws {
        let (service, _, alice, bob, carol) = try await Self.network()
        let story = try await Self.post(service, by: alice)
        guard
            case .post(let message) = try await service.run(
                .replyToStory(story: story.id.rawValue, text: "lovely light"), as: bob)
        else { throw TimelineError(.internal, "no message") }
        #expect(message.visibility == .direct && message.caption == "@alice lovely light")
        #expect(try service.conversations(of: alice).items.count == 1)
        #expect(try service.conversations(of: carol).items.isEmpty)
        await #expect(throws: TimelineError.self) {
            try await service.run(.replyToStory(story: story.id.rawValue, text: "me"), as: alice)
        }
    }

    @Test func aLockedAccountsBlocksAndMutesHideStories() async throws {
        let (service, _, alice, bob, carol) = try await Self.network()
        let dave = try await service.createUser("dave").id
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: alice)
        let story = try await Self.post(service, by: alice)
        // A stranger to a locked account: not its story, nor its photo, nor acting on it.
        #expect(throws: TimelineError.self) { try service.story(story.id, viewer: dave) }
        #expect(throws: TimelineError.self) { try service.image(story.variants.full, viewer: dave) }
        #expect(throws: TimelineError.self) { try service.image(story.variants.full, viewer: nil) }
        await #expect(throws: TimelineError.self) {
            try await service.run(.viewStory(story: story.id.rawValue), as: dave)
        }
        let image = try service.image(story.variants.full, viewer: bob)
        #expect(image.restricted)
        // A block either way: gone from the row, the story and its photo.
        try await service.run(.block(user: alice.rawValue), as: bob)
        #expect(try service.stories(for: bob).isEmpty)
        #expect(throws: TimelineError.self) { try service.story(story.id, viewer: bob) }
        // A mute hides the row's entry (not the story when opened).
        try await service.run(.mute(user: alice.rawValue), as: carol)
        #expect(try service.stories(for: carol).isEmpty)
        #expect(try service.story(story.id, viewer: carol).id == story.id)
    }

    @Test func deletingAndErasingTakeStoriesAndTheirPhotos() async throws {
        let (service, _, alice, bob, _) = try await Self.network()
        let story = try await Self.post(service, by: alice, image: 1)
        _ = try await service.run(.viewStory(story: story.id.rawValue), as: bob)
        await #expect(throws: TimelineError.self) {
            try await service.run(.deleteStory(story: story.id.rawValue), as: bob)
        }
        try await service.run(.deleteStory(story: story.id.rawValue), as: alice)
        #expect(try service.stories(for: bob).isEmpty)
        #expect(try service.read { view in try view.models.images.get(story.variants.full, view.txn) } == nil)

        let kept = try await Self.post(service, by: alice, image: 2)
        _ = try await service.run(.highlightStory(story: kept.id.rawValue), as: alice)
        _ = try await service.run(.viewStory(story: kept.id.rawValue), as: bob)
        try await service.run(.eraseUser(user: bob.rawValue, password: "password-123"), as: bob)
        #expect(try service.storyViewers(of: kept.id, by: alice).items.isEmpty)
        try await service.run(.eraseUser(user: alice.rawValue, password: "password-123"), as: alice)
        #expect(try service.read { view in try view.story(kept.id) } == nil)
        #expect(try service.read { view in try view.models.images.get(kept.variants.full, view.txn) } == nil)
    }
}

/// Stories over /v1 against a real server: a multipart upload (the part `media`), the row, a
/// view and who saw it, a reply, a highlight on the profile, the photo's privacy, and deletion.
@Suite struct StoryHTTPTests {
    @Test func storiesOverV1() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
            var form = MultipartBody()
            form.file("media", filename: "story.png", type: "image/png", try AvatarTests.image(64, shade: 90))
            let posted = try await api.send(
                "POST", "/v1/stories", body: form.finished(), contentType: form.contentType, bearer: alice.token)
            #expect(posted.status == 201, "\(posted)")
            let story = try #require(posted.json["id"] as? String)
            let image = try #require(posted.json["image"] as? String)

            let row = try await api.get("/v1/stories", bearer: bob.token)
            let authors = try #require(row.json["authors"] as? [[String: Any]])
            #expect(authors.count == 1 && (authors[0]["user"] as? [String: Any])?["username"] as? String == "alice")
            #expect((authors[0]["stories"] as? [[String: Any]])?.first?["seen"] as? Bool == false)
            #expect((try await api.get("/v1/stories", bearer: carol.token).json["authors"] as? [Any])?.isEmpty == true)

            let viewed = try await api.send("POST", "/v1/stories/\(story)/view", bearer: bob.token)
            #expect(viewed.status == 200 && viewed.json["changed"] as? Bool == true, "\(viewed)")
            let viewers = try await api.get("/v1/stories/\(story)/viewers", bearer: alice.token)
            #expect((viewers.json["items"] as? [[String: Any]])?.map { $0["username"] as? String } == ["bob"])
            #expect(try await api.get("/v1/stories/\(story)/viewers", bearer: bob.token).status == 404)

            let reply = try await api.send(
                "POST", "/v1/stories/\(story)/reply", json: ["text": "nice"], bearer: bob.token)
            #expect(reply.status == 201 && reply.json["visibility"] as? String == "direct", "\(reply)")

            #expect(try await api.send("PUT", "/v1/stories/\(story)/highlight", bearer: alice.token).status == 200)
            let highlights = try await api.get("/v1/users/\(alice.id)/highlights")
            #expect((highlights.json["stories"] as? [[String: Any]])?.map { $0["id"] as? String } == [story])
            #expect(try await api.get("/v1/images/\(image)").status == 200)

            // A locked account's story photo is its followers' only.
            #expect(try await api.send("PATCH", "/v1/me", json: ["locked": true], bearer: alice.token).status == 200)
            #expect(try await api.get("/v1/images/\(image)", bearer: carol.token).status == 404)
            #expect(try await api.get("/v1/images/\(image)", bearer: bob.token).status == 200)

            #expect(try await api.send("DELETE", "/v1/stories/\(story)", bearer: bob.token).status == 404)
            #expect(try await api.send("DELETE", "/v1/stories/\(story)", bearer: alice.token).status == 204)
            #expect(try await api.get("/v1/stories/\(story)", bearer: bob.token).status == 404)
            #expect(try await api.get("/v1/images/\(image)", bearer: bob.token).status == 404)
        }
    }
}

/// Tests/browser/test_stories.py: Home's stories row — adding a story from a file, another's
/// unseen story opened, replied to and then seen, who saw one's own, Highlight — in Chromium.
@Suite struct StoryWebAppTests {
    @Test(.timeLimit(.minutes(3))) func inARealBrowser() async throws {
        try await WebAppTests.browserScript(
            "test_stories.py", passes: "ok - ann sees who saw her story, and Highlight keeps it on her profile")
    }
}
