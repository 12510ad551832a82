import Foundation
import Testing
@testable import Timeline

/// Every command's success and every error code, on a real LMDB database; a failed command
/// appends nothing.
@Suite struct CommandTests {
    /// Runs `body`, expecting `code`, and checks that the log did not grow.
    func expectRefused(
        _ service: TimelineService, _ code: TimelineError.Code, field: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async throws {
        let before = try service.lastSequence()
        await expectError(code, field: field, sourceLocation: sourceLocation, body)
        #expect(
            try service.lastSequence() == before, "a failed command appended events", sourceLocation: sourceLocation)
    }

    @Test func createUserAndProfileQueries() async throws {
        let service = try openService()
        let alice = try await service.createUser("Alice")
        #expect(alice.username == "alice")
        #expect(try service.user(alice.id) == alice)
        #expect(try service.user(named: "ALICE").id == alice.id)
        try await expectRefused(service, .usernameTaken, field: "username") {
            _ = try await service.createUser("alice")
        }
        try await expectRefused(service, .emailTaken, field: "email") {
            _ = try await service.execute(
                .createUser(username: "other", email: "ALICE@example.com", password: "password-1", bio: nil, url: nil))
        }
        try await expectRefused(service, .invalidArgument, field: "password") {
            _ = try await service.execute(
                .createUser(username: "short", email: "s@example.com", password: "1234567", bio: nil, url: nil))
        }
        try await expectRefused(service, .invalidArgument, field: "url") {
            _ = try await service.execute(
                .createUser(
                    username: "u", email: "u@example.com", password: "password-1", bio: nil, url: "file:///etc/passwd"))
        }
        try await expectRefused(service, .invalidArgument, field: "bio") {
            _ = try await service.execute(
                .createUser(
                    username: "b", email: "b@example.com", password: "password-1",
                    bio: String(repeating: "x", count: 151), url: nil))
        }
        await expectError(.notFound) { _ = try service.user(UserID("nobody")) }
        await expectError(.notFound) { _ = try service.user(named: "nobody") }
    }

