import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Direct messages (`visibility` `direct`): who is addressed, conversations, and that nobody
/// else sees anything of one, on every read path.
@Suite struct DirectMessageTests {
    /// The people of a conversation: alice writes; bob (who does not follow her) and carol (who
    /// does) are addressed; dave follows alice but is not mentioned; eve is a stranger; mallory
    /// is mentioned but blocks alice, trent is mentioned but alice blocks him.
    struct Cast {
        let service: TimelineService
        let alice, bob, carol, dave, eve, mallory, trent: Profile
        var outsiders: [Profile] { [dave, eve, mallory, trent] }
    }

    func cast() async throws -> Cast {
        let service = try openService()
        let names = ["alice", "bob", "carol", "dave", "eve", "mallory", "trent"]
        var users: [Profile] = []
        for name in names { users.append(try await service.createUser(name)) }
        let (alice, carol, dave, mallory, trent) = (users[0], users[2], users[3], users[5], users[6])
        try await service.run(.follow(user: alice.id.rawValue), as: carol.id)
        try await service.run(.follow(user: alice.id.rawValue), as: dave.id)
        try await service.run(.block(user: alice.id.rawValue), as: mallory.id)
        try await service.run(.block(user: trent.id.rawValue), as: alice.id)
        return Cast(
            service: service, alice: users[0], bob: users[1], carol: users[2], dave: users[3], eve: users[4],
            mallory: users[5], trent: users[6])
    }

    func direct(_ service: TimelineService, _ text: String, image: Int? = nil, by user: UserID) async throws -> Post {
        let command: Command =
            image.map { .addPost(image: gifBase64($0), caption: text, visibility: .direct) }
            ?? .addDirectPost(caption: text)
        return try #require(try await service.run(command, as: user).post)
    }

    @Test func aDirectPostAddressesWhomItMentionsUnlessABlockStandsBetween() async throws {
        // Given alice, her followers carol and dave, bob, and mallory and trent with blocks.
        let c = try await cast()
        // When alice sends a direct message with a photo mentioning bob, carol, mallory and trent.
        let dm = try await direct(
            c.service, "@bob @carol @mallory @trent lunch? #secret", image: 7, by: c.alice.id)
        // Then it addresses bob and carol only (Mastodon drops a blocked account's mention; a
        // blocker would never see it), and it is direct.
        #expect(dm.visibility == .direct)
        #expect(dm.addressees == [c.bob.id, c.carol.id])
        // And a text alone is a direct message only.
        await expectError(.invalidArgument, field: "media") {
            _ = try await c.service.execute(
                .addPost(media: [], caption: "hi"), as: .user(c.alice.id.rawValue))
        }
        let text = try await direct(c.service, "@bob just text", by: c.alice.id)
        #expect(text.media.isEmpty && text.addressees == [c.bob.id])
        await expectError(.invalidArgument, field: "caption") {
            _ = try await c.service.run(.addDirectPost(caption: ""), as: c.alice.id)
        }
    }

    @Test func theAddresseesSeeItAndCarolsHomeHasItAsMastodonDelivers() async throws {
        let c = try await cast()
        let dm = try await direct(c.service, "@bob @carol lunch? #secret", image: 7, by: c.alice.id)
        for viewer in [c.alice, c.bob, c.carol] {
            #expect(try c.service.post(dm.id, viewer: viewer.id).post.id == dm.id)
            #expect(try c.service.posts(by: c.alice.id, viewer: viewer.id).items.map(\.id).contains(dm.id))
            #expect(try c.service.directPosts(of: viewer.id).items.map(\.id) == [dm.id])
        }
        // Mastodon's fan-out: the author's home and the home of the addressees who follow her.
        #expect(try c.service.timeline(of: c.alice.id).items.map(\.id).contains(dm.id))
        #expect(try c.service.timeline(of: c.carol.id).items.map(\.id).contains(dm.id))
        #expect(!(try c.service.timeline(of: c.bob.id).items.map(\.id).contains(dm.id)))
        // Carol, who follows alice, is told of it: a mention. Bob does not follow her: Mastodon's
        // standard policy holds a private mention from someone not followed in a request.
        let told = try c.service.activity(of: c.carol.id).items.filter { $0.post == dm.id }
        #expect(told.map(\.kind) == [.mention])
        #expect(try c.service.activity(of: c.bob.id).items.allSatisfy { $0.post != dm.id })
        #expect(try c.service.notificationRequests(of: c.bob.id).items.map(\.account) == [c.alice.id])
        try await c.service.run(.acceptNotificationRequest(account: c.alice.id.rawValue), as: c.bob.id)
        #expect(try c.service.activity(of: c.bob.id).items.filter { $0.post == dm.id }.map(\.kind) == [.mention])
        // A direct post is never boosted, even by whom it addresses.
        await expectError(.forbidden) { _ = try await c.service.run(.reblog(post: dm.id.rawValue), as: c.bob.id) }
    }

