import Foundation
import Testing
@testable import Timeline

/// Blocks: a block ends the follows both ways; while it stands neither user can
/// follow the other, like or comment on the other's posts, or find the other in search,
/// lists or activity; the list of blocks is private.
@Suite struct BlockTests {
    @Test func aBlockEndsFollowsAndForbidsContactBothWays() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        let alicePost = try await service.addPost(by: alice.id, image: 1),
            bobPost = try await service.addPost(by: bob.id, image: 2)
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        try await service.run(.follow(user: bob.id.rawValue), as: carol.id)
        _ = try await service.addComment(by: bob.id, on: alicePost.id, "before")
        try await service.run(.like(post: alicePost.id.rawValue), as: bob.id)

        #expect(try await service.run(.block(user: bob.id.rawValue), as: alice.id) == .changed(true))
        #expect(try await service.run(.block(user: bob.id.rawValue), as: alice.id) == .changed(false))
        #expect(try service.user(bob.id, viewer: alice.id).blockedByViewer == true)
        #expect(try service.user(alice.id, viewer: bob.id).blockedByViewer == false)
        #expect(try !service.follows(alice.id, bob.id) && !service.follows(bob.id, alice.id))
        #expect(try service.user(alice.id).followingCount == 0 && service.user(bob.id).followingCount == 0)
        #expect(try service.timeline(of: alice.id).items.map(\.id) == [alicePost.id])
        #expect(try service.timeline(of: bob.id).items.map(\.id) == [bobPost.id])
        // The one who blocks is told of the block; the one blocked finds the blocker's posts as
        // unknown as posts that never were (a `forbidden` would tell that they exist).
        for (me, them, post, code) in [
            (alice.id, bob.id, bobPost.id, TimelineError.Code.forbidden),
            (bob.id, alice.id, alicePost.id, .notFound)
        ] {
            await expectError(.forbidden) { _ = try await service.run(.follow(user: them.rawValue), as: me) }
            await expectError(code) { _ = try await service.run(.like(post: post.rawValue), as: me) }
            await expectError(code) { _ = try await service.addComment(by: me, on: post) }
        }
        // Hidden from each other in search, lists and activity; others still see both.
        #expect(try service.searchUsers(prefix: "", viewer: alice.id).items.map(\.username) == ["alice", "carol"])
        #expect(try service.searchUsers(prefix: "", viewer: bob.id).items.map(\.username) == ["bob", "carol"])
        #expect(try service.users(viewer: bob.id).items.map(\.username).sorted() == ["bob", "carol"])
        #expect(try service.following(of: carol.id, viewer: alice.id).items.isEmpty)
        #expect(try service.following(of: carol.id, viewer: carol.id).items.map(\.id) == [bob.id])
        #expect(try service.following(of: carol.id).items.map(\.id) == [bob.id])
        #expect(try service.likes(of: alicePost.id, viewer: alice.id).items.isEmpty)
        #expect(try service.likes(of: alicePost.id, viewer: carol.id).items.map(\.id) == [bob.id])
        #expect(try service.activity(of: alice.id).items.allSatisfy { $0.actor != bob.id })
        // The list of blocks: private, newest first.
        try await service.run(.block(user: carol.id.rawValue), as: alice.id)
        #expect(try service.blocked(by: alice.id).items.map(\.id) == [carol.id, bob.id])
        #expect(try ask(service, "blocked", viewer: bob.id) == .users(Page(items: [], next: nil)))
        await expectError(.unauthenticated) { _ = try ask(service, "blocked") }
        await expectError(.invalidArgument) { _ = try await service.run(.block(user: alice.id.rawValue), as: alice.id) }
        await expectError(.notFound) { _ = try await service.run(.block(user: "-NoSuchUser000000000"), as: alice.id) }
        // Lifting it: following is possible again, and the activity is back.
        #expect(try await service.run(.unblock(user: bob.id.rawValue), as: alice.id) == .changed(true))
        #expect(try await service.run(.unblock(user: bob.id.rawValue), as: alice.id) == .changed(false))
        #expect(try await service.run(.follow(user: alice.id.rawValue), as: bob.id) == .changed(true))
        #expect(try service.activity(of: alice.id).items.contains { $0.actor == bob.id })
        #expect(try service.blocked(by: alice.id).items.map(\.id) == [carol.id])
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    /// Comments made before a block leave the lists each of the two reads (both ways), pages
    /// fill past them, and the last page has no `next`; others still see every comment.
    @Test func aBlockHidesEarlierCommentsBothWays() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        let post = try await service.addPost(by: carol.id, image: 1)
        let first = try await service.addComment(by: alice.id, on: post.id, "one")
        let blockedOne = try await service.addComment(by: bob.id, on: post.id, "two")
        let last = try await service.addComment(by: alice.id, on: post.id, "three")
        let blockedTwo = try await service.addComment(by: bob.id, on: post.id, "four")
        try await service.run(.block(user: bob.id.rawValue), as: alice.id)
        let mine = try service.all(limit: 1) { try service.comments(of: post.id, $0, viewer: alice.id) }.map(\.id)
        #expect(mine == [first.id, last.id])
        let page = try service.comments(of: post.id, PageRequest(limit: 2), viewer: alice.id)
        #expect(page.items.map(\.id) == [first.id, last.id] && page.next == nil)
        #expect(try service.comments(of: post.id, viewer: bob.id).items.map(\.id) == [blockedOne.id, blockedTwo.id])
        #expect(try service.post(post.id, viewer: bob.id).comments.items.map(\.id) == [blockedOne.id, blockedTwo.id])
        #expect(try service.comments(of: post.id, viewer: carol.id).items.count == 4)
        #expect(try service.comments(of: post.id).items.count == 4)
    }

    @Test func erasureLiftsBlocksBothWays() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        try await service.run(.block(user: bob.id.rawValue), as: alice.id)
        try await service.run(.block(user: alice.id.rawValue), as: carol.id)
        try await service.run(.eraseUser(user: alice.id.rawValue, password: "password-123"), as: alice.id)
        let events = try service.events(from: 1, limit: 1000).map(\.event)
        #expect(events.contains(.unblocked(Block(blockerId: alice.id, blockedId: bob.id))))
        #expect(events.contains(.unblocked(Block(blockerId: carol.id, blockedId: alice.id))))
        #expect(try service.blocked(by: carol.id).items.isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }
}
