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

    /// Whether a request no route serves is a person's browser asking for a page: it accepts
    /// `text/html`, and its path is none of the APIs' (`/v1/`, `/api/`, `/oauth/`) nor the web
    /// app's files (`/app/`), which keep their JSON errors.
    static func wantsPage(_ request: HTTPRequest, path: String) -> Bool {
        let api = ["/v1/", "/api/", "/oauth/", "/app/"].contains { path.hasPrefix($0) || path == $0.dropLast() }
        let accept = request.header("Accept")?.lowercased() ?? ""
        return !api && (accept.contains("text/html") || accept.contains("application/xhtml+xml"))
    }

    /// The page a browser gets for a path nothing serves: 404, a sentence and a link home.
    static func notFoundPage() -> HTTPResponse {
        let page = """
            <!doctype html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <title>Page not found · Timeline</title>
              <link rel="stylesheet" href="/app/app.css">
            </head>
            <body>
              <main id="main" class="screen not-found">
                <h1>Page not found</h1>
                <p>There is nothing at this address. It may have moved, or the link is mistyped.</p>
                <p><a href="/">Go to Timeline's home</a></p>
              </main>
            </body>
            </html>

            """
        return HTTPResponse(
            status: 404, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache")],
            body: .bytes(Array(page.utf8)))
    }

    /// An answer without a body.
    static func empty(_ status: Int = 204, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }
}
