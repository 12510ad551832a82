import Foundation
import Testing
import Timeline
@testable import TimelineHTTP

/// The served OpenAPI document against the real server: schemathesis (PyPI) generates valid
/// and invalid requests for every operation and checks that no answer is a 5xx and that every
/// status, `Content-Type` and body is one the document declares (tools/schemathesis-check.sh).
@Suite struct OpenAPIConformanceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        .standardized

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
            let comment = try await api.send(
                "POST", "/v1/posts/\(post)/comments", json: ["text": "lovely"], bearer: alice.token)
            let commentID = try #require(comment.json["id"] as? String)
            let image = try #require(try await api.get("/v1/posts/\(post)").json["image"] as? String)
            let check = try ChildProcess(
                [
                    script.path, "http://127.0.0.1:\(server.port)", "--token", fuzzer.token, "--max-examples", "10",
                    "--request-timeout", "10", "--time-limit", "600",
                    "--param", "path.post=\(post)", "--param", "path.user=@alice", "--param", "path.image=\(image)",
                    "--param", "path.comment=\(commentID)", "--param", "path.tag=sea"
                ], executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await check.exitStatus(within: .seconds(660))
            #expect(status == 0, "schemathesis:\n\(check.standardOutput)\n\(check.standardError)")
        }
    }

    /// The document the server serves is the one `timeline openapi` prints and the repository
    /// keeps in `schemas/openapi.json`, and it says what the
    /// route table says: each operation of the table at its method and path, with its
    /// operationId, success status, path parameters and the statuses of its errors, and nothing
    /// else.
    @Test func theServedDocumentIsTheRouteTable() async throws {
        // Read to the end of the pipe directly: the document is larger than a pipe's buffer.
        let process = Process(), pipe = Pipe()
        process.executableURL = try timelineExecutable()
        process.arguments = ["openapi"]
        process.standardOutput = pipe
        try spawn(process)
        let printedText = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        try await withServer { server in
            let served = try await server.api.get("/v1/openapi.json")
            #expect(
                served.status == 200 && served.header("Content-Type")?.hasPrefix("application/json") == true,
                "\(served)")
            #expect(served.text == printedText)
            // The copy in the repository (docs/spec.md: "the same file as schemas/openapi.json").
            let committed = try String(
                contentsOf: Self.repository.appendingPathComponent("schemas/openapi.json"), encoding: .utf8)
            #expect(
                committed == printedText,
                "schemas/openapi.json is stale: run `swift run timeline openapi > schemas/openapi.json`")
            #expect(served.json["openapi"] as? String == "3.1.0")
            let paths = try #require(served.json["paths"] as? [String: [String: Any]])
            var documented = Set<String>()
            for (path, item) in paths {
                for method in item.keys { documented.insert("\(method.uppercased()) \(path)") }
            }
            var tabled = Set<String>()
            for route in TimelineAPI.routes {
                guard let operation = route.operation else { continue }
                tabled.insert("\(route.method) \(route.template)")
                let documentedOperation = try #require(
                    paths[route.template]?[route.method.lowercased()] as? [String: Any],
                    "\(route.method) \(route.template) is not in the document")
                #expect(documentedOperation["operationId"] as? String == operation.id)
                let responses = try #require(documentedOperation["responses"] as? [String: Any])
                let statuses = [operation.answer.status] + operation.errors.map(\.http.status)
                for status in statuses { #expect(responses[String(status)] != nil, "\(operation.id): no \(status)") }
                let parameters =
                    try #require(served.json["components"] as? [String: Any])["parameters"] as? [String: [String: Any]]
                let declared = (documentedOperation["parameters"] as? [[String: String]] ?? []).compactMap {
                    reference in
                    reference["$ref"].flatMap { parameters?[String($0.split(separator: "/").last ?? "")] }
                }
                let inPath = declared.filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String }
                #expect(Set(inPath) == Set(route.pathParameters), "\(operation.id): path parameters \(inPath)")
            }
            #expect(documented == tabled)
            // Every error status of the document is the status of some error code.
            let responses = try #require((served.json["components"] as? [String: Any])?["responses"] as? [String: Any])
            #expect(responses.count == Set(TimelineError.Code.allCases.map(\.http.status)).count + 1)
        }
    }

    /// The Mastodon API's document is its route table's (every Mastodon route documented, with
    /// its path parameters and scope), served at /api/openapi.json as `timeline openapi
    /// --mastodon` prints it and the repository keeps it; and schemathesis, from it, finds no
    /// 5xx and no answer the document does not declare (the endless streams left out).
    @Test func theMastodonDocumentIsItsRouteTableAndHoldsUnderSchemathesis() async throws {
        let process = Process(), pipe = Pipe()
        process.executableURL = try timelineExecutable()
        process.arguments = ["openapi", "--mastodon"]
        process.standardOutput = pipe
        try spawn(process)
        let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let committed = try String(
            contentsOf: Self.repository.appendingPathComponent("schemas/mastodon-openapi.json"), encoding: .utf8)
        #expect(
            committed == printed,
            "schemas/mastodon-openapi.json is stale: run `swift run timeline openapi --mastodon > schemas/mastodon-openapi.json`"
        )
        let document = try #require(try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for route in MastodonAPI.table {
            guard route.mastodon != nil else { continue }
            let operation = try #require(
                paths[route.template]?[route.method.lowercased()] as? [String: Any], "\(route.method) \(route.template)"
            )
            let inPath = (operation["parameters"] as? [[String: Any]] ?? []).filter { $0["in"] as? String == "path" }
                .compactMap { $0["name"] as? String }
            #expect(inPath == route.pathParameters, "\(route.template)")
            if route.scope != .none {
                let security = operation["security"] as? [[String: [String]]] ?? []
                #expect(
                    security.contains { $0["oauth"] == route.scope.names },
                    "\(route.method) \(route.template) names its scope")
            }
        }
        #expect(paths.values.map(\.count).reduce(0, +) == MastodonAPI.table.filter { $0.mastodon != nil }.count)

        let script = Self.repository.appendingPathComponent("tools/schemathesis-check.sh")
        try await withServer(arguments: ["--rate-limit", "1000000"]) { server in
            let api = server.api
            #expect(try await api.get("/api/openapi.json").text == printed)
            let fuzzer = try await api.signUp("fuzzer")
            let alice = try await api.signUp("alice")
            let post = try await api.addPost(alice.token, caption: "harbour #sea", image: 7)
            let check = try ChildProcess(
                [
                    script.path, "http://127.0.0.1:\(server.port)", "--document", "/api/openapi.json", "--token",
                    fuzzer.token,
                    "--max-examples", "10", "--request-timeout", "10", "--time-limit", "600",
                    "--param", "path.id=\(post)", "--param", "path.hashtag=sea"
                ], executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await check.exitStatus(within: .seconds(660))
            #expect(status == 0, "schemathesis:\n\(check.standardOutput)\n\(check.standardError)")
        }
    }

    /// A post detail repeats a post's fields (`additionalProperties: false` forbids extending
    /// it by `allOf`): the two schemas never drift apart.
    @Test func aPostDetailHasEveryFieldOfAPost() throws {
        func schema(_ name: String) throws -> [String: Any] {
            let data = try Data(
                contentsOf: Self.repository.appendingPathComponent("schemas/results/\(name).schema.json"))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let post = try schema("post"), detail = try schema("postDetail")
        let fields = try #require(post["properties"] as? [String: Any]),
            detailFields = try #require(detail["properties"] as? [String: Any])
        for (field, definition) in fields where field != "likedByViewer" {
            let repeated = try #require(detailFields[field], "postDetail has no \(field)")
            #expect(
                NSDictionary(dictionary: ["_": repeated]).isEqual(to: ["_": definition]),
                "postDetail's \(field) differs")
        }
        #expect(Set(post["required"] as? [String] ?? []).isSubset(of: Set(detail["required"] as? [String] ?? [])))
    }
}
