import Foundation
import Testing
@testable import Timeline
import TimelineDomain
@testable import TimelineHTTP
import MicroHTTPD
import JSONModel

/// Polls decided in the domain: the drafts' limits, voting (once, before the end, on a post one
/// may see, the author too), an edit's effect on the poll.
@Suite struct PollDecisionTests {
    let poll = PollRecord(
        id: PollID("q1"), post: PostID("p1"), author: bob.id, options: ["a", "b", "c"], multiple: false,
        hideTotals: false, expiresAt: 10_000)

    var state: InMemoryState {
        var s = InMemoryState()
        s.users = [alice.id: alice, bob.id: bob]
        s.posts[PostID("p1")] = PostRecord(
            id: PostID("p1"), author: bob.id, image: ImageID("i"), caption: nil, hashtags: [], createdAt: 0)
        s.pollRecords[poll.id] = poll
        return s
    }

    @Test func aVoteIsRecordedOnceBeforeTheEnd() throws {
        let d = try decide(.vote(poll: "q1", choices: [2]), actor: .user(alice.id), state: state, context: context())
        #expect(d.events == [.pollVoted(PollVoted(pollId: poll.id, postId: poll.post, userId: alice.id, choices: [2]))])
        var s = state
        s.pollVoters.insert(["q1", alice.id.rawValue])
        #expect(
            throws: TimelineError.invalid("choices", "Validation failed: You have already voted on this poll")
        ) { try decide(.vote(poll: "q1", choices: [0]), actor: .user(alice.id), state: s, context: context()) }
        #expect(throws: TimelineError.invalid("choices", "Validation failed: The poll has already ended")) {
            try decide(
                .vote(poll: "q1", choices: [0]), actor: .user(alice.id), state: state, context: context(now: 10_000))
        }
        // The author may vote in their own poll, as Mastodon allows.
        let own = try decide(.vote(poll: "q1", choices: [0]), actor: .user(bob.id), state: state, context: context())
        #expect(own.events.count == 1)
    }

    @Test func choicesMustBeOptionsAndOneUnlessMultiple() throws {
        for choices in [[3], [-1], [], [0, 1]] {
            #expect(throws: TimelineError.self) {
                try decide(
                    .vote(poll: "q1", choices: choices), actor: .user(alice.id), state: state, context: context())
            }
        }
        var s = state
        s.pollRecords[poll.id]?.multiple = true
        let d = try decide(.vote(poll: "q1", choices: [2, 0, 2]), actor: .user(alice.id), state: s, context: context())
        #expect(
            d.events == [.pollVoted(PollVoted(pollId: poll.id, postId: poll.post, userId: alice.id, choices: [0, 2]))])
    }

    @Test func aPollOutOfSightIsNotFoundAndABlockForbids() {
        var s = state
        s.posts[PostID("p1")]?.visibility = .followers
        #expect(throws: TimelineError.notFound("post", "p1")) {
            try decide(.vote(poll: "q1", choices: [0]), actor: .user(alice.id), state: s, context: context())
        }
        var blocked = state
        blocked.blockEdges = [[bob.id, alice.id]]
        #expect(throws: TimelineError.notFound("post", "p1")) {
            try decide(.vote(poll: "q1", choices: [0]), actor: .user(alice.id), state: blocked, context: context())
        }
        var blocking = state
        blocking.blockEdges = [[alice.id, bob.id]]
        #expect(throws: TimelineError(.forbidden, "you cannot vote in this user's polls")) {
            try decide(.vote(poll: "q1", choices: [0]), actor: .user(alice.id), state: blocking, context: context())
        }
        #expect(throws: TimelineError.notFound("poll", "q9")) {
            try decide(.vote(poll: "q9", choices: [0]), actor: .user(alice.id), state: state, context: context())
        }
    }

    @Test func draftsAreHeldToTheLimits() throws {
        for draft in [
            PollDraft(options: ["only"], expiresIn: 600),
            PollDraft(options: ["a", "b", "c", "d", "e"], expiresIn: 600),
            PollDraft(options: ["a", String(repeating: "x", count: 51)], expiresIn: 600),
            PollDraft(options: ["a", " a "], expiresIn: 600),
            PollDraft(options: ["a", " "], expiresIn: 600),
            PollDraft(options: ["a", "b"], expiresIn: 299),
            PollDraft(options: ["a", "b"], expiresIn: 2_629_747)
        ] {
            #expect(throws: TimelineError.self) { try Validation.poll(draft) }
        }
        #expect(try Validation.poll(PollDraft(options: [" a", "b "], expiresIn: 300)).options == ["a", "b"])
    }

    @Test func anEditKeepsTheSamePollReplacesAnotherAndRemovesNone() throws {
        let same = try decide(
            .editPost(post: "p1", caption: nil, poll: .some(PollDraft(options: ["a", "b", "c"], expiresIn: 900))),
            actor: .user(bob.id), state: state, context: context())
        #expect(same.events.isEmpty)
        let other = try decide(
            .editPost(post: "p1", caption: nil, poll: .some(PollDraft(options: ["a", "b"], expiresIn: 900))),
            actor: .user(bob.id), state: state, context: context(now: 2_000))
        #expect(
            other.events == [
                .pollSet(
                    PollSet(
                        pollId: poll.id, postId: poll.post, authorId: bob.id, options: ["a", "b"], multiple: false,
                        hideTotals: false, expiresAt: 2_000 + 900_000))
            ])
        let none = try decide(
            .editPost(post: "p1", caption: nil, poll: .some(nil)), actor: .user(bob.id), state: state,
            context: context())
        #expect(none.events == [.pollRemoved(PollRemoved(pollId: poll.id, postId: poll.post, authorId: bob.id))])
    }
}

