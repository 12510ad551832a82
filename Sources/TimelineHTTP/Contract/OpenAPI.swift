import JSONModel
import MicroHTTPD
import Timeline

/// The OpenAPI 3.1 document of the HTTP API, generated from the route table
/// (`TimelineAPI.routes`), the error codes' statuses, the limits of `Validation` and the JSON
/// Schemas of `schemas/`. Served at `/v1/openapi.json` and printed by `timeline openapi`.
public enum OpenAPI {
    /// The document the server answers with and its ETag, made once (the route table is fixed at build time).
    static let served = Result { () throws(TimelineError) in
        let document = try bytes()
        return (bytes: document, tag: Revalidation.tag(of: document))
    }

    /// The document as JSON indented by two spaces, keys sorted (the same bytes every time).
    public static func bytes() throws(TimelineError) -> [UInt8] {
        Array(JSONWriter.pretty(try document(), sortedKeys: true).utf8)
    }

    /// The document as a JSON object.
    static func document() throws(TimelineError) -> JSONValue {
        var paths: [(key: String, value: JSONValue)] = []
        for route in TimelineAPI.routes {
            guard let operation = route.operation else { continue }
            let method = route.method.lowercased(), answer = self.operation(operation, route)
            if let index = paths.firstIndex(where: { $0.key == route.template }) {
                paths[index].value = paths[index].value.setting(method, answer)
            } else {
                paths.append((route.template, [method: answer]))
            }
        }
        let description =
            "Served by `timeline serve` (this document at /v1/openapi.json, generated from the server's route "
            + "table; `timeline openapi` prints it). Bodies are UTF-8 application/json unless said otherwise; unknown "
            + "fields, wrong types and unknown query parameters give 400 invalid_argument naming the field. A request "
            + "acts as its bearer (`Authorization: Bearer <session>` from POST /v1/users or POST /v1/sessions) or "
            + "anonymously. Lists are pages `{items, next}`: pass `next` as `before` for the next page (a page with a "
            + "next also sends a `Link: <…>; rel=\"next\"` header). Errors are `{\"error\": {\"code\", \"message\", "
            + "\"field\"?}}`; a known path with a wrong method gives 405 with `Allow`."
        let info: JSONValue = [
            "title": "Timeline HTTP API",
            "version": "1",
            "summary":
                "The photo-sharing backend's API for the apps: sign up, post photos, follow, like, comment, timelines, live updates.",
            "description": .string(description),
            "license": ["name": "All rights reserved", "identifier": "LicenseRef-Proprietary"]
        ]
        let servers: JSONValue = [
            ["url": "/", "description": "The server this document was fetched from."],
            ["url": "http://127.0.0.1:8080", "description": "tools/serve on this machine."]
        ]
        let bearer =
            "A session token from POST /v1/users or POST /v1/sessions (it holds every scope), or an app's "
            + "OAuth token (GET /oauth/authorize), which may call an operation only with the Mastodon scopes the "
            + "operation lists (403 forbidden otherwise); `session` marks what only a session may do, never an app's token."
        let securitySchemes: JSONValue = [
            "bearer": ["type": "http", "scheme": "bearer", "description": .string(bearer)]
        ]
        let parameters = JSONValue.object(Parameter.allCases.map { (key: $0.rawValue, value: definition(of: $0)) })
        let headers = JSONValue.object(ResponseHeader.allCases.map { (key: $0.rawValue, value: definition(of: $0)) })
        let schemas = JSONValue.object(try Components.schemas().map { (key: $0.key, value: $0.value) })
        let components: JSONValue = [
            "securitySchemes": securitySchemes, "parameters": parameters, "headers": headers,
            "responses": errorResponses(), "schemas": schemas
        ]
        let tags = JSONValue.array(
            Tag.allCases.map { ["name": .string($0.rawValue), "description": .string($0.description)] })
        return [
            "openapi": "3.1.0",
            "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
            "info": info, "servers": servers, "tags": tags, "paths": .object(paths), "components": components
        ]
    }

    // MARK: - Operations

