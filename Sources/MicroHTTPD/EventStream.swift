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
    private var goneHandlers: [@Sendable () -> Void] = []
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

    /// Resumes the suspended connection (called with the lock held).
    private func wake() {
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

    /// For a WebSocket's writer: the bytes pending (taken), and whether the stream has ended
    /// (closed with nothing left, or dropped).
    func drain() -> (bytes: [UInt8], ended: Bool) {
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .dropped, .gone: return ([], true)
        case .open, .closing: break
        }
        let bytes = Array(pending[sent...])
        pending.removeAll(keepingCapacity: true)
        sent = 0
        return (bytes, state == .closing && bytes.isEmpty)
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
