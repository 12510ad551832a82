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
        /// Connections open at once, in all.
        public var connectionLimit = 4096
        /// Connections open at once from one client address.
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
        /// The `multipart/form-data` requests that may be larger than `maxBodyBytes`, and how
        /// large (nil: the usual limit): an upload of a video or an archive. Their file parts
        /// are written to files in `spoolDirectory` as they arrive, never held in memory: the
        /// handler reads each at `FormPart.file`, and the file is removed once the request is
        /// done (a handler that keeps it moves it away first).
        public var largeUploads: @Sendable (_ method: String, _ path: String) -> Int? = { _, _ in nil }
        /// Where the file parts of `largeUploads` are written.
        public var spoolDirectory = NSTemporaryDirectory()
        /// Of a body refused before it ended (over `maxBodyBytes`, malformed multipart), up
        /// to this much is read and thrown away rather than closing the connection under a
        /// client still sending, which would reset it before the client read the answer.
        /// Beyond this the connection is closed.
        public var maxDiscardedBytes = 32 << 20
        /// Memory for one connection's request head (so also the URL and header limit).
        public var connectionMemory = 64 << 10
        /// Speak HTTPS with this key and certificate (PEM); nil: plain HTTP.
        public var tls: (key: String, certificate: String)?
        /// The JSON body and extra headers of a refusal this layer makes on its own (a malformed
        /// request, a path that is not UTF-8, a body too large, the server stopping), for the
        /// request's path and client address — so that each API behind it answers in its own
        /// error shape, with its own headers (a request limit counts refused requests too). By
        /// default `/v1`'s body (`{"error": {"code", "message"}}`) and no headers.
        public var refusal: @Sendable (_ refused: Refused) -> (body: [UInt8], headers: [(String, String)]) = {
            (HTTPServer.refusalBody(status: $0.status, path: $0.path, message: $0.message), [])
        }
        /// The defaults: 127.0.0.1:8080, plain HTTP.
        public init() {}
    }

    /// Answers a request: at once, or later (see `HTTPAnswer`).
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPAnswer

    private var daemon: OpaquePointer?
    // Internal rather than private: the extensions in HTTPServer+*.swift read them.
    let handler: Handler
    let executor: HandlerExecutor
    let options: Options
    let lingeringClose: LingeringClose
    /// The port the server listens on.
    public private(set) var port: UInt16 = 0
    let state = Mutex(Activity())
    /// Every open connection's socket and deadline (`Watched`), by connection address.
    let watched = Mutex<[UInt: Watched]>([:])
    let reaper = NSCondition()
    var reaperStopped = false  // guarded by `reaper`

    struct Activity {
        /// Requests handed to the handler and not completed yet, by connection address: whether
        /// they have been answered, and their path (for the refusal `stop` may answer them with).
        var dispatched: [UInt: (answered: Bool, path: String)] = [:]
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
            timeline_mhd_start(
                address, UInt32(options.threads), UInt32(options.connectionLimit),
                UInt32(options.connectionsPerClient), UInt32(options.idleTimeout),
                options.connectionMemory,
                accessHandler, Unmanaged.passUnretained(self).toOpaque(),
                completedHandler, Unmanaged.passUnretained(self).toOpaque(),
                connectionHandler, Unmanaged.passUnretained(self).toOpaque(),
                tlsKey.map { UnsafePointer($0) }, tlsCertificate.map { UnsafePointer($0) })
        }
        guard let started else {
            executor.stop()
            lingeringClose.stop()
            throw HTTPServerError(
                "could not listen on \(options.host):\(options.port) (in use, or not an address of this machine)")
        }
        daemon = started
        port = timeline_mhd_port(started)
        // Weakly: a server dropped without `stop()` is still deinitialised (and stopped).
        let thread = Thread { [weak self] in while self?.reapOnce() == true {} }
        thread.name = "http-deadlines"
        thread.start()
    }

    /// Starts listening; every request is answered later by the async `handler`.
    public convenience init(
        options: Options = Options(), asyncHandler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) throws(HTTPServerError) {
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
            let waiting = state.dispatched.filter { !$0.value.answered }
            for address in waiting.keys { state.dispatched[address]?.answered = true }
            return waiting.map { ($0.key, $0.value.path) }
        }
        for (address, path) in stragglers {
            let connection = OpaquePointer(bitPattern: address)!
            let refused = Refused(
                status: 503, path: path, client: Self.clientAddress(connection), message: "the server is stopping")
            let refusal = options.refusal(refused)
            let headers =
                [(name: "Connection", value: "close"), (name: "Content-Type", value: "application/json")]
                + refusal.headers.map { (name: $0.0, value: $0.1) }
            send(connection, HTTPResponse(status: 503, headers: headers, body: .bytes(refusal.body)))
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
}
