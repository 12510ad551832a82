import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import Testing

// Support for HTTPAPITests: the real `timeline serve` and `timeline exec` as child processes,
// a URLSession client, multipart bodies and a Server-Sent Events reader over RawHTTPClient.
// Nothing here blocks the cooperative pool: output is collected by a reading thread per pipe
// and waits poll with `Task.sleep` up to a deadline.

/// A value behind a lock, shared by reference (with the threads that fill it).
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A child process (`timeline` unless told otherwise) whose standard output and error are
/// collected as they arrive.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    private let input = Pipe(), output = Pipe(), errors = Pipe()
    private let collected = Shared<(out: Data, err: Data, outEnded: Bool, errEnded: Bool)>(
        (Data(), Data(), false, false))

    /// Runs `executable` (the `timeline` tool unless given) with `arguments`, in `directory`
    /// if given. Waiting for it (`exitStatus`) never blocks a thread of the test's pool.
    init(
        _ arguments: [String], executable: URL? = nil, directory: URL? = nil, environment: [String: String] = [:]
    ) throws {
        process.executableURL = try executable ?? timelineExecutable()
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment =
            (executable == nil ? ["TIMELINE_PASSWORD_COST": "minimum"] : ProcessInfo.processInfo.environment)
            .merging(environment) { _, given in given }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try spawn(process)
        // One thread per pipe, each in a blocking read: an empty read is then the end of the
        // output. (A readability handler can be woken with nothing to read, and an empty read
        // there cut a 133 KB output short under load.)
        let collected = self.collected
        let out = output.fileHandleForReading, err = errors.fileHandleForReading
        Thread.detachNewThread {
            while case let data = out.availableData, !data.isEmpty { collected.withLock { $0.out.append(data) } }
            collected.withLock { $0.outEnded = true }
        }
        Thread.detachNewThread {
            while case let data = err.availableData, !data.isEmpty { collected.withLock { $0.err.append(data) } }
            collected.withLock { $0.errEnded = true }
        }
    }

    var standardOutput: String { collected.withLock { String(decoding: $0.out, as: UTF8.self) } }
    var standardError: String { collected.withLock { String(decoding: $0.err, as: UTF8.self) } }
    private var outputEnded: Bool { collected.withLock { $0.outEnded && $0.errEnded } }

    func write(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }
    func closeInput() { try? input.fileHandleForWriting.close() }
    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits until standard output satisfies `done`; what it was then, or nil at the deadline.
    func waitForOutput(within limit: Duration = .seconds(60), _ done: (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let text = standardOutput
            if done(text) { return text }
            if outputEnded, !process.isRunning { return done(standardOutput) ? standardOutput : nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        // One last look: a task starved past the deadline (the whole suite on two cores) must
        // not miss what arrived meanwhile.
        let text = standardOutput
        return done(text) ? text : nil
    }

    /// Waits until the process has exited and its output has been read; its exit status, or
    /// nil if it is still running at the deadline.
    func exitStatus(within limit: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while process.isRunning || !outputEnded {
            guard ContinuousClock.now < deadline else { return process.isRunning ? nil : process.terminationStatus }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }
}

/// A running `timeline serve` on a free loopback port, with its own database.
final class ServerProcess: Sendable {
    let child: ChildProcess
    let port: UInt16
    let database: String
    let api: APIClient
    /// The operator's listener (`--metrics-listen`): `/metrics`.
    let operations: APIClient

    /// Starts `timeline serve --db database --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0
    /// arguments…` and waits for its first two lines, `listening on http://127.0.0.1:PORT` and
    /// `metrics on http://127.0.0.1:PORT`.
    init(database: String = temporaryPath(), arguments: [String] = [], environment: [String: String] = [:])
        async throws
    {
        self.database = database
        // The suites send more requests per token than a person does (loops of hundreds): the
        // request limits are checked where they are set on purpose (`--rate-limit`).
        let limits = arguments.contains("--rate-limit") ? [] : ["--rate-limit", "1000000"]
        child = try ChildProcess(
            ["serve", "--db", database, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"]
                + limits + arguments, environment: environment)
        // Generous: on a machine shared with compilers a debug build's start can take a minute;
        // only a real stall should fail here.
        let lines = await child.waitForOutput(within: .seconds(180)) { $0.split(separator: "\n").count >= 2 }
        let ports = (lines ?? "").split(separator: "\n").prefix(2).compactMap {
            $0.split(separator: ":").last.flatMap { UInt16($0) }
        }
        guard let lines, ports.count == 2, lines.hasPrefix("listening on http://127.0.0.1:"),
            lines.contains("\nmetrics on http://127.0.0.1:")
        else {
            child.signal(SIGKILL)
            _ = await child.exitStatus(within: .seconds(10))
            throw ServerFailed(message: "timeline serve did not start: \(lines ?? "no output") \(child.standardError)")
        }
        port = ports[0]
        api = APIClient(base: "http://127.0.0.1:\(ports[0])")
        operations = APIClient(base: "http://127.0.0.1:\(ports[1])")
    }

    /// The JSON access-log lines (and anything else) it wrote to standard error.
    var standardError: String { child.standardError }

    /// SIGTERM, then waits for it to exit (SIGKILL after 30 s); its exit status, nil if killed.
    @discardableResult
    func stop() async -> Int32? {
        guard child.process.isRunning else { return child.process.terminationStatus }
        child.signal(SIGTERM)
        if let status = await child.exitStatus(within: .seconds(30)) { return status }
        child.signal(SIGKILL)
        _ = await child.exitStatus(within: .seconds(10))
        return nil
    }

    /// A raw connection to it.
    func connect() throws -> RawHTTPClient { try RawHTTPClient(port: port) }
}

struct ServerFailed: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Runs `body` against a fresh server and stops the server afterwards, also when `body` throws.
func withServer<T>(
    database: String = temporaryPath(), arguments: [String] = [], environment: [String: String] = [:],
    _ body: (ServerProcess) async throws -> T
) async throws -> T {
    let server = try await ServerProcess(database: database, arguments: arguments, environment: environment)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

extension ServerProcess {
    /// The Mastodon API's id of the object of `kind` with the native id `id` (the `mastodonId`
    /// query, through `timeline exec` on the server's database).
    func mastodonID(_ kind: String, _ id: String) async throws -> String {
        try await mastodonIDs(kind, [id])[0]
    }

    /// The Mastodon API's ids of the objects of `kind` with the native ids `ids`, in order.
    func mastodonIDs(_ kind: String, _ ids: [String]) async throws -> [String] {
        let answers = try await execLines(
            database: database, ids.map { ["query": "mastodonId", "kind": kind, "id": $0] })
        let found = answers.compactMap { ($0["result"] as? [String: Any])?["mastodonId"] as? String }
        try #require(found.count == ids.count, "\(answers)")
        return found
    }
}

/// Runs `timeline exec --db database` with `lines` on its input; its result lines.
func execLines(database: String, _ lines: [[String: Any]]) async throws -> [[String: Any]] {
    let tool = try ChildProcess(["exec", "--db", database])
    for line in lines {
        let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
        tool.write(String(decoding: data, as: UTF8.self) + "\n")
    }
    tool.closeInput()
    let status = await tool.exitStatus(within: .seconds(60))
    if status == nil { tool.signal(SIGKILL) }
    try #require(status == 0, "timeline exec: \(tool.standardError)")
    return tool.standardOutput.split(separator: "\n").map {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
    }
}

// MARK: - The HTTP client

/// One answer: status, headers (names lowercased) and body.
struct Reply: CustomStringConvertible {
    let status: Int
    let headers: [String: String]
    let body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    var items: [[String: Any]] { json["items"] as? [[String: Any]] ?? [] }
    var ids: [String] { items.compactMap { $0["id"] as? String } }
    var error: [String: Any] { json["error"] as? [String: Any] ?? [:] }
    var errorCode: String? { error["code"] as? String }
    var errorField: String? { error["field"] as? String }
    var description: String { "\(status) \(headers) \(text.prefix(500))" }
}

/// URLSession (FoundationNetworking on Linux) against one server.
struct APIClient: Sendable {
    let base: String

    /// One session for all tests: no cache, no cookies.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = 60
        return URLSession(configuration: configuration)
    }()

    /// Sends a request (`json` is encoded as an `application/json` body); checks that the answer
    /// has `X-Content-Type-Options: nosniff`, as every answer must.
    func send(
        _ method: String, _ path: String, json: Any? = nil, body: Data? = nil, contentType: String? = nil,
        bearer: String? = nil, headers: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        var request = URLRequest(url: try #require(URL(string: base + path)))
        request.httpMethod = method
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let body { request.httpBody = body }
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await Self.session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var lowered: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { lowered[name.lowercased()] = value }
        }
        let reply = Reply(status: http.statusCode, headers: lowered, body: data)
        #expect(
            reply.header("X-Content-Type-Options") == "nosniff", "\(method) \(path): \(reply)",
            sourceLocation: sourceLocation)
        return reply
    }

    func get(
        _ path: String, bearer: String? = nil, headers: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        try await send("GET", path, bearer: bearer, headers: headers, sourceLocation: sourceLocation)
    }

    /// Signs up `name` (email `name@example.com`); the session and the user's id.
    func signUp(
        _ name: String, password: String = "password-123",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (token: String, id: String) {
        let reply = try await send(
            "POST", "/v1/users", json: ["username": name, "email": "\(name)@example.com", "password": password],
            sourceLocation: sourceLocation)
        try #require(reply.status == 201, "\(reply)", sourceLocation: sourceLocation)
        let token = try #require(reply.json["session"] as? String, sourceLocation: sourceLocation)
        let id = try #require((reply.json["user"] as? [String: Any])?["id"] as? String, sourceLocation: sourceLocation)
        return (token, id)
    }

    /// Posts a GIF (distinct per `image`) as JSON; the post's id.
    func addPost(
        _ bearer: String, caption: String? = nil, image: Int = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        var body: [String: Any] = ["image": gifBase64(image)]
        if let caption { body["caption"] = caption }
        let reply = try await send("POST", "/v1/posts", json: body, bearer: bearer, sourceLocation: sourceLocation)
        try #require(reply.status == 201, "\(reply)", sourceLocation: sourceLocation)
        return try #require(reply.json["id"] as? String, sourceLocation: sourceLocation)
    }

    /// Every item of a paged GET, following `Link: <…>; rel="next"` until there is none; the
    /// pages' item ids in order, and how many pages there were.
    func allPages(
        _ path: String, bearer: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (ids: [String], pages: Int) {
        var ids: [String] = []
        var next: String? = path
        var pages = 0
        while let path = next {
            let reply = try await get(path, bearer: bearer, sourceLocation: sourceLocation)
            try #require(reply.status == 200, "\(path): \(reply)", sourceLocation: sourceLocation)
            ids += reply.ids
            pages += 1
            try #require(pages < 1000, sourceLocation: sourceLocation)
            if let link = reply.header("Link") {
                let target = try #require(Self.nextTarget(link), "\(link)", sourceLocation: sourceLocation)
                #expect(reply.json["next"] is String, "a Link without a next cursor", sourceLocation: sourceLocation)
                #expect(
                    target.contains("before=\(reply.json["next"] as? String ?? "?")"), sourceLocation: sourceLocation)
                next = target
            } else {
                #expect(
                    reply.json["next"] is NSNull, "a next cursor without a Link: \(reply)",
                    sourceLocation: sourceLocation)
                next = nil
            }
        }
        return (ids, pages)
    }

    /// The target of `<target>; rel="next"`.
    static func nextTarget(_ link: String) -> String? {
        guard link.hasSuffix(#"; rel="next""#), link.hasPrefix("<"), let end = link.firstIndex(of: ">") else {
            return nil
        }
        return String(link[link.index(after: link.startIndex)..<end])
    }
}

/// A `multipart/form-data` body of text fields and files, as browsers' `FormData` sends it.
struct MultipartBody {
    let boundary = "----TimelineTestBoundary\(UInt32.random(in: 0...UInt32.max))"
    private(set) var data = Data()

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func field(_ name: String, _ value: String) {
        data.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }

    mutating func file(_ name: String, filename: String, type: String, _ bytes: [UInt8]) {
        data.append(
            Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(type)\r\n\r\n"
                    .utf8))
        data.append(contentsOf: bytes)
        data.append(Data("\r\n".utf8))
    }

    func finished() -> Data { data + Data("--\(boundary)--\r\n".utf8) }
}

/// A real 1×1 PNG (a red pixel).
let pngBytes: [UInt8] = [
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x08, 0xD7, 0x63, 0xF8, 0xCF, 0xC0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xDD, 0x8D, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E,
    0x44, 0xAE, 0x42, 0x60, 0x82
]

/// A real JPEG (8×8, grey) with comments of `padding` bytes after its start: a whole,
/// decodable image of any size (the image pipeline strips the comments).
func jpegBytes(padding: Int = 16) -> [UInt8] {
    var bytes: [UInt8] = [0xFF, 0xD8]
    var left = padding
    while left > 0 {
        let size = min(left, 65_533)
        bytes += [0xFF, 0xFE, UInt8((size + 2) >> 8), UInt8((size + 2) & 0xFF)] + [UInt8](repeating: 0x20, count: size)
        left -= size
    }
    return bytes + greyJPEGBody
}

/// An 8×8 grey JPEG after its SOI marker (quantisation and Huffman tables, frame, scan, EOI).
private let greyJPEGBody: [UInt8] = [
    0xFF, 0xDB, 0x00, 0x43, 0x00, 0x06, 0x04, 0x04, 0x05, 0x04, 0x04, 0x06, 0x05, 0x05, 0x05, 0x06,
    0x06, 0x06, 0x07, 0x09, 0x0E, 0x09, 0x09, 0x08, 0x08, 0x09, 0x12, 0x0D, 0x0D, 0x0A, 0x0E, 0x15,
    0x12, 0x16, 0x16, 0x15, 0x12, 0x14, 0x14, 0x17, 0x1A, 0x21, 0x1C, 0x17, 0x18, 0x1F, 0x19, 0x14,
    0x14, 0x1D, 0x27, 0x1D, 0x1F, 0x22, 0x23, 0x25, 0x25, 0x25, 0x16, 0x1C, 0x29, 0x2C, 0x28, 0x24,
    0x2B, 0x21, 0x24, 0x25, 0x24, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01,
    0x11, 0x00, 0xFF, 0xC4, 0x00, 0x14, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0xFF, 0xC4, 0x00, 0x14, 0x10, 0x01, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xDA,
    0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x75, 0xFF, 0xD9
]

// MARK: - Server-Sent Events

/// One event of an event stream.
struct ServerSentEvent: Equatable, CustomStringConvertible {
    let id: String?
    let event: String
    let data: String

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
    var sequence: UInt64? { id.flatMap { UInt64($0) } }
    var description: String { "[\(id ?? "-")] \(event) \(data.prefix(120))" }
}

/// `GET /v1/stream` on a raw connection, read as it arrives.
final class EventStreamReader: @unchecked Sendable {
    let client: RawHTTPClient
    /// The response head and everything after it, once `open()` has returned.
    private(set) var head = ""

    init(
        port: UInt16, bearer: String? = nil, path: String = "/v1/stream", query: String = "", lastEventID: String? = nil
    ) throws {
        client = try RawHTTPClient(port: port)
        var request = "GET \(path)\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let bearer { request += "Authorization: Bearer \(bearer)\r\n" }
        if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
        client.send(request + "\r\n")
    }

    /// Waits for the response head; its status line and headers.
    func open() async -> String {
        let text = await client.read(until: "\r\n\r\n")
        head = text.components(separatedBy: "\r\n\r\n").first ?? ""
        return head
    }

    /// The events received so far.
    func events(in text: String) -> [ServerSentEvent] {
        guard let split = text.range(of: "\r\n\r\n") else { return [] }
        let bodyBytes = Array(text[split.upperBound...].utf8)
        let body = String(
            decoding: text.lowercased().contains("transfer-encoding: chunked") ? Self.dechunk(bodyBytes) : bodyBytes,
            as: UTF8.self)
        var blocks = body.components(separatedBy: "\n\n")
        blocks.removeLast()  // not yet complete (or empty)
        return blocks.compactMap { block in
            var id: String?, event: String?, data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
            }
            return event.map { ServerSentEvent(id: id, event: $0, data: data.joined(separator: "\n")) }
        }
    }

    /// Reads until the events received satisfy `done` (or nothing arrives for 10 s); the events.
    func events(until done: @escaping @Sendable ([ServerSentEvent]) -> Bool) async -> [ServerSentEvent] {
        let text = await client.read { [self] in done(events(in: $0)) }
        return events(in: text)
    }

    /// The bytes of a chunked body, as far as its chunks are complete.
    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while let lineEnd = (index..<max(index, bytes.count - 1)).first(where: {
            bytes[$0] == 0x0D && bytes[$0 + 1] == 0x0A
        }) {
            guard
                let size = Int(
                    String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16
                ),
                size > 0, lineEnd + 2 + size <= bytes.count
            else { break }
            out += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            index = lineEnd + 2 + size + 2
            if index > bytes.count { break }
        }
        return out
    }
}
