import Foundation
import Synchronization
internal import CMicroHTTPD

/// An HTTP/1.1 server on libmicrohttpd: its own epoll thread pool, keep-alive, bodies read
/// as they arrive (a body announced over `maxBodyBytes` is refused with 413 from the head,
/// then read and dropped by `LingeringClose`; one that passes the limit without a length is
/// read and dropped to its end, then refused),
/// `multipart/form-data` parsed by libmicrohttpd's own parser. This type alone touches
/// libmicrohttpd's pointers: handlers get whole `HTTPRequest` values and return
/// `HTTPResponse` values.
///
/// A handler answers at once (a read: on libmicrohttpd's thread, with no hop) or later: then
/// the connection is suspended while the async work runs on the server's own executor, so
/// work that waits — for a durable commit, say — holds no server thread.
public final class HTTPServer: @unchecked Sendable {
    /// How the server listens and what it accepts.
    public struct Options: Sendable {
        /// An IPv4 or IPv6 address to listen on.
        public var host = "127.0.0.1"
        /// 0: a free port the kernel chooses (see `port`).
        public var port: UInt16 = 8080
        /// Threads polling connections (default: one per core).
        public var threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        public var connectionLimit = 4096
        public var connectionsPerClient = 1024
        /// Seconds a connection may stay idle (or a slow client take between bytes); 0: no limit.
        public var idleTimeout = 30
        /// Seconds a request's head may take to arrive in full, counted from the connection's
        /// opening, however steadily its bytes trickle in (slowloris): past it the connection
        /// is closed. After a request, a keep-alive connection has `idleTimeout` seconds more
        /// (it may wait for the next request that long before sending anything); 0: no limit.
        public var headTimeout = 10
        /// Past `headTimeout` seconds of a body, the bytes per second it must have averaged;
        /// a slower one is closed.
        public var minimumBodyRate = 1024
        /// Bodies larger than this get 413.
        public var maxBodyBytes = 11 << 20
        /// Of a body refused before it ended (over `maxBodyBytes`, malformed multipart), up
        /// to this much is read and thrown away rather than closing the connection under a
        /// client still sending, which would reset it before the client read the answer.
        /// Beyond this the connection is closed.
        public var maxDiscardedBytes = 32 << 20
        /// Memory for one connection's request head (so also the URL and header limit).
        public var connectionMemory = 64 << 10
        /// Speak HTTPS with this key and certificate (PEM); nil: plain HTTP.
        public var tls: (key: String, certificate: String)?
        /// The JSON body of a refusal this layer makes on its own (a malformed request, a path that
        /// is not UTF-8, a body too large, the server stopping), for the request's path — so that
        /// each API behind it answers in its own error shape. By default `/v1`'s
        /// (`{"error": {"code", "message"}}`).
        public var refusal: @Sendable (_ status: Int, _ path: String, _ message: String) -> [UInt8] = HTTPServer.refusalBody
        public init() {}
    }

    /// Answers a request: at once, or later (see `HTTPAnswer`).
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPAnswer

    private var daemon: OpaquePointer?
    private let handler: Handler
    private let executor: HandlerExecutor
    private let options: Options
    private let lingeringClose: LingeringClose
    /// The port the server listens on.
    public private(set) var port: UInt16 = 0
    private let state = Mutex(Activity())
    /// Every open connection's socket and deadline (`Watched`), by connection address.
    private let watched = Mutex<[UInt: Watched]>([:])
    private let reaper = NSCondition()
    private var reaperStopped = false  // guarded by `reaper`

    /// Where one connection is, for the head deadline and the body rate.
    private struct Watched {
        let socket: Int32
        enum Phase {
            /// Waiting for a head, for at most this long from `since` (nil: no limit).
            case head(within: Duration?)
            case body(received: Int)
            case handled
        }
        var phase: Phase
        var since = ContinuousClock.now
        var cut = false
    }

