import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// How the HTTP API answers: JSON bodies, errors and empty answers.
enum Responses {
    /// A JSON body: `value`'s compact bytes, members sorted.
    static func json(_ status: Int, _ value: JSONValue, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        json(status, bytes: JSONWriter.bytes(value), headers: headers)
    }

    /// A JSON body already written.
    static func json(_ status: Int, bytes: [UInt8], headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: .bytes(bytes))
    }

    /// The answer to a failure: `{"error": {code, message, field?}}` with the status of its code
    /// (or `status`, for a refusal that no code's status says, such as 405).
    static func error(_ error: TimelineError, status: Int? = nil, headers: [(name: String, value: String)] = [])
        -> HTTPResponse
    {
        json(status ?? error.code.http.status, JSONOutput.failure(error), headers: headers)
    }

    static func empty(_ status: Int = 204, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }
}
