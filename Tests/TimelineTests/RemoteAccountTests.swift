import Foundation
import Testing
import TimelineDomain

@testable import Timeline

/// Remote accounts through the library: another server's actor recorded as an account here
/// (`name@host`), once, again only when it changed; what is refused; and that it then acts as
/// any account does (it follows, and counts as a follower), while NodeInfo counts local users.
@Suite struct RemoteAccountTests {
    static let actor = "https://two.example/users/bob"

    /// `recordRemoteAccount` of bob at two.example, with `changes` applied.
    static func record(
        actor: String = actor, username: String = "Bob", inbox: String = actor + "/inbox", keyId: String? = nil,
        publicKey: String = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", locked: Bool = false
    ) -> Command {
        .recordRemoteAccount(
            actor: actor, username: username, inbox: inbox, sharedInbox: "https://two.example/inbox",
            keyId: keyId ?? actor + "#main-key", publicKey: publicKey, locked: locked)
    }

    static func seenEvents(_ service: TimelineService) throws -> [RemoteAccountSeen] {
        try service.events(limit: 1000).compactMap {
            if case .remoteAccountSeen(let e) = $0.event { e } else { nil }
        }
    }

    @Test func anActorIsRecordedOnceAndAgainWhenItChanges() async throws {
        let service = try openService()
        let first = try #require(try await service.execute(Self.record(), as: .operator).profile)
        #expect(first.username == "bob@two.example")
        let again = try #require(try await service.execute(Self.record(), as: .operator).profile)
        #expect(again.id == first.id)
        #expect(try Self.seenEvents(service).count == 1)
        // A new key (rotation): recorded again, the same account.
        let rotated = try #require(
            try await service.execute(
                Self.record(publicKey: "-----BEGIN PUBLIC KEY-----\nBBBB\n-----END PUBLIC KEY-----\n", locked: true),
                as: .operator
            ).profile)
        #expect(rotated.id == first.id && rotated.locked)
        #expect(try Self.seenEvents(service).count == 2)
        #expect(try service.remoteAccount(actor: Self.actor)?.publicKey.contains("BBBB") == true)
        #expect(try service.remoteAccount(first.id)?.actor == Self.actor)
    }

    @Test func whatIsRefused() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id
        await expectError(.forbidden) { _ = try await service.run(Self.record(), as: alice) }
        await expectError(.invalidArgument, field: "actor") {
            _ = try await service.execute(Self.record(actor: "http://two.example/users/bob"), as: .operator)
        }
        await expectError(.invalidArgument, field: "inbox") {
            _ = try await service.execute(Self.record(inbox: "https://three.example/inbox"), as: .operator)
        }
        await expectError(.invalidArgument, field: "keyId") {
            _ = try await service.execute(Self.record(keyId: "https://three.example/k#main-key"), as: .operator)
        }
        await expectError(.invalidArgument, field: "username") {
            _ = try await service.execute(Self.record(username: "bob@evil"), as: .operator)
        }
        _ = try await service.execute(Self.record(), as: .operator)
        // Another actor claiming the same handle on that host is not given it.
        await expectError(.conflict) {
            _ = try await service.execute(Self.record(actor: "https://two.example/users/bob2"), as: .operator)
        }
        #expect(try Self.seenEvents(service).count == 1)
    }

    @Test func aRemoteAccountFollowsAsAnyAccountDoesAndIsNotALocalUser() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id
        let usersBefore = try service.instanceUsage().users
        let bob = try #require(try await service.execute(Self.record(), as: .operator).profile).id
        try await service.run(.follow(user: alice.rawValue), as: bob)
        #expect(try service.follows(bob, alice))
        #expect(try service.user(alice).followerCount == 1)
        #expect(try service.followers(of: alice).items.map(\.username) == ["bob@two.example"])
        #expect(try service.instanceUsage().users == usersBefore)
        // Nobody signs in as it: it has no email and no password.
        await expectError(.invalidCredentials) {
            _ = try await service.execute(.signIn(email: "bob@two.example", password: "password-123"))
        }
    }

    /// Given bob at two.example writing to alice here, when his message comes in, then it is a
    /// direct message to her alone, in her conversations; she answers it in the same conversation,
    /// and his answer to hers joins it. A message addressed to nobody, one to an unknown user,
    /// one not direct with addressees, and a text-alone post that is no message are refused.
    @Test func aRemoteDirectMessageIsOneHereAndIsAnsweredInItsConversation() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id, carol = try await service.createUser("carol").id
        let bob = try #require(try await service.execute(Self.record(), as: .operator).profile).id
        func receive(_ n: Int, to addressees: [UserID], visibility: PostVisibility = .direct, answering: PostID? = nil)
            async throws -> PostID
        {
            let result = try await service.execute(
                .receiveRemotePost(
                    author: bob.rawValue, object: Self.actor + "/statuses/\(n)", caption: "@alice hello \(n)",
                    media: [], visibility: visibility, addressees: addressees.map(\.rawValue),
                    inReplyTo: answering?.rawValue),
                as: .operator)
            return try #require(result.post).id
        }
        let message = try await receive(1, to: [alice])
        let seen = try service.post(message, viewer: alice).post
        #expect(seen.visibility == .direct && seen.addressees == [alice] && seen.author == bob)
        await expectError(.notFound) { _ = try service.post(message, viewer: carol) }
        #expect(try service.conversations(of: alice).items.count == 1)
        #expect(try service.conversations(of: carol).items.isEmpty)
        // Her answer addresses him; his answer to it is in the same conversation.
        let answer = try #require(
            try await service.execute(
                .addDirectPost(caption: "hi back", inReplyTo: message.rawValue), as: .user(alice.rawValue)
            ).post
        ).id
        #expect(try service.post(answer, viewer: alice).post.addressees == [bob])
        let again = try await receive(2, to: [alice], answering: answer)
        #expect(try service.post(again, viewer: alice).post.inReplyTo == answer)
        #expect(try service.conversations(of: alice).items.count == 1)

        let before = try service.events(limit: 1000).count
        await expectError(.invalidArgument, field: "addressees") { _ = try await receive(3, to: []) }
        await expectError(.notFound) { _ = try await receive(4, to: [UserID("999999999999")]) }
        await expectError(.invalidArgument, field: "addressees") {
            _ = try await receive(5, to: [alice], visibility: .public)
        }
        await expectError(.invalidArgument, field: "image") {
            _ = try await receive(6, to: [], visibility: .public)
        }
        #expect(try service.events(limit: 1000).count == before)
    }

    @Test func theOperatorBlocksAndUnblocksAServer() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id
        await expectError(.forbidden) { _ = try await service.run(.blockDomain(host: "evil.example"), as: alice) }
        for bad in ["", "evil example", "evil.example:http", "EVIL.example/path", String(repeating: "a", count: 300)] {
            await expectError(.invalidArgument, field: "host") {
                _ = try await service.execute(.blockDomain(host: bad), as: .operator)
            }
        }
        #expect(try await service.execute(.blockDomain(host: "Evil.Example"), as: .operator) == .changed(true))
        #expect(try await service.execute(.blockDomain(host: "evil.example"), as: .operator) == .changed(false))
        #expect(try service.blockedDomains() == ["evil.example"])
        #expect(try service.isBlocked(serverOf: "https://evil.example/users/x"))
        #expect(try !service.isBlocked(serverOf: "https://evil.example:8443/users/x"))
        #expect(try service.isBlocked(serverOf: "not a url"))
        _ = try await service.execute(
            .recordRemoteAccount(
                actor: "https://evil.example/users/bob", username: "bob", inbox: "https://evil.example/inbox",
                sharedInbox: nil, keyId: "https://evil.example/users/bob#main-key",
                publicKey: "-----BEGIN PUBLIC KEY-----\nAAAA\n", locked: false), as: .operator)
        #expect(try service.peers() == [])
        #expect(try await service.execute(.unblockDomain(host: "evil.example"), as: .operator) == .changed(true))
        #expect(try service.peers() == ["evil.example"])
    }
}