    private struct Activity {
        /// Requests handed to the handler and not completed yet, by connection address, with
        /// whether they have been answered.
        var dispatched: [UInt: Bool] = [:]
        /// Connections whose request head has arrived and whose body is still arriving.
        var receiving: Set<UInt> = []
        var streams: [ObjectIdentifier: EventStream] = [:]
        /// `stop` has begun: requests arriving from now on are refused, not dispatched.
        var stopping = false
        /// `stop` is about to stop libmicrohttpd, which aborts the process if a connection is
        /// suspended then: from now on nothing is suspended, every request is refused at once.
        var closed = false
    }

    /// The TLS key and certificate as C strings, alive as long as the daemon (nil: plain HTTP).
    private let tlsKey: UnsafeMutablePointer<CChar>?
    private let tlsCertificate: UnsafeMutablePointer<CChar>?

    /// Starts listening.
    public init(options: Options = Options(), handler: @escaping Handler) throws(HTTPServerError) {
        self.handler = handler
        self.options = options
        tlsKey = options.tls.map { strdup($0.key) }
        tlsCertificate = options.tls.map { strdup($0.certificate) }
        executor = HandlerExecutor(threads: options.threads)
        lingeringClose = LingeringClose(byteLimit: options.maxDiscardedBytes)
        // libmicrohttpd keeps pointers to the PEM texts while it runs: they are held by `options`.
        let started: OpaquePointer? = try Self.withSocketAddress(options.host, options.port) { address in
            timeline_mhd_start(address, UInt32(options.threads), UInt32(options.connectionLimit),
                               UInt32(options.connectionsPerClient), UInt32(options.idleTimeout), options.connectionMemory,
                               accessHandler, Unmanaged.passUnretained(self).toOpaque(),
                               completedHandler, Unmanaged.passUnretained(self).toOpaque(),
                               connectionHandler, Unmanaged.passUnretained(self).toOpaque(),
                               tlsKey.map { UnsafePointer($0) }, tlsCertificate.map { UnsafePointer($0) })
        }
        guard let started else {
            executor.stop()
            lingeringClose.stop()
            throw HTTPServerError("could not listen on \(options.host):\(options.port) (in use, or not an address of this machine)")
        }
        daemon = started
        port = timeline_mhd_port(started)
        // Weakly: a server dropped without `stop()` is still deinitialised (and stopped).
        let thread = Thread { [weak self] in while self?.reapOnce() == true {} }
        thread.name = "http-deadlines"
        thread.start()
    }

    /// Starts listening; every request is answered later by the async `handler`.
    public convenience init(options: Options = Options(), asyncHandler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) throws(HTTPServerError) {
        try self.init(options: options) { request in .later { await asyncHandler(request) } }
    }

    deinit {
        stop()
        free(tlsKey)
        free(tlsCertificate)
    }

    /// Graceful stop: closes connections opened from now on at once, lets the requests in
    /// flight be answered (up to `grace`), ends the open streams, then closes every connection.
    /// (Not `MHD_quiesce_daemon`: with a thread pool it races the workers' own changes to their
    /// epoll sets, and libmicrohttpd 0.9.75 aborts the process when it loses.)
    public func stop(grace: Duration = .seconds(10)) {
        guard let daemon else { return }
        let streams = state.withLock { state -> [EventStream] in
            state.stopping = true
            return Array(state.streams.values)
        }
        for stream in streams { stream.close() }
        let busy = { self.state.withLock { !$0.dispatched.isEmpty || !$0.streams.isEmpty } }
        // A request whose body is still arriving is in flight too: let it arrive and be answered.
        Self.wait(while: { busy() || self.state.withLock { !$0.receiving.isEmpty } }, upTo: grace)
        // libmicrohttpd must not stop with a connection suspended: answer the stragglers, and
        // give its threads a moment to send that.
        let stragglers = state.withLock { state in
            let waiting = state.dispatched.filter { !$0.value }.keys
            for address in waiting { state.dispatched[address] = true }
            return Array(waiting)
        }
        for address in stragglers {
            send(OpaquePointer(bitPattern: address)!, HTTPResponse(status: 503, headers: [("Connection", "close")]))
        }
        Self.wait(while: busy, upTo: .seconds(2))
        // Checked and closed in one step, so no request can be suspended between the check and
        // the stop (a keep-alive connection may send a new request at any moment).
        let idle = state.withLock { state -> Bool in
            guard state.dispatched.isEmpty, state.streams.isEmpty else { return false }
            state.closed = true
            return true
        }
        guard idle else { return }  // a connection still suspended: stopping would abort the process
        MHD_stop_daemon(daemon)
        reaper.lock()
        reaperStopped = true
        reaper.signal()
        reaper.unlock()
        executor.stop()
        lingeringClose.stop()
        self.daemon = nil
    }

