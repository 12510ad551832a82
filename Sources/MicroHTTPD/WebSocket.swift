import Foundation
internal import CMicroHTTPD

/// A connection upgraded to the WebSocket protocol (RFC 6455) by libmicrohttpd: the handler
/// answers `101` with `.upgrade(socket)` (and the handshake's headers), and a thread of the
/// socket's own then writes what is sent to `outbound` — whole frames, made by
/// `WebSocket.textFrame` — and reads the client's frames: text goes to `onText`, a ping is
/// answered, a close is returned and ends it. Client frames must be masked and at most
/// `maxMessage` bytes (else the connection is closed with 1002 or 1009). Closing `outbound`
/// (or the client leaving) ends the connection; `outbound.onGone` runs then.
public final class WebSocket: Sendable {
    /// What is sent to the client: bounded as an event stream is (a client that does not read
    /// is dropped).
    public let outbound: EventStream
    private let onText: @Sendable (WebSocket, String) -> Void
    /// The most bytes of one client message.
    public static let maxMessage = 64 << 10

    /// A socket whose client's text messages go to `onText`.
    public init(outbound: EventStream = EventStream(), onText: @escaping @Sendable (WebSocket, String) -> Void) {
        self.outbound = outbound
        self.onText = onText
    }

    /// A ping (what keeps an idle connection open; the client answers it).
    public static let pingFrame = frame(opcode: 0x9, [])

    /// `text` as one unmasked text frame (a server's frames are never masked).
    public static func textFrame(_ text: String) -> [UInt8] { frame(opcode: 0x1, Array(text.utf8)) }

    static func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: out.append(UInt8(payload.count))
        case ..<65_536: out += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: out.append(127); out += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (UInt64($0) * 8)) & 0xFF) }
        }
        return out + payload
    }

    /// Serves the upgraded `socket` until either side ends it (on the socket's own thread).
    func run(socket: Int32, extra: [UInt8]) {
        var inbound = extra, message: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 16 << 10)
        defer { outbound.finished() }
        while true {
            let (bytes, ended) = outbound.drain()
            if !bytes.isEmpty, !write(socket, bytes) { return }
            if ended {
                _ = write(socket, Self.frame(opcode: 0x8, [0x03, 0xE9]))  // 1001: going away
                return
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) >= 0 || errno == EINTR else { return }
            guard descriptor.revents != 0 else { continue }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            inbound += buffer[0..<count]
            while let frame = Self.takeFrame(&inbound) {
                switch frame {
                case .refused(let code):
                    _ = write(socket, Self.frame(opcode: 0x8, [UInt8(code >> 8), UInt8(code & 0xFF)]))
                    return
                case .frame(let fin, let opcode, let payload):
                    switch opcode {
                    case 0x0, 0x1, 0x2:
                        message += payload
                        guard message.count <= Self.maxMessage else {
                            _ = write(socket, Self.frame(opcode: 0x8, [0x03, 0xF1]))  // 1009: too big
                            return
                        }
                        if fin {
                            if opcode != 0x2, let text = String(validating: message, as: UTF8.self) { onText(self, text) }
                            message = []
                        }
                    case 0x8:
                        _ = write(socket, Self.frame(opcode: 0x8, Array(payload.prefix(2))))
                        return
                    case 0x9: if !write(socket, Self.frame(opcode: 0xA, payload)) { return }
                    default: break  // a pong, or a reserved opcode: nothing to do
                    }
                }
            }
        }
    }

    private enum Frame {
        case frame(fin: Bool, opcode: UInt8, payload: [UInt8])
        /// The client broke the protocol: close with this code.
        case refused(Int)
    }

    /// The first whole frame of `bytes`, removed from it (nil: not all there yet).
    private static func takeFrame(_ bytes: inout [UInt8]) -> Frame? {
        guard bytes.count >= 2 else { return nil }
        let fin = bytes[0] & 0x80 != 0, opcode = bytes[0] & 0x0F
        guard bytes[1] & 0x80 != 0 else { return .refused(1002) }  // a client's frames are masked
        var length = UInt64(bytes[1] & 0x7F), offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = UInt64(bytes[2]) << 8 | UInt64(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | UInt64($1) }
            offset = 10
        }
        guard length <= UInt64(maxMessage) else { return .refused(1009) }
        guard bytes.count >= offset + 4 + Int(length) else { return nil }
        let mask = Array(bytes[offset..<offset + 4])
        let start = offset + 4
        var payload = Array(bytes[start..<start + Int(length)])
        for index in payload.indices { payload[index] ^= mask[index & 3] }
        bytes.removeFirst(start + Int(length))
        return .frame(fin: fin, opcode: opcode, payload: payload)
    }

    /// Writes all of `bytes` (false: the client is gone).
    private func write(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR || errno == EAGAIN {
                var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                _ = poll(&descriptor, 1, 1000)
                continue
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
