import Foundation
import Testing
import TimelineFederation

/// The inbox against a real `timeline serve` and a peer server written in Python
/// (Tests/federation/test_inbox.py, peer.py): the peer serves its actor over HTTPS on loopback
/// under a certificate of the test's own authority (made here with the openssl command line),
/// signs with httpsig and http-message-signatures, and checks the Accept it is sent with
/// httpsig; forged, stale, tampered, oversized and wrong-host requests change nothing.
@Suite struct FederationInboxTests {
    /// A test authority and a certificate for `localhost` signed by it, in `directory`.
    static func makeCertificates(in directory: String) async throws {
        let steps = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=Timeline test CA"
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "peer.key", "-out", "peer.csr", "-subj",
                "/CN=localhost"
            ],
            [
                "x509", "-req", "-in", "peer.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "peer.pem", "-days", "2", "-extfile", "san.ext"
            ]
        ]
        try "subjectAltName=DNS:localhost,DNS:one.test,DNS:two.test,DNS:three.test,IP:127.0.0.1\n".write(
            toFile: directory + "/san.ext", atomically: true, encoding: .utf8)
        for arguments in steps {
            let step = try ChildProcess(
                arguments, executable: URL(fileURLWithPath: "/usr/bin/openssl"),
                directory: URL(fileURLWithPath: directory))
            let status = await step.exitStatus(within: .seconds(60))
            try #require(status == 0, "openssl \(arguments): \(step.standardError)")
        }
    }

    @Test(.timeLimit(.minutes(3))) func aPeerFollowsAndIsAcceptedAndForgeriesAreRefused() async throws {
        let directory = temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try await Self.makeCertificates(in: directory)
        let arguments = ["--federation-allow-private", "--federation-ca-file", directory + "/ca.pem"]
        // Retries after (n⁴ + 15) × 20 ms, not seconds.
        // A server failing for 1.5 s is set aside, and probed every 1.5 s.
        let environment = ["TIMELINE_FEDERATION_RETRY_UNIT_MS": "20", "TIMELINE_FEDERATION_SET_ASIDE_MS": "1500"]
        try await withServer(arguments: arguments, environment: environment) {
            server in
            let script = SchemaTests.root.appendingPathComponent("Tests/federation/test_inbox.py").path
            let run = try ChildProcess(
                [
                    "python3", script, "http://127.0.0.1:\(server.port)", directory + "/peer.pem",
                    directory + "/peer.key", server.database, try timelineExecutable().path, server.operations.base
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(150))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - none of them followed carol"), "\(text)")
            #expect(!text.contains("not ok"), "\(text)")
        }
    }

    @Test(.timeLimit(.minutes(2))) func aLoopbackActorIsFetchedOnlyWhenPrivateAddressesAreAllowed() async throws {
        let directory = temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try await Self.makeCertificates(in: directory)
        let script = SchemaTests.root.appendingPathComponent("Tests/federation/serve_actor.py").path
        let peer = try ChildProcess(
            ["python3", script, directory + "/peer.pem", directory + "/peer.key"],
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        defer { peer.signal(SIGKILL) }
        let printed = await peer.waitForOutput(within: .seconds(60)) { $0.contains("\n") }
        let actor = try #require(printed?.split(separator: "\n").first.map(String.init), "\(peer.standardError)")
        // As a server on the Internet runs: the loopback peer is refused before any request.
        let closed = FederationClient(options: FederationClient.Options())
        await #expect(throws: FederationError.self) { try await closed.fetchActor(actor) }
        var options = FederationClient.Options()
        options.allowPrivate = true
        // Private addresses allowed but the test authority not trusted: its certificate is refused.
        await #expect(throws: FederationError.self) { try await FederationClient(options: options).fetchActor(actor) }
        options.caFile = directory + "/ca.pem"
        let fetched = try await FederationClient(options: options).fetchActor(actor)
        #expect(fetched.id == actor && fetched.username == "peer" && fetched.keyId == actor + "#main-key")
        #expect(fetched.publicKey.hasPrefix("-----BEGIN PUBLIC KEY-----"))
    }
}

/// Three Timeline servers federating through nginx with TLS (Tests/federation/test_three_servers.py):
/// follows open and locked, an album with alt texts in the follower's exact home timeline, its
/// photos re-encoded by the follower's server, followers-only and direct posts kept to whom they
/// are for, likes, answers, boosts (seen on a third server), edits, deletions and blocks seen on
/// the other side, and a delivery queued when the server was killed sent after its restart.
@Suite struct ThreeServersFederateTests {
    @Test(.timeLimit(.minutes(4))) func threeServersFollowPostLikeAnswerBoostEditDeleteAndBlock() async throws {
        let directory = temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try await FederationInboxTests.makeCertificates(in: directory)
        let script = SchemaTests.root.appendingPathComponent("Tests/federation/test_three_servers.py").path
        let run = try ChildProcess(
            ["python3", script, try timelineExecutable().path, directory],
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = await run.exitStatus(within: .seconds(200))
        let text = run.standardOutput + run.standardError
        #expect(status == 0, "\(text)")
        #expect(text.contains("ok - done"), "\(text)")
    }
}
