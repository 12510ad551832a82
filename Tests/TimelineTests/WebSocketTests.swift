import Foundation
import Testing

/// Mastodon's streaming WebSocket (`GET /api/v1/streaming`) through a real `timeline serve` and
/// raw sockets: RFC 6455's rules on what a client may send (each broken one answered with the
/// close code the RFC names), the cost of idle sockets (no thread and no CPU each), and clients
/// that do not read (dropped when their bounded queue is full, closed with their session).
@Suite struct WebSocketTests {
    /// A frame from a client (masked), with the first byte's bits given one by one.
    static func frame(
        _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0,
        length: Int? = nil
    ) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
        let count = length ?? payload.count
        switch count {
        case ..<126: out.append(0x80 | UInt8(count))
        case ..<65_536: out += [0x80 | 126, UInt8(count >> 8), UInt8(count & 0xFF)]
        default:
            out.append(0x80 | 127)
            out += (0..<8).reversed().map { UInt8((UInt64(count) >> (UInt64($0) * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return out + mask + payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    }

    static let sentinel = frame(0x9, Array("sentinel".utf8))

    @Test func brokenFramesAreAnsweredWithTheRFCsCloseCodes() async throws {
        try await withServer { server in
            let alice = try await server.api.signUp("alice")
            let cases: [(String, [UInt8], Int)] = [
                ("a ping of 126 bytes", Self.frame(0x9, Array(repeating: 0x61, count: 126)), 1002),
                ("a fragmented ping", Self.frame(0x9, [0x61], fin: false), 1002),
                ("a close of 126 bytes", Self.frame(0x8, [0x03, 0xE8] + Array(repeating: 0x61, count: 124)), 1002),
                ("RSV1 without an extension", Self.frame(0x1, Array("{}".utf8), rsv: 0b100), 1002),
                ("RSV3 on a ping", Self.frame(0x9, [], rsv: 0b001), 1002),
                ("reserved data opcode 3", Self.frame(0x3, [0x61]), 1002),
                ("reserved data opcode 7", Self.frame(0x7, [0x61]), 1002),
                ("reserved control opcode 0xB", Self.frame(0xB, [0x61]), 1002),
                ("reserved control opcode 0xF", Self.frame(0xF, []), 1002),
                ("a continuation with no message begun", Self.frame(0x0, Array("{}".utf8)), 1002),
                (
                    "a new text frame inside a fragmented message",
                    Self.frame(0x1, Array("{\"ty".utf8), fin: false) + Self.frame(0x1, Array("pe\"}".utf8)), 1002
                ),
                ("a text message that is not UTF-8", Self.frame(0x1, [0x7B, 0xC3, 0x28, 0x7D]), 1007),
                ("a surrogate encoded in UTF-8", Self.frame(0x1, [0xED, 0xA0, 0x80]), 1007),
                (
                    "fragments that join into invalid UTF-8",
                    Self.frame(0x1, [0x61, 0xF0, 0x9F], fin: false) + Self.frame(0x0, [0x98, 0x28]), 1007
                ),
                ("a message over the limit", Self.frame(0x1, [], length: 70_000), 1009),
                ("an unmasked frame", [0x81, 0x02, 0x7B, 0x7D], 1002),
                ("a close of one byte", Self.frame(0x8, [0x03]), 1002),
                ("a close with code 1005, which is never sent", Self.frame(0x8, [0x03, 0xED]), 1002),
                ("a close with code 999", Self.frame(0x8, [0x03, 0xE7]), 1002),
                ("a close whose reason is not UTF-8", Self.frame(0x8, [0x03, 0xE8, 0xC3, 0x28]), 1007)
            ]
            for (name, bytes, code) in cases {
                let socket = try await WebSocketClient.open(port: server.port, token: alice.token)
                // The sentinel ping after the broken frame: its pong would come first if the
                // server let the broken frame pass.
                #expect(socket.send(bytes + Self.sentinel), "\(name)")
                let reply = await socket.nextControlFrame()
                #expect(
                    reply?.opcode == 0x8 && reply?.closeCode == code,
                    "\(name): \(reply.map { "\($0)" } ?? "nothing")")
            }
            // What is allowed passes: a ping of 125 bytes, a message in fragments with a ping
            // between them, a character split across two fragments.
            let socket = try await WebSocketClient.open(port: server.port, token: alice.token)
            let big = Array(repeating: UInt8(0x62), count: 125)
            #expect(socket.send(Self.frame(0x9, big)))
            #expect(await socket.nextControlFrame().map { $0.opcode == 0xA && $0.payload == big } == true)
            let subscribe = Array("{\"type\":\"subscribe\",\"stream\":\"user\",\"x\":\"é\"}".utf8)
            let split = subscribe.firstIndex(of: 0xC3)! + 1
            #expect(
                socket.send(
                    Self.frame(0x1, Array(subscribe[..<split]), fin: false) + Self.frame(0x9, [0x31])
                        + Self.frame(0x0, Array(subscribe[split...])) + Self.sentinel))
            #expect(await socket.nextControlFrame().map { $0.opcode == 0xA && $0.payload == [0x31] } == true)
            #expect(
                await socket.nextControlFrame().map { $0.opcode == 0xA && $0.payload == Array("sentinel".utf8) }
                    == true)
            // A client's close is answered with its code, and the connection ends.
            #expect(socket.send(Self.frame(0x8, [0x03, 0xE8])))
            let closed = await socket.nextControlFrame()
            #expect(closed?.opcode == 0x8 && closed?.closeCode == 1000, "\(String(describing: closed))")
        }
    }

    @Test func idleSocketsCostNoThreadAndNoCPU() async throws {
        try await withServer { server in
            // Spread over four users: Mastodon's budget is 300 requests a token.
            var tokens: [String] = []
            for name in ["alice", "bob", "carol", "dave"] { tokens.append(try await server.api.signUp(name).token) }
            let pid = server.child.process.processIdentifier
            // One socket first: whatever serves WebSockets exists before counting.
            let first = try await WebSocketClient.open(port: server.port, token: tokens[0])
            #expect(await first.ping("first"))
            let threadsBefore = Self.threads(of: pid)
            let idleBefore = try await Self.cpuSeconds(of: pid, over: .seconds(3)) { await first.ping("before") }
            var sockets: [WebSocketClient] = []
            for index in 0..<300 {
                sockets.append(try await WebSocketClient.open(port: server.port, token: tokens[index % 4]))
            }
            // Every socket is served (its ping answered) before counting.
            for (index, socket) in sockets.enumerated() {
                #expect(await socket.ping("open \(index)"), "socket \(index)")
            }
            let threadsAfter = Self.threads(of: pid)
            #expect(
                threadsAfter - threadsBefore < 10,
                "\(threadsBefore) threads, then \(threadsAfter) with 300 sockets more")
            let idleAfter = try await Self.cpuSeconds(of: pid, over: .seconds(3)) {
                var all = true
                for (index, socket) in sockets.enumerated() where !(await socket.ping("idle \(index)")) { all = false }
                return all
            }
            // 300 sockets each polled every 50 ms cost ~0.1 of a core: 0.3 s over 3 s.
            #expect(
                idleAfter - idleBefore < 0.1,
                "CPU over 3 s: \(idleBefore) s idle, \(idleAfter) s with 300 idle sockets")
        }
    }

    @Test func aClientThatPingsAndNeverReadsIsClosedWithItsSession() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let signIn = ["email": "alice@example.com", "password": "password-123"]
            let signedIn = try await api.send("POST", "/v1/sessions", json: signIn)
            let session = try #require(signedIn.json["session"] as? String)
            // Two of Bob's sockets, opened just before Alice's: one is served by the same thread as hers.
            let bobs = try await WebSocketClient.open(port: server.port, token: bob.token)
            let bobsOther = try await WebSocketClient.open(port: server.port, token: bob.token)
            // A small receive buffer: the pongs soon fill it and the server's send buffer.
            let stuck = try await WebSocketClient.open(port: server.port, token: session, receiveBuffer: 4096)
            // 1000 pings of 125 bytes: 127 KB of pongs, more than the sockets hold (so a
            // blocking writer is stuck) and less than the server's queue for a client (so it is
            // not yet dropped for that).
            let pings = Array((0..<1000).map { _ in Self.frame(0x9, Array(repeating: 0x70, count: 125)) }.joined())
            #expect(await stuck.sendWithin(pings, .seconds(30)), "the server reads the pings")
            #expect(await stuck.waitForUnread(atLeast: 2048), "the server answers the pings")
            #expect(await bobs.ping("while alice's socket is full"))
            #expect(await bobsOther.ping("while alice's socket is full"))
            #expect(!stuck.hungUp)
            #expect(try await api.send("DELETE", "/v1/sessions", bearer: alice.token).status == 204)
            #expect(await stuck.waitForHangUp(within: .seconds(10)), "the socket outlived its session")
            // Bob's sockets are still served, pongs and events.
            #expect(await bobs.ping("after"))
            #expect(await bobsOther.ping("after"))
            let subscribe = Self.frame(0x1, Array("{\"type\":\"subscribe\",\"stream\":\"user\"}".utf8))
            #expect(bobs.send(subscribe + Self.sentinel))
            #expect(await bobs.nextControlFrame().map { $0.payload == Array("sentinel".utf8) } == true)
            let post = try await api.addPost(bob.token, caption: "still served")
            #expect(await bobs.nextText { $0.contains(post) } != nil, "bob's own post reaches his user stream")
        }
    }

    @Test func aClientThatDoesNotReadIsDroppedWhenItsQueueIsFull() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let bobs = try await WebSocketClient.open(port: server.port, token: bob.token)
            let stuck = try await WebSocketClient.open(port: server.port, token: alice.token, receiveBuffer: 4096)
            // 4000 pings of 125 bytes: 508 KB of pongs, past the queue's 256 KB and what the
            // sockets hold; the client never reads.
            let flood = Array((0..<4000).map { _ in Self.frame(0x9, Array(repeating: 0x70, count: 125)) }.joined())
            #expect(await stuck.sendWithin(flood, .seconds(30)), "the server reads the pings")
            #expect(await stuck.waitForHangUp(within: .seconds(10)), "a client that does not read was kept")
            #expect(await bobs.ping("after"))
        }
    }

    // MARK: - Helpers

    /// The number of threads of process `pid`.
    static func threads(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? -1
    }

    /// User and system CPU time of `pid`, in seconds.
    static func cpuTime(of pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15.
        let ticks = Double(fields[11])! + Double(fields[12])!
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The CPU time `pid` uses over `period`, measured up to the moment before `sentinel`
    /// (which must hold: it shows the server was serving all along).
    static func cpuSeconds(of pid: Int32, over period: Duration, sentinel: () async -> Bool) async throws -> Double {
        let start = try cpuTime(of: pid)
        try await Task.sleep(for: period)
        let end = try cpuTime(of: pid)
        #expect(await sentinel(), "the sentinel")
        return end - start
    }
}

