import Foundation
import Testing
import TimelineDomain

@testable import Timeline

/// Remote comments through the library (#43): a comment on another server's followers-only post
/// is taken from an account of that same server (the post's own server decides who may answer
/// it, and sends its followers the comments), and from no other server's account that does not
/// see the post here.
@Suite struct RemoteCommentTests {
    /// Records the remote account `name@host`.
    static func account(_ name: String, on host: String, _ service: TimelineService) async throws -> UserID {
        let actor = "https://\(host)/users/\(name)"
        let command = Command.recordRemoteAccount(
            actor: actor, username: name, inbox: actor + "/inbox", sharedInbox: "https://\(host)/inbox",
            keyId: actor + "#main-key", publicKey: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
            locked: false)
        return try #require(try await service.execute(command, as: .operator).profile).id
    }

    @Test func aFollowersOnlyPostsCommentsAreTakenFromItsOwnServerAlone() async throws {
        let service = try openService()
        let alice = try await Self.account("alice", on: "two.example", service)
        let carol = try await Self.account("carol", on: "two.example", service)
        let mallory = try await Self.account("mallory", on: "three.example", service)
        guard case .media(let photo) = try await service.run(.uploadMedia(image: gifBase64(1)), as: alice) else {
            Issue.record("no photo")
            return
        }
        guard
            case .post(let post) = try await service.execute(
                .receiveRemotePost(
                    author: alice.rawValue, object: "https://two.example/users/alice/statuses/1", caption: "Dusk",
                    media: [photo.id], visibility: .followers),
                as: .operator)
        else {
            Issue.record("no post")
            return
        }
        // Carol, of alice's own server, need not follow her here: two.example sent her comment.
        let comment = try await service.execute(
            .receiveRemoteComment(
                author: carol.rawValue, object: "https://two.example/users/carol/statuses/2", post: post.id.rawValue,
                text: "Lovely", replyTo: nil),
            as: .operator)
        guard case .comment = comment else {
            Issue.record("carol's comment was not taken: \(comment)")
            return
        }
        // Mallory, of another server, does not see the post here: as if it were not there.
        let before = try service.lastSequence()
        await expectError(.notFound) {
            _ = try await service.execute(
                .receiveRemoteComment(
                    author: mallory.rawValue, object: "https://three.example/users/mallory/statuses/3",
                    post: post.id.rawValue, text: "Let me in", replyTo: nil),
                as: .operator)
        }
        #expect(try service.lastSequence() == before)

        // Vouching counts a commenter as a follower, no more: a direct message of alice's to erin
        // is no post carol may answer, though she is of alice's server.
        let erin = try await service.createUser("erin").id
        guard
            case .post(let message) = try await service.execute(
                .receiveRemotePost(
                    author: alice.rawValue, object: "https://two.example/users/alice/statuses/4", caption: "Psst",
                    media: [], visibility: .direct, addressees: [erin.rawValue]),
                as: .operator)
        else {
            Issue.record("no message")
            return
        }
        await expectError(.notFound) {
            _ = try await service.execute(
                .receiveRemoteComment(
                    author: carol.rawValue, object: "https://two.example/users/carol/statuses/5",
                    post: message.id.rawValue, text: "Me too", replyTo: nil),
                as: .operator)
        }
    }
}
