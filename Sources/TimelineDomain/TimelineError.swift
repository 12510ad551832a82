/// Every failure of a command or query: a code from docs/spec.md, a clear message, and the
/// offending field for `invalid_argument`.
public struct TimelineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The public error code (its `rawValue` is the wire name, e.g. `username_taken`). Every
    /// switch over it is exhaustive, so a new code makes the compiler name each place that
    /// must say what it means (its HTTP status among them).
    public enum Code: String, CaseIterable, Sendable, CustomStringConvertible {
        /// A field's value is not acceptable (`field` names it).
        case invalidArgument = "invalid_argument"
        /// The user, post, comment or image does not exist.
        case notFound = "not_found"
        /// Another user has this username.
        case usernameTaken = "username_taken"
        /// Another user has this email.
        case emailTaken = "email_taken"
        /// Wrong email or password (the same error for both).
        case invalidCredentials = "invalid_credentials"
        /// The password was right, but the account signs in with a one-time code too, and none was given.
        case twoFactorRequired = "two_factor_required"
        /// The command needs a valid session or acting user.
        case unauthenticated = "unauthenticated"
        /// The acting user may not do this (e.g. delete another's post).
        case forbidden = "forbidden"
        /// Too many failed sign-ins for this email and origin; wait.
        case rateLimited = "rate_limited"
        /// An image over 10 MiB or a request over its size limit.
        case payloadTooLarge = "payload_too_large"
        /// The image is not JPEG, PNG, GIF, HEIC or WebP.
        case unsupportedMediaType = "unsupported_media_type"
        /// A concurrent change won (try again).
        case conflict = "conflict"
        /// The database reached its size cap or the disk is full.
        case storageFull = "storage_full"
        /// A bug or an I/O failure; the message says which.
        case `internal` = "internal"

        /// The wire name (`username_taken`).
        public var description: String { rawValue }
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

    /// The code, the field if any, and the message: `invalid_argument (bio): …`.
    public var description: String {
        field.map { "\(code.rawValue) (\($0)): \(message)" } ?? "\(code.rawValue): \(message)"
    }

    /// `invalid_argument` for `field`.
    public static func invalid(_ field: String, _ message: String) -> TimelineError {
        TimelineError(.invalidArgument, message, field: field)
    }

    /// `invalid_credentials` for an OAuth client that did not prove itself (unknown, no or a
    /// wrong secret, a public client without PKCE): `field` is `client_id`, which is how
    /// OAuth's endpoints tell it from a refused grant (`invalid_client`, not `invalid_grant`).
    public static let unknownClient = TimelineError(
        .invalidCredentials,
        "Client authentication failed due to unknown client, no client authentication included, "
            + "or unsupported authentication method.",
        field: "client_id")

    /// Whether this is `unknownClient`'s kind: the OAuth client, not the grant, failed to
    /// authenticate.
    public var isClientAuthentication: Bool { code == .invalidCredentials && field == "client_id" }

    /// `not_found` for the `what` with this id.
    public static func notFound(_ what: String, _ id: String) -> TimelineError {
        TimelineError(.notFound, "no \(what) with id \(id)", field: nil)
    }
}
