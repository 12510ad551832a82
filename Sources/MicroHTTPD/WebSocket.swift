import Foundation
internal import CMicroHTTPD

/// A connection upgraded to the WebSocket protocol (RFC 6455) by libmicrohttpd: the handler
/// answers `101` with `.upgrade(socket)` (and the handshake's headers), and the server's
/// `WebSocketReactor` — a few threads for every socket, woken by readiness, never polling —
/// then writes what is sent to `outbound` (whole frames, made by `WebSocket.textFrame`) as the
/// client takes it and reads the client's frames: text goes to `onText`, a ping is answered
/// through `outbound`, a close is answered and ends it. Client frames must be masked, follow
/// RFC 6455's rules on fragments, control frames, RSV bits and opcodes (else the connection is
/// closed with 1002), carry UTF-8 text (1007), and be at most `maxMessage` bytes (1009).
/// Closing `outbound` ends the connection with 1001 (a client that does not take what is
/// pending within a second is reset); a client leaving, or not reading until `outbound` is
/// full, ends it at once; `outbound.onGone` runs then.
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
        default:
            out.append(127)
            out += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (UInt64($0) * 8)) & 0xFF) }
        }
        return out + payload
    }

    /// A close frame with `code` (RFC 6455 §7.4).
    static func closeFrame(_ code: Int) -> [UInt8] { frame(opcode: 0x8, [UInt8(code >> 8), UInt8(code & 0xFF)]) }

    /// Hands a client's text message to `onText` (on the reactor's thread).
    func received(_ text: String) { onText(self, text) }
}

/// One upgraded socket's reading side, on its reactor's thread only: client frames are parsed
/// and checked as RFC 6455 requires, and what answers them (pongs, the close frame) goes through
/// the bounded `outbound` queue, so a client that sends and never reads fills its queue and is
/// dropped instead of holding a thread.
final class WebSocketConnection {
    let socket: WebSocket
    let fd: Int32
    /// Hands the connection back to libmicrohttpd to close.
    let close: () -> Void
    /// Bytes read and not yet a whole frame.
    private var inbound: [UInt8] = []
    /// The message being reassembled from fragments, and its opcode (nil: none begun).
    private var message: [UInt8] = []
    private var messageOpcode: UInt8?
    /// A close frame has been queued (ours or an answer to the client's): what the client sends
    /// from now on is read and ignored (RFC 6455 §5.5.1).
    private var closing = false
    /// Registered in the epoll set for writability too.
    var watchesWrites = false

    init(socket: WebSocket, fd: Int32, close: @escaping () -> Void) {
        self.socket = socket
        self.fd = fd
        self.close = close
    }

    /// Handles `bytes` read from the client.
    func receive(_ bytes: some Collection<UInt8>) {
        guard !closing else { return }
        inbound += bytes
        var offset = 0
        defer { inbound.removeFirst(offset) }
        while !closing, let frame = Self.frame(in: inbound, at: &offset) {
            switch frame {
            case .refused(let code): refuse(code)
            case .frame(let fin, let opcode, let payload): handle(fin: fin, opcode: opcode, payload)
            }
        }
        if closing { offset = inbound.count }
    }

    private func handle(fin: Bool, opcode: UInt8, _ payload: [UInt8]) {
        switch opcode {
        case 0x0, 0x1, 0x2:
            // §5.4: a continuation continues a begun message; a new message waits for the last.
            guard (opcode == 0x0) == (messageOpcode != nil) else { return refuse(1002) }
            if opcode != 0x0 { messageOpcode = opcode }
            message += payload
            guard message.count <= WebSocket.maxMessage else { return refuse(1009) }
            guard fin else { return }
            defer {
                message = []
                messageOpcode = nil
            }
            // §8.1: a text message that is not UTF-8 fails the connection with 1007.
            if messageOpcode == 0x1 {
                guard let text = String(validating: message, as: UTF8.self) else { return refuse(1007) }
                socket.received(text)
            }
        case 0x8:
            closing = true
            guard payload.count >= 2 else {
                // §5.5.1: a body is a 2-byte code and an optional reason, so one byte is broken.
                let answer = payload.isEmpty ? WebSocket.frame(opcode: 0x8, []) : WebSocket.closeFrame(1002)
                return socket.outbound.close(with: answer)
            }
            let code = Int(payload[0]) << 8 | Int(payload[1])
            guard Self.mayBeSent(code) else { return refuse(1002) }
            guard String(validating: payload.dropFirst(2), as: UTF8.self) != nil else { return refuse(1007) }
            socket.outbound.close(with: WebSocket.closeFrame(code))
        case 0x9:
            // Through the bounded queue: a client that pings and never reads is dropped there.
            socket.outbound.send(WebSocket.frame(opcode: 0xA, payload))
        default: break  // a pong
        }
    }

    /// Fails the connection with `code`: the close frame is queued after what is pending.
    private func refuse(_ code: Int) {
        closing = true
        socket.outbound.close(with: WebSocket.closeFrame(code))
    }

    /// Whether a peer may send close `code` (RFC 6455 §7.4).
    private static func mayBeSent(_ code: Int) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    private enum Frame {
        case frame(fin: Bool, opcode: UInt8, payload: [UInt8])
        /// The client broke the protocol: close with this code.
        case refused(Int)
    }

    /// The whole frame of `bytes` at `offset`, which moves past it (nil: not all there yet).
    /// What §5.2 and §5.5 forbid is refused as soon as the header shows it.
    private static func frame(in bytes: [UInt8], at offset: inout Int) -> Frame? {
        guard bytes.count - offset >= 2 else { return nil }
        let first = bytes[offset], second = bytes[offset + 1]
        let fin = first & 0x80 != 0, opcode = first & 0x0F
        // No extension is negotiated, so every RSV bit is 0; opcodes 3-7 and 0xB-0xF are reserved.
        guard first & 0x70 == 0, opcode <= 0x2 || (0x8...0xA).contains(opcode) else { return .refused(1002) }
        guard second & 0x80 != 0 else { return .refused(1002) }  // a client's frames are masked
        var length = UInt64(second & 0x7F), start = offset + 2
        // A control frame is whole (FIN) and its payload at most 125 bytes.
        if opcode & 0x8 != 0, !fin || length > 125 { return .refused(1002) }
        if length == 126 {
            guard bytes.count - offset >= 4 else { return nil }
            length = UInt64(bytes[offset + 2]) << 8 | UInt64(bytes[offset + 3])
            start = offset + 4
        } else if length == 127 {
            guard bytes.count - offset >= 10 else { return nil }
            length = bytes[(offset + 2)..<(offset + 10)].reduce(0) { $0 << 8 | UInt64($1) }
            start = offset + 10
        }
        guard length <= UInt64(WebSocket.maxMessage) else { return .refused(1009) }
        let end = start + 4 + Int(length)
        guard bytes.count >= end else { return nil }
        let mask = Array(bytes[start..<start + 4])
        var payload = Array(bytes[(start + 4)..<end])
        for index in payload.indices { payload[index] ^= mask[index & 3] }
        offset = end
        return .frame(fin: fin, opcode: opcode, payload: payload)
    }
}
