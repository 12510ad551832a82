import Foundation
import Testing
@testable import Timeline

/// Right to erasure by crypto-shredding: the user's personal data can no longer be read from the
/// log or any read model, their posts leave every timeline, and the hash chain still verifies.
@Suite struct ErasureTests {
    @Test func erasureShredsPersonalDataAndKeepsTheChain() async throws {
        let path = temporaryPath()
        let service = try openService(path: path, durable: true)
        let secrets = [
            "eve.secret@example.com", "Eve's very private bio", "https://eve.example/private",
            "A caption nobody may read again #evesecret", "A comment nobody may read again"
        ]
        _ = try await service.execute(
            .createUser(username: "eve", email: secrets[0], password: "password-123", bio: secrets[1], url: secrets[2]))
        let eve = try service.user(named: "eve").id
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: eve.rawValue), as: alice.id)
        try await service.run(.follow(user: alice.id.rawValue), as: eve)
        let imageBytes = gifBytes(0xE7E, comment: "EVE-IMAGE-PAYLOAD")
        let evePost = try #require(
            try await service.run(.addPost(image: Data(imageBytes).base64EncodedString(), caption: secrets[3]), as: eve)
                .post)
        let alicePost = try await service.addPost(by: alice.id, caption: "hello")
        _ = try await service.addComment(by: eve, on: alicePost.id, secrets[4])
        try await service.run(.like(post: alicePost.id.rawValue), as: eve)
        _ = try await service.addComment(by: bob.id, on: evePost.id, "bob on eve's post")
        #expect(try service.timeline(of: alice.id).items.map(\.id).contains(evePost.id))
        // What is stored are the pipeline's variants (the upload's comment stripped).
        let variants = try #require(evePost.variants)
        let storedImages = try [variants.full, variants.feed, variants.thumb].map { try service.image($0).bytes }
        for stored in storedImages {
            #expect(stored.count > 0 && Data(stored).range(of: Data("EVE-IMAGE-PAYLOAD".utf8)) == nil)
        }

        // Only the user (or an operator) may erase them.
        await expectError(.forbidden) {
            try await service.run(.eraseUser(user: eve.rawValue, password: "password-123"), as: bob.id)
        }
        try await service.run(.eraseUser(user: eve.rawValue, password: "password-123"), as: eve)

        // Gone from every read model and query.
        await expectError(.notFound) { _ = try service.user(eve) }
        await expectError(.notFound) { _ = try service.user(named: "eve") }
        await expectError(.notFound) { _ = try service.post(evePost.id) }
        for id in [variants.full, variants.feed, variants.thumb] {
            await expectError(.notFound) { _ = try service.image(id) }
        }
        #expect(try !service.timeline(of: alice.id).items.map(\.id).contains(evePost.id))
        #expect(try service.hashtag("evesecret").items.isEmpty)
        let detail = try service.post(alicePost.id)
        #expect(detail.post.likeCount == 0 && detail.comments.items.isEmpty && detail.post.commentCount == 0)
        #expect(try service.user(alice.id).followerCount == 0 && service.user(alice.id).followingCount == 0)
        #expect(try service.activity(of: alice.id).items.isEmpty)
        // The username and email are free again.
        _ = try await service.execute(
            .createUser(username: "eve", email: secrets[0], password: "password-123", bio: nil, url: nil))

        // The log still verifies; audit shows that an erasure happened, not what was erased.
        #expect(try service.verifyLog().isValid)
        let audit = try service.events(from: 1, limit: 10_000)
        #expect(audit.contains { $0.type == .userErased })
        let json = audit.map { $0.jsonLine() }.joined(separator: "\n")
        for secret in secrets.dropFirst() { #expect(!json.contains(secret), "the log still shows \(secret)") }
        #expect(audit.filter { $0.erased }.count >= 3)
        // A rebuild from the shredded log equals the live read models.
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)

        // Physically: the key file is gone, and a compacted copy holds none of the plaintext.
        #expect(!FileManager.default.fileExists(atPath: path + "/keys/user-\(eve).key"))
        #expect(
            FileManager.default.fileExists(atPath: path + "/keys/user-\(alice.id).key"), "other users keep their keys")
        let copy = temporaryPath("copy")
        try service.backup(to: copy)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: copy + "/data.mdb"))
        for secret in secrets.dropFirst() + ["EVE-IMAGE-PAYLOAD"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is recoverable from the database")
        }
        for stored in storedImages {
            #expect(bytes.range(of: Data(stored)) == nil, "an image of eve's is recoverable from the database")
        }
    }

    @Test func anOperatorCanEraseAndErasingTwiceIsNotFound() async throws {
        let service = try openService()
        let eve = try await service.createUser("eve")
        _ = try await service.addPost(by: eve.id)
        _ = try await service.execute(.eraseUser(user: eve.id.rawValue), as: .operator)
        await expectError(.notFound) { _ = try await service.execute(.eraseUser(user: eve.id.rawValue), as: .operator) }
        await expectError(.unauthenticated) { _ = try await service.execute(.eraseUser(user: eve.id.rawValue)) }
    }
}
