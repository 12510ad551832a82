import Foundation
import MicroHTTPD
import Timeline

/// How the HTTP API answers: JSON bodies, the one mapping of error codes to status codes,
/// and the headers every response carries.
enum Responses {
    /// The status code of each error code (SPEC.md, "Errors").
    static func status(of code: TimelineError.Code) -> Int {
        switch code {
        case .invalidArgument: 400
        case .unauthenticated, .invalidCredentials: 401
        case .forbidden: 403
        case .notFound: 404
        case .usernameTaken, .emailTaken, .conflict: 409
        case .payloadTooLarge: 413
        case .unsupportedMediaType: 415
        case .rateLimited: 429
        case .storageFull: 507
        default: 500
        }
    }

    static func json(_ status: Int, _ object: Any, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        json(status, bytes: JSONOutput.bytes(object), headers: headers)
    }

    /// A JSON body already written.
    static func json(_ status: Int, bytes: [UInt8], headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: .bytes(bytes))
    }

    static func error(_ error: TimelineError, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        var body: [String: Any] = ["code": error.code.rawValue, "message": error.message]
        if let field = error.field { body["field"] = field }
        return json(status(of: error.code), ["error": body], headers: headers)
    }

    static func empty(_ status: Int = 204, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }
}
