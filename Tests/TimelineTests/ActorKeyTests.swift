import Foundation
import HTTPSignatures
import OpenSSL
import Testing
import TimelineDomain

@testable import Timeline

/// Federation's actor keys through the library: made once, the first time an actor is asked
/// for; the operator's command only; the private key sealed (never in clear in the database),
/// signing what its public key verifies; gone with an erased user.
@Suite struct ActorKeyTests {
    @Test func anActorsKeyIsMadeOnceAndSigns() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id
        let first = try await service.actorPublicKey(of: alice)
        #expect(first.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(try await service.actorPublicKey(of: alice) == first)
        let created = try service.events(limit: 1000).filter {
            if case .actorKeyCreated = $0.event { true } else { false }
        }
        #expect(created.count == 1)
        // A second command finds it made: nothing changes.
        let again = try await service.execute(.createActorKey(user: alice.rawValue), as: .operator)
        #expect(again == .changed(false))
        // The signing key is the public key's other half.
        let key = try await service.actorSigningKey(of: alice)
        var message = SignedMessage(method: "POST", uri: "https://two.example/inbox", body: Array("{}".utf8))
        try HTTPSigner.signCavage(&message, keyId: "k", key: key, at: Date())
        try ReceivedSignature.parse(message, now: Date()).verify(with: try RSAKey(publicPEM: first))
    }

    @Test func onlyTheOperatorMakesAnActorKey() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id
        await #expect(throws: TimelineError.self) {
            try await service.run(.createActorKey(user: alice.rawValue), as: alice)
        }
        await #expect(throws: TimelineError.self) {
            try await service.execute(.createActorKey(user: "nobody"), as: .operator)
        }
        #expect(try service.read { view in try view.hasActorKey(alice) } == false)
    }

    @Test func thePrivateKeyIsSealedAndGoesWithErasure() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let alice = try await service.createUser("alice").id
        let pem = try await service.actorSigningKey(of: alice).privatePEM()
        // Sealed: its text is nowhere in the database's files.
        let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
        #expect(body.count > 40)
        for file in try FileManager.default.subpathsOfDirectory(atPath: path) {
            guard let data = FileManager.default.contents(atPath: path + "/" + file) else { continue }
            #expect(data.range(of: Data(body.utf8)) == nil, "\(file) holds the private key in clear")
        }
        try await service.run(.eraseUser(user: alice.rawValue, password: "password-123"), as: alice)
        #expect(try service.read { view in try view.hasActorKey(alice) } == false)
        let sealed = try service.events(limit: 1000).compactMap { envelope -> ActorKeyCreated? in
            if case .actorKeyCreated(let event) = envelope.event { event } else { nil }
        }
        #expect(sealed.count == 1)
        #expect(sealed.first?.privateKey == nil, "the erased user's private key can still be read")
        await #expect(throws: TimelineError.self) { try await service.actorSigningKey(of: alice) }
    }
}