    @Test func aLockedAccountsDirectMessageReachesWhomItAddresses() async throws {
        let c = try await cast()
        try await c.service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: c.alice.id)
        let dm = try await direct(c.service, "@bob psst", by: c.alice.id)
        // Bob does not follow her: he sees it all the same; eve does not.
        #expect(try c.service.post(dm.id, viewer: c.bob.id).post.id == dm.id)
        #expect(try c.service.conversations(of: c.bob.id).items.map(\.lastPost.id) == [dm.id])
        await expectError(.notFound) { _ = try c.service.post(dm.id, viewer: c.eve.id) }
    }

    @Test func conversationsAreListedReadAndRemovedPerParticipant() async throws {
        let c = try await cast()
        // Given a message from alice to bob and carol, and bob's answer to both.
        let first = try await direct(c.service, "@bob @carol lunch?", by: c.alice.id)
        let answer = try await direct(c.service, "@alice @carol yes!", by: c.bob.id)
        let other = try await direct(c.service, "@bob only you", by: c.alice.id)
        // Then they are one conversation, named by its first message; its last is bob's answer.
        let carols = try c.service.conversations(of: c.carol.id).items
        #expect(carols.map(\.id) == [ConversationID(first.id.rawValue)])
        #expect(carols.first?.lastPost.id == answer.id && carols.first?.unread == true)
        #expect(Set(carols.first?.accounts ?? []) == [c.alice.id, c.bob.id])
        // Bob has two, the newest last message first; his own answer left the first one read.
        let bobs = try c.service.conversations(of: c.bob.id).items
        #expect(bobs.map(\.lastPost.id) == [other.id, answer.id])
        #expect(bobs.map(\.unread) == [true, false])
        // When carol reads it, it is read for her only; when bob removes one, it leaves his list only.
        try await c.service.run(.markConversationRead(conversation: first.id.rawValue), as: c.carol.id)
        #expect(try c.service.conversations(of: c.carol.id).items.map(\.unread) == [false])
        #expect(
            try c.service.conversations(of: c.alice.id).items.first { $0.id.rawValue == first.id.rawValue }?.unread
                == true)
        try await c.service.run(.removeConversation(conversation: first.id.rawValue), as: c.bob.id)
        #expect(try c.service.conversations(of: c.bob.id).items.map(\.lastPost.id) == [other.id])
        #expect(try c.service.conversations(of: c.carol.id).items.count == 1)
        // A conversation not in one's list is not_found, for strangers too.
        await expectError(.notFound) {
            _ = try await c.service.run(.removeConversation(conversation: first.id.rawValue), as: c.bob.id)
        }
        await expectError(.notFound) {
            _ = try await c.service.run(.markConversationRead(conversation: first.id.rawValue), as: c.eve.id)
        }
        // A new message brings it back; deleting the last message shows the one before.
        let again = try await direct(c.service, "@bob @carol 1pm?", by: c.alice.id)
        #expect(try c.service.conversations(of: c.bob.id).items.map(\.lastPost.id) == [again.id, other.id])
        try await c.service.run(.deletePost(post: again.id.rawValue), as: c.alice.id)
        #expect(try c.service.conversations(of: c.carol.id).items.map(\.lastPost.id) == [answer.id])
        // The direct timeline pages both ways: before a cursor, and right after one.
        let all = try c.service.directPosts(of: c.bob.id).items.map(\.id)
        #expect(all == [answer.id, other.id, first.id].sorted(by: >))
        #expect(try c.service.all(limit: 1) { try c.service.directPosts(of: c.bob.id, $0) }.map(\.id) == all)
        let after = try c.service.directPosts(of: c.bob.id, PageRequest(limit: 1, after: first.id.rawValue))
        #expect(after.items.map(\.id) == [all.sorted()[1]])
        // And every projection rebuilt from the log is the live one.
        #expect(try c.service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    /// A direct answer (`inReplyTo`) names the message it answers, in its post and its event (v7);
    /// a first message answers none.
    @Test func aDirectAnswerNamesTheMessageItAnswers() async throws {
        let c = try await cast()
        let first = try await direct(c.service, "@bob lunch?", by: c.alice.id)
        let answer = try #require(
            try await c.service.run(.addDirectPost(caption: "yes", inReplyTo: first.id.rawValue), as: c.bob.id).post)
        #expect(answer.inReplyTo == first.id && first.inReplyTo == nil)
        #expect(try c.service.post(answer.id, viewer: c.alice.id).post.inReplyTo == first.id)
        let added = try c.service.events(limit: 1_000).compactMap {
            if case .postAdded(let e) = $0.event, e.postId == answer.id { return e } else { return nil }
        }
        #expect(added.map(\.inReplyTo) == [first.id])
        #expect(try c.service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    /// The privacy sweep: a stranger, a blocked or blocking user and a follower who is not
    /// mentioned see nothing of a direct message on any read path.
    @Test func nobodyButTheParticipantsSeesAnythingOfADirectMessageAnywhere() async throws {
        let c = try await cast()
        let service = c.service
        let before = try service.appliedSequence()
        let dm = try await direct(service, "@bob @carol @mallory @trent lunch? #secretlunch", image: 9, by: c.alice.id)
        let comment = try await service.addComment(by: c.bob.id, on: dm.id, "yes #secretlunch")
        try await service.run(.like(post: dm.id.rawValue), as: c.carol.id)
        try await service.run(.bookmark(post: dm.id.rawValue), as: c.bob.id)
        // Dave keeps a list of alice; a public post of alice's is there to be seen.
        let list = try #require(try await service.run(.createList(title: "Alice"), as: c.dave.id).created)
        try await service.run(.addToList(list: list, users: [c.alice.id.rawValue]), as: c.dave.id)
        let open = try await service.addPost(by: c.alice.id, caption: "public #secretlunch", image: 3)
        func ids(_ posts: [Post]) -> Set<PostID> { Set(posts.map(\.id)) }
        for outsider in c.outsiders + [nil] as [Profile?] {
            let viewer = outsider?.id, who = outsider?.username ?? "nobody"
            let note: Testing.Comment = "seen by \(who)"
            // post by id, its comments, likers, boosters, history, one comment, its image
            await expectError(.notFound) { _ = try service.post(dm.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.comments(of: dm.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.likes(of: dm.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.boosters(of: dm.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.history(of: dm.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.comment(comment.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.image(dm.image, viewer: viewer) }
            for variant in ImageVariant.allCases {
                await expectError(.notFound) { _ = try service.image(dm.image, variant: variant, viewer: viewer) }
            }
            // profile, public and hashtag listings, trends, tags
            #expect(!ids(try service.posts(by: c.alice.id, viewer: viewer).items).contains(dm.id), note)
            #expect(!ids(try service.postsAndBoosts(by: c.alice.id, viewer: viewer).items).contains(dm.id), note)
            #expect(!ids(try service.publicPosts(viewer: viewer).items).contains(dm.id), note)
            let blocked = viewer == c.trent.id || viewer == c.mallory.id
            #expect(ids(try service.hashtag("secretlunch", viewer: viewer).items) == (blocked ? [] : [open.id]), note)
            #expect(!ids(try service.trendingPosts(viewer: viewer).items).contains(dm.id), note)
            guard let outsider else { continue }
            // home, lists, favourites, bookmarks, notifications, conversations, direct timeline
            #expect(!ids(try service.timeline(of: outsider.id).items).contains(dm.id), note)
            #expect(try service.conversations(of: outsider.id).items.isEmpty, note)
            #expect(try service.directPosts(of: outsider.id).items.isEmpty, note)
            #expect(try service.activity(of: outsider.id).items.allSatisfy { $0.post != dm.id }, note)
            // acting on it: it does not exist
            for command in [
                Command.like(post: dm.id.rawValue), .bookmark(post: dm.id.rawValue), .reblog(post: dm.id.rawValue),
                .addComment(post: dm.id.rawValue, text: "hi"), .reportPost(post: dm.id.rawValue, reason: "x")
            ] {
                await expectError(.notFound) { _ = try await service.run(command, as: outsider.id) }
            }
            #expect(try service.liked(by: outsider.id).items.isEmpty, note)
            #expect(try service.bookmarks(of: outsider.id).items.isEmpty, note)
        }
        #expect(!ids(try service.listTimeline(ListID(list), viewer: c.dave.id).items).contains(dm.id))
        #expect(ids(try service.listTimeline(ListID(list), viewer: c.dave.id).items).contains(open.id))
        // streams and push: no live update or activity item of any event names the message
        let events = try service.events(from: before + 1, limit: 1000)
        for outsider in c.outsiders {
            for event in events {
                for update in try service.liveUpdates(for: event, viewer: outsider.id) {
                    switch update {
                    case .post(let post), .edited(let post): #expect(post.id != dm.id, "stream of \(outsider.username)")
                    case .activity(let item): #expect(item.post != dm.id, "stream of \(outsider.username)")
                    case .removed(let id): #expect(id != dm.id)
                    case .unboosted(let boost, _): #expect(boost != dm.id)
                    case .conversation: Issue.record("\(outsider.username) was streamed a conversation")
                    }
                }
                #expect(
                    try service.activityItems(madeBy: event, for: outsider.id).allSatisfy { $0.post != dm.id },
                    "push of \(outsider.username)")
            }
        }
        // export: dave's archive holds nothing of it
        let path = temporaryPath("dave.zip")
        FileManager.default.createFile(atPath: path, contents: nil)
        let file = try #require(FileHandle(forWritingAtPath: path))
        try service.export(user: c.dave.id) { try file.write(contentsOf: $0) }
        try file.close()
        let archive = try ExportTests.unzip(path, json: ["posts.json", "likes.json", "bookmarks.json"])
        #expect(!String(describing: archive.files).contains(dm.id.rawValue))
        // The participants do see it all.
        #expect(try service.comments(of: dm.id, viewer: c.carol.id).items.map(\.id) == [comment.id])
        #expect(try service.liked(by: c.carol.id).items.map(\.id) == [dm.id])
        #expect(try service.bookmarks(of: c.bob.id).items.map(\.id) == [dm.id])
    }
}

extension DirectMessageTests {
    /// A stored record answers the policy from its bytes: direct, and who is addressed.
    @Test func aStoredRecordAnswersWhoIsAddressedFromItsBytes() throws {
        var record = PostRecord(
            id: PostID("p1"), author: UserID("alice"), image: ImageID(""), caption: "@bob hi", hashtags: [],
            createdAt: 1, visibility: .direct, addressees: [UserID("bob"), UserID("carol")])
        let stored = StoredPost(record: record, authorUsername: "alice")
        let bytes = stored.encoded()
        #expect(try StoredPost(decoding: bytes) == stored)
        let readings = PostReadings(bytes: bytes, fields: try PostFields(bytes.span))
        #expect(readings.isDirect && readings.fields.visibility == .direct)
        #expect(readings.isAddressed(UserID("bob")) && readings.isAddressed(UserID("carol")))
        #expect(!readings.isAddressed(UserID("bo")) && !readings.isAddressed(UserID("alice")))
        #expect(readings.media.isEmpty && readings.inReplyTo == nil)
        // An answer's record ends with the post it answers; the record before it is as it was.
        var answer = stored
        answer.inReplyTo = PostID("p0")
        let answerBytes = answer.encoded()
        #expect(Array(answerBytes.prefix(bytes.count)) == bytes)
        #expect(try StoredPost(decoding: answerBytes) == answer)
        #expect(PostReadings(bytes: answerBytes, fields: try PostFields(answerBytes.span)).inReplyTo == PostID("p0"))
        // A public record says neither.
        record.visibility = .public
        record.addressees = []
        let open = StoredPost(record: record, authorUsername: "alice").encoded()
        let plain = PostReadings(bytes: open, fields: try PostFields(open.span))
        #expect(!plain.isDirect && !plain.isAddressed(UserID("bob")))
    }
}
