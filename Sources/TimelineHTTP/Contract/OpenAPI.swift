import Foundation
import MicroHTTPD
import Timeline

/// The OpenAPI 3.1 document of the HTTP API, generated from the route table
/// (`TimelineAPI.routes`), the error codes' statuses, the limits of `Validation` and the JSON
/// Schemas of `schemas/`. Served at `/v1/openapi.json` and printed by `timeline openapi`.
public enum OpenAPI {
    /// The document the server answers with, made once (the route table is fixed at build time).
    static let served = Result { () throws(TimelineError) in try bytes() }

    /// The document as pretty-printed JSON with sorted keys (the same bytes every time).
    public static func bytes() throws(TimelineError) -> [UInt8] {
        let object = try document()
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { throw TimelineError(.internal, "the OpenAPI document is not JSON") }
        return Array(data) + [0x0A]
    }

    /// The document as a JSON object.
    static func document() throws(TimelineError) -> [String: Any] {
        var paths: [String: [String: Any]] = [:]
        for route in TimelineAPI.routes {
            guard let operation = route.operation else { continue }
            paths[route.template, default: [:]][route.method.lowercased()] = self.operation(operation, route)
        }
        return [
            "openapi": "3.1.0",
            "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
            "info": [
                "title": "Timeline HTTP API",
                "version": "1",
                "summary": "The photo-sharing backend's API for the apps: sign up, post photos, follow, like, comment, timelines, live updates.",
                "description": "Served by `timeline serve` (this document at /v1/openapi.json, generated from the server's route "
                    + "table; `timeline openapi` prints it). Bodies are UTF-8 application/json unless said otherwise; unknown "
                    + "fields, wrong types and unknown query parameters give 400 invalid_argument naming the field. A request "
                    + "acts as its bearer (`Authorization: Bearer <session>` from POST /v1/users or POST /v1/sessions) or "
                    + "anonymously. Lists are pages `{items, next}`: pass `next` as `before` for the next page (a page with a "
                    + "next also sends a `Link: <…>; rel=\"next\"` header). Errors are `{\"error\": {\"code\", \"message\", "
                    + "\"field\"?}}`; a known path with a wrong method gives 405 with `Allow`.",
                "license": ["name": "All rights reserved", "identifier": "LicenseRef-Proprietary"],
            ] as [String: Any],
            "servers": [
                ["url": "/", "description": "The server this document was fetched from."],
                ["url": "http://127.0.0.1:8080", "description": "tools/serve on this machine."],
            ],
            "tags": Tag.allCases.map { ["name": $0.rawValue, "description": $0.description] },
            "paths": paths,
            "components": [
                "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer",
                                               "description": "A session token from POST /v1/users or POST /v1/sessions "
                                                   + "(it holds every scope), or an app's OAuth token (GET /oauth/authorize), "
                                                   + "which may call an operation only with the Mastodon scopes the operation "
                                                   + "lists (403 forbidden otherwise); `session` marks what only a session may "
                                                   + "do, never an app's token."]],
                "parameters": Dictionary(uniqueKeysWithValues: Parameter.allCases.map { ($0.rawValue, definition(of: $0)) }),
                "headers": Dictionary(uniqueKeysWithValues: ResponseHeader.allCases.map { ($0.rawValue, definition(of: $0)) }),
                "responses": errorResponses(),
                "schemas": try Components.schemas(),
            ] as [String: Any],
        ]
    }

    // MARK: - Operations

    private static func operation(_ operation: Operation, _ route: Route) -> [String: Any] {
        let access = route.access, scopes = route.scope.names
        var out: [String: Any] = ["operationId": operation.id, "summary": operation.summary, "tags": [operation.tag.rawValue]]
        out["description"] = operation.description
        var errors = Set(operation.errors + [.invalidArgument, .internal])
        switch access {
        case .anyone: out["security"] = [[String: Any]]()
        case .viewerOptional: out["security"] = [[:], ["bearer": scopes]]
        case .bearer, .tokenInQuery: out["security"] = [["bearer": scopes]]
        }
        if access != .anyone { errors.insert(.unauthenticated) }  // a bearer that is sent must be valid
        let parameters = operation.parameters + (operation.paged ? [.limit, .before] : [])
        if !parameters.isEmpty { out["parameters"] = parameters.map { ["$ref": "#/components/parameters/\($0.rawValue)"] } }
        out["requestBody"] = operation.body.map(requestBody)
        var responses: [String: Any] = [String(operation.answer.status): response(operation.answer)]
        for (status, answer) in operation.otherAnswers { responses[String(status)] = response(answer) }
        for status in Set(errors.map(\.http.status)) where responses[String(status)] == nil {
            responses[String(status)] = ["$ref": "#/components/responses/\(errorResponseName(status))"]
        }
        responses["default"] = ["$ref": "#/components/responses/Error"]
        out["responses"] = responses
        return out
    }

    private static func response(_ answer: Answer) -> [String: Any] {
        var out: [String: Any] = ["description": answer.description]
        if !answer.content.isEmpty {
            out["content"] = Dictionary(uniqueKeysWithValues: answer.content.map { ($0.mediaType, ["schema": schema($0.schema)]) })
        }
        if !answer.headers.isEmpty {
            out["headers"] = Dictionary(uniqueKeysWithValues: answer.headers.map { ($0.rawValue, ["$ref": "#/components/headers/\($0.rawValue)"]) })
        }
        return out
    }

    private static func schema(_ schema: BodySchema) -> [String: Any] {
        switch schema {
        case .component(let name): ["$ref": "#/components/schemas/\(name)"]
        case .binary: ["type": "string", "format": "binary"]
        case .text: ["type": "string"]
        case .object: ["type": "object"]
        }
    }

    private static func requestBody(_ body: RequestBody) -> [String: Any] {
        let imageTypes = MediaType.allCases.map(\.rawValue) + ["application/octet-stream"]
        let content: [String: Any]
        switch body {
        case .command(let name, _, _):
            content = ["application/json": ["schema": schema(.component(Components.requestName(name)))]]
        case .contacts:
            content = ["application/json": ["schema": schema(.component("findContactsRequest"))]]
        case .photoPost:
            content = [
                "multipart/form-data": ["schema": schema(.component("addPostForm")),
                                        "encoding": ["image": ["contentType": imageTypes.joined(separator: ", ")]]] as [String: Any],
                "application/json": ["schema": schema(.component("addPostRequest"))],
            ]
        case .mediaUpload:
            content = [
                "multipart/form-data": ["schema": schema(.component("uploadMediaForm")),
                                        "encoding": ["image": ["contentType": imageTypes.joined(separator: ", ")]]] as [String: Any],
                "application/json": ["schema": schema(.component("uploadMediaRequest"))],
            ]
        case .avatar:
            var forms: [String: Any] = [
                "multipart/form-data": ["schema": schema(.component("avatarForm")),
                                        "encoding": ["image": ["contentType": imageTypes.joined(separator: ", ")]]] as [String: Any],
            ]
            for type in imageTypes { forms[type] = ["schema": schema(.binary)] }
            content = forms
        }
        return ["required": bodyIsRequired(body), "content": content]
    }

    /// Whether a request must have a body: one with a field it requires (a mute's duration or an
    /// edit's caption may be left out, and so may the whole body).
    private static func bodyIsRequired(_ body: RequestBody) -> Bool {
        guard case let .command(name, path, _) = body else { return true }
        let required = (try? SchemaFiles.load("commands/\(name).schema.json"))?["required"] as? [String] ?? []
        return required.contains { !Components.execOnlyFields.contains($0) && !path.contains($0) }
    }

    // MARK: - Components

    /// One answer per error status, named after it, saying which codes it carries.
    private static func errorResponses() -> [String: Any] {
        var out: [String: Any] = ["Error": ["description": "Any other error, in the same shape.",
                                            "content": ["application/json": ["schema": schema(.component("error"))]]]]
        let byStatus = Dictionary(grouping: TimelineError.Code.allCases, by: \.http.status)
        for (status, codes) in byStatus {
            var response: [String: Any] = [
                "description": codes.map(\.http.meaning).joined(separator: "; ") + ".",
                "content": ["application/json": ["schema": schema(.component("error"))]],
            ]
            if codes.contains(.rateLimited) { response["headers"] = ["Retry-After": ["$ref": "#/components/headers/Retry-After"]] }
            out[errorResponseName(status)] = response
        }
        return out
    }

    /// The name of the error answer of `status` in `components/responses` (its reason phrase).
    private static func errorResponseName(_ status: Int) -> String {
        let phrase = HTTPStatus.reasonPhrase(status)
        return phrase.split(whereSeparator: { $0 == " " || $0 == "-" }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    private static func definition(of parameter: Parameter) -> [String: Any] {
        let identifier: [String: Any] = ["$ref": "#/components/schemas/identifier"]
        let (place, required, description, schema): (String, Bool, String, [String: Any]) = switch parameter {
        case .limit:
            ("query", false, "Items per page: 1–\(PageRequest.maxLimit), default \(PageRequest.defaultLimit).",
             ["type": "integer", "minimum": 1, "maximum": PageRequest.maxLimit, "default": PageRequest.defaultLimit])
        case .before: ("query", false, "The cursor: the previous page's `next` (exclusive).", ["type": "string", "minLength": 1])
        case .prefix: ("query", false, "Only users whose username starts with it (case-insensitive).", ["type": "string"])
        case .user: ("path", true, "A user id, or `@` and a username (case-insensitive).", ["type": "string", "pattern": "^(@.+|[A-Za-z0-9_-]{1,64})$"])
        case .post: ("path", true, "A post id.", identifier)
        case .comment: ("path", true, "A comment id.", identifier)
        case .image: ("path", true, "An image id (a post's `image`).", identifier)
        case .media: ("path", true, "A media id (`POST /v1/media`'s `id`).", identifier)
        case .latitude: ("query", true, "Degrees north of the search's centre.", ["type": "number", "minimum": -90, "maximum": 90])
        case .longitude: ("query", true, "Degrees east of the search's centre.", ["type": "number", "minimum": -180, "maximum": 180])
        case .radiusKm:
            ("query", false, "The search's radius in kilometres: more than 0, at most \(Int(TimelineService.maxRadiusKm)), default \(Int(TimelineService.defaultRadiusKm)).",
             ["type": "number", "exclusiveMinimum": 0, "maximum": TimelineService.maxRadiusKm, "default": TimelineService.defaultRadiusKm])
        case .variant:
            ("query", false, "Which size of a post's photo: `full` (long side ≤ 1080 px), `feed` (≤ 640 px) or `thumb` "
                + "(320 px square). Anything else is 400 invalid_argument.", ["enum": ["full", "feed", "thumb"]])
        case .tag: ("path", true, "A hashtag without `#` (any case).", ["type": "string", "minLength": 1])
        case .types:
            ("query", false, "Only items of these kinds, comma-separated (\(ActivityItem.Kind.allCases.map(\.rawValue).joined(separator: ", "))).",
             ["type": "string", "pattern": "^(\(ActivityItem.Kind.allCases.map(\.rawValue).joined(separator: "|")))(,(\(ActivityItem.Kind.allCases.map(\.rawValue).joined(separator: "|"))))*$"])
        case .ticket: ("query", false, "A stream ticket from POST /v1/stream/tickets, instead of the Authorization header.",
                       ["type": "string", "minLength": 1])
        case .lastEventID: ("header", false, "Resume after this event id (a log sequence number).", ["type": "string"])
        case .ifNoneMatch: ("header", false, "The ETag of a cached copy: 304 if it is current.", ["type": "string"])
        }
        return ["name": parameter.rawValue, "in": place, "required": required, "description": description, "schema": schema]
    }

    private static func definition(of header: ResponseHeader) -> [String: Any] {
        switch header {
        case .link: ["description": "`<…?before=…&limit=…>; rel=\"next\"` when there is a next page.", "schema": ["type": "string"]]
        case .location: ["description": "The URL of the new resource.", "required": true, "schema": ["type": "string", "format": "uri-reference"]]
        case .eTag: ["description": "The image's entity tag (it never changes).", "schema": ["type": "string"]]
        case .cacheControl: ["description": "public, max-age=31536000, immutable", "schema": ["type": "string"]]
        case .retryAfter: ["description": "Seconds to wait before trying again.", "schema": ["type": "integer", "minimum": 0]]
        }
    }
}