    private static func operation(_ operation: Operation, _ route: Route) -> JSONValue {
        let access = route.access, scopes = JSONValue.array(route.scope.names.map(JSONValue.string))
        var out: JSONValue = [
            "operationId": .string(operation.id), "summary": .string(operation.summary),
            "tags": [.string(operation.tag.rawValue)]
        ]
        if let description = operation.description { out = out.setting("description", .string(description)) }
        var errors = Set(operation.errors + [.invalidArgument, .internal])
        switch access {
        case .anyone: out = out.setting("security", [])
        case .viewerOptional: out = out.setting("security", [[:], ["bearer": scopes]])
        case .bearer, .tokenInQuery: out = out.setting("security", [["bearer": scopes]])
        }
        if access != .anyone { errors.insert(.unauthenticated) }  // a bearer that is sent must be valid
        let parameters = operation.parameters + (operation.paged ? [.limit, .before] : [])
        if !parameters.isEmpty {
            out = out.setting("parameters", .array(parameters.map { reference("parameters", $0.rawValue) }))
        }
        if let body = operation.body { out = out.setting("requestBody", requestBody(body)) }
        var responses: JSONValue = [String(operation.answer.status): response(operation.answer)]
        for (status, answer) in operation.otherAnswers {
            responses = responses.setting(String(status), response(answer))
        }
        for status in Set(errors.map(\.http.status)) where responses[String(status)] == nil {
            responses = responses.setting(String(status), reference("responses", errorResponseName(status)))
        }
        out = out.setting("responses", responses.setting("default", reference("responses", "Error")))
        return out
    }

    /// `{"$ref": "#/components/<kind>/<name>"}`.
    private static func reference(_ kind: String, _ name: String) -> JSONValue {
        ["$ref": .string("#/components/\(kind)/\(name)")]
    }

    private static func response(_ answer: Answer) -> JSONValue {
        var out: JSONValue = ["description": .string(answer.description)]
        if !answer.content.isEmpty {
            out = out.setting(
                "content", .object(answer.content.map { (key: $0.mediaType, value: ["schema": schema($0.schema)]) }))
        }
        if !answer.headers.isEmpty {
            out = out.setting(
                "headers", .object(answer.headers.map { (key: $0.rawValue, value: reference("headers", $0.rawValue)) }))
        }
        return out
    }

    private static func schema(_ schema: BodySchema) -> JSONValue {
        switch schema {
        case .component(let name): reference("schemas", name)
        case .binary: ["type": "string", "format": "binary"]
        case .text: ["type": "string"]
        case .object: ["type": "object"]
        }
    }

    private static func requestBody(_ body: RequestBody) -> JSONValue {
        let imageTypes = MediaType.allCases.map(\.rawValue) + ["application/octet-stream"]
        /// A multipart form of the component `name`, its `image` part any image type.
        func form(_ name: String) -> JSONValue {
            [
                "schema": schema(.component(name)),
                "encoding": ["image": ["contentType": .string(imageTypes.joined(separator: ", "))]]
            ]
        }
        let content: JSONValue
        switch body {
        case .command(let name, _, _):
            content = ["application/json": ["schema": schema(.component(Components.requestName(name)))]]
        case .contacts:
            content = ["application/json": ["schema": schema(.component("findContactsRequest"))]]
        case .photoPost:
            content = [
                "multipart/form-data": form("addPostForm"),
                "application/json": ["schema": schema(.component("addPostRequest"))]
            ]
        case .mediaUpload:
            content = [
                "multipart/form-data": form("uploadMediaForm"),
                "application/json": ["schema": schema(.component("uploadMediaRequest"))]
            ]
        case .storyUpload:
            content = [
                "multipart/form-data": form("postStoryForm"),
                "application/json": ["schema": schema(.component("postStoryRequest"))]
            ]
        case .archiveUpload:
            content = ["multipart/form-data": form("importForm")]
        case .videoUpload:
            content = [
                "multipart/form-data": form("uploadVideoForm"),
                "application/json": ["schema": schema(.component("uploadVideoRequest"))]
            ]
        case .avatar:
            content = .object(
                [(key: "multipart/form-data", value: form("avatarForm"))]
                    + imageTypes.map { (key: $0, value: ["schema": schema(.binary)]) })
        }
        return ["required": .bool(bodyIsRequired(body)), "content": content]
    }

