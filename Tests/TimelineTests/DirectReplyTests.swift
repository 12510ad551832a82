import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// A direct answer in a conversation (`addPost`'s `inReplyTo`): it addresses the answered
/// message's other participants (no block either way) besides whom it mentions, so it is a
/// message of the same conversation; only a direct post may answer, only a direct post the
/// sender sees may be answered, and a scheduled post answers nothing.
@Suite struct DirectReplyTests {
    @Test func anAnswerStaysInItsConversation() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id
        let carol = try await service.createUser("carol").id, eve = try await service.createUser("eve").id
        let first = try #require(
            try await service.run(.addDirectPost(caption: "@bob @carol picnic?"), as: alice).post)
        let answer = try #require(
            try await service.run(.addDirectPost(caption: "yes", inReplyTo: first.id.rawValue), as: bob).post)
        #expect(Set(answer.addressees) == [alice, carol], "\(answer.addressees)")
        for user in [alice, bob, carol] {
            let conversations = try service.conversations(of: user).items
            #expect(conversations.count == 1 && conversations.first?.lastPost.id == answer.id, "\(conversations)")
        }
        #expect(try service.conversations(of: eve).items.isEmpty)
        // Eve cannot answer what she does not see (not_found, as an unknown id).
        await expectError(.notFound) {
            try await service.run(.addDirectPost(caption: "me too", inReplyTo: first.id.rawValue), as: eve)
        }
        // Carol blocks bob: bob's answer leaves her out (another conversation), as a mention would.
        try await service.run(.block(user: bob.rawValue), as: carol)
        let narrow = try #require(
            try await service.run(.addDirectPost(caption: "ok", inReplyTo: answer.id.rawValue), as: bob).post)
        #expect(narrow.addressees == [alice], "\(narrow.addressees)")
        // Only a direct post answers, and only a direct post is answered.
        let photo = try await service.addPost(by: alice, caption: "public", image: 1)
        await expectError(.invalidArgument, field: "inReplyTo") {
            try await service.run(.addDirectPost(caption: "hm", inReplyTo: photo.id.rawValue), as: bob)
        }
        await expectError(.invalidArgument, field: "inReplyTo") {
            let command = try Catalogue.command(
                named: "addPost",
                JSONInput(object: ["image": .string(gifBase64(2)), "inReplyTo": .string(first.id.rawValue)]))
            try await service.run(command, as: bob)
        }
    }
}
