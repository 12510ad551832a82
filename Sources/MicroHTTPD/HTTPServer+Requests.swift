import Foundation
import Synchronization
internal import CMicroHTTPD

// A request as libmicrohttpd hands it over (the access handler): its head, its body as it
// arrives (kept, parsed as multipart, or refused and thrown away), the handler's answer now or
// later, and the refusals this layer makes on its own.

extension HTTPServer {
    /// The state of one request while its body arrives.
    final class Incoming {
        let method: String
        let path: String
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var parts: [FormPart] = []
        var postProcessor: OpaquePointer?
        /// How large its body may be: `Options.maxBodyBytes`, or a large upload's own limit.
        var limit: Int
        /// For a large upload, where its file parts are written.
        var spool: UploadSpool?
        /// A file part could not be written (a full disk): the request is refused with 507.
        var spoolFailed = false
        var received = 0
        var answered = false
        /// Its whole body has arrived (libmicrohttpd's last call for it).
        var bodyEnded = false
        /// The answer decided while the body was arriving, when libmicrohttpd cannot send one:
        /// the rest of the body is thrown away, then this is sent.
        var refusal: Refusal?
        /// The head arrived after `stop` began: the request is refused, never dispatched.
        var arrivedWhileStopping = false

        /// The client's address (what a refusal's request limit counts by).
        let client: String

        init(method: String, path: String, client: String, limit: Int) {
            self.method = method
            self.path = path
            self.client = client
            self.limit = limit
        }

        deinit {
            if let postProcessor { MHD_destroy_post_processor(postProcessor) }
        }
    }

    func access(
        _ connection: OpaquePointer, _ url: (path: String, valid: Bool), _ method: String,
        hostRequired: Bool, _ data: UnsafePointer<CChar>?, _ size: UnsafeMutablePointer<Int>,
        _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let opaque = context.pointee else {
            // The head has arrived: refuse an announced oversized body before reading it.
            let incoming = Incoming(
                method: method, path: url.path, client: Self.clientAddress(connection), limit: options.maxBodyBytes)
            let fields = Self.pairs(connection, .HEADER_KIND)
            incoming.headers = Self.merged(fields, lowercased: true)
            let multipart = incoming.headers["content-type"]?.lowercased().hasPrefix("multipart/form-data") == true
            if multipart, let large = options.largeUploads(method, url.path) {
                incoming.limit = max(large, options.maxBodyBytes)
                incoming.spool = UploadSpool(directory: options.spoolDirectory)
            }
            context.pointee = Unmanaged.passRetained(incoming).toOpaque()
            incoming.arrivedWhileStopping = state.withLock { state in
                if !state.stopping { state.receiving.insert(UInt(bitPattern: connection)) }
                return state.stopping
            }
            watch(connection, .body(received: 0))
            // A head a proxy in front may read otherwise than this server (RFC 9112): refused
            // before its body is read, and the connection closed, so no trailing bytes are
            // taken for a request of their own.
            if let problem = Self.malformedHead(fields, hostRequired: hostRequired) {
                return answerNow(
                    connection, incoming, refusal(400, incoming, problem),
                    extraHeaders: [("Connection", "close")])
            }
            // Both framings at once: a proxy in front may read the body one way and this server
            // the other (request smuggling). RFC 9112 §6.1 lets a server refuse it and close.
            if incoming.headers["content-length"] != nil, incoming.headers["transfer-encoding"] != nil {
                return answerNow(
                    connection, incoming,
                    refusal(400, incoming, "a request may not have both Content-Length and Transfer-Encoding"),
                    extraHeaders: [("Connection", "close")])
            }
            // Its path is read as text everywhere after: one that is not UTF-8 names nothing here.
            guard url.valid else {
                return answerNow(
                    connection, incoming, refusal(400, incoming, "the path is not valid UTF-8"),
                    extraHeaders: [("Connection", "close")])
            }
            if let length = incoming.headers["content-length"].flatMap(Int.init), length > incoming.limit {
                return refuseTooLarge(connection, incoming)
            }
            if multipart {
                incoming.postProcessor = MHD_create_post_processor(
                    connection, 64 << 10, partHandler,
                    Unmanaged.passUnretained(incoming).toOpaque())
                if incoming.postProcessor == nil {
                    return answerNow(connection, incoming, malformedMultipart(incoming))
                }
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
            if incoming.refusal == nil, incoming.received > incoming.limit {
                refuse(incoming, tooLarge(incoming))
            }
            if incoming.refusal != nil { return incoming.received > options.maxDiscardedBytes ? .NO : .YES }
            if let processor = incoming.postProcessor {
                if MHD_post_process(processor, data, count) != .YES {
                    refuse(
                        incoming,
                        incoming.spoolFailed
                            ? refusal(507, incoming, "the upload could not be stored (the disk may be full)")
                            : malformedMultipart(incoming))
                }
            } else if let data {
                incoming.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
            }
            return .YES
        }
        incoming.bodyEnded = true
        incoming.spool?.finishFile()
        watch(connection, .handled)
        if incoming.answered { return .YES }
        if let refusal = incoming.refusal {
            _ = state.withLock { $0.receiving.remove(UInt(bitPattern: connection)) }
            return answerNow(connection, incoming, refusal)
        }
        incoming.answered = true
        let request = HTTPRequest(
            method: incoming.method, path: incoming.path,
            query: Self.pairs(connection, .GET_ARGUMENT_KIND),
            headers: incoming.headers, body: incoming.body, formParts: incoming.parts,
            clientAddress: incoming.client)
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
            state.dispatched[address] = (answered: false, path: incoming.path)
            return true
        }
        guard dispatched else {
            return answerNow(
                connection, incoming, refusal(503, incoming, "the server is stopping"),
                extraHeaders: [("Connection", "close")])
        }
        MHD_suspend_connection(connection)
        Task(executorPreference: executor) {
            let response = await work()
            let mine = self.state.withLock { state in
                // `stop` gave up and answered it.
                guard state.dispatched[address]?.answered == false else { return false }
                state.dispatched[address]?.answered = true
                return true
            }
            if mine { self.send(OpaquePointer(bitPattern: address)!, response) }
        }
        return .YES
    }

