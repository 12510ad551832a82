import Foundation
import JSONModel
import Testing
@testable import Timeline

/// `schemas/results/` is generated from the results' Swift types (`ResultJSON`): no schema of
/// a result is kept by hand.
@Suite struct ResultSchemaTests {
    static let folder = SchemaTests.root.appending(path: "schemas/results")

    /// Each file of `schemas/results/` is its type's schema (`ResultJSON.schemas()`). With
    /// `TIMELINE_WRITE_DOCS=1` the test writes them; otherwise each must be current, so that a
    /// change of a result's shape shows in the diff.
    @Test func theResultSchemasAreGeneratedFromTheirTypes() throws {
        let write = ProcessInfo.processInfo.environment["TIMELINE_WRITE_DOCS"] == "1"
        let schemas = try ResultJSON.schemas()
        for (name, title, schema) in schemas {
            let text = JSONWriter.pretty(ResultJSON.file(name, title: title, schema))
            let file = Self.folder.appending(path: "\(name).schema.json")
            if write { try text.write(to: file, atomically: true, encoding: .utf8) }
            let committed = try? String(contentsOf: file, encoding: .utf8)
            #expect(
                committed == text,
                """
                schemas/results/\(name).schema.json is stale: run TIMELINE_WRITE_DOCS=1 swift test \
                --filter theResultSchemasAreGeneratedFromTheirTypes
                """)
        }
        // No other file: every result schema comes from a type.
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        #expect(files == schemas.map { "\($0.name).schema.json" }.sorted())
    }

    /// What `timeline exec` answers validates against the generated schemas (with Python's
    /// `jsonschema`): one answer of each result, and a failure.
    @Test func execAnswersValidateAgainstTheGeneratedSchemas() async throws {
        let service = try openService()
        let session = ExecSession(service: service)
        var lines: [String: [String]] = [:]
        /// Answers `request` (a JSON object) and keeps the answer under `result`; returns its `result`.
        func send(_ result: String, _ request: [String: Any]) async throws -> [String: Any] {
            let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            let answer = await session.handle(line: line)
            lines[result, default: []].append(answer)
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
            return parsed["result"] as? [String: Any] ?? [:]
        }
        let alice =
            try await send(
                "user",
                [
                    "command": "createUser", "username": "alice", "email": "a@example.com", "password": "password-1",
                    "bio": "hi"
                ])["id"] as! String
        let bob =
            try await send(
                "user",
                [
                    "command": "createUser", "username": "bob", "email": "b@example.com", "password": "password-1"
                ])["id"] as! String
        _ = try await send("session", ["command": "signIn", "email": "b@example.com", "password": "password-1"])
        _ = try await send("changed", ["command": "follow", "as": bob, "user": alice])
        let media = try await send(
            "media", ["command": "uploadMedia", "as": alice, "image": gifBase64(3), "alt": "a \"red\" dot"])
        let post = try await send(
            "post",
            [
                "command": "addPost", "as": alice, "media": [media["id"] as! String], "caption": "hi #sea",
                "location": ["latitude": 48, "longitude": 2.35, "name": "Paris"], "warning": "w"
            ])
        let postID = post["id"] as! String
        _ = try await send(
            "post",
            ["command": "addPost", "as": alice, "image": gifBase64(4), "caption": "x", "visibility": "followers"])
        _ = try await send("comment", ["command": "addComment", "as": bob, "post": postID, "text": "lovely"])
        _ = try await send("changed", ["command": "like", "as": bob, "post": postID])
        _ = try await send("changed", ["command": "reportPost", "as": bob, "post": postID, "reason": "spam"])
        _ = try await send("post", ["command": "editPost", "as": alice, "post": postID, "caption": "edited"])
        _ = try await send(
            "app", ["command": "registerApp", "name": "An app", "redirectUris": ["urn:ietf:wg:oauth:2.0:oob"]])
        _ = try await send("follows", ["query": "follows", "user": bob, "target": alice])
        _ = try await send("postDetail", ["query": "post", "post": postID, "viewer": bob])
        _ = try await send("postDetail", ["query": "post", "post": postID])
        _ = try await send("postHistory", ["query": "postHistory", "post": postID])
        _ = try await send("image", ["query": "image", "image": post["image"] as! String])
        for query in ["users", "followers", "timeline", "activity", "comments", "hashtag", "posts"] {
            _ = try await send(
                "page",
                ["query": query, "user": query == "timeline" ? bob : alice, "post": postID, "tag": "sea"]
                    .filter { key, _ in Self.takes(query, key) })
        }
        _ = try await service.execute(.grantRole(user: bob), as: .operator)
        _ = try await send("moderationQueue", ["query": "moderationQueue", "as": bob])
        _ = try await send("changed", ["command": "blockAccountDomain", "as": bob, "host": "Two.Example:8443"])
        let servers = try await send("servers", ["query": "blockedServers", "as": bob])
        #expect(servers["servers"] as? [String] == ["two.example:8443"])
        _ = try await send("error", ["query": "post", "post": "missing"])
        #expect(lines["error"]?.first?.contains(#""ok":false"#) == true)
        for (result, answers) in lines.sorted(by: { $0.key < $1.key }) {
            if result != "error" {
                #expect(answers.allSatisfy { $0.contains(#""ok":true"#) }, "\(answers)")
            }
            let (status, output) = try SchemaTests().check("result", result: result, answers)
            #expect(status == 0, "\(result): \(output)")
        }
    }

    /// Whether the query `query` takes the field `field` (of the few the test sends).
    static func takes(_ query: String, _ field: String) -> Bool {
        switch field {
        case "query": true
        case "post": query == "comments"
        case "tag": query == "hashtag"
        case "user": query != "comments" && query != "hashtag" && query != "users"
        default: false
        }
    }
}
