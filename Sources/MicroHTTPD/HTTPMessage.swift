/// One HTTP request, whole: libmicrohttpd has read its head and body (or, for
/// `multipart/form-data`, parsed the body into parts) before the handler sees it.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, … as the client sent it.
    public let method: String
    /// The path, percent-decoded, without the query.
    public let path: String
    /// The query parameters, decoded, in order (a parameter without `=` has the value "").
    public let query: [(name: String, value: String)]
    /// Header values by lowercased name (repeated headers joined with ", ").
    public let headers: [String: String]
    /// The body, unless it was `multipart/form-data`.
    public let body: [UInt8]
    /// The parts of a `multipart/form-data` body, in order.
    public let formParts: [FormPart]
    /// The client's IP address, as text.
    public let clientAddress: String

    /// A request as the server hands it over (tests and the bench make their own).
    public init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:],
        body: [UInt8] = [], formParts: [FormPart] = [], clientAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.formParts = formParts
        self.clientAddress = clientAddress
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// One part of a `multipart/form-data` body.
public struct FormPart: Sendable {
    /// The form field's name.
    public let name: String
    /// The file's name, for a file part.
    public let filename: String?
    /// The part's `Content-Type`, if it says one.
    public let contentType: String?
    /// The part's bytes (empty when it was written to `file`).
    public internal(set) var data: [UInt8]
    /// For a file part of a large upload (`HTTPServer.Options.largeUploads`): the file its
    /// bytes were written to, removed once the request is done.
    public internal(set) var file: String?

    /// A part as a test or the bench makes it.
    public init(name: String, filename: String? = nil, contentType: String? = nil, data: [UInt8], file: String? = nil) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.data = data
        self.file = file
    }
}

/// What the handler answers.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers, in order (a name may repeat).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body

    /// A response body: bytes, a stream that stays open (Server-Sent Events), or — with
    /// status 101 and the handshake's headers — the connection handed to a WebSocket.
    public enum Body: Sendable {
        /// These bytes, whole.
        case bytes([UInt8])
        /// `length` bytes of the file at `path` from `offset`, sent from the file (never read
        /// into memory whole): a video, or a range of one.
        case file(path: String, offset: Int, length: Int)
        /// A stream that stays open, written as it gets bytes.
        case stream(EventStream)
        /// The connection, handed to this WebSocket once the 101 is sent.
        case upgrade(WebSocket)
    }

    /// A response of `status`, with `headers` and `body` (none by default).
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// How a handler answers: at once (work that does not wait, such as a read of a snapshot:
/// answered on the server's thread), or later, by async work (such as a command that waits
/// for its durable commit: the connection is suspended meanwhile).
public enum HTTPAnswer: Sendable {
    /// Answered at once, on the server's thread.
    case now(HTTPResponse)
    /// Answered by async work; the connection waits suspended.
    case later(@Sendable () async -> HTTPResponse)

    /// The response, waiting for it if it comes later.
    public func response() async -> HTTPResponse {
        switch self {
        case .now(let response): response
        case .later(let work): await work()
        }
    }
}
