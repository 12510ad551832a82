import Foundation
import Testing
@testable import Timeline
import TimelineImport

/// `timeline import firebase` on a fixture built from the seed's samples plus messy cases.
@Suite struct ImportTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/firebase-export.json"
    ).path

    @Test func importsWhatIsValidAndReportsWhatIsNot() throws {
        let service = try openService()
        let report = try service.importFirebase(path: Self.fixture)
        #expect(report.imported == ["users": 4, "follows": 4, "posts": 2, "comments": 2, "likes": 2], "\(report.text)")
        let reasons = report.skipped.mapValues(\.count)
        #expect(reasons["username taken"] == 1)  // LEIA (zz-dup-uid) after Leia: users are taken in uid order
        #expect(reasons["invalid or missing username"] == 2)  // "not valid!" and none at all
        #expect(reasons["invalid user id"] == 1)  // a key with spaces
        #expect(reasons["invalid url dropped"] == 1)  // javascript: url
        #expect(reasons["follow of an unknown user"] == 3)  // the seed's two unknown uids, and ghost
        #expect(reasons["self-follow"] == 1)
        #expect(reasons["duplicate like"] == 1)  // the seed's sample likes twice
        #expect(reasons["not an image"] == 2)  // text, and invalid base64
        #expect(reasons["missing image"] == 1)
        #expect(reasons["post by an unknown user"] == 1)
        #expect(reasons["malformed post"] == 1)
        #expect(reasons["invalid comment text"] == 1)
        #expect(reasons["comment by an unknown user"] == 1)
        #expect(reasons["unknown section"] == 1)
        #expect(report.skipped["duplicate like"]?.examples == ["posts/-K25Fj8qrMAtxXG3QCSn/likes/-K28xx1BC5pnQNXDxym6"])

        // Identifiers are kept; the data is queryable.
        let caleb = try service.user(UserID("17c014cb-5cc1-4884-977b-471482d9e484"))
        #expect(
            caleb.username == "calebhicks" && caleb.bio == "I wear fancy pants. "
                && caleb.url == "http://calebhicks.com/")
        let post = try service.post(PostID("-K25Fj8qrMAtxXG3QCSn"), viewer: caleb.id)
        #expect(
            post.post.likeCount == 1 && post.likedByViewer
                && post.comments.items.map(\.text) == ["I'd love to cliff dive off that.", "Who wants in?"])
        #expect(try service.user(named: "leia").followerCount == 2)  // hansolo (followers/) and luke (following/)
        #expect(try service.hashtag("obiwan").items.map(\.id) == [PostID("-K26AAAAAAAAAAAAAAAA")])
        #expect(try service.timeline(of: caleb.id).items.map(\.id) == [PostID("-K25Fj8qrMAtxXG3QCSn")])
        // Through the image pipeline: an opaque GIF becomes a JPEG, in variants.
        #expect(try service.image(post.post.image).mediaType == .jpeg)
        #expect(post.post.width == 2 && post.post.height == 1 && post.post.variants?.full == post.post.image)

        // Event times come from the push ids; content is appended in push-id order.
        let events = try service.events(from: 1)
        let postAdded = try #require(
            events.first {
                if case .postAdded(let e) = $0.event { e.postId.rawValue == "-K25Fj8qrMAtxXG3QCSn" } else { false }
            })
        #expect(postAdded.timestamp == PushIDGenerator.timestamp(of: "-K25Fj8qrMAtxXG3QCSn"))
        let contentIDs: [String] = events.compactMap {
            switch $0.event {
            case .postAdded(let e): e.postId.rawValue
            case .commentAdded(let e): e.commentId.rawValue
            default: nil
            }
        }
        #expect(contentIDs == contentIDs.sorted())
        #expect(events.firstIndex { $0.type == .postAdded }! > events.lastIndex { $0.type == .followed }!)
        #expect(try service.verifyLog().isValid)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func runningItAgainAddsNothing() throws {
        let service = try openService()
        _ = try service.importFirebase(path: Self.fixture)
        let sequence = try service.lastSequence()
        let again = try service.importFirebase(path: Self.fixture)
        #expect(again.totalImported == 0, "\(again.text)")
        #expect(again.alreadyPresent == ["users": 4, "follows": 4, "posts": 2, "comments": 2, "likes": 2])
        #expect(try service.lastSequence() == sequence)
        // No scratch databases are left behind.
        #expect(try service.environment.read { txn in try txn.databaseNames() }.allSatisfy { !$0.hasPrefix("import.") })
    }

    @Test func importedUsersSetAPasswordWithAResetToken() async throws {
        let service = try openService()
        _ = try service.importFirebase(path: Self.fixture)
        let leia = try service.user(named: "leia")
        // No password yet: signing in fails even with the email.
        await expectError(.invalidCredentials) {
            _ = try await service.execute(.signIn(email: "leia@alderaan.example", password: "anything-1"))
        }
        let token = try #require(
            try await service.execute(.requestPasswordReset(user: leia.id.rawValue), as: .operator).token)
        _ = try await service.execute(.resetPassword(token: token, password: "new-hope-1977", email: nil))
        let user = try #require(
            try await service.execute(.signIn(email: "leia@alderaan.example", password: "new-hope-1977")).session
        ).user
        #expect(user.id == leia.id)
        // A user imported without an email sets one with the reset.
        let han = try service.user(named: "hansolo")
        let hanToken = try #require(
            try await service.execute(.requestPasswordReset(user: han.id.rawValue), as: .operator).token)
        _ = try await service.execute(
            .resetPassword(token: hanToken, password: "shot-first-1", email: "han@falcon.example"))
        try #require(
            try await service.execute(.signIn(email: "han@falcon.example", password: "shot-first-1")).session != nil,
            "sign-in failed")
    }

    @Test func malformedExportsFailCleanly() throws {
        let service = try openService()
        let path = temporaryPath("broken.json")
        try #"{"users": {"a": {"username": "x"}}, "posts": "#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: TimelineError.self) { try service.importFirebase(path: path) }
        #expect(throws: TimelineError.self) { try service.importFirebase(path: "/nonexistent/export.json") }
        #expect(try service.verifyLog().isValid)
    }

    /// A generated export far larger than one chunk, with many records per section.
    @Test func largeGeneratedExportsStream() throws {
        var users: [String: Any] = [:], posts: [String: Any] = [:], images: [String: Any] = [:]
        var ids = PushIDGenerator(random: { 42 })
        for index in 0..<300 {
            users["u\(index)"] = ["username": "user\(index)", "follows": ["u\((index + 1) % 300)": true]]
        }
        for index in 0..<600 {
            let post = ids.next(at: 1_450_000_000_000 + Int64(index) * 1000)
            let image = "img\(index)"
            images[image] = Data(noisePNG(index, side: 32)).base64EncodedString()
            posts[post] = [
                "username": "user\(index % 300)", "imageEndpoint": image, "caption": "post \(index) #n\(index % 7)",
                "likes": [
                    ids.next(at: 1_460_000_000_000 + Int64(index)): [
                        "post": post, "username": "user\((index + 3) % 300)"
                    ]
                ]
            ]
        }
        let path = temporaryPath("big.json")
        try JSONSerialization.data(withJSONObject: ["users": users, "posts": posts, "images": images]).write(
            to: URL(fileURLWithPath: path))
        let service = try openService()
        let report = try service.importFirebase(path: path)
        #expect(report.imported == ["users": 300, "follows": 300, "posts": 600, "likes": 600], "\(report.text)")
        #expect(report.totalSkipped == 0)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }
}
