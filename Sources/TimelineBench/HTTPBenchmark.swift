import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import MicroHTTPD
import Timeline
import TimelineHTTP

/// `timeline bench --http`: the HTTP API served in-process (as `timeline serve` does) on the
/// synthetic network, measured with `wrk` beside nginx serving the same bytes as static files
/// in the same run; then 1,000 open event streams: their memory, and how long a new post
/// takes to reach all of them.
public struct HTTPBenchmark {
    /// How big a network to build and serve.
    public var scale: Scale
    /// Where the database and nginx's files go.
    public var directory: String
    /// Told each step as it starts.
    public var progress: (String) -> Void
    /// Seconds of each wrk run.
    public var seconds = 10
    /// Event streams to open.
    public var streams = 1_000

    /// An HTTP benchmark of `scale` in `directory`.
    public init(scale: Scale, directory: String, progress: @escaping (String) -> Void) {
        self.scale = scale
        self.directory = directory
        self.progress = progress
    }

    /// Runs it (installing `wrk` and `nginx` if missing) and returns its figures.
    public func run() async throws -> [Figure] {
        try ExternalTools.ensure([("wrk", "wrk"), ("nginx", "nginx")], progress: progress)
        guard ExternalTools.find("python3") != nil else { throw BenchError("python3 is needed for the event streams") }
        let (network, setup) = try await Benchmark(scale: scale, directory: directory, progress: progress)
            .prepareNetwork()
        var figures = setup

        var options = TimelineService.Options()
        options.passwordCost = .minimum  // as the network was built: sign-in verifies at that cost
        options.passwordQueueLimit = 1 << 20  // the bench's many concurrent clients wait for the password threads, never refused
        let service = try TimelineService(path: directory + "/timeline.db", options: options)
        var apiOptions = TimelineAPI.Options()
        apiOptions.accessLog = false
        apiOptions.requestsPerWindow = 1 << 40  // counted as in service, never refused: the clients are the bench's
        let api = TimelineAPI(service: service, options: apiOptions)
        var serverOptions = HTTPServer.Options()
        serverOptions.host = "127.0.0.1"
        serverOptions.port = 0
        let server = try HTTPServer(options: serverOptions, handler: api.answer)
        defer {
            api.stop()
            server.stop()
            service.close()
        }
        let base = "http://127.0.0.1:\(server.port)"
        progress("serving on \(base)")

        // The reader: among the first 2,000 users, the one who follows the most accounts.
        let candidates = try network.users.prefix(2_000).filter { $0.rawValue != "missing" }.map {
            ($0, try service.user($0).followingCount)
        }
        guard let (reader, following) = candidates.max(by: { $0.1 < $1.1 }) else {
            throw BenchError("the network has no users")
        }
        let readerToken = try await Self.signIn(service, reader)
        let page = await api.handle(
            HTTPRequest(
                method: "GET", path: "/v1/timeline", query: [("limit", "20")],
                headers: ["authorization": "Bearer \(readerToken)"], clientAddress: "127.0.0.1"))
        guard page.status == 200, case .bytes(let pageBytes) = page.body else {
            throw BenchError("GET /v1/timeline answered \(page.status)")
        }
        let posts = try service.timeline(of: reader, PageRequest(limit: 20)).items
        guard let first = posts.first else { throw BenchError("the reader's timeline is empty") }
        let image = try service.image(first.image)
        progress(
            "reader follows \(following) accounts; the page has \(posts.count) posts, \(pageBytes.count) bytes; image \(image.bytes.count) bytes"
        )

        let nginx = try Nginx(files: ["timeline.json": pageBytes, "image.gif": image.bytes])
        defer { nginx.stop() }
        let nginxBase = "http://127.0.0.1:\(nginx.port)"

        // 1. The reader's first timeline page.
        let auth = "Authorization: Bearer \(readerToken)"
        let timeline = try await wrk("GET /v1/timeline?limit=20", base + "/v1/timeline?limit=20", headers: [auth])
        let staticPage = try await wrk(
            "nginx: the same \(pageBytes.count) bytes", nginxBase + "/timeline.json", headers: [auth])
        // The same HTTP server (libmicrohttpd and its Swift layer) answering the same bytes from
        // memory, doing nothing else: the floor of any dynamic answer this server gives.
        let constant = HTTPResponse(
            status: 200, headers: [(name: "Content-Type", value: "application/json")], body: .bytes(pageBytes))
        let floorServer = try HTTPServer(options: serverOptions, handler: { _ in .now(constant) })
        let serverFloor = try await wrk(
            "the same server, the same bytes from memory", "http://127.0.0.1:\(floorServer.port)/", headers: [auth])
        floorServer.stop()
        // The same page as Mastodon's entities, which apps read (issue #40: at most 1.5× the cost
        // of /v1's, so at least 0.67× its rate).
        let mastodonPage = await api.handle(
            HTTPRequest(
                method: "GET", path: "/api/v1/timelines/home", query: [("limit", "20")],
                headers: ["authorization": "Bearer \(readerToken)"], clientAddress: "127.0.0.1"))
        guard mastodonPage.status == 200, case .bytes(let mastodonBytes) = mastodonPage.body else {
            throw BenchError("GET /api/v1/timelines/home answered \(mastodonPage.status)")
        }
        let mastodonHome = try await wrk(
            "GET /api/v1/timelines/home?limit=20", base + "/api/v1/timelines/home?limit=20", headers: [auth])
        figures += [
            Figure(
                name: "http.mastodon_home.requests_per_second", value: mastodonHome.requestsPerSecond, unit: "req/s",
                baseline: timeline.requestsPerSecond,
                baselineName: "GET /v1/timeline, the same 20 posts (\(mastodonBytes.count) bytes here)",
                target: "≥ 0.67×"),
            Figure(
                name: "http.mastodon_home.p99", value: mastodonHome.p99 * 1e3, unit: "ms",
                baseline: timeline.p99 * 1e3, baselineName: "GET /v1/timeline p99")
        ]
        figures += [
            Figure(
                name: "http.timeline.requests_per_second", value: timeline.requestsPerSecond, unit: "req/s",
                baseline: staticPage.requestsPerSecond,
                baselineName: "nginx, a file of the same \(pageBytes.count) bytes", target: "≥ 0.35×"),
            Figure(
                name: "http.timeline.p99", value: timeline.p99 * 1e3, unit: "ms",
                baseline: staticPage.p99 * 1e3, baselineName: "nginx p99", target: "≤ 10 ms"),
            Figure(
                name: "http.server_floor.requests_per_second", value: serverFloor.requestsPerSecond, unit: "req/s",
                baseline: staticPage.requestsPerSecond,
                baselineName: "nginx, the same bytes (libmicrohttpd answering them from memory)"),
            Figure(
                name: "http.server_floor.p99", value: serverFloor.p99 * 1e3, unit: "ms", baseline: staticPage.p99 * 1e3,
                baselineName: "nginx p99")
        ]

        // 2. One stored image.
        let imagePath = "/v1/images/\(first.image.rawValue)"
        let served = try await wrk("GET /v1/images/{id}", base + imagePath)
        let staticImage = try await wrk("nginx: the same \(image.bytes.count) bytes", nginxBase + "/image.gif")
        figures += [
            Figure(
                name: "http.image.requests_per_second", value: served.requestsPerSecond, unit: "req/s",
                baseline: staticImage.requestsPerSecond,
                baselineName: "nginx, a file of the same \(image.bytes.count) bytes", target: "≥ 0.5×"),
            Figure(
                name: "http.image.p99", value: served.p99 * 1e3, unit: "ms", baseline: staticImage.p99 * 1e3,
                baselineName: "nginx p99")
        ]
        nginx.stop()

        // 3. Likes and unlikes by 64 users, each request a durable command that appends an event.
        figures += try await likeFigures(service, network, base: base)

        // 4. Event streams.
        figures += try await streamFigures(service, network, port: server.port)
        figures.append(
            Figure(
                name: "process_memory", value: Double(procStatus("RssAnon")) / 1_048_576,
                unit: "MiB (RssAnon at the end)"))
        return figures
    }

