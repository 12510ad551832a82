import MicroHTTPD
import Timeline

extension TimelineError.Code {
    /// The HTTP status that answers this code (docs/spec.md, "Errors"), and what the code
    /// means to an HTTP client (the OpenAPI document's error answers).
    var http: (status: Int, meaning: String) {
        switch self {
        case .invalidArgument:
            (
                400,
                "invalid_argument: a malformed body, path or query parameter, an unknown field or query parameter (`field` names it)"
            )
        case .unauthenticated: (401, "unauthenticated: no, an expired or an unknown bearer token")
        case .invalidCredentials: (401, "invalid_credentials: a wrong email or password (or one-time code)")
        case .twoFactorRequired:
            (401, "two_factor_required: the password is right, but the account signs in with a one-time code too")
        case .forbidden: (403, "forbidden: the bearer may not do this")
        case .notFound:
            (
                404,
                "not_found: no such user, post, comment or image (or it was deleted or removed by the operator, "
                    + "or reports hide the post from everyone but its author)"
            )
        case .usernameTaken: (409, "username_taken: another user has this username")
        case .emailTaken: (409, "email_taken: another user has this email")
        case .conflict: (409, "conflict: a concurrent change won (`field` names the field)")
        case .payloadTooLarge:
            (
                413,
                "payload_too_large: the body is over the limit (\(HTTPServer.Options().maxBodyBytes >> 20) MiB; images at most \(ImageUpload.maxBytes >> 20) MiB)"
            )
        case .unsupportedMediaType:
            (
                415,
                "unsupported_media_type: a body that is not JSON (or multipart where accepted), or an image that is not "
                    + "JPEG, PNG, GIF, HEIC or WebP"
            )
        case .rateLimited: (429, "rate_limited: too many attempts; try again after `Retry-After` seconds")
        case .storageFull: (507, "storage_full: the disk is full; nothing was written")
        case .internal: (500, "internal: a bug or an unusable database")
        }
    }
}