    @Test func signInSessionsAndSignOut() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice", password: "correct horse")
        let (token, user) = try #require(
            try await service.execute(.signIn(email: "Alice@Example.com", password: "correct horse")).session)
        #expect(user.id == alice.id)
        #expect(token.utf8.count == 43)
        // The session acts as alice.
        let bob = try await service.createUser("bob")
        #expect(try await service.execute(.follow(user: bob.id.rawValue), as: .session(token)) == .changed(true))
        #expect(try service.follows(alice.id, bob.id))
        // Wrong password and unknown email look the same; each failure is recorded.
        let before = try service.lastSequence()
        await expectError(.invalidCredentials) {
            _ = try await service.execute(.signIn(email: "alice@example.com", password: "wrong-one"))
        }
        await expectError(.invalidCredentials) {
            _ = try await service.execute(.signIn(email: "ghost@example.com", password: "wrong-one"))
        }
        #expect(try service.lastSequence() == before + 2)
        // Rate limited after repeated failures; the limit refuses even the right password.
        for _ in 0..<4 {
            await expectError(.invalidCredentials) {
                _ = try await service.execute(.signIn(email: "alice@example.com", password: "nope-nope"))
            }
        }
        try await expectRefused(service, .rateLimited) {
            _ = try await service.execute(.signIn(email: "alice@example.com", password: "correct horse"))
        }
        clock.advance(SignInPolicy.window + 1)
        try #require(
            try await service.execute(.signIn(email: "alice@example.com", password: "correct horse")).session != nil,
            "sign-in after the window failed")
        // Sign-out kills the session.
        #expect(try await service.execute(.signOut(session: token)) == .done)
        try await expectRefused(service, .unauthenticated) {
            _ = try await service.execute(.like(post: "x"), as: .session(token))
        }
        try await expectRefused(service, .unauthenticated) { _ = try await service.execute(.signOut(session: token)) }
        // Expiry.
        let token2 = try #require(
            try await service.execute(.signIn(email: "alice@example.com", password: "correct horse")).session
        ).token
        clock.advance(service.options.sessionLifetime + 1)
        try await expectRefused(service, .unauthenticated) {
            _ = try await service.execute(.follow(user: bob.id.rawValue), as: .session(token2))
        }
        try await expectRefused(service, .unauthenticated) {
            _ = try await service.execute(.follow(user: bob.id.rawValue))
        }
        try await expectRefused(service, .unauthenticated) {
            _ = try await service.execute(.follow(user: bob.id.rawValue), as: .user("ghost"))
        }
    }

    @Test func passwordResetFlow() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice", password: "old-password")
        let bob = try await service.createUser("bob")
        // Only an operator may ask for a token (CredentialTests has the rest of the rules).
        try await expectRefused(service, .forbidden) {
            try await service.run(.requestPasswordReset(user: alice.id.rawValue), as: bob.id)
        }
        let token = try #require(
            try await service.execute(.requestPasswordReset(user: alice.id.rawValue), as: .operator).token)
        try await expectRefused(service, .invalidArgument, field: "password") {
            _ = try await service.execute(.resetPassword(token: token, password: "short", email: nil))
        }
        try await expectRefused(service, .emailTaken, field: "email") {
            _ = try await service.execute(
                .resetPassword(token: token, password: "new-password", email: "bob@example.com"))
        }
        let profile = try #require(
            try await service.execute(
                .resetPassword(token: token, password: "new-password", email: "alice2@example.com")
            ).profile)
        #expect(profile.id == alice.id)
        // The token is spent; the new password and email work, the old ones do not.
        try await expectRefused(service, .unauthenticated, field: "token") {
            _ = try await service.execute(.resetPassword(token: token, password: "again-password", email: nil))
        }
        await expectError(.invalidCredentials) {
            _ = try await service.execute(.signIn(email: "alice@example.com", password: "old-password"))
        }
        try #require(
            try await service.execute(.signIn(email: "alice2@example.com", password: "new-password")).session != nil,
            "sign-in with the new password failed")
        // Tokens expire.
        let late = try #require(
            try await service.execute(.requestPasswordReset(user: alice.id.rawValue), as: .operator).token)
        clock.advance(SignInPolicy.resetLifetime + 1)
        try await expectRefused(service, .unauthenticated) {
            _ = try await service.execute(.resetPassword(token: late, password: "whatever-1", email: nil))
        }
    }

    @Test func updateProfile() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        _ = try await service.createUser("bob")
        let result = try await service.run(
            .updateProfile(username: "Alice.B", bio: "hello", url: "https://a.example"), as: alice.id)
        let profile = try #require(result.profile)
        #expect(profile.username == "alice.b" && profile.bio == "hello" && profile.url == "https://a.example")
        #expect(try service.user(named: "alice.b").id == alice.id)
        await expectError(.notFound) { _ = try service.user(named: "alice") }
        try await expectRefused(service, .usernameTaken) {
            try await service.run(.updateProfile(username: "BOB", bio: nil, url: nil), as: alice.id)
        }
        // No change appends nothing.
        let before = try service.lastSequence()
        try await service.run(.updateProfile(username: "alice.b", bio: "hello", url: nil), as: alice.id)
        #expect(try service.lastSequence() == before)
        // Clearing the bio.
        try await service.run(.updateProfile(username: nil, bio: "", url: nil), as: alice.id)
        #expect(try service.user(alice.id).bio == nil)
    }

    @Test func followAndUnfollow() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        #expect(try await service.run(.follow(user: bob.id.rawValue), as: alice.id) == .changed(true))
        let before = try service.lastSequence()
        #expect(try await service.run(.follow(user: bob.id.rawValue), as: alice.id) == .changed(false))
        #expect(try service.lastSequence() == before)
        #expect(try service.user(bob.id).followerCount == 1 && service.user(alice.id).followingCount == 1)
        #expect(try service.followers(of: bob.id).items.map(\.id) == [alice.id])
        #expect(try service.following(of: alice.id).items.map(\.id) == [bob.id])
        #expect(try service.activity(of: bob.id).items.map(\.kind) == [.follow])
        #expect(try await service.run(.unfollow(user: bob.id.rawValue), as: alice.id) == .changed(true))
        #expect(try await service.run(.unfollow(user: bob.id.rawValue), as: alice.id) == .changed(false))
        #expect(try service.user(bob.id).followerCount == 0)
        #expect(try service.activity(of: bob.id).items.isEmpty)
        try await expectRefused(service, .invalidArgument, field: "user") {
            try await service.run(.follow(user: alice.id.rawValue), as: alice.id)
        }
        try await expectRefused(service, .notFound) { try await service.run(.follow(user: "nobody"), as: alice.id) }
        try await expectRefused(service, .invalidArgument, field: "user") {
            try await service.run(.follow(user: "bad id!"), as: alice.id)
        }
        await expectError(.notFound) { _ = try service.follows(alice.id, UserID("nobody")) }
    }

    @Test func postsImagesAndHashtags() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let post = try await service.addPost(by: alice.id, caption: "Sea e\u{301} #Sea #sky #sea", image: 5)
        #expect(post.hashtags == ["sea", "sky"])
        #expect(post.caption == "Sea é #Sea #sky #sea")
        #expect(try service.user(alice.id).postCount == 1)
        let image = try service.image(post.image)
        // Re-encoded by the image pipeline: an opaque GIF becomes a JPEG, sized as uploaded.
        #expect(image.mediaType == .jpeg && image.bytes.starts(with: [0xFF, 0xD8, 0xFF]) && image.bytes != gifBytes(5))
        #expect(post.width == 2 && post.height == 1 && post.variants?.full == post.image)
        #expect(try service.hashtag("#SEA").items.map(\.id) == [post.id])
        #expect(try service.posts(by: alice.id).items.map(\.id) == [post.id])
        // The same image is stored once.
        let again = try await service.addPost(by: alice.id, image: 5)
        #expect(again.image == post.image)
        try await expectRefused(service, .unsupportedMediaType, field: "image") {
            try await service.run(
                .addPost(image: Data("just text".utf8).base64EncodedString(), caption: nil), as: alice.id)
        }
        try await expectRefused(service, .invalidArgument, field: "image") {
            try await service.run(.addPost(image: "@@@", caption: nil), as: alice.id)
        }
        try await expectRefused(service, .payloadTooLarge, field: "image") {
            var big = gifBytes(1)
            big += [UInt8](repeating: 0, count: ImageUpload.maxBytes)
            try await service.run(.addPost(image: Data(big).base64EncodedString(), caption: nil), as: alice.id)
        }
        try await expectRefused(service, .invalidArgument, field: "caption") {
            try await service.run(
                .addPost(image: gifBase64(1), caption: String(repeating: "a", count: 2201)), as: alice.id)
        }
        try await expectRefused(service, .invalidArgument, field: "caption") {
            try await service.run(.addPost(image: gifBase64(1), caption: "bell \u{7}"), as: alice.id)
        }
        await expectError(.notFound) { _ = try service.image(ImageID("0000")) }
    }

    @Test func deletePostRemovesItEverywhere() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let post = try await service.addPost(by: alice.id, caption: "#gone")
        let comment = try await service.addComment(by: bob.id, on: post.id)
        try await service.run(.like(post: post.id.rawValue), as: bob.id)
        #expect(try service.timeline(of: bob.id).items.map(\.id) == [post.id])
        #expect(try service.activity(of: alice.id).items.map(\.kind) == [.like, .comment, .follow])
        try await expectRefused(service, .forbidden) {
            try await service.run(.deletePost(post: post.id.rawValue), as: bob.id)
        }
        #expect(try await service.run(.deletePost(post: post.id.rawValue), as: alice.id) == .done)
        #expect(try service.timeline(of: bob.id).items.isEmpty)
        #expect(try service.timeline(of: alice.id).items.isEmpty)
        #expect(try service.hashtag("gone").items.isEmpty)
        #expect(try service.posts(by: alice.id).items.isEmpty)
        #expect(try service.activity(of: alice.id).items.map(\.kind) == [.follow])
        #expect(try service.user(alice.id).postCount == 0)
        await expectError(.notFound) { _ = try service.post(post.id) }
        try await expectRefused(service, .notFound) {
            try await service.run(.deletePost(post: post.id.rawValue), as: alice.id)
        }
        try await expectRefused(service, .notFound) { try await service.run(.like(post: post.id.rawValue), as: bob.id) }
        try await expectRefused(service, .notFound) { _ = try await service.addComment(by: bob.id, on: post.id) }
        try await expectRefused(service, .notFound) {
            try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: bob.id)
        }
        try await expectRefused(service, .notFound) {
            try await service.run(.deleteComment(comment: comment.id.rawValue), as: bob.id)
        }
    }

    @Test func commentsLikesAndReports() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        let post = try await service.addPost(by: alice.id)
        var comments: [Timeline.Comment] = []
        for index in 0..<5 {
            comments.append(
                try await service.addComment(by: index % 2 == 0 ? bob.id : carol.id, on: post.id, "c\(index)"))
        }
        // Comments oldest first, paginated.
        var pages: [[String]] = []
        var request = PageRequest(limit: 2)
        while true {
            let detail = try service.post(post.id, viewer: bob.id, comments: request)
            pages.append(detail.comments.items.map(\.text))
            guard let next = detail.comments.next else { break }
            request.before = next
        }
        #expect(pages == [["c0", "c1"], ["c2", "c3"], ["c4"]])
        #expect(try service.post(post.id).post.commentCount == 5)
        // Likes.
        #expect(try await service.run(.like(post: post.id.rawValue), as: bob.id) == .changed(true))
        #expect(try await service.run(.like(post: post.id.rawValue), as: bob.id) == .changed(false))
        #expect(try service.post(post.id, viewer: bob.id).likedByViewer)
        #expect(try !service.post(post.id, viewer: carol.id).likedByViewer)
        #expect(try service.post(post.id).post.likeCount == 1)
        #expect(try await service.run(.unlike(post: post.id.rawValue), as: bob.id) == .changed(true))
        #expect(try await service.run(.unlike(post: post.id.rawValue), as: bob.id) == .changed(false))
        #expect(try service.post(post.id).post.likeCount == 0)
        // Deleting comments: own comment, or any comment on one's own post; not others'.
        try await expectRefused(service, .forbidden) {
            try await service.run(.deleteComment(comment: comments[0].id.rawValue), as: carol.id)
        }
        try await service.run(.deleteComment(comment: comments[0].id.rawValue), as: bob.id)
        try await service.run(.deleteComment(comment: comments[1].id.rawValue), as: alice.id)
        #expect(try service.post(post.id).post.commentCount == 3)
        try await expectRefused(service, .notFound) {
            try await service.run(.deleteComment(comment: comments[0].id.rawValue), as: bob.id)
        }
        try await expectRefused(service, .invalidArgument, field: "text") {
            _ = try await service.addComment(by: bob.id, on: post.id, "  \n ")
        }
        try await expectRefused(service, .invalidArgument, field: "text") {
            _ = try await service.addComment(by: bob.id, on: post.id, String(repeating: "x", count: 2201))
        }
        // Activity: comments by others on alice's post, newest first.
        let activity = try service.activity(of: alice.id).items
        #expect(activity.map(\.comment) == comments[2...].reversed().map(\.id))
        // Reports.
        try await expectRefused(service, .invalidArgument, field: "reason") {
            try await service.run(.reportPost(post: post.id.rawValue, reason: ""), as: bob.id)
        }
        #expect(
            try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: bob.id) == .changed(true))
        let last = try service.events(from: try service.lastSequence()).last
        #expect(last?.type == .postReported)
        // One report per reporter and post: a repeat is no event.
        let before = try service.lastSequence()
        #expect(
            try await service.run(.reportPost(post: post.id.rawValue, reason: "again"), as: bob.id) == .changed(false))
        #expect(try service.lastSequence() == before)
    }

    @Test func paginationRules() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        await expectError(.invalidArgument, field: "limit") { _ = try service.users(PageRequest(limit: 0)) }
        await expectError(.invalidArgument, field: "limit") { _ = try service.users(PageRequest(limit: 101)) }
        for index in 0..<25 { _ = try await service.createUser("user\(index)") }
        let first = try service.users()
        #expect(first.items.count == 20 && first.next != nil)
        let all = try service.all { try service.users($0) }
        #expect(all.count == 26)
        #expect(all.map(\.id) == all.map(\.id).sorted(by: >))
        #expect(all.last?.id == alice.id)
        let search = try service.all(limit: 3) { try service.searchUsers(prefix: "USER1", $0) }
        #expect(
            search.map(\.username) == [
                "user1", "user10", "user11", "user12", "user13", "user14", "user15", "user16", "user17", "user18",
                "user19"
            ])
        #expect(try service.searchUsers(prefix: "zz").items.isEmpty)
    }

    @Test func reopenKeepsEverythingAndTheChainVerifies() async throws {
        let path = temporaryPath()
        var service: TimelineService? = try openService(path: path, durable: true)
        let alice = try await service!.createUser("alice"), bob = try await service!.createUser("bob")
        try await service!.run(.follow(user: alice.id.rawValue), as: bob.id)
        let post = try await service!.addPost(by: alice.id, caption: "hello #world")
        let before = try service!.timeline(of: bob.id)
        let sequence = try service!.lastSequence()
        service!.close()
        service = nil
        let reopened = try openService(path: path, seed: 99)
        #expect(try reopened.timeline(of: bob.id) == before)
        #expect(try reopened.post(post.id, viewer: alice.id).post == post)
        #expect(try reopened.lastSequence() == sequence)
        let report = try reopened.verifyLog()
        #expect(report.isValid && report.eventsChecked == sequence)
        // Appending after reopen continues the same chain.
        _ = try await reopened.addPost(by: bob.id)
        #expect(try reopened.verifyLog().isValid)
        #expect(try reopened.events(from: 1).map(\.sequence) == Array(1...(sequence + 1)))
    }
}