    /// A session token for a user of the synthetic network (`user<n>@bench.example`).
    private static func signIn(_ service: TimelineService, _ user: UserID) async throws -> String {
        let username = try service.user(user).username
        guard
            case .session(let token, _) = try await service.execute(
                .signIn(email: "\(username)@bench.example", password: "bench-password"))
        else {
            throw BenchError("sign-in of \(username) gave no session")
        }
        return token
    }

    /// Sessions for many users, 16 sign-ins at a time.
    private func signIn(_ service: TimelineService, _ users: [UserID]) async throws -> [String] {
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var tokens = [String](repeating: "", count: users.count)
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask { (index, try await Self.signIn(service, users[index])) }
            }
            while next < min(16, users.count) { add() }
            while let (index, token) = try await group.next() {
                tokens[index] = token
                if next < users.count { add() }
            }
            return tokens
        }
    }

    private func wrk(_ label: String, _ url: String, headers: [String] = [], script: String? = nil) async throws
        -> WrkResult
    {
        progress("wrk \(seconds) s, 64 connections: \(label)")
        let seconds = self.seconds
        let result = try await onThread { try WrkResult.run(url, seconds: seconds, headers: headers, script: script) }
        progress(
            String(
                format: "  %.0f req/s, p50 %.2f ms, p99 %.2f ms", result.requestsPerSecond, result.p50 * 1e3,
                result.p99 * 1e3)
                + (result.non2xx > 0 ? ", \(result.non2xx) non-2xx answers" : "")
                + (result.socketErrors.map { ", " + $0 } ?? ""))
        if result.non2xx > result.requests / 100 {
            throw BenchError("\(label): \(result.non2xx) of \(result.requests) answers were not 2xx")
        }
        return result
    }

    /// `PUT` and `DELETE /v1/posts/{id}/like` by 64 users over 2,048 posts: each user–post pair
    /// is liked, then unliked 256 requests later (long after the like was answered), so every
    /// request changes something and appends one durable event; the figure is the events the
    /// log gained per second of the run.
    private func likeFigures(_ service: TimelineService, _ network: NetworkBuilder.Network, base: String) async throws
        -> [Figure]
    {
        let users = (0..<64).map { network.users[(1_000 + $0 * 37) % network.users.count] }
        progress("signing in 64 users for the likes")
        let tokens = try await signIn(service, users)
        let posts = (0..<2_048).map { network.posts[($0 * 7_919) % network.posts.count].rawValue }
        let script = directory + "/like.lua"
        try Self.likeScript(tokens: tokens, posts: posts).write(toFile: script, atomically: true, encoding: .utf8)
        let before = try service.lastSequence(), batchesBefore = service.commitBatchSizes()
        let result = try await wrk("PUT/DELETE /v1/posts/{id}/like, 64 users", base, script: script)
        let appended = try service.lastSequence() - before, batchesAfter = service.commitBatchSizes()
        let batches = batchesAfter.batches - batchesBefore.batches,
            commands = batchesAfter.commands - batchesBefore.commands
        let perBatch = batches > 0 ? Double(commands) / Double(batches) : 0
        progress(
            String(
                format: "  the log gained %llu events for %d requests; %llu group commits of %.1f commands on average",
                appended, result.requests, batches, perBatch))
        return [
            Figure(
                name: "http.like.durable_commands_per_second", value: Double(appended) / result.seconds,
                unit: String(format: "events/s (%d requests, %.1f a commit)", result.requests, perBatch),
                target: "≥ 8,000"),
            Figure(name: "http.like.p99", value: result.p99 * 1e3, unit: "ms")
        ]
    }

    /// The wrk script of the like run: thread n (of 2) uses the tokens n*32 ..< n*32+32; request
    /// k of a thread goes to pair (k / 512) * 256 + k % 256 (user = pair % 32, post = pair / 32),
    /// PUT in even blocks of 256, DELETE in odd ones.
    static func likeScript(tokens: [String], posts: [String]) -> String {
        func list(_ items: [String]) -> String { "{" + items.map { "\"\($0)\"" }.joined(separator: ",") + "}" }
        return """
            local tokens = \(list(tokens))
            local posts = \(list(posts))
            local next_thread = 0
            function setup(thread)
              thread:set("thread_index", next_thread)
              next_thread = next_thread + 1
            end
            local counter = 0
            local per_thread = 32
            local block = 256
            local pairs_total = per_thread * #posts
            function request()
              local k = counter
              counter = counter + 1
              local b = math.floor(k / block)
              local pair = (math.floor(b / 2) * block + k % block) % pairs_total
              local user = pair % per_thread
              local post = math.floor(pair / per_thread)
              local method = (b % 2 == 0) and "PUT" or "DELETE"
              local token = tokens[(thread_index or 0) * per_thread + user + 1]
              return wrk.format(method, "/v1/posts/" .. posts[post + 1] .. "/like", { ["Authorization"] = "Bearer " .. token })
            end
            """
    }

    /// Opens `streams` event streams of followers of the most-followed account (a Python
    /// asyncio client), measures this process's own memory before and after, then that account
    /// posts and the client reports when each stream received `event: post`.
    private func streamFigures(_ service: TimelineService, _ network: NetworkBuilder.Network, port: UInt16) async throws
        -> [Figure]
    {
        let author = network.mostFollowed
        var owners: [UserID] = []
        var request = PageRequest(limit: PageRequest.maxLimit)
        while owners.count < streams {
            let page = try service.followers(of: author, request)
            owners += page.items.map(\.id)
            guard let next = page.next else { break }
            request.before = next
        }
        owners = Array(owners.prefix(streams))
        progress("signing in \(owners.count) followers of the most-followed account for their streams")
        let tokens = try await signIn(service, owners)
        let tokenFile = directory + "/stream-tokens.txt"
        try tokens.joined(separator: "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let script = directory + "/streams.py"
        try Self.streamScript.write(toFile: script, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExternalTools.find("python3")!)
        process.arguments = [script, "127.0.0.1", String(port), tokenFile]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        process.standardInput = FileHandle.nullDevice
        _ = malloc_trim(0)
        let memoryBefore = procStatus("RssAnon")
        progress("opening \(owners.count) event streams")
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let lines = LineReader(output.fileHandleForReading)
        let ready = try await onThread { lines.next() }
        guard let ready, ready.hasPrefix("ready") else {
            throw BenchError("the stream client failed: \(ready ?? "no output")")
        }
        try await Task.sleep(for: .milliseconds(500))  // let the server finish with the last connections' buffers
        _ = malloc_trim(0)
        let memoryAfter = procStatus("RssAnon")
        progress("  \(ready); RssAnon \(memoryBefore / 1024) → \(memoryAfter / 1024) KiB")

        let image = NetworkBuilder.gif(42).base64EncodedString()
        let posted = monotonicSeconds()
        _ = try await service.execute(
            .addPost(image: image, caption: "to every stream #sea"), as: .user(author.rawValue))
        let report = try await onThread { lines.next() }
        process.waitUntilExit()
        // The stream client's report: when each stream received the post.
        struct Report: Decodable { var times: [Double] }
        guard let report, let data = report.data(using: .utf8),
            let times = (try? JSONDecoder().decode(Report.self, from: data))?.times
        else { throw BenchError("the stream client reported nothing: \(report ?? "")") }
        let missing = owners.count - times.count
        var delays = Samples()
        for time in times { delays.add(time - posted) }
        progress(
            String(
                format: "  %d of %d streams received the post; p50 %.1f ms, max %.1f ms", times.count, owners.count,
                delays.percentile(0.5) * 1e3, delays.percentile(1) * 1e3))
        let suffix = missing > 0 ? ", \(missing) streams never received it" : ""
        return [
            Figure(
                name: "http.streams.memory_per_stream",
                value: Double(memoryAfter - memoryBefore) / Double(owners.count) / 1024,
                unit: "KiB (RssAnon, \(owners.count) streams)", target: "≤ 100 KiB"),
            Figure(name: "http.streams.post_delivery.p50", value: delays.percentile(0.5) * 1e3, unit: "ms" + suffix),
            Figure(
                name: "http.streams.post_delivery.max", value: missing > 0 ? .infinity : delays.percentile(1) * 1e3,
                unit: "ms (all \(owners.count))" + suffix, target: "≤ 1,000 ms")
        ]
    }

    /// The stream client: opens one `GET /v1/stream` per token (100 connecting at a time),
    /// prints `ready <n>` once every stream has its `: connected` comment, then one JSON line
    /// with the CLOCK_MONOTONIC time each stream received `event: post` (up to 20 s).
    static let streamScript = #"""
        import asyncio, json, sys, time

        host, port, token_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
        tokens = [t for t in open(token_file).read().split() if t]

        async def stream(token, gate, connected, received):
            async with gate:
                reader, writer = await asyncio.open_connection(host, port)
                writer.write(("GET /v1/stream HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: Bearer %s\r\n"
                              "Accept: text/event-stream\r\n\r\n" % (host, port, token)).encode())
                await writer.drain()
                seen = b""
                while b": connected" not in seen:
                    data = await reader.read(65536)
                    if not data:
                        raise RuntimeError("stream closed before it connected: %r" % seen[:300])
                    seen += data
            connected()
            seen = seen[seen.index(b": connected"):]
            while b"event: post" not in seen:
                data = await reader.read(65536)
                if not data:
                    return
                seen = seen[-16:] + data
            received.append(time.clock_gettime(time.CLOCK_MONOTONIC))
            writer.close()

        async def main():
            gate = asyncio.Semaphore(100)
            count = [0]
            all_connected = asyncio.Event()
            received = []
            def connected():
                count[0] += 1
                if count[0] == len(tokens):
                    all_connected.set()
            tasks = [asyncio.create_task(stream(t, gate, connected, received)) for t in tokens]
            waiter = asyncio.create_task(all_connected.wait())
            pending = set(tasks) | {waiter}
            deadline = time.monotonic() + 60
            while not all_connected.is_set():
                done, pending = await asyncio.wait(pending, timeout=max(0, deadline - time.monotonic()),
                                                   return_when=asyncio.FIRST_COMPLETED)
                if not done:
                    print("failed: %d of %d streams connected in 60 s" % (count[0], len(tokens)), flush=True)
                    sys.exit(1)
                for task in done:
                    if task is not waiter and task.exception():
                        print("failed: %s" % task.exception(), flush=True)
                        sys.exit(1)
            print("ready %d streams" % len(tokens), flush=True)
            await asyncio.wait(tasks, timeout=20)
            print(json.dumps({"times": received}), flush=True)
            for task in tasks:
                task.cancel()

        asyncio.run(main())
        """#
}

/// glibc's `malloc_trim`: returns freed heap memory to the system, so that `RssAnon` before
/// and after counts what is in use (not in <malloc.h>'s Swift overlay).
@_silgen_name("malloc_trim")
func malloc_trim(_ pad: Int) -> Int32

/// CLOCK_MONOTONIC in seconds (what Python's `time.clock_gettime(time.CLOCK_MONOTONIC)` reads).
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Lines of a child's standard output, read blockingly.
final class LineReader: @unchecked Sendable {
    private let handle: FileHandle
    private var buffer = Data()
    init(_ handle: FileHandle) { self.handle = handle }

    /// The next line (without its newline), or nil at the end.
    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer = Data(buffer[(newline + 1)...])
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty {
                guard !buffer.isEmpty else { return nil }
                defer { buffer = Data() }
                return String(decoding: buffer, as: UTF8.self)
            }
            buffer += chunk
        }
    }
}