    private static func wait(while condition: () -> Bool, upTo limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, condition() { Thread.sleep(forTimeInterval: 0.005) }
    }

    /// The number of open event streams.
    public var openStreams: Int { state.withLock { $0.streams.count } }

    // MARK: - libmicrohttpd's callbacks

    /// The state of one request while its body arrives.
    final class Incoming {
        let method: String
        let path: String
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var parts: [FormPart] = []
        var postProcessor: OpaquePointer?
        var received = 0
        var answered = false
        /// Its whole body has arrived (libmicrohttpd's last call for it).
        var bodyEnded = false
        /// The answer decided while the body was arriving, when libmicrohttpd cannot send one:
        /// the rest of the body is thrown away, then this is sent.
        var refusal: (status: Int, body: [UInt8])?
        /// The head arrived after `stop` began: the request is refused, never dispatched.
        var arrivedWhileStopping = false

        init(method: String, path: String) {
            self.method = method
            self.path = path
        }

        deinit {
            if let postProcessor { MHD_destroy_post_processor(postProcessor) }
        }
    }

    fileprivate func access(_ connection: OpaquePointer, _ url: (path: String, valid: Bool), _ method: String,
                            _ data: UnsafePointer<CChar>?, _ size: UnsafeMutablePointer<Int>,
                            _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let opaque = context.pointee else {
            // The head has arrived: refuse an announced oversized body before reading it.
            let incoming = Incoming(method: method, path: url.path)
            incoming.headers = Self.values(connection, .HEADER_KIND, lowercased: true)
            context.pointee = Unmanaged.passRetained(incoming).toOpaque()
            incoming.arrivedWhileStopping = state.withLock { state in
                if !state.stopping { state.receiving.insert(UInt(bitPattern: connection)) }
                return state.stopping
            }
            watch(connection, .body(received: 0))
            // Both framings at once: a proxy in front may read the body one way and this server
            // the other (request smuggling). RFC 9112 §6.1 lets a server refuse it and close.
            if incoming.headers["content-length"] != nil, incoming.headers["transfer-encoding"] != nil {
                return answerNow(connection, incoming, refusal(400, incoming, "a request may not have both Content-Length and Transfer-Encoding"),
                                 extraHeaders: [("Connection", "close")])
            }
            // Its path is read as text everywhere after: one that is not UTF-8 names nothing here.
            guard url.valid else {
                return answerNow(connection, incoming, refusal(400, incoming, "the path is not valid UTF-8"),
                                 extraHeaders: [("Connection", "close")])
            }
            if let length = incoming.headers["content-length"].flatMap(Int.init), length > options.maxBodyBytes {
                return refuseTooLarge(connection, incoming)
            }
            if incoming.headers["content-type"]?.lowercased().hasPrefix("multipart/form-data") == true {
                incoming.postProcessor = MHD_create_post_processor(connection, 64 << 10, partHandler,
                                                                   Unmanaged.passUnretained(incoming).toOpaque())
                if incoming.postProcessor == nil { return answerNow(connection, incoming, malformedMultipart(incoming)) }
            } else if let length = incoming.headers["content-length"].flatMap(Int.init), length > 0 {
                incoming.body.reserveCapacity(length)
            }
            return .YES
        }
        let incoming = Unmanaged<Incoming>.fromOpaque(opaque).takeUnretainedValue()
        if size.pointee > 0 {
            let count = size.pointee
            size.pointee = 0
            if incoming.answered { return .YES }
            incoming.received += count
            watch(connection, .body(received: incoming.received), restart: false)
            // Past the limit without a length announced (chunked).
            if incoming.refusal == nil, incoming.received > options.maxBodyBytes { refuse(incoming, tooLarge(incoming)) }
            if incoming.refusal != nil { return incoming.received > options.maxDiscardedBytes ? .NO : .YES }
            if let processor = incoming.postProcessor {
                if MHD_post_process(processor, data, count) != .YES { refuse(incoming, malformedMultipart(incoming)) }
            } else if let data {
                incoming.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
            }
            return .YES
        }
        incoming.bodyEnded = true
        watch(connection, .handled)
        if incoming.answered { return .YES }
        if let refusal = incoming.refusal {
            _ = state.withLock { $0.receiving.remove(UInt(bitPattern: connection)) }
            return answerNow(connection, incoming, refusal)
        }
        incoming.answered = true
        let request = HTTPRequest(method: incoming.method, path: incoming.path,
                                  query: Self.pairs(connection, .GET_ARGUMENT_KIND),
                                  headers: incoming.headers, body: incoming.body, formParts: incoming.parts,
                                  clientAddress: Self.clientAddress(connection))
        incoming.body = []
        incoming.parts = []
        let address = UInt(bitPattern: connection)
        let work: @Sendable () async -> HTTPResponse
        switch handler(request) {
        case .now(let response):
            // Answered on this thread: no suspension, no hop to another thread.
            _ = state.withLock { $0.receiving.remove(address) }
            guard let made = makeResponse(connection, response) else { return .NO }
            defer { MHD_destroy_response(made) }
            return MHD_queue_response(connection, UInt32(response.status), made)
        case .later(let later):
            work = later
        }
        let dispatched = state.withLock { state -> Bool in
            state.receiving.remove(address)
            guard !state.closed, !incoming.arrivedWhileStopping else { return false }
            state.dispatched[address] = false
            return true
        }
        guard dispatched else {
            return answerNow(connection, incoming, refusal(503, incoming, "the server is stopping"),
                             extraHeaders: [("Connection", "close")])
        }
        MHD_suspend_connection(connection)
        Task(executorPreference: executor) {
            let response = await work()
            let mine = self.state.withLock { state in
                guard state.dispatched[address] == false else { return false }  // `stop` gave up and answered it
                state.dispatched[address] = true
                return true
            }
            if mine { self.send(OpaquePointer(bitPattern: address)!, response) }
        }
        return .YES
    }

