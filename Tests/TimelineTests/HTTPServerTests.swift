import Foundation
import MicroHTTPD
import Synchronization
import Testing

/// The thin libmicrohttpd layer on its own, on a loopback port, with a raw TCP client.
@Suite struct HTTPServerTests {
    /// Echoes what it parsed: method, path, query, a header, the body and the form parts.
    static func echo(_ request: HTTPRequest) async -> HTTPResponse {
        var lines = ["\(request.method) \(request.path)"]
        lines += request.query.map { "query \($0.name)=\($0.value)" }
        if let agent = request.header("X-Test") { lines.append("header \(agent)") }
        if !request.body.isEmpty {
            lines.append("body \(request.body.count) \(String(decoding: request.body.prefix(16), as: UTF8.self))")
        }
        lines += request.formParts.map {
            "part \($0.name) \($0.filename ?? "-") \($0.contentType ?? "-") \($0.data.count)"
        }
        lines.append("client \(request.clientAddress)")
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "text/plain")],
            body: .bytes(Array(lines.joined(separator: "\n").utf8)))
    }

    func server(_ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse = echo) throws -> HTTPServer {
        var options = HTTPServer.Options()
        options.port = 0
        options.maxBodyBytes = 1 << 20
        options.maxDiscardedBytes = 16 << 20
        options.maxDiscardedBytes = 16 << 20
        // Under a loaded test run the client may take long to come back for the next request
        // of a keep-alive connection: no idle timeout here.
        options.idleTimeout = 0
        return try HTTPServer(options: options, asyncHandler: handler)
    }

    @Test func parsesTheRequestAndKeepsTheConnectionAlive() async throws {
        let server = try server()
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        client.send("GET /v1/users?prefix=al%20ice&limit HTTP/1.1\r\nHost: x\r\nX-Test: yes\r\n\r\n")
        let first = await client.read(until: "client 127.0.0.1")
        #expect(first.hasPrefix("HTTP/1.1 200"))
        #expect(first.contains("GET /v1/users\nquery prefix=al ice\nquery limit=\nheader yes"))
        client.reset()
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world")
        #expect(await client.read(until: "client 127.0.0.1").contains("POST /echo\nbody 11 hello world"))
    }

    @Test func parsesMultipartFormData() async throws {
        let server = try server()
        defer { server.stop() }
        let image = [UInt8](repeating: 0xFF, count: 300_000) + Array("\r\n--not-the-boundary\r\n".utf8)
        var body = Array("--XyZ\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nHarbour #sea\r\n".utf8)
        body += Array(
            "--XyZ\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
                .utf8)
        body += image + Array("\r\n--XyZ--\r\n".utf8)
        let client = try RawHTTPClient(port: server.port)
        client.send(
            "POST /v1/posts HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: \(body.count)\r\n\r\n"
        )
        client.send(body)
        let answer = await client.read(until: "client 127.0.0.1")
        #expect(answer.contains("part caption - - 12\npart image a.jpg image/jpeg \(image.count)"), "\(answer)")
    }

    @Test func aLargeUploadsFilePartsAreWrittenToFilesThatGoWithTheRequest() async throws {
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: spool) }
        var options = HTTPServer.Options()
        options.port = 0
        options.maxBodyBytes = 1 << 20
        options.idleTimeout = 0
        options.spoolDirectory = spool
        options.largeUploads = { method, path in method == "POST" && path == "/v1/media" ? 8 << 20 : nil }
        // What the handler saw of the file part: its bytes' size in memory, and the file's.
        let server = try HTTPServer(options: options) { request in
            let lines = request.formParts.map { part in
                let size = part.file.flatMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }
                let head = part.file.flatMap { FileManager.default.contents(atPath: $0)?.prefix(4) }.map(Array.init)
                return "part \(part.name) \(part.data.count) \(size ?? -1) \(head == [1, 2, 3, 4])"
            }
            return HTTPResponse(status: 200, headers: [], body: .bytes(Array(lines.joined(separator: "\n").utf8)))
        }
        defer { server.stop() }
        let video = [1, 2, 3, 4] + [UInt8](repeating: 0x42, count: 5 << 20)
        var body = Array("--XyZ\r\nContent-Disposition: form-data; name=\"description\"\r\n\r\nA clip\r\n".utf8)
        body += Array(
            "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.mp4\"\r\nContent-Type: video/mp4\r\n\r\n"
                .utf8)
        body += video + Array("\r\n--XyZ--\r\n".utf8)
        let head =
            "HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: \(body.count)"
        let client = try RawHTTPClient(port: server.port)
        client.send("POST /v1/media \(head)\r\n\r\n")
        client.send(body)
        let answer = await client.read(until: "true")
        #expect(answer.contains("part description 6 -1 false\npart file 0 \(video.count) true"), "\(answer)")
        // The file goes with the request (once libmicrohttpd is done with it, just after the
        // answer); the same body anywhere else is over the usual limit.
        let deadline = Date().addingTimeInterval(10)
        while try !FileManager.default.contentsOfDirectory(atPath: spool).isEmpty, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty)
        let other = try RawHTTPClient(port: server.port)
        other.send("POST /v1/posts \(head)\r\n\r\n")
        #expect(await other.read(until: "payload_too_large").hasPrefix("HTTP/1.1 413"))
    }

    @Test func anOversizedBodyIsRefusedBeforeItIsSent() async throws {
        let server = try server()
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        client.send(
            "POST /v1/posts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(12 << 20)\r\n\r\n"
        )
        let answer = await client.read(until: "payload_too_large")
        #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
    }

    @Test func aClientStillSendingItsOversizedBodyReadsTheRefusal() async throws {
        let server = try server()
        defer { server.stop() }
        // Announced, or chunked (refused once it passes the limit): the server answers before
        // the body ends, then reads and drops the rest, so the client is not reset mid-send
        // and reads its 413. The handler never sees the request.
        let body = [UInt8](repeating: 0x61, count: 12 << 20)
        let announced = Array("POST /v1/posts HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        let chunked =
            Array(
                "POST /v1/posts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(String(body.count, radix: 16))\r\n"
                    .utf8)
            + body + Array("\r\n0\r\n\r\n".utf8)
        for request in [announced, chunked] {
            let client = try RawHTTPClient(port: server.port)
            #expect(client.send(request), "every byte was taken")
            let answer = await client.read(until: "payload_too_large")
            #expect(
                answer.hasPrefix("HTTP/1.1 413"),
                "\(String(decoding: request.prefix(80), as: UTF8.self)): \(answer.prefix(300))")
            #expect(!answer.contains("POST /v1/posts"), "the handler never sees the refused request")
        }
        // Past what is worth reading, the connection is closed.
        let endless = try RawHTTPClient(port: server.port)
        endless.send("POST /v1/posts HTTP/1.1\r\nHost: x\r\nContent-Length: \(64 << 20)\r\n\r\n")
        #expect(!endless.send([UInt8](repeating: 0x61, count: 64 << 20)), "the server stopped reading")
    }

    @Test func anEventStreamSendsAsItIsWrittenAndEndsAtClose() async throws {
        let stream = EventStream()
        let server = try server { request in
            request.path == "/stream"
                ? HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(stream))
                : await Self.echo(request)
        }
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await client.read(until: "text/event-stream").hasPrefix("HTTP/1.1 200"))
        #expect(stream.send(Array("data: one\n\n".utf8)))
        #expect(await client.read(until: "data: one").contains("data: one"))
        #expect(server.openStreams == 1)
        #expect(stream.send(Array("data: two\n\n".utf8)))
        #expect(await client.read(until: "data: two").contains("data: two"))
        stream.close()
        #expect(await client.read(until: "\r\n0\r\n\r\n").hasSuffix("\r\n0\r\n\r\n"))  // the chunked body ended
        #expect(!stream.send(Array("data: late\n\n".utf8)))
    }

    @Test func aClientThatDoesNotReadIsDropped() async throws {
        let stream = EventStream(maxBuffered: 64 << 10)
        let server = try server { _ in HTTPResponse(status: 200, body: .stream(stream)) }
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        let event = [UInt8](repeating: 0x61, count: 4096)
        var accepted = 0
        while stream.send(event), accepted < 100_000 { accepted += 1 }  // the socket buffers fill, then ours
        #expect(accepted < 100_000)
        #expect(!stream.send(event))
    }

    @Test func stoppingAnswersTheRequestsInFlight() async throws {
        let started = Mutex(false)
        let server = try server { request in
            started.withLock { $0 = true }
            try? await Task.sleep(for: .milliseconds(300))
            return await Self.echo(request)
        }
        let client = try RawHTTPClient(port: server.port)
        client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        server.stop()
        #expect(await client.read(until: "client 127.0.0.1").hasPrefix("HTTP/1.1 200"))
        #expect(throws: (any Error).self) { try RawHTTPClient(port: server.port) }
    }

    /// A request still running when the stop's grace ends is answered 503 with the body the
    /// options' `refusal` writes for its path (each API's own error shape).
    @Test func aRequestOutlastingTheGraceGetsItsPathsRefusal() async throws {
        let started = Mutex(false), released = Mutex(false)
        var options = HTTPServer.Options()
        options.port = 0
        options.refusal = { refused in
            (Array("{\"error\":\"\(refused.status) \(refused.path) \(refused.message)\"}".utf8), [("X-Refused", "yes")])
        }
        let server = try HTTPServer(options: options) { (_: HTTPRequest) async -> HTTPResponse in
            started.withLock { $0 = true }
            // Running until the test has its answer (however slow the machine: the whole suite on
            // two cores can starve the test's task for half a minute), 150 s at most.
            for _ in 0..<15_000 where !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
            return HTTPResponse(status: 200)
        }
        defer { released.withLock { $0 = true } }
        let client = try RawHTTPClient(port: server.port)
        client.send("GET /api/v1/slow HTTP/1.1\r\nHost: x\r\n\r\n")
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        server.stop(grace: .milliseconds(50))
        let answer = await client.read(until: "stopping\"}")
        #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer)")
        #expect(answer.contains("{\"error\":\"503 /api/v1/slow the server is stopping\"}"), "\(answer)")
        #expect(answer.contains("X-Refused: yes"), "the refusal's own headers are sent: \(answer)")
    }

    /// libmicrohttpd aborts the process when it is stopped with a connection suspended, and a
    /// keep-alive connection can send its next request at any moment, the last instant of
    /// `stop` included: connections with many requests pipelined keep the server busy while it
    /// stops, round after round. Requests arriving once the stop has begun get 503 and a close.
    @Test func stoppingWhilePipelinedRequestsKeepArrivingNeverAborts() async throws {
        let request = "GET /quick HTTP/1.1\r\nHost: x\r\n\r\n"
        for _ in 0..<15 {
            let server = try server { request in
                try? await Task.sleep(for: .milliseconds(1))
                return await Self.echo(request)
            }
            let clients = try (0..<4).map { _ in try RawHTTPClient(port: server.port) }
            for client in clients { client.send(String(repeating: request, count: 300)) }
            // Every connection has had an answer (a slow machine may not have started them all).
            for client in clients { _ = await client.read(until: "client 127.0.0.1") }
            server.stop()
            for client in clients {
                let answers = await client.read(until: { _ in false })  // until the server closes it
                #expect(answers.hasPrefix("HTTP/1.1 200"))
                #expect(!answers.contains("HTTP/1.1 500"))
            }
            #expect(throws: (any Error).self) { try RawHTTPClient(port: server.port) }
        }
    }
}
