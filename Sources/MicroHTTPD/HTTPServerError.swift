/// A failure to start the server.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
