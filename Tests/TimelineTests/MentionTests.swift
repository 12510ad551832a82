import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Mentions and replies: `@username` in a caption or a comment tells that user (not one who
/// blocks the author), a reply tells the author of the comment it answers (one level), and both
/// leave with what they were about.
@Suite struct MentionTests {
    @Test func mentionsInCaptionsAndCommentsAndRepliesReachTheirPeople() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let carol = try await service.createUser("carol"), dan = try await service.createUser("dan"),
            eve = try await service.createUser("eve")
        try await service.run(.block(user: alice.id.rawValue), as: eve.id)
        let post = try #require(
            try await service.run(
                .addPost(image: gifBase64(0), caption: "Sunset with @Bob, @eve, @nobody and me@alice.example"),
                as: alice.id
            ).post)
        func kinds(_ user: UserID) throws -> [ActivityItem.Kind] { try service.activity(of: user).items.map(\.kind) }
        #expect(try kinds(bob.id) == [.mention])
        #expect(try service.activity(of: bob.id).items.first?.actor == alice.id)
        #expect(try kinds(eve.id).isEmpty, "a user who blocks the author is not told")
        #expect(try kinds(alice.id).isEmpty, "an email address mentions nobody")

        // Edited: a mention edited out is forgotten, a new one is told, a kept one stays once.
        _ = try await service.run(
            .editPost(post: post.id.rawValue, caption: .some("Sunset with @dan and @bob")), as: alice.id)
        #expect(try kinds(bob.id) == [.mention])
        #expect(try kinds(dan.id) == [.mention])
        _ = try await service.run(.editPost(post: post.id.rawValue, caption: .some("Sunset with @dan")), as: alice.id)
        #expect(try kinds(bob.id).isEmpty)

        // A comment: the post's owner gets the comment; someone it mentions, a mention.
        let comment = try #require(
            try await service.run(.addComment(post: post.id.rawValue, text: "@carol look!"), as: bob.id).postComment)
        #expect(try kinds(alice.id) == [.comment])
        #expect(try kinds(carol.id) == [.mention])
        // A reply tells the answered comment's author; a reply to a reply answers the same comment.
        let reply = try #require(
            try await service.run(
                .addComment(post: post.id.rawValue, text: "thanks", replyTo: comment.id.rawValue), as: carol.id
            ).postComment)
        #expect(reply.replyTo == comment.id)
        #expect(try kinds(bob.id) == [.reply])
        let again = try #require(
            try await service.run(
                .addComment(post: post.id.rawValue, text: "same here", replyTo: reply.id.rawValue), as: dan.id
            ).postComment)
        #expect(again.replyTo == comment.id, "one level: the reply answers the top-level comment")
        #expect(try service.comments(of: post.id).items.map(\.replyTo) == [nil, comment.id, comment.id])
        #expect(try service.activity(of: bob.id, kinds: [.reply]).items.count == 2)
        #expect(try service.activity(of: alice.id, kinds: [.mention]).items.isEmpty)

        // Undone with what they were about.
        try await service.run(.deleteComment(comment: comment.id.rawValue), as: bob.id)
        #expect(try kinds(carol.id).isEmpty, "a deleted comment's mention stays")
        try await service.run(.deleteComment(comment: again.id.rawValue), as: dan.id)
        #expect(try kinds(bob.id) == [.reply])
        try await service.run(.deletePost(post: post.id.rawValue), as: alice.id)
        #expect(try kinds(bob.id).isEmpty && kinds(dan.id).isEmpty)

        // A reply names a comment of the same post; nothing is recorded otherwise.
        let other = try await service.addPost(by: alice.id, caption: "other")
        let elsewhere = try await service.addComment(by: bob.id, on: other.id)
        let third = try await service.addPost(by: alice.id, caption: "third", image: 2)
        let before = try service.lastSequence()
        await expectError(.notFound, field: "replyTo") {
            _ = try await service.run(
                .addComment(post: third.id.rawValue, text: "x", replyTo: elsewhere.id.rawValue), as: carol.id)
        }
        #expect(try service.lastSequence() == before)
        // Answered on her own post, the owner is told of the reply (once, not also of a comment).
        let own = try await service.addComment(by: alice.id, on: third.id, "my own words")
        _ = try await service.run(
            .addComment(post: third.id.rawValue, text: "agreed", replyTo: own.id.rawValue), as: bob.id)
        #expect(try service.activity(of: alice.id).items.first?.kind == .reply)
        #expect(try service.activity(of: alice.id, kinds: [.comment]).items.allSatisfy { $0.post != third.id })
    }

    @Test func overHTTP() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let post = try await api.addPost(alice.token, caption: "hello @bob")
            let activity = try await api.get("/v1/activity?types=mention", bearer: bob.token)
            #expect(
                (activity.json["items"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["mention"],
                "\(activity)")
            let comment = try #require(
                try await api.send("POST", "/v1/posts/\(post)/comments", json: ["text": "hi"], bearer: bob.token).json[
                    "id"] as? String)
            let reply = try await api.send(
                "POST", "/v1/posts/\(post)/comments", json: ["text": "@bob hi back", "replyTo": comment],
                bearer: alice.token)
            #expect(reply.status == 201 && reply.json["replyTo"] as? String == comment, "\(reply)")
            let replies = try await api.get("/v1/activity?types=reply", bearer: bob.token)
            #expect((replies.json["items"] as? [[String: Any]])?.count == 1, "\(replies)")
            let bad = try await api.send(
                "POST", "/v1/posts/\(post)/comments", json: ["text": "x", "replyTo": "-NoSuchComment000000"],
                bearer: bob.token)
            #expect(bad.status == 404 && bad.errorField == "replyTo", "\(bad)")
        }
    }
}

