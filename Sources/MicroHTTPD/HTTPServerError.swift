/// A failure to start the server.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What failed, in words.
    public let description: String
    init(_ description: String) { self.description = description }
}