/// Polls through the library: counts, hidden totals, the end judged by the time of the read,
/// the `poll` notifications, privacy, a post's deletion, and rebuild.
@Suite struct PollServiceTests {
    @Test func countsHiddenTotalsTheEndAndNotifications() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let carol = try await service.createUser("carol")
        let post = try #require(
            try await service.run(
                .addPost(
                    image: gifBase64(1), caption: "which?",
                    poll: PollDraft(options: ["sea", "hills"], expiresIn: 600, multiple: true, hideTotals: true)),
                as: alice.id
            ).post)
        let poll = try #require(try service.poll(of: post.id, viewer: bob.id))
        #expect(poll.options == ["sea", "hills"] && poll.counts == nil && poll.voted == false && !poll.expired)
        try await service.run(.vote(poll: poll.id.rawValue, choices: [0, 1]), as: bob.id)
        try await service.run(.vote(poll: poll.id.rawValue, choices: [1]), as: carol.id)
        var read = try service.poll(poll.id, viewer: bob.id)
        #expect(read.ownVotes == [0, 1] && read.votesCount == 3 && read.votersCount == 2 && read.counts == nil)
        await expectError(.invalidArgument, field: "choices") {
            _ = try await service.run(.vote(poll: poll.id.rawValue, choices: [0]), as: bob.id)
        }
        #expect(try service.pollEnds(of: bob.id, before: nil, limit: 10).isEmpty)
        // The end: nothing is written, the read judges it by the time.
        let written = try service.events(from: 1, limit: 1000).count
        clock.advance(600_000)
        read = try service.poll(poll.id, viewer: nil)
        #expect(read.expired && read.counts == [1, 2] && read.ownVotes == nil)
        #expect(try service.events(from: 1, limit: 1000).count == written)
        for user in [alice, bob, carol] {
            #expect(try service.pollEnds(of: user.id, before: nil, limit: 10).map(\.poll) == [poll.id])
        }
        // In the activity (Mastodon's `poll` notification): the author's and each voter's.
        let bobs = try service.activity(of: bob.id, kinds: [.poll]).items
        #expect(bobs.map(\.kind) == [.poll] && bobs.first?.post == post.id && bobs.first?.actor == alice.id)
        #expect(try service.activity(of: alice.id).items.first?.kind == .poll)
        #expect(ActivityItem.Kind.poll.mastodonType == "poll")
        #expect(try service.numericID(of: .notification(try #require(bobs.first).id)).milliseconds == read.expiresAt)
        let dave = try await service.createUser("dave")
        #expect(try service.pollEnds(of: dave.id, before: nil, limit: 10).isEmpty)
        await expectError(.invalidArgument, field: "choices") {
            _ = try await service.run(.vote(poll: poll.id.rawValue, choices: [0]), as: dave.id)
        }
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func anEditStartsOverAndADeletionTakesThePoll() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let post = try #require(
            try await service.run(
                .addPost(image: gifBase64(2), caption: "?", poll: PollDraft(options: ["a", "b"], expiresIn: 600)),
                as: alice.id
            ).post)
        let poll = try #require(try service.poll(of: post.id, viewer: bob.id))
        try await service.run(.vote(poll: poll.id.rawValue, choices: [1]), as: bob.id)
        try await service.run(
            .editPost(
                post: post.id.rawValue, caption: nil, poll: .some(PollDraft(options: ["a", "b", "c"], expiresIn: 900))
            ), as: alice.id)
        let edited = try service.poll(poll.id, viewer: bob.id)
        #expect(edited.options == ["a", "b", "c"] && edited.votersCount == 0 && edited.voted == false)
        try await service.run(.vote(poll: poll.id.rawValue, choices: [2]), as: bob.id)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        try await service.run(.deletePost(post: post.id.rawValue), as: alice.id)
        await expectError(.notFound) { _ = try service.poll(poll.id, viewer: bob.id) }
        #expect(try service.pollEnds(of: bob.id, before: nil, limit: 10).isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    /// A blocked user, a non-follower of a private account and a stranger see none of a poll and
    /// cannot vote: the poll read, the post's poll, and the vote are all `not_found`.
    @Test func privacy() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let mallory = try await service.createUser("mallory")
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: alice.id)
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        try await service.run(.approveFollowRequest(user: bob.id.rawValue), as: alice.id)
        let post = try #require(
            try await service.run(
                .addPost(
                    image: gifBase64(3), caption: "friends only", poll: PollDraft(options: ["a", "b"], expiresIn: 600)),
                as: alice.id
            ).post)
        #expect(post.visibility == .followers)
        let poll = try #require(try service.poll(of: post.id, viewer: bob.id))
        for outsider in [mallory.id, nil] {
            await expectError(.notFound) { _ = try service.poll(poll.id, viewer: outsider) }
            await expectError(.notFound) { _ = try service.poll(of: post.id, viewer: outsider) }
        }
        await expectError(.notFound) {
            _ = try await service.run(.vote(poll: poll.id.rawValue, choices: [0]), as: mallory.id)
        }
        // A follower blocked by the author loses sight of it too.
        try await service.run(.vote(poll: poll.id.rawValue, choices: [0]), as: bob.id)
        try await service.run(.block(user: bob.id.rawValue), as: alice.id)
        await expectError(.notFound) { _ = try service.poll(poll.id, viewer: bob.id) }
        await expectError(.notFound) {
            _ = try await service.run(.vote(poll: poll.id.rawValue, choices: [1]), as: bob.id)
        }
    }
}

