import Foundation
import Testing

/// Every answer of the Mastodon layer, from a real `timeline serve`, held against Mastodon's
/// own schema for it (Tests/mastodon/openapi/schema.json, Mastodon 4.7): valid, or one of the
/// differences listed in Tests/mastodon/test_entities.py as issue #40's work.
@Suite struct MastodonEntitySchemaTests {
    @Test(.timeLimit(.minutes(3))) func everyAnswerIsMastodonsOrAKnownDifference() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            _ = try await api.addPost(alice.token, caption: "a view #sea")
            for words in [
                ["instance", "set", "privacy-policy", "We keep little."],
                ["instance", "set", "terms-of-service", "Be nice."],
                ["instance", "rules", "add", "Be kind"],
                ["federation", "block", "suspended.example"],
                [
                    "announcements", "add", "Maintenance", "--starts", "2026-01-01",
                    "--ends", "2099-01-01"
                ]
            ] {
                let run = try ChildProcess(Array(words.prefix(1)) + ["--db", server.database] + words.dropFirst())
                #expect(await run.exitStatus(within: .seconds(60)) == 0, "\(words): \(run.standardError)")
            }
            let script = SchemaTests.root.appendingPathComponent("Tests/mastodon/test_entities.py").path
            let run = try ChildProcess(
                [
                    "python3", script, "http://127.0.0.1:\(server.port)", alice.token,
                    try await server.mastodonID("account", alice.id), try await server.mastodonID("account", bob.id),
                    bob.token,
                    try pixelFile()
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(150))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - every answer is valid against Mastodon's schema"), "\(text)")
            print(
                text.split(separator: "\n").filter {
                    [" answers: ", " entities valid", " entity types ", " operations in "].contains(where: $0.contains)
                }
                .joined(separator: "\n"))
        }
    }
}