    /// Whether a request must have a body: one with a field it requires (a mute's duration or an
    /// edit's caption may be left out, and so may the whole body).
    private static func bodyIsRequired(_ body: RequestBody) -> Bool {
        guard case let .command(name, path, _) = body else { return true }
        return !Components.requiredFields(of: name, without: path).isEmpty
    }

    // MARK: - Components

    /// One answer per error status, named after it, saying which codes it carries.
    private static func errorResponses() -> JSONValue {
        let error: JSONValue = ["application/json": ["schema": schema(.component("error"))]]
        var out: [(key: String, value: JSONValue)] = [
            ("Error", ["description": "Any other error, in the same shape.", "content": error])
        ]
        let byStatus = Dictionary(grouping: TimelineError.Code.allCases, by: \.http.status)
        for (status, codes) in byStatus.sorted(by: { $0.key < $1.key }) {
            var response: JSONValue = [
                "description": .string(codes.map(\.http.meaning).joined(separator: "; ") + "."), "content": error
            ]
            if codes.contains(.rateLimited) {
                response = response.setting("headers", ["Retry-After": reference("headers", "Retry-After")])
            }
            out.append((errorResponseName(status), response))
        }
        return .object(out)
    }

    /// The name of the error answer of `status` in `components/responses` (its reason phrase).
    private static func errorResponseName(_ status: Int) -> String {
        let phrase = HTTPStatus.reasonPhrase(status)
        return phrase.split(whereSeparator: { $0 == " " || $0 == "-" }).map {
            $0.prefix(1).uppercased() + $0.dropFirst()
        }.joined()
    }

