import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Lists: a user's lists of accounts they follow, each read as a timeline of its own that is
/// exact at any depth; only followed accounts go in, an unfollow or a block takes them out; an
/// exclusive list's members leave the home timeline; a list is its owner's alone.
@Suite struct ListTests {
    // MARK: - Deciding

    var state: InMemoryState {
        var s = InMemoryState()
        s.users = [alice.id: alice, bob.id: bob]
        return s
    }

    @Test func createListRecordsItsSettingsAndRefusesABlankTitle() throws {
        let d = try decide(
            .createList(title: "Friends", repliesPolicy: "followed", exclusive: true), actor: .user(alice.id),
            state: state, context: context())
        #expect(
            d.events == [
                .listCreated(
                    ListSettings(
                        listId: ListID("id0001"), ownerId: alice.id, title: "Friends", repliesPolicy: .followed,
                        exclusive: true))
            ])
        #expect(d.outcome == .success(.created("id0001")))
        let plain = try decide(.createList(title: "Plain"), actor: .user(alice.id), state: state, context: context())
        guard case .listCreated(let e) = plain.events.first else { throw TimelineError(.internal, "no ListCreated") }
        #expect(e.repliesPolicy == .list && !e.exclusive)
        #expect(throws: TimelineError.invalid("title", "title must not be empty")) {
            try decide(.createList(title: "   "), actor: .user(alice.id), state: state, context: context())
        }
        #expect(throws: TimelineError.invalid("repliesPolicy", "repliesPolicy must be followed, list or none")) {
            try decide(
                .createList(title: "x", repliesPolicy: "all"), actor: .user(alice.id), state: state, context: context())
        }
        #expect(throws: TimelineError.self) { try decide(.createList(title: "x"), actor: .anonymous, state: state) }
    }

    @Test func aUserHasAtMostFiftyLists() throws {
        var s = state
        s.listRecords = (0..<Validation.maxListsPerUser).map {
            ListRecord(id: ListID("l\($0)"), owner: alice.id, title: "\($0)", repliesPolicy: .list, exclusive: false)
        }
        #expect(throws: TimelineError.invalid("title", "a user may have at most 50 lists")) {
            try decide(.createList(title: "one more"), actor: .user(alice.id), state: s, context: context())
        }
        #expect(
            try decide(.createList(title: "bob's"), actor: .user(bob.id), state: s, context: context()).events.count
                == 1)
    }

    @Test func onlyFollowedAccountsGoInAndOnlyTheOwnerChangesAList() throws {
        var s = state
        s.listRecords = [
            ListRecord(id: ListID("l1"), owner: alice.id, title: "F", repliesPolicy: .list, exclusive: false)
        ]
        #expect(throws: TimelineError.invalid("users", "you can only add accounts you follow to a list")) {
            try decide(.addToList(list: "l1", users: [bob.id.rawValue]), actor: .user(alice.id), state: s)
        }
        s.followEdges.insert([alice.id, bob.id])
        let added = try decide(
            .addToList(list: "l1", users: [bob.id.rawValue, bob.id.rawValue]), actor: .user(alice.id), state: s)
        #expect(
            added.events == [.listAccountAdded(ListMember(listId: ListID("l1"), ownerId: alice.id, accountId: bob.id))])
        s.listMembers.insert(["l1", bob.id.rawValue])
        let again = try decide(.addToList(list: "l1", users: [bob.id.rawValue]), actor: .user(alice.id), state: s)
        #expect(again.events.isEmpty && again.outcome == .success(.changed(false)))
        // Bob cannot see, change, fill or delete alice's list: it is not found for him.
        for command in [
            Command.updateList(list: "l1", title: "mine"), .deleteList(list: "l1"),
            .addToList(list: "l1", users: [alice.id.rawValue]), .removeFromList(list: "l1", users: [bob.id.rawValue])
        ] {
            #expect(throws: TimelineError.notFound("list", "l1")) {
                try decide(command, actor: .user(bob.id), state: s)
            }
        }
        let removed = try decide(
            .removeFromList(list: "l1", users: [bob.id.rawValue]), actor: .user(alice.id), state: s)
        #expect(
            removed.events == [
                .listAccountRemoved(ListMember(listId: ListID("l1"), ownerId: alice.id, accountId: bob.id))
            ])
        let unchanged = try decide(.updateList(list: "l1", title: "F"), actor: .user(alice.id), state: s)
        #expect(unchanged.events.isEmpty && unchanged.outcome == .success(.changed(false)))
        #expect(throws: TimelineError.invalid("users", "users must name at least one account")) {
            try decide(.addToList(list: "l1", users: []), actor: .user(alice.id), state: s)
        }
    }

    func decide(_ command: Command, actor: Actor, state: InMemoryState, context: DecisionContext = context())
        throws -> Decision
    {
        try TimelineDomain.decide(command, actor: actor, state: state, context: context)
    }

    /// SplitMix64: the same networks on every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    // MARK: - Through the library

    func makeList(
        _ service: TimelineService, _ owner: UserID, _ title: String, exclusive: Bool? = nil, _ members: [UserID]
    ) async throws -> ListID {
        let id = try #require(
            try await service.execute(.createList(title: title, exclusive: exclusive), as: .user(owner.rawValue))
                .created)
        if !members.isEmpty {
            try await service.run(.addToList(list: id, users: members.map(\.rawValue)), as: owner)
        }
        return ListID(id)
    }

    @Test func aListsTimelineIsItsMembersPostsNewestFirstAndRebuildsEqual() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol"), dave = try await service.createUser("dave")
        for followee in [bob.id, carol.id, dave.id] {
            try await service.run(.follow(user: followee.rawValue), as: alice.id)
        }
        let b1 = try await service.addPost(by: bob.id, caption: "b1")
        let c1 = try await service.addPost(by: carol.id, caption: "c1")
        _ = try await service.addPost(by: dave.id, caption: "d1")
        let list = try await makeList(service, alice.id, "Friends", [bob.id, carol.id])
        let b2 = try await service.addPost(by: bob.id, caption: "b2")
        #expect(try service.listTimeline(list, viewer: alice.id).items.map(\.id) == [b2.id, c1.id, b1.id])
        #expect(try service.lists(of: alice.id).map(\.title) == ["Friends"])
        #expect(try Set(service.listAccounts(list, viewer: alice.id).items.map(\.id)) == [bob.id, carol.id])
        #expect(try service.lists(containing: bob.id, viewer: alice.id).map(\.id) == [list])
        #expect(try service.lists(containing: dave.id, viewer: alice.id).isEmpty)
        // A like shows on the list as on the home timeline.
        try await service.run(.like(post: c1.id.rawValue), as: alice.id)
        #expect(try service.listTimeline(list, viewer: alice.id).items.map(\.likedByViewer) == [false, true, false])
        // Renamed, carol taken out: the list follows at once.
        try await service.run(.updateList(list: list.rawValue, title: "Bob", repliesPolicy: "none"), as: alice.id)
        try await service.run(.removeFromList(list: list.rawValue, users: [carol.id.rawValue]), as: alice.id)
        #expect(try service.list(list, viewer: alice.id).title == "Bob")
        #expect(try service.list(list, viewer: alice.id).repliesPolicy == .none)
        #expect(try service.listTimeline(list, viewer: alice.id).items.map(\.id) == [b2.id, b1.id])
        // Another's list is not found, whatever is asked of it.
        #expect(throws: TimelineError.notFound("list", list.rawValue)) {
            try service.listTimeline(list, viewer: bob.id)
        }
        #expect(throws: TimelineError.notFound("list", list.rawValue)) { try service.list(list, viewer: bob.id) }
        #expect(throws: TimelineError.notFound("list", list.rawValue)) {
            try service.listAccounts(list, viewer: bob.id)
        }
        #expect(try service.lists(containing: bob.id, viewer: bob.id).isEmpty)
        _ = try await makeList(service, alice.id, "Gone", [dave.id])
        let gone = try #require(try service.lists(of: alice.id).last?.id)
        try await service.run(.deleteList(list: gone.rawValue), as: alice.id)
        #expect(throws: TimelineError.notFound("list", gone.rawValue)) {
            try service.listTimeline(gone, viewer: alice.id)
        }
        #expect(try service.lists(containing: dave.id, viewer: alice.id).isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    /// At any depth the list's pages, read through, are its definition: the posts of its
    /// members the owner may see, newest first, each once (random follows, mutes, blocks,
    /// followers-only posts, deletions).
    @Test(arguments: [1, 2, 3]) func aListIsExactAtAnyDepth(_ seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let service = try openService()
        var users: [UserID] = []
        for n in 0..<8 { users.append(try await service.createUser("u\(n)").id) }
        let owner = users[0]
        for user in users.dropFirst() where Bool.random(using: &random) || user == users[1] {
            try await service.run(.follow(user: user.rawValue), as: owner)
        }
        let followed = try users.filter { try service.follows(owner, $0) }
        let list = try await makeList(service, owner, "All", followed)
        var posts: [Post] = []
        for _ in 0..<60 {
            let author = users.randomElement(using: &random)!
            let visibility: PostVisibility = Bool.random(using: &random) ? .followers : .public
            posts.append(
                try #require(
                    try await service.run(
                        .addPost(image: gifBase64(posts.count), caption: nil, visibility: visibility), as: author
                    ).post))
        }
        for post in posts.shuffled(using: &random).prefix(6) {
            try await service.run(.deletePost(post: post.id.rawValue), as: post.author)
        }
        // One member unfollowed, one muted, and one blocks the owner.
        try await service.run(.unfollow(user: followed[0].rawValue), as: owner)
        if followed.count > 2 { try await service.run(.mute(user: followed[1].rawValue), as: owner) }
        if followed.count > 3 { try await service.run(.block(user: owner.rawValue), as: followed[2]) }
        let shown = try service.all { try service.listTimeline(list, $0, viewer: owner) }.map(\.id)
        let members = try Set(service.all { try service.listAccounts(list, $0, viewer: owner) }.map(\.id))
        #expect(!members.contains(followed[0]))
        if followed.count > 3 { #expect(!members.contains(followed[2])) }
        let muted: Set<UserID> = followed.count > 2 ? [followed[1]] : []
        let expected = try posts.filter { post in
            guard members.contains(post.author), !muted.contains(post.author) else { return false }
            return try service.read { view in try view.post(post.id) } != nil
        }.map(\.id).sorted { $1.rawValue < $0.rawValue }
        #expect(shown == expected)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    /// A list never shows a post its owner may not see: a followers-only post after an
    /// unfollow, a blocked (or blocking) member's posts, a private account's posts to a mere
    /// requester, a suspended member's.
    @Test func aListNeverShowsWhatItsOwnerMayNotSee() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol"), dave = try await service.createUser("dave"),
            erin = try await service.createUser("erin")
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: dave.id)
        for followee in [bob.id, carol.id, dave.id, erin.id] {
            try await service.run(.follow(user: followee.rawValue), as: alice.id)
        }
        // Dave is private: alice only asked, so he cannot go in the list.
        let list = try await makeList(service, alice.id, "People", [bob.id, carol.id, erin.id])
        await #expect(throws: TimelineError.invalid("users", "you can only add accounts you follow to a list")) {
            try await service.run(.addToList(list: list.rawValue, users: [dave.id.rawValue]), as: alice.id)
        }
        try await service.run(.approveFollowRequest(user: alice.id.rawValue), as: dave.id)
        try await service.run(.addToList(list: list.rawValue, users: [dave.id.rawValue]), as: alice.id)
        let secret = try #require(
            try await service.run(
                .addPost(image: gifBase64(1), caption: "for followers", visibility: .followers), as: bob.id
            ).post)
        let carols = try await service.addPost(by: carol.id, caption: "carol's")
        let daves = try await service.addPost(by: dave.id, caption: "dave's")
        let erins = try await service.addPost(by: erin.id, caption: "erin's")
        #expect(
            try Set(service.listTimeline(list, viewer: alice.id).items.map(\.id))
                == [secret.id, carols.id, daves.id, erins.id])
        // Alice unfollows bob: he leaves the list, his followers-only post with him.
        try await service.run(.unfollow(user: bob.id.rawValue), as: alice.id)
        // Carol blocks alice (which ends the follow), alice blocks erin: both leave the list.
        try await service.run(.block(user: alice.id.rawValue), as: carol.id)
        try await service.run(.block(user: erin.id.rawValue), as: alice.id)
        #expect(try service.listTimeline(list, viewer: alice.id).items.map(\.id) == [daves.id])
        #expect(try service.listAccounts(list, viewer: alice.id).items.map(\.id) == [dave.id])
        // Following bob again does not put him back (as in Mastodon).
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        #expect(try service.listTimeline(list, viewer: alice.id).items.map(\.id) == [daves.id])
        // A suspended member's posts are gone from the list.
        _ = try await service.execute(.suspendUser(user: dave.id.rawValue), as: .operator)
        #expect(try service.listTimeline(list, viewer: alice.id).items.isEmpty)
        _ = try await service.execute(.unsuspendUser(user: dave.id.rawValue), as: .operator)
        #expect(try service.listTimeline(list, viewer: alice.id).items.map(\.id) == [daves.id])
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func anExclusiveListsMembersLeaveTheHomeTimeline() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        for followee in [bob.id, carol.id] { try await service.run(.follow(user: followee.rawValue), as: alice.id) }
        let bobs = try await service.addPost(by: bob.id, caption: "bob's")
        let carols = try await service.addPost(by: carol.id, caption: "carol's")
        let mine = try await service.addPost(by: alice.id, caption: "mine")
        let list = try await makeList(service, alice.id, "Bob", [bob.id])
        #expect(try service.timeline(of: alice.id).items.map(\.id) == [mine.id, carols.id, bobs.id])
        try await service.run(.updateList(list: list.rawValue, exclusive: true), as: alice.id)
        #expect(try service.timeline(of: alice.id).items.map(\.id) == [mine.id, carols.id])
        #expect(try service.listTimeline(list, viewer: alice.id).items.map(\.id) == [bobs.id])
        // Paged one by one, the home timeline still skips bob's posts and ends.
        #expect(try service.all(limit: 1) { try service.timeline(of: alice.id, $0) }.map(\.id) == [mine.id, carols.id])
        // bob's boosts leave it too (as Mastodon's exclusive lists keep a member's reblogs), live as well.
        let dave = try await service.createUser("dave")
        let daves = try await service.addPost(by: dave.id, caption: "dave's")
        try await service.run(.reblog(post: daves.id.rawValue), as: bob.id)
        let boosted = try service.events(from: try service.lastSequence(), limit: 1)[0]
        #expect(try service.timeline(of: alice.id).items.map(\.id) == [mine.id, carols.id])
        #expect(try service.liveUpdates(for: boosted, viewer: alice.id).isEmpty)
        try await service.run(.removeFromList(list: list.rawValue, users: [bob.id.rawValue]), as: alice.id)
        #expect(try service.timeline(of: alice.id).items.map(\.id) == [daves.id, mine.id, carols.id, bobs.id])
        #expect(try service.liveUpdates(for: boosted, viewer: alice.id).count == 1)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func erasingTheOwnerOrAMemberEmptiesTheirLists() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let alicesList = try await makeList(service, alice.id, "Bob", [bob.id])
        _ = try await makeList(service, bob.id, "Alice", [alice.id])
        try await service.run(.eraseUser(user: bob.id.rawValue, password: "password-123"), as: bob.id)
        #expect(try service.listAccounts(alicesList, viewer: alice.id).items.isEmpty)
        #expect(try service.read { view in try view.models.lists.lists(of: bob.id, view.txn) }.isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    // MARK: - Over HTTP

    @Test func listsOverV1() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            #expect(try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: alice.token).status == 200)
            let post = try await api.addPost(bob.token, caption: "harbour", image: 1)
            let made = try await api.send(
                "POST", "/v1/lists", json: ["title": "Harbour", "exclusive": true], bearer: alice.token)
            #expect(made.status == 201, "\(made)")
            let id = try #require(made.json["id"] as? String)
            #expect(made.header("Location") == "/v1/lists/\(id)")
            let refused = try await api.send(
                "POST", "/v1/lists/\(id)/accounts", json: ["users": [carol.id]], bearer: alice.token)
            #expect(refused.status == 400 && (refused.json["error"] as? [String: Any])?["field"] as? String == "users")
            let added = try await api.send(
                "POST", "/v1/lists/\(id)/accounts", json: ["users": [bob.id]], bearer: alice.token)
            #expect(added.status == 200 && added.json["changed"] as? Bool == true, "\(added)")
            let lists = try await api.get("/v1/lists", bearer: alice.token)
            let first = try #require((lists.json["lists"] as? [[String: Any]])?.first)
            #expect(first["title"] as? String == "Harbour" && first["exclusive"] as? Bool == true)
            #expect(first["repliesPolicy"] as? String == "list")
            let timeline = try await api.get("/v1/lists/\(id)/timeline", bearer: alice.token)
            #expect((timeline.json["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [post], "\(timeline)")
            // Exclusive: bob's post is not in alice's home timeline.
            let home = try await api.get("/v1/timeline", bearer: alice.token)
            #expect((home.json["items"] as? [[String: Any]])?.isEmpty == true, "\(home)")
            let members = try await api.get("/v1/lists/\(id)/accounts", bearer: alice.token)
            #expect((members.json["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [bob.id])
            let with = try await api.get("/v1/users/@bob/lists", bearer: alice.token)
            #expect((with.json["lists"] as? [[String: Any]])?.map { $0["id"] as? String } == [id], "\(with)")
            // Bob sees nothing of it.
            #expect(try await api.get("/v1/lists/\(id)", bearer: bob.token).status == 404)
            #expect(try await api.get("/v1/lists/\(id)/timeline", bearer: bob.token).status == 404)
            let renamed = try await api.send(
                "PATCH", "/v1/lists/\(id)", json: ["title": "Port", "repliesPolicy": "none"], bearer: alice.token)
            #expect(renamed.json["changed"] as? Bool == true, "\(renamed)")
            #expect(try await api.get("/v1/lists/\(id)", bearer: alice.token).json["title"] as? String == "Port")
            let removed = try await api.send(
                "DELETE", "/v1/lists/\(id)/accounts", json: ["users": [bob.id]], bearer: alice.token)
            #expect(removed.json["changed"] as? Bool == true, "\(removed)")
            #expect(try await api.send("DELETE", "/v1/lists/\(id)", bearer: alice.token).status == 204)
            #expect(try await api.get("/v1/lists/\(id)", bearer: alice.token).status == 404)
            #expect(try await api.get("/v1/lists").status == 401)
        }
    }

    /// `GET /v1/stream` leaves out the posts of an exclusive list's members, as the timeline does:
    /// carol's posts before and after bob's arrive, bob's never does (the stream keeps the log's order).
    @Test func anExclusiveListsMembersLeaveTheV1Stream() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            for other in [bob, carol] {
                #expect(try await api.send("PUT", "/v1/me/following/\(other.id)", bearer: alice.token).status == 200)
            }
            let made = try await api.send(
                "POST", "/v1/lists", json: ["title": "Bob", "exclusive": true], bearer: alice.token)
            let id = try #require(made.json["id"] as? String)
            _ = try await api.send("POST", "/v1/lists/\(id)/accounts", json: ["users": [bob.id]], bearer: alice.token)
            let stream = try EventStreamReader(port: server.port, bearer: alice.token)
            #expect(await stream.open().hasPrefix("HTTP/1.1 200"))
            let first = try await api.addPost(carol.token, caption: "carol first", image: 1)
            let bobs = try await api.addPost(bob.token, caption: "bob's", image: 2)
            let last = try await api.addPost(carol.token, caption: "carol last", image: 3)
            let posts = await stream.events { $0.contains { $0.json["id"] as? String == last } }
                .filter { $0.event == "post" }.compactMap { $0.json["id"] as? String }
            #expect(posts == [first, last] && !posts.contains(bobs), "\(posts)")
            stream.client.disconnect()
        }
    }

    /// The WebSocket's `list` stream: subscribed by `{"type": "subscribe", "stream": "list", "list": id}`,
    /// it carries the list's members' posts, named `["list", id]` (a non-member's post first never comes).
    @Test func theListStreamOverTheWebSocket() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            for other in [bob, carol] {
                #expect(try await api.send("PUT", "/v1/me/following/\(other.id)", bearer: alice.token).status == 200)
            }
            let bobID = try await server.mastodonID("account", bob.id)
            let made = try await api.send("POST", "/api/v1/lists", json: ["title": "Bob"], bearer: alice.token)
            let id = try #require(made.json["id"] as? String)
            _ = try await api.send(
                "POST", "/api/v1/lists/\(id)/accounts", json: ["account_ids": [bobID]], bearer: alice.token)
            let socket = try await WebSocketClient.open(port: server.port, token: alice.token)
            let subscribe = "{\"type\":\"subscribe\",\"stream\":\"list\",\"list\":\"\(id)\"}"
            #expect(socket.send(WebSocketTests.frame(0x1, Array(subscribe.utf8)) + WebSocketTests.sentinel))
            #expect(await socket.nextControlFrame().map { $0.payload == Array("sentinel".utf8) } == true)
            _ = try await api.addPost(carol.token, caption: "carol's", image: 1)
            let bobs = try await server.mastodonID("post", try await api.addPost(bob.token, caption: "bob's", image: 2))
            let text = try #require(await socket.nextText { $0.contains("\"update\"") })
            let message = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(message["stream"] as? [String] == ["list", id], "\(text)")
            let payload = try #require((message["payload"] as? String)?.data(using: .utf8))
            let status = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect(status["id"] as? String == bobs, "\(text)")
        }
    }

    /// Mastodon's list methods, its list timeline and the `list` stream, through a real server.
    @Test func listsOverTheMastodonAPI() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            let ids = try await server.mastodonIDs("account", [bob.id, carol.id])
            let (bobID, carolID) = (ids[0], ids[1])
            for followee in [bobID, carolID] {
                #expect(
                    try await api.send("POST", "/api/v1/accounts/\(followee)/follow", bearer: alice.token).status == 200
                )
            }
            let made = try await api.send(
                "POST", "/api/v1/lists", json: ["title": "Bob", "replies_policy": "followed"], bearer: alice.token)
            #expect(made.status == 200, "\(made)")
            let id = try #require(made.json["id"] as? String)
            #expect(Int(id) != nil && made.json["exclusive"] as? Bool == false)
            #expect(made.json["replies_policy"] as? String == "followed" && made.json["title"] as? String == "Bob")
            let added = try await api.send(
                "POST", "/api/v1/lists/\(id)/accounts", json: ["account_ids": [bobID]], bearer: alice.token)
            #expect(added.status == 200, "\(added)")
            // A stranger's account is refused (422), an unknown one is 404.
            let dave = try await api.signUp("dave")
            let daveID = try await server.mastodonID("account", dave.id)
            let refused = try await api.send(
                "POST", "/api/v1/lists/\(id)/accounts", json: ["account_ids": [daveID]], bearer: alice.token)
            #expect(refused.status == 422, "\(refused)")
            let unknown = try await api.send(
                "POST", "/api/v1/lists/\(id)/accounts", json: ["account_ids": ["1"]], bearer: alice.token)
            #expect(unknown.status == 404, "\(unknown)")
            let members = try await api.get("/api/v1/lists/\(id)/accounts", bearer: alice.token)
            #expect(members.jsonArray.map { $0["id"] as? String } == [bobID], "\(members)")
            let holding = try await api.get("/api/v1/accounts/\(bobID)/lists", bearer: alice.token)
            #expect(holding.jsonArray.map { $0["id"] as? String } == [id], "\(holding)")
            // The list stream: carol's post (not a member) never comes, bob's does.
            let stream = try EventStreamReader(
                port: server.port, bearer: alice.token, path: "/api/v1/streaming/list", query: "?list=\(id)")
            #expect(await stream.open().hasPrefix("HTTP/1.1 200"))
            _ = try await api.addPost(carol.token, caption: "carol's", image: 2)
            let bobs = try await api.addPost(bob.token, caption: "bob's", image: 1)
            let bobsID = try await server.mastodonID("post", bobs)
            let updates = await stream.events { $0.contains { $0.event == "update" } }.filter { $0.event == "update" }
            #expect(updates.map { $0.json["id"] as? String } == [bobsID])
            stream.client.disconnect()
            let timeline = try await api.get("/api/v1/timelines/list/\(id)", bearer: alice.token)
            #expect(timeline.jsonArray.map { $0["id"] as? String } == [bobsID], "\(timeline)")
            // Bob sees none of it.
            #expect(try await api.get("/api/v1/lists/\(id)", bearer: bob.token).status == 404)
            #expect(try await api.get("/api/v1/timelines/list/\(id)", bearer: bob.token).status == 404)
            let other = try EventStreamReader(
                port: server.port, bearer: bob.token, path: "/api/v1/streaming/list", query: "?list=\(id)")
            #expect(await other.open().hasPrefix("HTTP/1.1 404"))
            // Exclusive: bob's post leaves alice's home timeline.
            let put = try await api.send("PUT", "/api/v1/lists/\(id)", json: ["exclusive": true], bearer: alice.token)
            #expect(put.json["exclusive"] as? Bool == true && put.json["title"] as? String == "Bob", "\(put)")
            let home = try await api.get("/api/v1/timelines/home", bearer: alice.token)
            #expect(!home.jsonArray.contains { $0["id"] as? String == bobsID }, "\(home)")
            #expect(try await api.get("/api/v1/lists", bearer: alice.token).jsonArray.count == 1)
            // Unfollowing bob takes him out of the list.
            #expect(try await api.send("POST", "/api/v1/accounts/\(bobID)/unfollow", bearer: alice.token).status == 200)
            #expect(try await api.get("/api/v1/lists/\(id)/accounts", bearer: alice.token).jsonArray.isEmpty)
            #expect(try await api.get("/api/v1/timelines/list/\(id)", bearer: alice.token).jsonArray.isEmpty)
            #expect(try await api.send("DELETE", "/api/v1/lists/\(id)", bearer: alice.token).status == 200)
            #expect(try await api.get("/api/v1/lists/\(id)", bearer: alice.token).status == 404)
        }
    }

    /// The same through Mastodon.py (Tests/mastodon/test_lists.py), paging the list's timeline to its end.
    @Test(.timeLimit(.minutes(3))) func mastodonPyLists() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            #expect(try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: alice.token).status == 200)
            #expect(try await api.send("PUT", "/v1/me/following/\(carol.id)", bearer: alice.token).status == 200)
            for n in 0..<24 { _ = try await api.addPost(bob.token, caption: "bob \(n)", image: n) }
            let hidden = try await api.send(
                "POST", "/v1/posts", json: ["image": gifBase64(0x60), "caption": "friends", "visibility": "followers"],
                bearer: bob.token)
            #expect(hidden.status == 201, "\(hidden)")
            _ = try await api.addPost(carol.token, caption: "carol's", image: 99)
            let ids = try await server.mastodonIDs("account", [bob.id, carol.id])
            // Alice stops following carol, so she cannot go in a list.
            #expect(try await api.send("DELETE", "/v1/me/following/\(carol.id)", bearer: alice.token).status == 200)
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_lists.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token, ids[0], ids[1], "25"
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - every list call"), "\(text)")
        }
    }
}

extension Reply {
    /// The body as a JSON array of objects (Mastodon's lists), empty when it is not one.
    var jsonArray: [[String: Any]] { (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] ?? [] }
}
