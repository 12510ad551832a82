import Foundation
import Sodium
import Testing
@testable import Timeline

/// Secrets never at rest in clear, no acting for others, and races that must keep invariants.
@Suite struct SecurityTests {
    /// Tokens, PKCE challenges and CSRF tokens are base64url without padding: RFC 4648's test
    /// vectors (§10, in the URL-safe alphabet of §5), and a token's size.
    @Test func base64URLIsRFC4648() {
        let vectors = [
            "": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"
        ]
        for (text, encoded) in vectors { #expect(Sodium.base64URL(Array(text.utf8)) == encoded) }
        #expect(Sodium.base64URL([0xFB, 0xFF, 0xBF]) == "-_-_")
        let token = Sodium.randomToken(32)
        #expect(token.count == 43 && token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(Sodium.randomToken(32) != token)
    }

    @Test func noClearPasswordOrTokenAnywhere() async throws {
        let path = temporaryPath()
        let service = try openService(path: path, durable: true) { $0.passwordCost = .interactive }
        let password = "Correct-Horse-Battery-Staple-42"
        _ = try await service.execute(
            .createUser(username: "alice", email: "alice@example.com", password: password, bio: nil, url: nil))
        let (token, user) = try #require(
            try await service.execute(.signIn(email: "alice@example.com", password: password)).session)
        _ = try await service.execute(.addPost(image: gifBase64(1), caption: "hello"), as: .session(token))
        _ = try? await service.execute(.signIn(email: "alice@example.com", password: password + "-wrong"))
        #expect(try service.events(from: 1).contains { $0.type == .userCreated })
        let audit = try service.events(from: 1).map { $0.jsonLine() }.joined(separator: "\n")
        service.close()
        var files = Data()
        for name in ["data.mdb", "lock.mdb", "derived/data.mdb", "derived/lock.mdb"] {
            files.append(try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))
        }
        for secret in [password, token, password + "-wrong"] {
            #expect(files.range(of: Data(secret.utf8)) == nil, "a secret is stored in clear")
            #expect(!audit.contains(secret))
        }
        #expect(!audit.contains("$argon2id$"), "audit output must redact password hashes")
        #expect(
            files.range(of: Data("$argon2id$v=19$m=65536".utf8)) != nil, "the interactive-cost hash is what is stored")
        _ = user
    }

    @Test func aSessionActsOnlyAsItsUser() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let post = try await service.addPost(by: alice.id)
        let bobToken = try #require(
            try await service.execute(.signIn(email: "bob@example.com", password: "password-123")).session
        ).token
        await expectError(.forbidden) {
            _ = try await service.execute(.deletePost(post: post.id.rawValue), as: .session(bobToken))
        }
        let comment = try await service.addComment(by: alice.id, on: post.id)
        await expectError(.forbidden) {
            _ = try await service.execute(.deleteComment(comment: comment.id.rawValue), as: .session(bobToken))
        }
        let profile = try #require(
            try await service.execute(.updateProfile(username: nil, bio: "mine", url: nil), as: .session(bobToken))
                .profile)
        let aliceBio = try service.user(alice.id).bio
        #expect(profile.id == bob.id && aliceBio == nil)
        // A forged token acts for nobody.
        await expectError(.unauthenticated) {
            _ = try await service.execute(.like(post: post.id.rawValue), as: .session(bobToken + "x"))
        }
        await expectError(.unauthenticated) {
            _ = try await service.execute(.like(post: post.id.rawValue), as: .session(""))
        }
    }

    @Test func renamesToOneNameHaveOneWinner() async throws {
        let service = try openService()
        var users: [UserID] = []
        for index in 0..<10 { users.append(try await service.createUser("racer\(index)").id) }
        let wins = await withTaskGroup(of: Bool.self) { group in
            for user in users {
                group.addTask {
                    (try? await service.run(.updateProfile(username: "prize", bio: nil, url: nil), as: user)) != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        #expect(try service.all { try service.users($0) }.filter { $0.username == "prize" }.count == 1)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func likeUnlikeAndFollowUnfollowRacesKeepCountsTrue() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let post = try await service.addPost(by: alice.id)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for step in 0..<20 {
                        let command: Command =
                            switch (task + step) % 4 {
                            case 0: .like(post: post.id.rawValue)
                            case 1: .unlike(post: post.id.rawValue)
                            case 2: .follow(user: alice.id.rawValue)
                            default: .unfollow(user: alice.id.rawValue)
                            }
                        _ = try? await service.run(command, as: bob.id)
                    }
                }
            }
        }
        let events = try service.events(from: 1)
        let likes = events.filter { $0.type == .likeAdded }.count - events.filter { $0.type == .likeRemoved }.count
        let follows = events.filter { $0.type == .followed }.count - events.filter { $0.type == .unfollowed }.count
        #expect((0...1).contains(likes) && (0...1).contains(follows))
        #expect(try service.post(post.id).post.likeCount == likes)
        #expect(try service.user(alice.id).followerCount == follows)
        #expect(try service.follows(bob.id, alice.id) == (follows == 1))
    }
}