    /// Sends `response` on a suspended connection and resumes it.
    private func send(_ connection: OpaquePointer, _ response: HTTPResponse) {
        guard let made = makeResponse(connection, response) else {
            MHD_resume_connection(connection)
            return
        }
        MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        MHD_resume_connection(connection)
    }

    /// libmicrohttpd's response for `response` (with its headers), to queue on `connection`.
    private func makeResponse(_ connection: OpaquePointer, _ response: HTTPResponse) -> OpaquePointer? {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .stream(let stream):
            stream.attach(connection)
            let streamingState = state.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.streams[ObjectIdentifier(stream)] = stream
                return true
            }
            if !streamingState { stream.close() }
            made = MHD_create_response_from_callback(UInt64.max, 16 << 10, streamReader,
                                                     Unmanaged.passRetained(StreamBox(stream, server: self)).toOpaque(), streamFreed)
        case .upgrade(let socket):
            let stream = socket.outbound
            let accepted = state.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.streams[ObjectIdentifier(stream)] = stream
                return true
            }
            guard accepted else { return nil }
            stream.onGone { [weak self] in self?.streamEnded(stream) }
            made = MHD_create_response_for_upgrade(upgradeHandler, Unmanaged.passRetained(UpgradeBox(socket)).toOpaque())
        }
        guard let made else { return nil }
        for (name, value) in response.headers { MHD_add_response_header(made, name, value) }
        return made
    }

    fileprivate func streamEnded(_ stream: EventStream) {
        _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// Queues 413 at once; libmicrohttpd then closes the connection without reading the rest
    /// (and `LingeringClose` reads it).
    private func refuseTooLarge(_ connection: OpaquePointer, _ incoming: Incoming) -> MHD_Result {
        answerNow(connection, incoming, tooLarge(incoming), extraHeaders: [("Connection", "close")])
    }

    private func tooLarge(_ incoming: Incoming) -> (status: Int, body: [UInt8]) {
        refusal(413, incoming, "the body is larger than \(options.maxBodyBytes) bytes")
    }

    private func malformedMultipart(_ incoming: Incoming) -> (status: Int, body: [UInt8]) {
        refusal(400, incoming, "malformed multipart/form-data body")
    }

    /// A refusal of `incoming` by this layer, in the shape `Options.refusal` writes for its path.
    private func refusal(_ status: Int, _ incoming: Incoming, _ message: String) -> (status: Int, body: [UInt8]) {
        (status, options.refusal(status, incoming.path, message))
    }

    /// Decides `answer` while the body arrives (libmicrohttpd cannot send one then): what was
    /// kept of the body is dropped, the rest is thrown away, and `answer` follows its end.
    private func refuse(_ incoming: Incoming, _ answer: (status: Int, body: [UInt8])) {
        incoming.refusal = answer
        incoming.body = []
        incoming.parts = []
    }

    private func answerNow(_ connection: OpaquePointer, _ incoming: Incoming, _ answer: (status: Int, body: [UInt8]),
                           extraHeaders: [(String, String)] = []) -> MHD_Result {
        incoming.answered = true
        incoming.body = []
        let headers = [(name: "Content-Type", value: "application/json"), (name: "X-Content-Type-Options", value: "nosniff")]
            + extraHeaders.map { (name: $0.0, value: $0.1) }
        guard let response = makeResponse(connection, HTTPResponse(status: answer.status, headers: headers, body: .bytes(answer.body))) else { return .NO }
        defer { MHD_destroy_response(response) }
        return MHD_queue_response(connection, UInt32(answer.status), response)
    }

    /// `/v1`'s JSON error body, the default of `Options.refusal`.
    public static func refusalBody(status: Int, path: String, message: String) -> [UInt8] {
        let code = switch status {
        case 413: "payload_too_large"
        case 503: "internal"  // SPEC's codes have no "unavailable"; the status says it
        default: "invalid_argument"
        }
        let escaped = message.replacingOccurrences(of: "\"", with: "'")
        return Array(#"{"error":{"code":"\#(code)","message":"\#(escaped)"}}"#.utf8)
    }

    fileprivate func completed(_ connection: OpaquePointer?, _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        if let connection {
            state.withLock {
                $0.dispatched.removeValue(forKey: UInt(bitPattern: connection))
                $0.receiving.remove(UInt(bitPattern: connection))
            }
            watch(connection, .head(within: headAllowance(afterRequest: true)))
        }
        guard let context, let opaque = context.pointee else { return }
        let incoming = Unmanaged<Incoming>.fromOpaque(opaque).takeRetainedValue()
        context.pointee = nil
        if let connection, incoming.answered, !incoming.bodyEnded {
            // libmicrohttpd calls this before it closes its socket (only shut for writing by
            // now), so the descriptor is still this connection's.
            let descriptor = timeline_mhd_connection_fd(connection)
            if descriptor >= 0 { lingeringClose.add(duplicating: descriptor) }
        }
    }

    // MARK: - Deadlines

    /// A connection opened or closed. A new one while stopping is shut at once; libmicrohttpd
    /// calls this for a closed one before it closes the socket, so the reaper (which shuts
    /// sockets under the same lock) never touches a descriptor that has been reused.
    fileprivate func connectionChanged(_ connection: OpaquePointer, opened: Bool) {
        let address = UInt(bitPattern: connection)
        guard opened else { return _ = watched.withLock { $0.removeValue(forKey: address) } }
        let socket = timeline_mhd_connection_fd(connection)
        guard socket >= 0 else { return }
        let stopping = state.withLock { $0.stopping }
        watched.withLock { watched in
            watched[address] = Watched(socket: socket, phase: .head(within: headAllowance(afterRequest: false)))
            if stopping {
                watched[address]?.cut = true
                Glibc.shutdown(socket, Int32(SHUT_RDWR))
            }
        }
    }

    /// How long a connection may take to send a whole head: `headTimeout`, plus `idleTimeout`
    /// on a keep-alive connection after a request (nil: no limit).
    private func headAllowance(afterRequest: Bool) -> Duration? {
        guard options.headTimeout > 0, !(afterRequest && options.idleTimeout == 0) else { return nil }
        return .seconds(options.headTimeout + (afterRequest ? options.idleTimeout : 0))
    }

    /// Moves a connection to `phase` (from now, unless `restart` is false).
    private func watch(_ connection: OpaquePointer, _ phase: Watched.Phase, restart: Bool = true) {
        watched.withLock { watched in
            guard watched[UInt(bitPattern: connection)] != nil else { return }
            watched[UInt(bitPattern: connection)]!.phase = phase
            if restart { watched[UInt(bitPattern: connection)]!.since = .now }
        }
    }

    /// Waits half a second, then shuts the sockets of connections past their deadline: a head
    /// not complete within its allowance (`headAllowance`), a body slower than
    /// `minimumBodyRate` after `headTimeout` seconds. libmicrohttpd then sees the connection
    /// end and closes it. False once the server has stopped.
    private func reapOnce() -> Bool {
        reaper.lock()
        if !reaperStopped { _ = reaper.wait(until: Date(timeIntervalSinceNow: 0.5)) }
        let stopped = reaperStopped
        reaper.unlock()
        guard !stopped else { return false }
        guard options.headTimeout > 0 else { return true }
        let bodyGrace = Duration.seconds(options.headTimeout), now = ContinuousClock.now
        watched.withLock { watched in
            for (address, connection) in watched where !connection.cut {
                let elapsed = now - connection.since
                switch connection.phase {
                case .handled: continue
                case .head(let within):
                    guard let within, elapsed > within else { continue }
                case .body(let received):
                    guard elapsed > bodyGrace else { continue }
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    guard Double(received) < seconds * Double(options.minimumBodyRate) else { continue }
                }
                watched[address]!.cut = true
                Glibc.shutdown(connection.socket, Int32(SHUT_RDWR))
            }
        }
        return true
    }

    // MARK: - Reading what libmicrohttpd parsed

    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in pairs(connection, kind) {
            let key = lowercased ? name.lowercased() : name
            result[key] = result[key].map { $0 + ", " + value } ?? value
        }
        return result
    }

    private static func pairs(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: String)] {
        final class Collected { var pairs: [(name: String, value: String)] = [] }
        let collected = Collected()
        withExtendedLifetime(collected) {
            _ = MHD_get_connection_values_n(connection, kind, { cls, _, key, keySize, value, valueSize in
                let collected = Unmanaged<Collected>.fromOpaque(cls!).takeUnretainedValue()
                let name = key.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: keySize), as: UTF8.self) } ?? ""
                let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) } ?? ""
                collected.pairs.append((name, text))
                return .YES
            }, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.pairs
    }

    private static func clientAddress(_ connection: OpaquePointer) -> String {
        guard let address = timeline_mhd_client_address(connection) else { return "" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
        case AF_INET6:
            var ip = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
        default: return ""
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func withSocketAddress<R>(_ host: String, _ port: UInt16,
                                             _ body: (UnsafePointer<sockaddr>) -> R) throws(HTTPServerError) -> R {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            return withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        var v6 = sockaddr_in6()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if inet_pton(AF_INET6, bare, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            return withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        throw HTTPServerError("\(host) is not an IP address")
    }
}

/// A failure to start the server.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// What the stream reader's context points at.
private final class UpgradeBox: Sendable {
    let socket: WebSocket
    init(_ socket: WebSocket) { self.socket = socket }
}

/// libmicrohttpd's handle of an upgraded connection, passed to the reactor that closes it.
private struct UpgradeHandle: @unchecked Sendable { let pointer: OpaquePointer? }

/// libmicrohttpd hands over the upgraded connection: served by the process's `WebSocketReactor`
/// (this runs on the server's event loop, which must not block), then closed through
/// libmicrohttpd.
private let upgradeHandler: MHD_UpgradeHandler = { cls, _, _, extra, extraCount, socket, handle in
    let box = Unmanaged<UpgradeBox>.fromOpaque(cls!).takeRetainedValue()
    let early = extra.map { Array(UnsafeRawBufferPointer(start: $0, count: extraCount)) } ?? []
    let upgraded = UpgradeHandle(pointer: handle)
    guard let reactor = WebSocketReactor.shared else {
        timeline_mhd_upgrade_close(upgraded.pointer)
        box.socket.outbound.finished()
        return
    }
    reactor.serve(box.socket, fd: socket, extra: early) { timeline_mhd_upgrade_close(upgraded.pointer) }
}

private final class StreamBox {
    let stream: EventStream
    let server: HTTPServer
    init(_ stream: EventStream, server: HTTPServer) {
        self.stream = stream
        self.server = server
    }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, data, size, context in
    let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
    // A path that is not UTF-8 is refused; it is still read (repaired) to know whose API it is under.
    let path = String(validatingCString: url!).map { (path: $0, valid: true) } ?? (String(cString: url!), false)
    return server.access(connection!, path, String(cString: method!), data, size!, context!)
}

private let completedHandler: MHD_RequestCompletedCallback = { cls, connection, context, _ in
    Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue().completed(connection, context)
}

private let connectionHandler: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let connection else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
        .connectionChanged(connection, opened: timeline_mhd_is_opening(code) != 0)
}

private let partHandler: MHD_PostDataIterator = { cls, _, key, filename, contentType, _, data, offset, size in
    let incoming = Unmanaged<HTTPServer.Incoming>.fromOpaque(cls!).takeUnretainedValue()
    let name = key.map { String(cString: $0) } ?? ""
    let bytes = data.map { UnsafeRawBufferPointer(start: $0, count: size) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
    if offset > 0, let last = incoming.parts.indices.last, incoming.parts[last].name == name {
        incoming.parts[last].data.append(contentsOf: bytes)
    } else {
        incoming.parts.append(FormPart(name: name, filename: filename.map { String(cString: $0) },
                                       contentType: contentType.map { String(cString: $0) }, data: Array(bytes)))
    }
    return .YES
}

private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    let box = Unmanaged<StreamBox>.fromOpaque(cls!).takeUnretainedValue()
    return box.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
}

private let streamFreed: MHD_ContentReaderFreeCallback = { cls in
    let box = Unmanaged<StreamBox>.fromOpaque(cls!).takeRetainedValue()
    box.stream.finished()
    box.server.streamEnded(box.stream)
}
