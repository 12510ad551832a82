import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// A request's fields: its body (JSON, or the parts of a multipart upload), path and query
/// parameters, read into the one `JSONInput` the catalogue decodes commands and queries from.
extension TimelineAPI {
    /// The request's fields for the catalogue: its JSON body (or multipart parts), its path
    /// parameters (a `{user}` given as `@username` resolved to the id) and its query
    /// parameters, plus `fixed` ones the route sets itself (the bearer's id, …). A field
    /// given twice is refused.
    func fields(_ request: APIRequest, _ fixed: [String: String] = [:]) throws(TimelineError) -> JSONInput {
        var members = try Self.body(request.http).members
        // A multipart upload's fields are text, as a URL's are (`sensitive=true`); its image and
        // its location (a JSON object) are not.
        var text = Set(request.http.formParts.map(\.name).filter { !Self.binaryParts.contains($0) && $0 != "location" })
        func add(_ name: String, _ value: String) throws(TimelineError) {
            guard !members.contains(where: { $0.key == name }) else {
                throw TimelineError.invalid(name, "\(name) is given twice")
            }
            members.append((name, .string(value)))
            text.insert(name)
        }
        for (name, value) in request.http.query { try add(name, value) }
        for (name, value) in request.parameters {
            try add(
                name,
                name == "user" && value.hasPrefix("@")
                    ? try service.userID(named: String(value.dropFirst())).rawValue : value)
        }
        for (name, value) in fixed { try add(name, value) }
        return JSONInput(object: .object(members), textFields: text)
    }

    /// Refuses any query parameter (or body field), for the routes that take none.
    func refuseAnyField(_ request: APIRequest) throws(TimelineError) {
        try fields(request).refuseUnreadFields()
    }

    /// The multipart parts that are files: a photo's `image`, a story's `media`.
    private static let binaryParts: Set<String> = ["image", "media"]

    /// A JSON object body, or the parts of a `multipart/form-data` body (the `image` part as
    /// base64, as the catalogue's `image` field expects; a `location` part is a JSON object as text, as
    /// the catalogue's `location` field is an object); nothing for an empty body.
    static func body(_ request: HTTPRequest) throws(TimelineError) -> JSONValue {
        if !request.formParts.isEmpty {
            var members: [(key: String, value: JSONValue)] = []
            for part in request.formParts {
                guard !members.contains(where: { $0.key == part.name }) else {
                    throw TimelineError.invalid(part.name, "the part \(part.name.prefix(64)) is given twice")
                }
                // Only `image` is binary: another part is text even when a client sends it as a
                // file (a `caption` with a filename is its text, not its base64).
                if binaryParts.contains(part.name) {
                    members.append((part.name, .string(Data(part.data).base64EncodedString())))
                } else if part.name == "location" {
                    do {
                        members.append((part.name, try JSONInput.body(part.data)))
                    } catch {
                        throw TimelineError.invalid(
                            "location", "the part location must be a JSON object {latitude, longitude, name?}")
                    }
                } else {
                    guard let text = String(validating: part.data, as: UTF8.self) else {
                        throw TimelineError.invalid(part.name, "the part \(part.name.prefix(64)) is not UTF-8 text")
                    }
                    members.append((part.name, .string(text)))
                }
            }
            return .object(members)
        }
        guard !request.body.isEmpty else { return .object([]) }
        let type = request.header("Content-Type")?.lowercased() ?? ""
        guard type.hasPrefix("application/json") else {
            throw TimelineError(
                .unsupportedMediaType, "the body must be application/json (or multipart/form-data for uploads)")
        }
        return try JSONInput.body(request.body)
    }
}