/// What a mention or a reply points at is judged as the rest of the feed is: a post the person
/// may not see (its author blocked either way) or whose author they mute tells them nothing;
/// replying across a block is refused; a read marker past every item stops at the newest.
@Suite struct MentionPrivacyTests {
    @Test func aMentionOnABlockedOrMutedAuthorsPostTellsNothing() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        let post = try await service.addPost(by: alice.id, caption: "alice's")
        let carolsComment = try await service.addComment(by: carol.id, on: post.id, "before the block")
        try await service.run(.block(user: alice.id.rawValue), as: carol.id)
        _ = try await service.run(.addComment(post: post.id.rawValue, text: "look @carol"), as: bob.id)
        #expect(try service.activity(of: carol.id).items.isEmpty, "a mention on a blocked author's post surfaced")
        #expect(try service.user(carol.id, viewer: carol.id).unreadActivity == 0)
        try await service.run(.unblock(user: alice.id.rawValue), as: carol.id)
        #expect(try service.activity(of: carol.id).items.map(\.kind) == [.mention])
        try await service.run(.mute(user: alice.id.rawValue), as: carol.id)
        #expect(try service.activity(of: carol.id).items.isEmpty, "a mention on a muted author's post surfaced")
        try await service.run(.unmute(user: alice.id.rawValue), as: carol.id)
        // Replying across a block is refused, and records nothing: the comment of someone who
        // blocks him is out of bob's sight, as unknown as one that never was.
        try await service.run(.block(user: bob.id.rawValue), as: carol.id)
        let before = try service.lastSequence()
        await expectError(.notFound) {
            _ = try await service.run(
                .addComment(post: post.id.rawValue, text: "hi", replyTo: carolsComment.id.rawValue), as: bob.id)
        }
        #expect(try service.lastSequence() == before)
    }

    @Test func aMarkerPastEveryItemStopsAtTheNewest() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let post = try await service.addPost(by: alice.id)
        try await service.run(.like(post: post.id.rawValue), as: bob.id)
        _ = try await service.run(.markActivityRead(upTo: "zzzzzzzzzzzzzzzzzzzz"), as: alice.id)
        #expect(try service.user(alice.id, viewer: alice.id).unreadActivity == 0)
        _ = try await service.addComment(by: bob.id, on: post.id)
        #expect(try service.user(alice.id, viewer: alice.id).unreadActivity == 1, "a later item came in read")
    }
}
