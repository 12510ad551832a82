import Foundation
import Testing

/// Federation's discovery and documents against a real `timeline serve`
/// (Tests/federation/test_discovery.py), read with Python's requests, cryptography and
/// jsonschema as another server reads them: WebFinger, the actor and its key, the outbox's
/// notes (a followers-only post served to no one), NodeInfo 2.1 against its own schema,
/// host-meta, content negotiation; once on the origin the request reached, once behind
/// `--domain` (every request naming that host, every id `https://` it).
@Suite struct FederationDiscoveryTests {
    func run(_ server: ServerProcess, _ extra: [String]) async throws {
        let script = SchemaTests.root.appendingPathComponent("Tests/federation/test_discovery.py").path
        let run = try ChildProcess(
            ["python3", script, "http://127.0.0.1:\(server.port)"] + extra,
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = await run.exitStatus(within: .seconds(120))
        let text = run.standardOutput + run.standardError
        #expect(status == 0, "\(text)")
        #expect(text.contains("ok - host-meta points at WebFinger"), "\(text)")
        #expect(!text.contains("not ok"), "\(text)")
    }

    @Test(.timeLimit(.minutes(3))) func onTheOriginReached() async throws {
        try await withServer { server in try await run(server, []) }
    }

    @Test(.timeLimit(.minutes(3))) func behindADomain() async throws {
        try await withServer(arguments: ["--domain", "photos.one.example"]) { server in
            try await run(server, ["photos.one.example"])
            // Another name is refused: the handles and ids are of the one domain.
            let reply = try await server.api.get("/.well-known/nodeinfo")
            #expect(reply.status == 421, "\(reply)")
        }
    }
}
