import Foundation

/// The parts of an HTTP request a signature covers: its method, its target (the path with its
/// query, as sent), the full URI it was sent to, its headers and its body.
public struct SignedMessage: Sendable {
    /// The method, upper case (`POST`).
    public var method: String
    /// The absolute URI the request was sent to (`https://host/inbox?x=1`).
    public var uri: String
    /// The headers as sent, in order (names in any case).
    public var headers: [(name: String, value: String)]
    /// The body's bytes.
    public var body: [UInt8]

    /// A message of `method` to `uri` with `headers` and `body`.
    public init(method: String, uri: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method.uppercased()
        self.uri = uri
        self.headers = headers
        self.body = body
    }

    /// The URI's authority (`host` or `host:port`), lower case.
    public var authority: String {
        guard let components = URLComponents(string: uri), let host = components.host else { return "" }
        return host.lowercased() + (components.port.map { ":\($0)" } ?? "")
    }

    /// The URI's path and query (`/inbox?x=1`): draft-cavage's `(request-target)` after the method.
    public var target: String {
        guard let components = URLComponents(string: uri) else { return "/" }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The values of the headers named `name` (any case), joined as RFC 9421 joins several
    /// fields (`, `), each trimmed of surrounding white space; `nil` when there is none.
    public func header(_ name: String) -> String? {
        let values = headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            .map { $0.value.trimmingCharacters(in: .whitespaces) }
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
