/// Every failure of a command or query: a code from SPEC.md, a clear message, and the
/// offending field for `invalid_argument`.
public struct TimelineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The public error code (its `rawValue` is the wire name, e.g. `username_taken`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let invalidArgument = Code("invalid_argument")
        public static let notFound = Code("not_found")
        public static let usernameTaken = Code("username_taken")
        public static let emailTaken = Code("email_taken")
        public static let invalidCredentials = Code("invalid_credentials")
        public static let unauthenticated = Code("unauthenticated")
        public static let forbidden = Code("forbidden")
        public static let rateLimited = Code("rate_limited")
        public static let payloadTooLarge = Code("payload_too_large")
        public static let unsupportedMediaType = Code("unsupported_media_type")
        public static let conflict = Code("conflict")
        public static let storageFull = Code("storage_full")
        public static let `internal` = Code("internal")

        public static let all: [Code] = [
            .invalidArgument, .notFound, .usernameTaken, .emailTaken, .invalidCredentials, .unauthenticated,
            .forbidden, .rateLimited, .payloadTooLarge, .unsupportedMediaType, .conflict, .storageFull, .internal,
        ]
    }

    public let code: Code
    public let message: String
    /// The input field at fault, when there is one.
    public let field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String {
        field.map { "\(code.rawValue) (\($0)): \(message)" } ?? "\(code.rawValue): \(message)"
    }

    public static func invalid(_ field: String, _ message: String) -> TimelineError {
        TimelineError(.invalidArgument, message, field: field)
    }

    public static func notFound(_ what: String, _ id: String) -> TimelineError {
        TimelineError(.notFound, "no \(what) with id \(id)", field: nil)
    }
}