/// A raw WebSocket client of `GET /api/v1/streaming`. Its blocking reads run on threads of their
/// own, never on the test's cooperative pool.
final class WebSocketClient: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []

    struct Frame: CustomStringConvertible {
        let opcode: UInt8
        let payload: [UInt8]
        var closeCode: Int? { opcode == 0x8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil }
        var description: String { "opcode \(opcode), \(payload.count) bytes\(closeCode.map { ", code \($0)" } ?? "")" }
    }

    private init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    /// Connects, upgrades with `token` (subscribed to nothing) and reads the `101` head.
    static func open(port: UInt16, token: String, receiveBuffer: Int? = nil) async throws -> WebSocketClient {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let client = WebSocketClient(fd: fd)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        // The token as a header: Mastodon's request budget is then the token's, not the address's.
        client.send(
            Array(
                ("GET /api/v1/streaming HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                    + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").utf8))
        let head = await client.blocking { () -> String? in
            while true {
                if let end = client.find([13, 10, 13, 10]) {
                    let head = String(decoding: client.buffer[..<end], as: UTF8.self)
                    client.buffer.removeFirst(end + 4)
                    return head
                }
                guard client.receive() else { return nil }
            }
        }
        guard let head, head.hasPrefix("HTTP/1.1 101") else {
            throw ServerFailed(message: "no upgrade: \(head ?? "nothing")")
        }
        return client
    }

    /// Sends `bytes`; whether all were taken.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Sends `bytes` off the test's pool, waiting up to `limit` for the server to take them.
    func sendWithin(_ bytes: [UInt8], _ limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        return await blocking {
            var offset = 0
            while offset < bytes.count, ContinuousClock.now < deadline {
                let written = bytes[offset...].withUnsafeBytes {
                    Glibc.send(self.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
            return offset == bytes.count
        }
    }

    /// A ping; whether its pong came (other frames before it are skipped).
    func ping(_ text: String) async -> Bool {
        guard send(WebSocketTests.frame(0x9, Array(text.utf8))) else { return false }
        while let frame = await nextFrame() {
            if frame.opcode == 0xA, frame.payload == Array(text.utf8) { return true }
            if frame.opcode == 0x8 { return false }
        }
        return false
    }

    /// The next control frame the server answers with, a pong or a close (text frames and the
    /// server's own keep-alive pings skipped: on a slow machine one may come first); nil when
    /// the connection ends or nothing arrives for 10 s.
    func nextControlFrame() async -> Frame? {
        while let frame = await nextFrame() {
            if frame.opcode & 0x8 != 0, frame.opcode != 0x9 { return frame }
        }
        return nil
    }

    /// The next text message for which `matches` holds.
    func nextText(_ matches: @escaping @Sendable (String) -> Bool) async -> String? {
        while let frame = await nextFrame() {
            guard frame.opcode == 0x1 else { continue }
            if case let text = String(decoding: frame.payload, as: UTF8.self), matches(text) { return text }
        }
        return nil
    }

    /// The next frame from the server (unmasked; not fragmented by this server).
    func nextFrame() async -> Frame? {
        await blocking {
            while true {
                if let frame = self.takeFrame() { return frame }
                guard self.receive() else { return nil }
            }
        }
    }

    /// Waits (up to 10 s) until at least `count` bytes from the server wait unread.
    func waitForUnread(atLeast count: Int32) async -> Bool {
        for _ in 0..<1000 {
            var unread: Int32 = 0
            _ = ioctl(fd, UInt(FIONREAD), &unread)
            if unread >= count { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Whether the server has reset the connection, seen without reading a byte.
    var hungUp: Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, 0)
        return descriptor.revents & Int16(POLLHUP | POLLERR) != 0
    }

    /// Waits up to `limit` for the server to reset the connection, without reading.
    func waitForHangUp(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if hungUp { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return hungUp
    }

    private func takeFrame() -> Frame? {
        guard buffer.count >= 2 else { return nil }
        var length = Int(buffer[1] & 0x7F), offset = 2
        if length == 126 {
            guard buffer.count >= 4 else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            guard buffer.count >= 10 else { return nil }
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        guard buffer.count >= offset + length else { return nil }
        let frame = Frame(opcode: buffer[0] & 0x0F, payload: Array(buffer[offset..<offset + length]))
        buffer.removeFirst(offset + length)
        return frame
    }

    private func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count <= 0 { return false }
        buffer += chunk[0..<count]
        return true
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        return (0...(buffer.count - needle.count)).first { buffer[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }
}