    /// Why a request's head must be refused with 400, or nil: a field name that is not a token
    /// (RFC 9110 §5.1), a `Content-Length` repeated or not digits (RFC 9112 §6.3: libmicrohttpd
    /// would frame the body by the last one, a proxy perhaps by the first), no `Host` in an
    /// HTTP/1.1 request or more than one (RFC 9112 §3.2).
    static func malformedHead(_ fields: [(name: String, value: String)], hostRequired: Bool) -> String? {
        if fields.contains(where: { !isToken($0.name) }) { return "a header name is not a token" }
        let lengths = fields.filter { $0.name.lowercased() == "content-length" }
        if lengths.count > 1 { return "a request may have only one Content-Length" }
        if let length = lengths.first?.value,
            length.isEmpty || !length.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        {
            return "Content-Length must be a decimal number"
        }
        let hosts = fields.filter { $0.name.lowercased() == "host" }.count
        if hosts > 1 { return "a request may have only one Host" }
        if hosts == 0, hostRequired { return "an HTTP/1.1 request must have a Host header" }
        return nil
    }

    /// Whether `name` is an RFC 9110 token (what a field name must be).
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    true
                default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
                }
            }
    }

    /// Queues 413 at once; libmicrohttpd then closes the connection without reading the rest
    /// (and `LingeringClose` reads it).
    private func refuseTooLarge(_ connection: OpaquePointer, _ incoming: Incoming) -> MHD_Result {
        answerNow(connection, incoming, tooLarge(incoming), extraHeaders: [("Connection", "close")])
    }

    private func tooLarge(_ incoming: Incoming) -> Refusal {
        refusal(413, incoming, "the body is larger than \(incoming.limit) bytes")
    }

    private func malformedMultipart(_ incoming: Incoming) -> Refusal {
        refusal(400, incoming, "malformed multipart/form-data body")
    }

    /// A refusal of `incoming` by this layer, in the shape `Options.refusal` writes for its path.
    private func refusal(_ status: Int, _ incoming: Incoming, _ message: String) -> Refusal {
        let answer = options.refusal(
            Refused(
                status: status, path: incoming.path, client: incoming.client,
                message: message))
        return Refusal(status: status, body: answer.body, headers: answer.headers)
    }

    /// Decides `answer` while the body arrives (libmicrohttpd cannot send one then): what was
    /// kept of the body is dropped, the rest is thrown away, and `answer` follows its end.
    private func refuse(_ incoming: Incoming, _ answer: Refusal) {
        incoming.refusal = answer
        incoming.body = []
        incoming.parts = []
    }

    private func answerNow(
        _ connection: OpaquePointer, _ incoming: Incoming, _ answer: Refusal,
        extraHeaders: [(String, String)] = []
    ) -> MHD_Result {
        incoming.answered = true
        incoming.body = []
        let headers =
            [
                (name: "Content-Type", value: "application/json"),
                (name: "X-Content-Type-Options", value: "nosniff")
            ]
            + (answer.headers + extraHeaders).map { (name: $0.0, value: $0.1) }
        guard
            let response = makeResponse(
                connection,
                HTTPResponse(
                    status: answer.status, headers: headers,
                    body: .bytes(answer.body)))
        else { return .NO }
        defer { MHD_destroy_response(response) }
        return MHD_queue_response(connection, UInt32(answer.status), response)
    }

    /// `/v1`'s JSON error body, the default of `Options.refusal`.
    public static func refusalBody(status: Int, path: String, message: String) -> [UInt8] {
        let code =
            switch status {
            case 413: "payload_too_large"
            case 503: "internal"  // SPEC's codes have no "unavailable"; the status says it
            default: "invalid_argument"
            }
        let escaped = message.replacingOccurrences(of: "\"", with: "'")
        return Array(#"{"error":{"code":"\#(code)","message":"\#(escaped)"}}"#.utf8)
    }

    func completed(_ connection: OpaquePointer?, _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
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
}

/// A request this layer refuses on its own, as `HTTPServer.Options.refusal` is told of it.
public struct Refused: Sendable {
    /// The status it is answered with (400, 413, 503).
    public let status: Int
    /// The request's path (which API it is for).
    public let path: String
    /// The client's address, as `HTTPRequest.clientAddress`.
    public let client: String
    /// What was wrong, for the body.
    public let message: String
}

/// A refusal's answer: its status, body and the headers its API adds.
struct Refusal {
    let status: Int
    let body: [UInt8]
    let headers: [(String, String)]
}
