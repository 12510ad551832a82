import Foundation
internal import CMicroHTTPD

/// A response body that stays open and is written by whoever holds it (Server-Sent Events).
///
/// Bytes given to `send` are buffered until libmicrohttpd asks for them; while there is
/// nothing to send the connection is suspended (it costs no thread and no polling) and
/// `send` resumes it. A client that does not read keeps its bytes in the buffer: past
/// `maxBuffered` the stream is dropped (the connection closed), so a slow client can never
/// grow memory without bound.
public final class EventStream: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [UInt8] = []
    private var sent = 0
    /// The connection, once the response is queued.
    private var connection: OpaquePointer?
    private var suspended = false
    private var state = State.open
    /// What runs once the stream has ended (`onGone`).
    private var goneHandlers: [@Sendable () -> Void] = []
    /// A WebSocket's reactor, told (with the lock held) when there is something to write or the
    /// stream was closed or dropped; nil for a libmicrohttpd response.
    private var onReady: (@Sendable () -> Void)?
    /// `onReady` has been called and the reactor has not transmitted since (one wake-up is enough).
    private var readySignalled = false
    /// What `close()` queues last (a WebSocket's close frame).
    private var epilogue: [UInt8] = []
    /// The most bytes held for a client that does not read.
    public let maxBuffered: Int

    private enum State {
        case open
        /// `close()`d: send what is pending, then end.
        case closing
        /// Dropped (too slow): end at once.
        case dropped
        /// The response is finished (client gone, or ended).
        case gone
    }

    /// An open stream that lets at most `maxBuffered` bytes wait for a client that reads slowly
    /// (past it the client is dropped).
    public init(maxBuffered: Int = 256 << 10) {
        self.maxBuffered = maxBuffered
    }

    /// Queues `bytes` for the client; `false` when the stream is closed, gone or was just
    /// dropped because the client is not reading.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard state == .open else { return false }
        if pending.count - sent + bytes.count > maxBuffered {
            state = .dropped
            wake()
            return false
        }
        if sent > 0, sent == pending.count {
            pending.removeAll(keepingCapacity: true)
            sent = 0
        }
        pending += bytes
        wake()
        return true
    }

    /// Ends the stream once what is pending has been sent.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        guard state == .open else { return }
        state = .closing
        pending += epilogue
        wake()
    }

    /// Ends the stream with `last` (a WebSocket's close frame) after what is pending, in place
    /// of the epilogue; nothing if it is already ending.
    func close(with last: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        guard state == .open else { return }
        state = .closing
        pending += last
        wake()
    }

    /// The bytes queued and not yet taken by the client: a writer that can wait (a replay)
    /// sends more only while this is well under `maxBuffered`, at the pace the client reads.
    public var bufferedBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return pending.count - sent
    }

    /// Whether the response is finished: the client is gone or the stream ended.
    public var isGone: Bool {
        lock.lock()
        defer { lock.unlock() }
        return state == .gone
    }

    /// Runs `handler` once the stream is finished (at once if it already is).
    public func onGone(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        if state == .gone {
            lock.unlock()
            handler()
            return
        }
        goneHandlers.append(handler)
        lock.unlock()
    }

    /// Resumes the suspended connection, or tells the reactor (called with the lock held).
    private func wake() {
        if let onReady {
            if !readySignalled {
                readySignalled = true
                onReady()
            }
            return
        }
        guard suspended, let connection else { return }
        suspended = false
        MHD_resume_connection(connection)
    }

    // MARK: - libmicrohttpd's side

    func attach(_ connection: OpaquePointer) {
        lock.lock()
        self.connection = connection
        lock.unlock()
    }

    /// libmicrohttpd's content reader: copies pending bytes into `buffer`, or suspends the
    /// connection until there are some.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .dropped, .gone: return endWithError
        case .open, .closing: break
        }
        let available = pending.count - sent
        if available > 0 {
            let count = min(available, buffer.count)
            pending.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + sent, byteCount: count)
            }
            sent += count
            return count
        }
        if state == .closing { return endOfStream }
        guard let connection else { return endWithError }
        suspended = true
        MHD_suspend_connection(connection)
        return 0
    }

    // MARK: - A WebSocket reactor's side

    /// Where a WebSocket's stream is after `transmit`.
    enum Progress: Equatable {
        /// Everything queued is sent (the stream is open).
        case sent
        /// Bytes are left for when the socket can take more; `closing`: the stream is ending.
        case blocked(closing: Bool)
        /// Closed, and everything (the close frame last) is sent: the connection can end.
        case finished
        /// Dropped (the client did not read), or the socket failed: end the connection at once.
        case dropped
    }

    /// Hands the stream to a WebSocket's reactor: `onReady` runs (with the stream's lock held,
    /// so it must only signal) whenever `transmit` has something to do; `close()` queues
    /// `epilogue` last.
    func serve(epilogue: [UInt8], onReady: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        self.epilogue = epilogue
        self.onReady = onReady
    }

    /// Writes what is pending with `write` — which takes bytes from the front and answers how
    /// many it sent: 0 when the socket is full, negative when it failed — and says what is left.
    /// Bytes leave the queue only as the socket takes them: a client that does not read keeps
    /// them here, where `maxBuffered` bounds them.
    func transmit(_ write: (UnsafeRawBufferPointer) -> Int) -> Progress {
        lock.lock()
        defer { lock.unlock() }
        readySignalled = false
        switch state {
        case .dropped, .gone: return .dropped
        case .open, .closing: break
        }
        while sent < pending.count {
            let count = pending.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            if count < 0 {
                state = .dropped
                return .dropped
            }
            if count == 0 { break }
            sent += count
        }
        if sent == pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= 64 << 10)
            sent = 0
            return state == .closing ? .finished : .sent
        }
        if sent >= 64 << 10 {  // what the client took: not kept while it reads the rest
            pending.removeFirst(sent)
            sent = 0
        }
        return .blocked(closing: state == .closing)
    }

    /// The response was destroyed: the client is gone or the stream ended.
    func finished() {
        lock.lock()
        state = .gone
        connection = nil
        pending = []
        let handlers = goneHandlers
        goneHandlers = []
        lock.unlock()
        for handler in handlers { handler() }
    }

    private var endOfStream: Int { -1 }  // MHD_CONTENT_READER_END_OF_STREAM
    private var endWithError: Int { -2 }  // MHD_CONTENT_READER_END_WITH_ERROR
}
