import Foundation
import Testing
@testable import Timeline

/// Bookmarks: idempotent commands, a private newest-first list, `bookmarkedByViewer`,
/// and a bookmark never outliving its post or its owner.
@Suite struct BookmarkTests {
    @Test func bookmarksAreIdempotentPrivateAndNewestFirst() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let first = try await service.addPost(by: alice.id, image: 1),
            second = try await service.addPost(by: alice.id, image: 2)
        #expect(try await service.run(.bookmark(post: first.id.rawValue), as: bob.id) == .changed(true))
        #expect(try await service.run(.bookmark(post: first.id.rawValue), as: bob.id) == .changed(false))
        #expect(try await service.run(.bookmark(post: second.id.rawValue), as: bob.id) == .changed(true))
        #expect(try service.bookmarks(of: bob.id).items.map(\.id) == [second.id, first.id])
        // Saved again after taking it out: back on top (the list is in bookmark order, not post order).
        #expect(try await service.run(.unbookmark(post: first.id.rawValue), as: bob.id) == .changed(true))
        #expect(try await service.run(.unbookmark(post: first.id.rawValue), as: bob.id) == .changed(false))
        #expect(try await service.run(.bookmark(post: first.id.rawValue), as: bob.id) == .changed(true))
        #expect(try service.all(limit: 1) { try service.bookmarks(of: bob.id, $0) }.map(\.id) == [first.id, second.id])
        #expect(try service.bookmarks(of: alice.id).items.isEmpty)
        // bookmarkedByViewer, for the viewer only.
        #expect(try service.post(first.id, viewer: bob.id).post.bookmarkedByViewer == true)
        #expect(try service.post(first.id, viewer: alice.id).post.bookmarkedByViewer == false)
        #expect(try service.post(first.id).post.bookmarkedByViewer == nil)
        // The query answers only for the acting user.
        #expect(try ask(service, "bookmarks", viewer: bob.id) == .posts(try service.bookmarks(of: bob.id)))
        await expectError(.unauthenticated) { _ = try ask(service, "bookmarks") }
        await expectError(.notFound) { _ = try await service.run(.bookmark(post: "-NoSuchPost000000000"), as: bob.id) }
        await expectError(.unauthenticated) { _ = try await service.execute(.bookmark(post: first.id.rawValue)) }
    }

    @Test func aDeletedPostLeavesEveryListAndErasureTakesTheBookmarks() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        let gone = try await service.addPost(by: alice.id, image: 1),
            kept = try await service.addPost(by: alice.id, image: 2)
        for user in [bob.id, carol.id] {
            for post in [gone.id, kept.id] { try await service.run(.bookmark(post: post.rawValue), as: user) }
        }
        try await service.run(.deletePost(post: gone.id.rawValue), as: alice.id)
        #expect(try service.bookmarks(of: bob.id).items.map(\.id) == [kept.id])
        #expect(try service.bookmarks(of: carol.id).items.map(\.id) == [kept.id])
        // Erasing bob records his bookmarks' removal; carol's list is untouched.
        try await service.run(.eraseUser(user: bob.id.rawValue, password: "password-123"), as: bob.id)
        let events = try service.events(from: 1, limit: 1000).map(\.event)
        #expect(events.contains(.unbookmarked(Bookmark(postId: kept.id, userId: bob.id))))
        #expect(try service.bookmarks(of: carol.id).items.map(\.id) == [kept.id])
        // Erasing the author empties every list.
        try await service.run(.eraseUser(user: alice.id.rawValue, password: "password-123"), as: alice.id)
        #expect(try service.bookmarks(of: carol.id).items.isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func execAnswersBookmarksForAsOrSessionOnly() async throws {
        let service = try openService()
        let session = ExecSession(service: service)
        func send(_ request: [String: Any]) async throws -> [String: Any] {
            let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            return try #require(
                try JSONSerialization.jsonObject(with: Data(await session.handle(line: line).utf8)) as? [String: Any])
        }
        let alice = try await service.createUser("alice")
        let post = try await service.addPost(by: alice.id)
        let saved = try await send(["command": "bookmark", "as": alice.id.rawValue, "post": post.id.rawValue])
        #expect((saved["result"] as? [String: Any])?["changed"] as? Bool == true, "\(saved)")
        let signIn = try await send(["command": "signIn", "email": "alice@example.com", "password": "password-123"])
        let token = try #require((signIn["result"] as? [String: Any])?["session"] as? String)
        for actor: [String: Any] in [["as": alice.id.rawValue], ["session": token]] {
            let answer = try await send(["query": "bookmarks"].merging(actor) { $1 })
            let items = (answer["result"] as? [String: Any])?["items"] as? [[String: Any]]
            #expect(items?.map { $0["id"] as? String } == [post.id.rawValue], "\(answer)")
            #expect(items?.first?["bookmarkedByViewer"] as? Bool == true)
        }
        let anonymous = try await send(["query": "bookmarks"])
        #expect((anonymous["error"] as? [String: Any])?["code"] as? String == "unauthenticated", "\(anonymous)")
        let byViewer = try await send(["query": "bookmarks", "as": alice.id.rawValue, "viewer": alice.id.rawValue])
        #expect((byViewer["error"] as? [String: Any])?["field"] as? String == "viewer", "\(byViewer)")
        let byUser = try await send(["query": "bookmarks", "as": alice.id.rawValue, "user": alice.id.rawValue])
        #expect((byUser["error"] as? [String: Any])?["field"] as? String == "user", "\(byUser)")
    }
}
