import Foundation
import JSONModel
import TimelineDomain

/// The JSON-lines contract of `timeline exec`: each request line (a command or a query)
/// gets exactly one response line. Never throws: every failure becomes an error line.
public struct ExecSession: Sendable {
    /// The service the lines run against.
    public let service: TimelineService

    /// A session answering lines against `service`.
    public init(service: TimelineService) { self.service = service }

    /// The longest request line; `LineReader` stops reading a line at this size.
    public static let maxLineBytes = JSONInput.maxLineBytes

    /// Answers one request line.
    public func handle(line: String) async -> String {
        await handle(bytes: Array(line.utf8))
    }

    /// Answers one line as `LineReader` read it: an over-long line (whose rest was never kept)
    /// gets `payload_too_large`.
    public func handle(_ line: LineReader.Line) async -> String {
        switch line {
        case .line(let bytes): return await handle(bytes: bytes)
        case .tooLong:
            let error = TimelineError(.payloadTooLarge, "a request line may be at most \(Self.maxLineBytes) bytes")
            return JSONOutput.line(["ok": false, "error": JSONOutput.error(error)] as JSONValue)
        }
    }

    /// Answers one request line given as its bytes (which must be UTF-8).
    public func handle(bytes: [UInt8]) async -> String {
        // The request's `id` (any JSON value), echoed as it came.
        var id: JSONValue?
        var response: [(key: String, value: JSONValue)]
        do {
            let input = try JSONInput(bytes: bytes)
            id = input.id
            let result: JSONValue
            if input.has("command") {
                result = JSONOutput.result(try await command(input))
            } else if input.has("query") {
                result = try query(input)()
            } else {
                throw TimelineError.invalid("command", "the line names no command or query")
            }
            response = [("ok", true), ("result", result)]
        } catch {
            if id == nil { id = JSONInput.id(ofRefused: bytes) }
            response = [("ok", false), ("error", JSONOutput.error(TimelineService.translate(error)))]
        }
        if let id { response.append(("id", id)) }
        return JSONOutput.line(.object(response))
    }

    private func command(_ input: JSONInput) async throws(TimelineError) -> CommandResult {
        let command = try Catalogue.command(named: try input.string("command"), input)
        let user = try input.optionalString("as"), token = try input.optionalString("session")
        // `as` is the trusted local operator's switch: beside a session it is refused, never
        // preferred.
        if user != nil && token != nil {
            throw TimelineError.invalid("as", "give either as (a trusted local operator) or a session, not both")
        }
        let caller: Caller
        if let user {
            caller = .user(user)
        } else if command.needsActor, let token {
            caller = .session(token)
        } else {
            caller = .anonymous
        }
        try input.refuseUnreadFields()
        return try await service.execute(command, as: caller)
    }

    /// Decodes a query line (refusing fields the query does not take; every query takes an
    /// optional `viewer`) into the work that answers it.
    private func query(_ input: JSONInput) throws(TimelineError) -> () throws(TimelineError) -> JSONValue {
        let query = try Catalogue.query(named: try input.string("query"), input)
        let viewer: UserID?
        if query.isPrivate {
            // A private query answers for the acting user, named as a command's is (and never
            // by `viewer`, which it refuses as unknown).
            let user = try input.optionalString("as"), token = try input.optionalString("session")
            if user != nil && token != nil {
                throw TimelineError.invalid("as", "give either as (a trusted local operator) or a session, not both")
            }
            if user != nil {
                viewer = try input.identifier("as")
            } else if let token {
                viewer = try service.userID(session: token)
            } else {
                throw TimelineError(
                    .unauthenticated, "\(query.name) answers only for the acting user: give as or session")
            }
        } else {
            viewer = try input.optionalString("viewer") == nil ? nil : try input.identifier("viewer")
        }
        try input.refuseUnreadFields()
        let service = self.service
        return { () throws(TimelineError) in JSONOutput.answer(try query.answer(service, viewer: viewer)) }
    }
}
