import Foundation
import Testing

/// The served OpenAPI document against the real server: schemathesis (PyPI) generates valid
/// and invalid requests for every operation and checks that no answer is a 5xx and that every
/// status, `Content-Type` and body is one the document declares (tools/schemathesis-check.sh).
@Suite struct OpenAPIConformanceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    @Test func schemathesisFindsNothingTheDocumentDoesNotDeclare() async throws {
        let script = Self.repository.appendingPathComponent("tools/schemathesis-check.sh")
        try #require(FileManager.default.isExecutableFile(atPath: script.path))
        try await withServer { server in
            let api = server.api
            // Real identifiers, so generated requests get past 404: a post, its image and a
            // comment of another user, and a hashtag.
            let fuzzer = try await api.signUp("fuzzer")
            let alice = try await api.signUp("alice")
            let post = try await api.addPost(alice.token, caption: "harbour #sea", image: 7)
            let comment = try await api.send("POST", "/v1/posts/\(post)/comments", json: ["text": "lovely"], bearer: alice.token)
            let commentID = try #require(comment.json["id"] as? String)
            let image = try #require(try await api.get("/v1/posts/\(post)").json["image"] as? String)
            let check = try ChildProcess([
                script.path, "http://127.0.0.1:\(server.port)", "--token", fuzzer.token, "--max-examples", "10",
                "--request-timeout", "10", "--time-limit", "600",
                "--param", "path.post=\(post)", "--param", "path.user=@alice", "--param", "path.image=\(image)",
                "--param", "path.comment=\(commentID)", "--param", "path.tag=sea",
            ], executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await check.exitStatus(within: .seconds(660))
            #expect(status == 0, "schemathesis:\n\(check.standardOutput)\n\(check.standardError)")
        }
    }
}