    private static func definition(of parameter: Parameter) -> JSONValue {
        let identifier = reference("schemas", "identifier")
        let kinds = ActivityItem.Kind.allCases.map(\.rawValue).joined(separator: "|")
        let (place, required, description, schema): (String, Bool, String, JSONValue) =
            switch parameter {
            case .limit:
                (
                    "query", false, "Items per page: 1–\(PageRequest.maxLimit), default \(PageRequest.defaultLimit).",
                    [
                        "type": "integer", "minimum": 1, "maximum": .integer(PageRequest.maxLimit),
                        "default": .integer(PageRequest.defaultLimit)
                    ]
                )
            case .before:
                (
                    "query", false, "The cursor: the previous page's `next` (exclusive).",
                    ["type": "string", "minLength": 1]
                )
            case .prefix:
                ("query", false, "Only users whose username starts with it (case-insensitive).", ["type": "string"])
            case .user:
                (
                    "path", true, "A user id, or `@` and a username (case-insensitive).",
                    ["type": "string", "pattern": "^(@.+|[A-Za-z0-9_-]{1,64})$"]
                )
            case .post: ("path", true, "A post id.", identifier)
            case .comment: ("path", true, "A comment id.", identifier)
            case .poll: ("path", true, "A poll id (a post's `poll.id`).", identifier)
            case .list: ("path", true, "A list id (one of the bearer's).", identifier)
            case .collection: ("path", true, "A collection id.", identifier)
            case .item: ("path", true, "A collection item id (an item's `id`).", identifier)
            case .conversation:
                ("path", true, "A conversation id (one of the bearer's: its first message's id).", identifier)
            case .scheduledPost: ("path", true, "A scheduled post's id (one of the bearer's).", identifier)
            case .story: ("path", true, "A story's id.", identifier)
            case .host:
                (
                    "path", true, "A server's host, with its port if it has one (`photos.example:8443`).",
                    ["type": "string"]
                )
            case .importJob: ("path", true, "An import's id (`POST /v1/me/imports`'s `id`).", ["type": "string"])
            case .year: ("path", true, "A year (UTC), four digits.", ["type": "string", "pattern": "^[0-9]{4}$"])
            case .image: ("path", true, "An image id (a post's `image`).", identifier)
            case .media: ("path", true, "A media id (`POST /v1/media`'s `id`).", identifier)
            case .filter: ("path", true, "A filter id (one of the bearer's).", identifier)
            case .keyword: ("path", true, "A filter keyword's id (of one of the bearer's filters).", identifier)
            case .filterStatus: ("path", true, "A filter post's id (of one of the bearer's filters).", identifier)
            case .latitude:
                (
                    "query", true, "Degrees north of the search's centre.",
                    ["type": "number", "minimum": -90, "maximum": 90]
                )
            case .longitude:
                (
                    "query", true, "Degrees east of the search's centre.",
                    ["type": "number", "minimum": -180, "maximum": 180]
                )
            case .radiusKm:
                (
                    "query", false,
                    "The search's radius in kilometres: more than 0, at most \(Int(TimelineService.maxRadiusKm)), default \(Int(TimelineService.defaultRadiusKm)).",
                    [
                        "type": "number", "exclusiveMinimum": 0, "maximum": .double(TimelineService.maxRadiusKm),
                        "default": .double(TimelineService.defaultRadiusKm)
                    ]
                )
            case .variant:
                (
                    "query", false,
                    "Which size of a post's photo: `full` (long side ≤ 1080 px), `feed` (≤ 640 px) or `thumb` "
                        + "(320 px square). Anything else is 400 invalid_argument.", ["enum": ["full", "feed", "thumb"]]
                )
            case .tag: ("path", true, "A hashtag without `#` (any case).", ["type": "string", "minLength": 1])
            case .types:
                (
                    "query", false,
                    "Only items of these kinds, comma-separated (\(ActivityItem.Kind.allCases.map(\.rawValue).joined(separator: ", "))).",
                    ["type": "string", "pattern": .string("^(\(kinds))(,(\(kinds)))*$")]
                )
            case .order:
                (
                    "query", false,
                    "`active` (most recently posting first, the default) or `new` (newest accounts first).",
                    ["enum": .array(DirectoryOrder.allCases.map { .string($0.rawValue) })]
                )
            case .ticket:
                (
                    "query", false,
                    "A stream ticket from POST /v1/stream/tickets, instead of the Authorization header.",
                    ["type": "string", "minLength": 1]
                )
            case .lastEventID:
                ("header", false, "Resume after this event id (a log sequence number).", ["type": "string"])
            case .ifNoneMatch: ("header", false, "The ETag of a cached copy: 304 if it is current.", ["type": "string"])
            case .range:
                (
                    "header", false,
                    "One range of bytes (`bytes=FIRST-LAST`, `bytes=FIRST-`, `bytes=-SUFFIX`): 206 with it.",
                    ["type": "string"]
                )
            }
        return [
            "name": .string(parameter.rawValue), "in": .string(place), "required": .bool(required),
            "description": .string(description), "schema": schema
        ]
    }

    private static func definition(of header: ResponseHeader) -> JSONValue {
        switch header {
        case .link:
            [
                "description": "`<…?before=…&limit=…>; rel=\"next\"` when there is a next page.",
                "schema": ["type": "string"]
            ]
        case .location:
            [
                "description": "The URL of the new resource.", "required": true,
                "schema": ["type": "string", "format": "uri-reference"]
            ]
        case .eTag: ["description": "The image's entity tag (it never changes).", "schema": ["type": "string"]]
        case .cacheControl: ["description": "public, max-age=31536000, immutable", "schema": ["type": "string"]]
        case .retryAfter:
            ["description": "Seconds to wait before trying again.", "schema": ["type": "integer", "minimum": 0]]
        case .acceptRanges: ["description": "`bytes`: a range of it may be asked for.", "schema": ["type": "string"]]
        case .contentRange:
            [
                "description": "`bytes FIRST-LAST/SIZE` (206), or `bytes */SIZE` (416).",
                "schema": ["type": "string"]
            ]
        }
    }
}
