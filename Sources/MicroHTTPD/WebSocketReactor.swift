import Foundation
import Synchronization
internal import CMicroHTTPD

/// Serves every upgraded WebSocket of the process on a fixed few threads, each with an epoll
/// set of its sockets (level-triggered) and an eventfd: a thread sleeps until a socket can be
/// read or written, a socket's `outbound` stream has something to write or was closed, or a
/// closing socket's deadline passes — never polling, so an idle socket costs no CPU and no
/// thread. Writes never block: what a socket cannot take stays in its bounded `outbound`.
final class WebSocketReactor: Sendable {
    /// The process's reactor (nil if the kernel refused an epoll set or an eventfd).
    static let shared = WebSocketReactor(threads: 2)

    /// How long a closed stream waits for its client to take what is pending (the close frame
    /// last) before the connection is reset.
    static let closeGrace: Duration = .seconds(1)

    /// The kernel's send buffer of an upgraded socket (doubled by the kernel), instead of the
    /// megabytes it grows to for a client that does not read.
    static let kernelBuffer = 64 << 10

    private let loops: [Loop]
    private let turn = Mutex(0)

    private init?(threads: Int) {
        var loops: [Loop] = []
        for index in 0..<threads {
            guard let loop = Loop(name: "timeline-websocket-\(index)") else { return nil }
            loops.append(loop)
        }
        self.loops = loops
        for loop in loops { loop.start() }
    }

    /// Serves `socket` on `fd` (libmicrohttpd's, upgraded), starting with the bytes `extra` that
    /// arrived with the handshake; `close` hands the connection back to libmicrohttpd to close
    /// (after the socket has been set to be reset, for a client that did not read).
    func serve(_ socket: WebSocket, fd: Int32, extra: [UInt8], close: @escaping @Sendable () -> Void) {
        let loop = turn.withLock { turn in
            defer { turn = (turn + 1) % loops.count }
            return loops[turn]
        }
        loop.add(WebSocketConnection(socket: socket, fd: fd, close: close), extra: extra)
    }
}

/// One thread of the reactor and its sockets.
private final class Loop: @unchecked Sendable {
    private let epoll: Int32
    private let wakeFD: Int32
    private let name: String
    /// Guards `arriving`, `ready` and `nextID` (taken by other threads; never held while a
    /// stream's lock is taken, since a stream calls `ready(_:)` with its own held).
    private let lock = NSLock()
    private var arriving: [(id: UInt64, connection: WebSocketConnection, extra: [UInt8])] = []
    /// Sockets whose stream has something to transmit.
    private var ready: Set<UInt64> = []
    private var nextID: UInt64 = 1
    /// The loop thread's own: every socket served, by the id its epoll events carry (0 is the
    /// eventfd). Ids are never reused, so a late wake-up for a closed socket finds nothing.
    private var connections: [UInt64: WebSocketConnection] = [:]
    /// The closing sockets (the loop thread's own), each with when it gives up on its client.
    private var closing: [UInt64: ContinuousClock.Instant] = [:]
    private var buffer = [UInt8](repeating: 0, count: 16 << 10)

