import Foundation
import Testing
@testable import TimelineHTTP

/// The light first load (issue #44): gzip when asked and only then, `Vary: Accept-Encoding`,
/// the web app's files and the OpenAPI documents revalidated by `ETag` (304), and the route
/// map the web app imports instead of the OpenAPI document. Through a real `timeline serve`,
/// read as raw bytes (so that no client decodes anything on the way), with gzip decoded by
/// gzip(1), not by the server's own library.
@Suite struct CompressionTests {
    /// One answer as it crossed the wire.
    struct Raw {
        let status: Int
        /// Header values by lowercased name (repeated ones joined with ", ").
        let headers: [String: String]
        let body: [UInt8]
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// `GET path` on a connection of its own (`Connection: close`), with `headers`.
    func get(_ server: ServerProcess, _ path: String, _ headers: [String: String] = [:]) async throws -> Raw {
        let client = try server.connect()
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        client.send(request + "\r\n")
        let bytes = await client.readToEnd()
        let separator = Array("\r\n\r\n".utf8)
        let end = try #require(
            (0...(bytes.count - separator.count)).first { bytes[$0..<$0 + separator.count].elementsEqual(separator) },
            "no head in \(bytes.count) bytes")
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = try #require(Int(lines[0].split(separator: " ")[1]))
        var found: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased(),
                value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            found[name] = found[name].map { $0 + ", " + value } ?? value
        }
        return Raw(status: status, headers: found, body: Array(bytes[(end + separator.count)...]))
    }

    /// `bytes` decoded by gzip(1).
    func gunzip(_ bytes: [UInt8]) async throws -> [UInt8] {
        let file = temporaryPath() + ".gz"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try ChildProcess(["-dc", file], executable: URL(fileURLWithPath: "/bin/gzip"))
        let status = await run.exitStatus(within: .seconds(30))
        try #require(status == 0, "gzip -dc: \(run.standardError)")
        return Array(run.standardOutput.utf8)
    }

    @Test func gzipWhenAskedAndOnlyThen() async throws {
        try await withServer { server in
            let user = try await server.api.signUp("zed")
            for n in 0..<6 {
                _ = try await server.api.addPost(user.token, caption: "A caption long enough \(n)", image: n)
            }
            // The web app's files, the documents and JSON answers (the server's own and Mastodon's).
            for (path, bearer) in [
                ("/", nil), ("/app/js/api.js", nil), ("/app/app.css", nil), ("/app/js/operations.js", nil),
                ("/v1/openapi.json", nil), ("/api/openapi.json", nil), ("/v1/users/\(user.id)/posts", user.token),
                ("/api/v2/instance", nil), ("/v1/timeline", user.token)
            ] as [(String, String?)] {
                let auth = bearer.map { ["Authorization": "Bearer \($0)"] } ?? [:]
                let plain = try await get(server, path, auth)
                let gzipped = try await get(server, path, auth.merging(["Accept-Encoding": "gzip, deflate, br"]) { $1 })
                #expect(plain.status == 200 && gzipped.status == 200, "\(path)")
                #expect(plain.body.count >= 1024, "\(path): \(plain.body.count) bytes")
                #expect(plain.header("Content-Encoding") == nil, "\(path)")
                #expect(plain.header("Vary")?.contains("Accept-Encoding") == true, "\(path)")
                #expect(gzipped.header("Content-Encoding") == "gzip", "\(path)")
                #expect(gzipped.header("Vary")?.contains("Accept-Encoding") == true, "\(path)")
                #expect(gzipped.header("Content-Length") == String(gzipped.body.count), "\(path)")
                #expect(gzipped.body.count < plain.body.count, "\(path): \(gzipped.body.count) of \(plain.body.count)")
                let decoded = try await gunzip(gzipped.body)
                if bearer != nil {
                    // The same page (each answer is written anew): the same JSON.
                    let a = try JSONSerialization.jsonObject(with: Data(decoded)) as? NSDictionary
                    let b = try JSONSerialization.jsonObject(with: Data(plain.body)) as? NSDictionary
                    #expect(a != nil && a == b, "\(path)")
                } else {
                    #expect(decoded == plain.body, "\(path)")
                }
            }
            // Not asked, asked with q=0, or only for other codings: sent as it is.
            for encoding in ["identity", "gzip;q=0", "br", "*;q=0, deflate"] {
                let reply = try await get(server, "/app/js/api.js", ["Accept-Encoding": encoding])
                #expect(reply.header("Content-Encoding") == nil, "\(encoding)")
            }
            #expect(
                try await get(server, "/app/js/api.js", ["Accept-Encoding": "*"]).header("Content-Encoding") == "gzip")
            // A tiny body, an image and a stream are never compressed.
            for path in ["/app/icon.svg", "/app/icon-192.png", "/healthz"] {
                let reply = try await get(server, path, ["Accept-Encoding": "gzip"])
                #expect(reply.status == 200 && reply.header("Content-Encoding") == nil, "\(path): \(reply.headers)")
            }
            let posts = try await server.api.get("/v1/users/\(user.id)/posts", bearer: user.token)
            let image = try #require(posts.items.first?["image"] as? String, "\(posts)")
            let photo = try await get(
                server, "/v1/images/\(image)", ["Accept-Encoding": "gzip", "Authorization": "Bearer \(user.token)"])
            #expect(photo.status == 200 && photo.header("Content-Encoding") == nil, "\(photo.headers)")
            let ticket = try #require(
                try await server.api.send("POST", "/v1/stream/tickets", bearer: user.token).json["ticket"] as? String)
            let client = try server.connect()
            client.send(
                "GET /v1/stream?ticket=\(ticket) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n")
            let head = await client.read(until: "\r\n\r\n")
            #expect(head.hasPrefix("HTTP/1.1 200") && head.contains("text/event-stream"), "\(head)")
            #expect(!head.lowercased().contains("content-encoding"), "\(head)")
            client.disconnect()
        }
    }

    @Test func revalidatedByETag() async throws {
        try await withServer { server in
            for path in [
                "/", "/sw.js", "/app/js/app.js", "/app/js/operations.js", "/v1/openapi.json", "/api/openapi.json"
            ] {
                let plain = try await get(server, path)
                let gzipped = try await get(server, path, ["Accept-Encoding": "gzip"])
                let tag = try #require(plain.header("ETag"), "\(path)")
                let weak = try #require(gzipped.header("ETag"), "\(path)")
                #expect(plain.header("Cache-Control") == "no-cache", "\(path)")
                #expect(weak == "W/" + tag, "\(path): the compressed answer's tag is the weak form")
                // Either form names the same content; a 304 has no body and says the same Vary.
                for sent in [tag, weak, "\"other\", \(weak)"] {
                    let again = try await get(server, path, ["If-None-Match": sent, "Accept-Encoding": "gzip"])
                    #expect(again.status == 304 && again.body.isEmpty, "\(path) \(sent): \(again.status)")
                    #expect(again.header("ETag") == tag && again.header("Vary") == "Accept-Encoding", "\(path)")
                }
                let changed = try await get(server, path, ["If-None-Match": "\"other\""])
                #expect(changed.status == 200 && changed.body == plain.body, "\(path)")
            }
        }
    }

    /// The web app's route map is the OpenAPI document's operations, nothing more or less.
    @Test func theRouteMapIsTheDocumentsOperations() async throws {
        try await withServer { server in
            let module = String(decoding: try await get(server, "/app/js/operations.js").body, as: UTF8.self)
            let prefix = "export const operations = "
            let start = try #require(module.range(of: prefix)).upperBound
            let json = module[start...].trimmingCharacters(in: .whitespacesAndNewlines).dropLast()  // the `;`
            let map = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: [String]])
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(try await get(server, "/v1/openapi.json").body))
                    as? [String: Any])
            var operations: [String: [String]] = [:]
            for (path, item) in try #require(document["paths"] as? [String: [String: Any]]) {
                for (method, operation) in item {
                    if let id = (operation as? [String: Any])?["operationId"] as? String {
                        operations[id] = [method.uppercased(), path]
                    }
                }
            }
            #expect(operations.count > 50 && map == operations)
            #expect(map["timeline"] == ["GET", "/v1/timeline"])
        }
    }

    @Test func acceptEncodingIsRead() {
        for (header, accepted) in [
            ("gzip", true), ("GZIP", true), ("deflate, gzip;q=0.5", true), ("x-gzip", true), ("*", true),
            ("gzip;q=0", false), ("gzip; q=0.0", false), ("br", false), ("identity", false), ("*;q=0", false),
            ("", false)
        ] {
            #expect(Compression.acceptsGzip(header) == accepted, "\(header)")
        }
        #expect(!Compression.acceptsGzip(nil))
        #expect(Compression.applies(to: "application/json", size: 1024))
        #expect(!Compression.applies(to: "application/json", size: 1023))
        #expect(
            !Compression.applies(to: "image/png", size: 100_000)
                && !Compression.applies(to: "text/event-stream", size: 5000))
    }
}