/// Polls over HTTP: `/v1` and the Mastodon API against a real server, and Mastodon.py
/// (Tests/mastodon/test_polls.py).
@Suite struct PollHTTPTests {
    @Test(.timeLimit(.minutes(3))) func v1PostVoteAndRead() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let made = try await api.send(
                "POST", "/v1/posts",
                json: [
                    "image": gifBase64(4), "caption": "pick", "pollOptions": ["left", "right"], "pollExpiresIn": 600
                ],
                bearer: alice.token)
            #expect(made.status == 201, "\(made)")
            let post = try #require(made.json["id"] as? String)
            // /v1: the post's poll, a vote, the poll read back, a second vote refused.
            let found = try await api.get("/v1/posts/\(post)/poll", bearer: bob.token)
            #expect(found.status == 200, "\(found)")
            let poll = try #require(found.json["id"] as? String)
            #expect(found.json["ownVotes"] as? [Int] == [], "\(found)")
            let voted = try await api.send(
                "POST", "/v1/polls/\(poll)/votes", json: ["choices": ["1"]], bearer: bob.token)
            #expect(voted.status == 204, "\(voted)")
            let read = try await api.get("/v1/polls/\(poll)", bearer: bob.token)
            #expect(read.json["ownVotes"] as? [Int] == [1] && read.json["votersCount"] as? Int == 1, "\(read)")
            let twice = try await api.send(
                "POST", "/v1/polls/\(poll)/votes", json: ["choices": ["0"]], bearer: bob.token)
            #expect(twice.status == 400, "\(twice)")
            // Mastodon: the status carries the poll; the author votes too; a second vote is 422.
            let mastodonPost = try await server.mastodonID("post", post)
            let mastodonPoll = try await server.mastodonID("poll", poll)
            let status = try await api.get("/api/v1/statuses/\(mastodonPost)", bearer: alice.token)
            let entity = try #require(status.json["poll"] as? [String: Any], "\(status)")
            #expect(entity["id"] as? String == mastodonPoll && entity["voted"] as? Bool == false, "\(entity)")
            let vote = try await api.send(
                "POST", "/api/v1/polls/\(mastodonPoll)/votes", json: ["choices": ["0"]], bearer: alice.token)
            #expect(vote.status == 200, "\(vote)")
            #expect(vote.json["own_votes"] as? [Int] == [0] && vote.json["votes_count"] as? Int == 2, "\(vote)")
            let again = try await api.send(
                "POST", "/api/v1/polls/\(mastodonPoll)/votes", json: ["choices": ["1"]], bearer: alice.token)
            #expect(again.status == 422, "\(again)")
            #expect((again.json["error"] as? String)?.contains("already voted") == true, "\(again)")
            #expect(try await api.get("/api/v1/polls/\(mastodonPoll)").status == 200)
            let instance = try await api.get("/api/v2/instance")
            let limits = (instance.json["configuration"] as? [String: Any])?["polls"] as? [String: Any]
            #expect(limits?["max_options"] as? Int == 4 && limits?["min_expiration"] as? Int == 300, "\(instance)")
        }
    }

    /// Mastodon.py: a poll posted, read, voted in, a second vote refused, a non-follower of the
    /// private account refused (Tests/mastodon/test_polls.py).
    @Test(.timeLimit(.minutes(3))) func mastodonPy() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            #expect(try await api.send("PATCH", "/v1/me", json: ["locked": true], bearer: alice.token).status == 200)
            _ = try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token)
            let approve = try await api.send("PUT", "/v1/me/follow-requests/\(bob.id)", bearer: alice.token)
            #expect(approve.status < 300, "\(approve)")
            let path = PhotoTests.directory() + "/poll.png"
            try Data(try AvatarTests.image(64, shade: 40)).write(to: URL(fileURLWithPath: path))
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_polls.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token, carol.token, path
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - every poll call"), "\(text)")
        }
    }

    /// The `poll` notification through the Mastodon API (v1 and grouped v2), in process with a
    /// test clock: due once the poll has ended, with nothing written then.
    @Test func pollNotificationsInMastodonsLists() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let api = TimelineAPI(service: service, options: TimelineAPI.Options())
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let token = try #require(
            try await service.execute(.signIn(email: "bob@example.com", password: "password-123")).session
        ).token
        let post = try #require(
            try await service.run(
                .addPost(image: gifBase64(7), caption: "?", poll: PollDraft(options: ["a", "b"], expiresIn: 300)),
                as: alice.id
            ).post)
        let poll = try #require(try service.poll(of: post.id, viewer: bob.id))
        try await service.run(.vote(poll: poll.id.rawValue, choices: [0]), as: bob.id)
        func get(_ path: String, _ query: [(name: String, value: String)] = []) async throws -> JSONValue {
            let response = await api.handle(
                HTTPRequest(method: "GET", path: path, query: query, headers: ["authorization": "Bearer \(token)"]))
            guard case .bytes(let body) = response.body, response.status == 200 else {
                throw TimelineError(.internal, "\(path): \(response.status)")
            }
            return try JSONDecoder().decode(JSONValue.self, from: Data(body))
        }
        func types(_ list: JSONValue?) -> [String] { (list?.elements ?? []).compactMap { $0["type"]?.string } }
        #expect(!types(try await get("/api/v1/notifications")).contains("poll"))
        clock.advance(300_000)
        let v1 = try await get("/api/v1/notifications", [(name: "types[]", value: "poll")])
        #expect(types(v1) == ["poll"], "\(v1)")
        #expect(v1.elements.first?["status"]?["poll"]?["expired"] == .bool(true), "\(v1)")
        let v2 = try await get("/api/v2/notifications")
        #expect(types(v2["notification_groups"]).contains("poll"), "\(v2)")
        // The one notification by its id, as v1 answers it.
        let id = try #require(v1.elements.first?["id"]?.string)
        #expect(try await get("/api/v1/notifications/\(id)")["type"]?.string == "poll")
    }
}