    init?(name: String) {
        let epoll = timeline_epoll_create(), wakeFD = timeline_eventfd()
        guard epoll >= 0, wakeFD >= 0, timeline_epoll_set(epoll, 0, wakeFD, 0, 0) == 0 else {
            if epoll >= 0 { Glibc.close(epoll) }
            if wakeFD >= 0 { Glibc.close(wakeFD) }
            return nil
        }
        self.epoll = epoll
        self.wakeFD = wakeFD
        self.name = name
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Takes `connection` on (from libmicrohttpd's thread).
    func add(_ connection: WebSocketConnection, extra: [UInt8]) {
        lock.lock()
        let id = nextID
        nextID += 1
        arriving.append((id, connection, extra))
        lock.unlock()
        connection.socket.outbound.serve(epilogue: WebSocket.closeFrame(1001)) { [self] in ready(id) }
        timeline_eventfd_signal(wakeFD)
    }

    /// The stream of socket `id` has something to transmit (called with the stream's lock held).
    private func ready(_ id: UInt64) {
        lock.lock()
        ready.insert(id)
        lock.unlock()
        timeline_eventfd_signal(wakeFD)
    }

    private func run() {
        var ids = [UInt64](repeating: 0, count: 64), events = [UInt32](repeating: 0, count: 64)
        while true {
            let count = timeline_epoll_wait(epoll, &ids, &events, Int32(ids.count), timeout())
            for index in 0..<max(0, Int(count)) {
                if ids[index] == 0 {
                    timeline_eventfd_clear(wakeFD)
                    continue
                }
                guard let connection = connections[ids[index]] else { continue }
                if events[index] & 2 != 0 { transmit(ids[index], connection) }
                if events[index] & 1 != 0, connections[ids[index]] != nil { read(ids[index], connection) }
            }
            lock.lock()
            let arrived = arriving, woken = ready
            arriving = []
            ready = []
            lock.unlock()
            for (id, connection, extra) in arrived { begin(id, connection, extra: extra) }
            for id in woken { if let connection = connections[id] { transmit(id, connection) } }
            expire()
        }
    }

    /// Milliseconds until the nearest closing deadline (-1: none, sleep until woken).
    private func timeout() -> Int32 {
        guard let nearest = closing.values.min() else { return -1 }
        let left = nearest - ContinuousClock.now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    private func begin(_ id: UInt64, _ connection: WebSocketConnection, extra: [UInt8]) {
        guard timeline_epoll_set(epoll, 0, connection.fd, 0, id) == 0 else {
            let reason = String(cString: strerror(errno))
            FileHandle.standardError.write(Data("timeline serve: a WebSocket could not be watched: \(reason)\n".utf8))
            connection.close()
            connection.socket.outbound.finished()
            return
        }
        // A fixed kernel buffer: what a client does not read waits in its bounded `outbound`.
        timeline_socket_limit_send_buffer(connection.fd, Int32(WebSocketReactor.kernelBuffer))
        connections[id] = connection
        if !extra.isEmpty { connection.receive(extra) }
        transmit(id, connection)
    }

    /// Reads what the client sent (once: the set is level-triggered, so more wakes it again).
    private func read(_ id: UInt64, _ connection: WebSocketConnection) {
        let count = recv(connection.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
        guard count > 0 else {
            // The client left (or reset): send what can still go, then close.
            if count == 0, transmit(id, connection) == false { return }
            return end(id, connection, abort: count < 0)
        }
        connection.receive(buffer[0..<count])
        transmit(id, connection)
    }

    /// Writes what the socket's stream holds, as far as the socket takes it; ends the connection
    /// when the stream is finished or dropped. False when it ended.
    @discardableResult
    private func transmit(_ id: UInt64, _ connection: WebSocketConnection) -> Bool {
        let fd = connection.fd
        let progress = connection.socket.outbound.transmit { bytes in
            let written = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if written >= 0 { return written }
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1
        }
        switch progress {
        case .sent:
            watchWrites(id, connection, false)
        case .blocked(let closing):
            watchWrites(id, connection, true)
            if closing { startGrace(id) }
        case .finished:
            // Ended once the kernel has delivered the rest; a client that does not take it
            // within the grace is reset, not left to the kernel with its unread bytes.
            watchWrites(id, connection, false)
            guard timeline_socket_unsent(fd) > 0 else {
                end(id, connection, abort: false)
                return false
            }
            startGrace(id)
        case .dropped:
            end(id, connection, abort: true)
            return false
        }
        return true
    }

    /// Gives the closing socket `id` `closeGrace` to take the rest (once).
    private func startGrace(_ id: UInt64) {
        if closing[id] == nil { closing[id] = .now + WebSocketReactor.closeGrace }
    }

    private func watchWrites(_ id: UInt64, _ connection: WebSocketConnection, _ watch: Bool) {
        guard connection.watchesWrites != watch else { return }
        connection.watchesWrites = watch
        _ = timeline_epoll_set(epoll, 1, connection.fd, watch ? 1 : 0, id)
    }

    /// Ends the closing sockets whose time is up: reset unless the client has taken everything.
    private func expire() {
        let now = ContinuousClock.now
        for (id, deadline) in closing where deadline <= now {
            guard let connection = connections[id] else { continue }
            let flushed =
                connection.socket.outbound.transmit { _ in 0 } == .finished
                && timeline_socket_unsent(connection.fd) == 0
            end(id, connection, abort: !flushed)
        }
    }

    /// Forgets the socket and hands it back to libmicrohttpd to close.
    private func end(_ id: UInt64, _ connection: WebSocketConnection, abort: Bool) {
        guard connections.removeValue(forKey: id) != nil else { return }
        closing[id] = nil
        _ = timeline_epoll_set(epoll, 2, connection.fd, 0, id)
        if abort { timeline_socket_abort_on_close(connection.fd) }
        connection.close()
        connection.socket.outbound.finished()
    }
}
