import Foundation

/// A plain TCP connection to a loopback HTTP server, for what a high-level client hides: the
/// exact bytes sent, a body never sent, a stream read as it arrives.
final class RawHTTPClient: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host` (an IPv4 or IPv6 address) at `port`.
    init(port: UInt16, host: String = "127.0.0.1") throws {
        let v6 = host.contains(":")
        fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        let connected: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                close(fd)
                throw POSIXError(.EINVAL)
            }
            let size = socklen_t(MemoryLayout<sockaddr_in6>.size)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr(host)
            let size = socklen_t(MemoryLayout<sockaddr_in>.size)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) }
            }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)  // a read never hangs a test
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends `text`; whether every byte was taken (false: the server closed or reset).
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends `bytes`; whether every byte was taken (false: the server closed or reset).
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

    /// Reads until `marker` has arrived (or the connection ends or times out); everything read.
    /// The blocking reads run on a thread of their own: the server's handlers need the
    /// cooperative pool, which a 2-core machine makes only two threads wide.
    func read(until marker: String) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.readBlocking(until: marker)) }
        }
    }

    /// Reads until `done` holds for everything read so far (or the connection ends, or no byte
    /// arrives for 10 s); everything read.
    func read(until done: @escaping @Sendable (String) -> Bool) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                while !done(String(decoding: self.buffer, as: UTF8.self)), self.receive() {}
                continuation.resume(returning: String(decoding: self.buffer, as: UTF8.self))
            }
        }
    }

    /// Reads until the server closes the connection (or no byte arrives for 10 s); every byte
    /// read, as bytes (a compressed body is not text).
    func readToEnd() async -> [UInt8] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                while self.receive() {}
                continuation.resume(returning: self.buffer)
            }
        }
    }

    /// Whether the server has closed (or reset) the connection, without waiting or reading.
    var peerClosed: Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Closes the connection (the server sees the client go).
    func disconnect() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// One `recv` into the buffer; false when the connection ended or timed out.
    private func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count <= 0 { return false }
        buffer += chunk[0..<count]
        return true
    }

    private func readBlocking(until marker: String) -> String {
        let needle = Array(marker.utf8)
        while !contains(needle) {
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            buffer += chunk[0..<count]
        }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Forgets what was read so far.
    func reset() { buffer = [] }

    private func contains(_ needle: [UInt8]) -> Bool {
        guard needle.count <= buffer.count else { return false }
        for start in 0...(buffer.count - needle.count) where buffer[start..<start + needle.count].elementsEqual(needle)
        { return true }
        return false
    }
}
