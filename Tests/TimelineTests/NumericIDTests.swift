import Foundation
import LMDB
import Testing
import TimelineDomain
@testable import Timeline

/// Mastodon's ids (`NumericID`): numbers of the log, in creation order, the same however the
/// read models are made again.
@Suite struct NumericIDTests {
    /// Given accounts, posts made in one millisecond and later, a comment, a like and an upload,
    /// when they are numbered, then each id is its event's millisecond and position, posts and
    /// comments share the status space without meeting, and each number names its object back.
    @Test func idsAreTheirEventsTimeAndPlaceInTheLog() async throws {
        let clock = TestClock(1_800_000_000_000)
        let service = try openService(clock: clock)
        defer { service.close() }
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let first = try await service.addPost(by: alice.id, image: 1)
        let second = try await service.addPost(by: alice.id, image: 2)  // the same millisecond
        clock.advance(5)
        let third = try await service.addPost(by: alice.id, image: 3)
        guard
            case .comment(let comment) = try await service.run(
                .addComment(post: third.id.rawValue, text: "hi"), as: bob.id)
        else { throw TimelineError(.internal, "not a comment") }
        _ = try await service.run(.like(post: first.id.rawValue), as: bob.id)

        let posts = try [first, second, third].map { try service.numericID(of: .post($0.id)) }
        #expect(posts.map(\.milliseconds) == [1_800_000_000_000, 1_800_000_000_000, 1_800_000_000_005])
        #expect(posts == posts.sorted() && Set(posts).count == 3, "creation order, each its own")
        #expect(NumericID(posts[0].description) == posts[0] && posts[0].description.allSatisfy(\.isNumber))
        let statuses = try posts + [service.numericID(of: .comment(comment.id))]
        #expect(Set(statuses).count == 4)
        for (object, id) in zip(
            [first.id, second.id, third.id].map(NumberedObject.post) + [.comment(comment.id)], statuses)
        {
            #expect(try service.object(.status, numbered: id) == object)
            #expect(try service.object(.account, numbered: id) == nil, "a status's number names no account")
        }
        // The like's activity item (alice's notification) is numbered by its event.
        let item = try #require(try service.activity(of: alice.id).items.first { $0.kind == .like })
        let notification = try service.numericID(of: .notification(item.id))
        #expect(try service.object(.notification, numbered: notification) == .notification(item.id))
        // A conversation (named by its first message's id) is numbered as itself, not as that
        // post nor as a comment: each kind of object has its own byte.
        let dm = try #require(try await service.run(.addDirectPost(caption: "@bob hi"), as: alice.id).post)
        let conversation = try service.numericID(of: .conversation(ConversationID(dm.id.rawValue)))
        #expect(
            try service.object(.conversation, numbered: conversation) == .conversation(ConversationID(dm.id.rawValue)))
        // An id that names nothing is `not_found`; a number of nothing is nil.
        #expect(throws: TimelineError.self) { try service.numericID(of: .post(PostID("nothing"))) }
        #expect(try service.object(.status, numbered: NumericID(12345)) == nil)
        #expect(NumericID("-1") == nil && NumericID("1e3") == nil && NumericID("") == nil)
        #expect(NumericID("18446744073709551616") == nil && NumericID("18446744073709551615")?.value == .max)
    }

    /// Given an event of every type, the types the projection says make objects are exactly
    /// those whose events it numbers objects of (its two lists cannot drift apart).
    @Test func theTypesThatMakeObjectsAreTheOnesThatDo() async throws {
        let service = try openService()
        defer { service.close() }
        try await SchemaTests.historyOfEveryEventType(service)
        var making: Set<EventType> = []
        for envelope in try service.events(from: 1, limit: 100_000)
        where !NumericIDsProjection.created(by: envelope.event).isEmpty {
            making.insert(envelope.type)
        }
        #expect(making == Set(NumericIDsProjection.creating))
    }

    /// Given two events 65,536 apart in the log within one millisecond (so their numbers would
    /// be the same), when the projection numbers what they make, then the later takes the next
    /// free number; and a post made before uploads numbers its photo with it.
    @Test func numbersThatWouldMeetAreMadeDistinct() throws {
        let service = try openService()
        defer { service.close() }
        let models = service.registry.current
        func envelope(_ sequence: UInt64, _ event: Event) -> EventEnvelope {
            EventEnvelope(
                sequence: sequence, id: EventID("e\(sequence)"), type: event.typeName, schemaVersion: 1, stream: "s",
                streamVersion: 1, timestamp: 1_000, actor: "system", correlationId: nil, causationId: nil,
                event: event, previousHash: [], hash: [])
        }
        func user(_ name: String) -> Event {
            .userCreated(
                UserCreated(userId: UserID(name), username: name, email: "", passwordHash: "", bio: nil, url: nil))
        }
        let (earlier, later) = (envelope(7, user("u1")), envelope(7 + 65_536, user("u2")))
        let post = envelope(
            9,
            .postAdded(
                PostAdded(
                    postId: PostID("p1"), authorId: UserID("u1"), imageId: ImageID("i1"), caption: nil, hashtags: [],
                    visibility: .public, media: [])))
        try service.environment.write { txn in
            for envelope in [earlier, later, post] { try models.numericIDs.fold(envelope, txn) }
        }
        let base = NumericID(milliseconds: 1_000, sequence: 7).value
        #expect(try service.numericID(of: .account(UserID("u1"))).value == base)
        #expect(try service.numericID(of: .account(UserID("u2"))).value == base + 1)
        let photo = try service.numericID(of: .media(MediaID("i1")))
        let postID = try service.numericID(of: .post(PostID("p1")))
        #expect(photo == postID && photo.value == NumericID(milliseconds: 1_000, sequence: 9).value)
    }

    /// Given a network, when its read models are rebuilt, it is backed up and restored, or the
    /// numbers are lost as a database from before them has none, then every id is the same.
    @Test func idsSurviveARebuildABackupAndAnOldDatabase() async throws {
        let path = temporaryPath()
        var service = try openService(path: path)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        var objects: [NumberedObject] = [.account(alice.id), .account(bob.id)]
        for index in 0..<30 {
            let post = try await service.addPost(by: index % 2 == 0 ? alice.id : bob.id, image: index)
            objects.append(.post(post.id))
            _ = try await service.run(.like(post: post.id.rawValue), as: index % 2 == 0 ? bob.id : alice.id)
        }
        objects += try service.activity(of: alice.id).items.map { .notification($0.id) }
        let ids = try service.numericIDs(of: objects)
        try #require(ids.count == objects.count && Set(ids.values).count == objects.count)

        _ = try service.rebuild()
        #expect(try service.numericIDs(of: objects) == ids, "rebuilt")
        let copy = temporaryPath("backup")
        try service.backup(to: copy)
        let restored = try openService(path: copy)
        #expect(try restored.numericIDs(of: objects) == ids, "restored")
        restored.close()

        // A database from before the numbers: no tables, no checkpoint. Opening numbers it all.
        let models = service.registry.current
        try service.environment.write { txn in
            for database in models.numericIDs.databases { try txn.clear(database) }
            try models.deleteCheckpoint(.numericIDs, txn)
        }
        service.close()
        service = try openService(path: path)
        #expect(try service.numericIDs(of: objects) == ids, "numbered on open")
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        service.close()
    }
}
