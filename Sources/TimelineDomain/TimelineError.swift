/// Every failure of a command or query: a code from SPEC.md, a clear message, and the
/// offending field for `invalid_argument`.
public struct TimelineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The public error code (its `rawValue` is the wire name, e.g. `username_taken`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The wire name, e.g. `username_taken`.
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A field's value is not acceptable (`field` names it).
        public static let invalidArgument = Code("invalid_argument")
        /// The user, post, comment or image does not exist.
        public static let notFound = Code("not_found")
        /// Another user has this username.
        public static let usernameTaken = Code("username_taken")
        /// Another user has this email.
        public static let emailTaken = Code("email_taken")
        /// Wrong email or password (the same error for both).
        public static let invalidCredentials = Code("invalid_credentials")
        /// The command needs a valid session or acting user.
        public static let unauthenticated = Code("unauthenticated")
        /// The acting user may not do this (e.g. delete another's post).
        public static let forbidden = Code("forbidden")
        /// Too many failed sign-ins for this email and origin; wait.
        public static let rateLimited = Code("rate_limited")
        /// An image over 10 MiB or a request over its size limit.
        public static let payloadTooLarge = Code("payload_too_large")
        /// The image is not JPEG, PNG, GIF, HEIC or WebP.
        public static let unsupportedMediaType = Code("unsupported_media_type")
        /// A concurrent change won (try again).
        public static let conflict = Code("conflict")
        /// The database reached its size cap or the disk is full.
        public static let storageFull = Code("storage_full")
        /// A bug or an I/O failure; the message says which.
        public static let `internal` = Code("internal")

        /// Every code.
        public static let all: [Code] = [
            .invalidArgument, .notFound, .usernameTaken, .emailTaken, .invalidCredentials, .unauthenticated,
            .forbidden, .rateLimited, .payloadTooLarge, .unsupportedMediaType, .conflict, .storageFull, .internal,
        ]
    }

    /// What kind of failure.
    public let code: Code
    /// A clear, human message.
    public let message: String
    /// The input field at fault, when there is one.
    public let field: String?

    /// A failure with `code`, `message` and, for `invalid_argument`, the `field`.
    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String {
        field.map { "\(code.rawValue) (\($0)): \(message)" } ?? "\(code.rawValue): \(message)"
    }

    /// `invalid_argument` for `field`.
    public static func invalid(_ field: String, _ message: String) -> TimelineError {
        TimelineError(.invalidArgument, message, field: field)
    }

    /// `not_found` for the `what` with this id.
    public static func notFound(_ what: String, _ id: String) -> TimelineError {
        TimelineError(.notFound, "no \(what) with id \(id)", field: nil)
    }
}
