import JSONModel
import Timeline

/// The OpenAPI document's `components/schemas`: the results' schemas (made from their Swift
/// types, `ResultJSON`), pages of them, and the request bodies, made from the commands' schemas
/// of `schemas/commands/` with the limits of `Validation`.
enum Components {
    /// The fields of an exec line that an HTTP request does not send.
    static let execOnlyFields: Set<String> = ["command", "id", "as", "session"]

    /// The component name of the request body of the command `name`.
    static func requestName(_ command: String) -> String { command + "Request" }

    static func schemas() throws(TimelineError) -> [String: JSONValue] {
        let envelope = try SchemaFiles.load("envelope.schema.json")
        var schemas: [String: JSONValue] = [:]
        schemas["identifier"] = (envelope["$defs"]?["identifier"] ?? [:]).setting(
            "description",
            .string(
                "An identifier of a user, post, comment or image: 1–64 of [A-Za-z0-9_-]. "
                    + "Ids the server makes are 20-character time-sortable push ids."))
        schemas["place"] = try SchemaFiles.localised(envelope["$defs"]?["place"] ?? [:], from: "envelope.schema.json")
        let results: [(name: String, title: String, schema: JSONSchema)]
        let pages: [(name: String, schema: JSONSchema)]
        do {
            (results, pages) = (try ResultJSON.schemas(), try ResultJSON.pages())
        } catch {
            throw TimelineError(.internal, "a result's schema could not be made: \(error)")
        }
        for result in results {
            let schema = result.schema.json.setting("title", .string(result.title))
            schemas[result.name] = try SchemaFiles.localised(schema, from: "results/\(result.name).schema.json")
        }
        for page in pages {
            schemas[page.name] = try SchemaFiles.localised(page.schema.json, from: "results/page.schema.json")
        }
        for route in TimelineAPI.routes {
            guard let body = route.operation?.body else { continue }
            switch body {
            case let .command(name, path, description):
                schemas[requestName(name)] = try request(name, without: path, description)
            case .contacts:
                schemas["findContactsRequest"] = contacts
            case .photoPost:
                let post = try request("addPost", without: [], "addPost as JSON: the image's bytes in base64.")
                let image = (post["properties"]?["image"] ?? [:])
                    .setting("description", .string("The image file in base64: \(imageDescription)."))
                schemas[requestName("addPost")] = post.setting(
                    "properties", (post["properties"] ?? [:]).setting("image", image))
                schemas["addPostForm"] = form(
                    "addPost as multipart/form-data (what FormData and iOS uploads send).",
                    [
                        ("caption", constrained("caption", ["type": "string"])),
                        (
                            "location",
                            [
                                "type": "string", "contentMediaType": "application/json",
                                "description": .string(
                                    "Where the photo was taken: a JSON object {latitude, "
                                        + "longitude, name?} as text (see the place schema).")
                            ]
                        ),
                        (
                            "sensitive",
                            [
                                "enum": ["true", "false"],
                                "description": "Blur the photo until the viewer asks to see it."
                            ]
                        ),
                        ("warning", constrained("warning", ["type": "string"]))
                    ])
            case .mediaUpload:
                schemas[requestName("uploadMedia")] = try request(
                    "uploadMedia", without: [], "uploadMedia as JSON: the image's bytes in base64.")
                schemas["uploadMediaForm"] = form(
                    "A photo to attach to a post later, as multipart/form-data.",
                    [
                        ("alt", constrained("alt", ["type": "string"]))
                    ])
            case .avatar:
                schemas["avatarForm"] = form("A profile image (the photo, or the header) as multipart/form-data.", [])
            case .storyUpload:
                schemas[requestName("postStory")] = try request(
                    "postStory", without: [], "postStory as JSON: the photo's bytes in base64, as `media`.")
                schemas["postStoryForm"] = form(
                    "A story's photo as multipart/form-data (the part `media`).", [], file: "media")
            case .archiveUpload:
                schemas["importForm"] = form(
                    "An export to import, as multipart/form-data: the zip in the part `archive`.", [], file: "archive")
            case .videoUpload:
                schemas[requestName("uploadVideo")] = try request(
                    "uploadVideo", without: [], "uploadVideo as JSON: the video's bytes in base64, as `video`.")
                schemas["uploadVideoForm"] = form(
                    "A video (MP4, MOV or WebM) as multipart/form-data: the part `video`, and its alt text.",
                    [("alt", constrained("alt", ["type": "string"]))], file: "video")
            }
        }
        return schemas
    }

    /// What an uploaded video may be.
    private static let videoDescription =
        "MP4 or MOV (H.264, HEVC, MPEG-4, AV1) or WebM (VP8, VP9, AV1), by content, at most "
        + "\(VideoPolicy.maxUploadBytes / 1_000_000) MB and \(Int(VideoPolicy.maxSeconds) / 60) minutes by default"

    /// What an uploaded image may be.
    private static let imageDescription =
        "JPEG, PNG, GIF, HEIC or WebP (by content, not by name), at most \(ImageUpload.maxBytes >> 20) MiB"

    /// The JSON body of the command `name`: its exec schema without the exec-only fields and
    /// those the path gives, each field with its limits.
    private static func request(_ name: String, without path: [String], _ description: String?) throws(TimelineError)
        -> JSONValue
    {
        let file = "commands/\(name).schema.json"
        let command = try SchemaFiles.load(file)
        let dropped = execOnlyFields.union(path)
        var properties: [(key: String, value: JSONValue)] = []
        for (field, schema) in command["properties"]?.members ?? [] where !dropped.contains(field) {
            properties.append((field, constrained(field, try SchemaFiles.localised(schema, from: file))))
        }
        var out: JSONValue = [
            "type": "object", "additionalProperties": false, "properties": .object(properties),
            "description": .string(
                description
                    ?? "The body of \(name) (schemas/commands/\(name).schema.json without the exec-only fields).")
        ]
        let required = (command["required"]?.elements ?? []).filter { !dropped.contains($0.string ?? "") }
        if !required.isEmpty { out = out.setting("required", .array(required)) }
        if let oneOf = command["oneOf"] { out = out.setting("oneOf", oneOf) }
        return out
    }

    /// The fields of a command's body that a request must send (a mute's duration or an edit's
    /// caption may be left out, and so may the whole body then).
    static func requiredFields(of command: String, without path: [String]) -> [String] {
        let required = (try? SchemaFiles.load("commands/\(command).schema.json"))?["required"]?.elements ?? []
        return required.compactMap(\.string).filter { !execOnlyFields.contains($0) && !path.contains($0) }
    }

    /// `schema` with the limits the server checks on the request field `field` (the
    /// description says where a limit counts bytes or characters).
    private static func constrained(_ field: String, _ schema: JSONValue) -> JSONValue {
        let password = "\(Validation.passwordBytes.lowerBound)–\(Validation.passwordBytes.upperBound) bytes of UTF-8."
        let limits: [(String, JSONValue)] =
            switch field {
            case "username":
                [
                    ("minLength", .integer(Validation.usernameLength.lowerBound)),
                    ("maxLength", .integer(Validation.usernameLength.upperBound)),
                    (
                        "description",
                        .string(
                            "\(Validation.usernameLength.lowerBound)–\(Validation.usernameLength.upperBound) of [a-z0-9._] "
                                + "after lowercasing; unique case-insensitively.")
                    )
                ]
            case "email":
                [
                    ("minLength", .integer(Validation.emailBytes.lowerBound)),
                    ("maxLength", .integer(Validation.emailBytes.upperBound)),
                    ("description", "A well-formed address; stored lowercased; unique.")
                ]
            case "password", "newPassword":
                [("maxLength", .integer(Validation.passwordBytes.upperBound)), ("description", .string(password))]
            case "currentPassword": [("maxLength", .integer(Validation.passwordBytes.upperBound))]
            case "bio":
                [
                    ("maxLength", .integer(Validation.maxBio)),
                    ("description", .string("At most \(Validation.maxBio) characters."))
                ]
            case "url":
                [
                    ("maxLength", .integer(Validation.maxURL)),
                    ("description", .string("An http or https URL, at most \(Validation.maxURL) characters."))
                ]
            case "caption":
                [
                    ("maxLength", .integer(Validation.maxCaption)),
                    (
                        "description",
                        .string(
                            "At most \(Validation.maxCaption) characters; its #hashtags (at most \(Validation.maxHashtags)) "
                                + "are extracted.")
                    )
                ]
            case "text":
                [
                    ("minLength", 1), ("maxLength", .integer(Validation.maxComment)),
                    ("description", .string("1–\(Validation.maxComment) characters."))
                ]
            case "reason":
                [
                    ("minLength", 1), ("maxLength", .integer(Validation.maxReason)),
                    ("description", .string("Why the post is reported: 1–\(Validation.maxReason) characters."))
                ]
            case "alt":
                [
                    ("maxLength", .integer(MediaPolicy.maxAlt)),
                    (
                        "description",
                        .string(
                            "A description of the photo for people who cannot see it: at most \(MediaPolicy.maxAlt) characters."
                        )
                    )
                ]
            case "warning":
                [
                    ("maxLength", .integer(Validation.maxWarning)),
                    (
                        "description",
                        .string(
                            "A content warning shown over the photo (it makes the post sensitive): at most "
                                + "\(Validation.maxWarning) characters.")
                    )
                ]
            default: []
            }
        return limits.reduce(schema) { $0.setting($1.0, $1.1) }
    }

    private static var contacts: JSONValue {
        [
            "type": "object", "description": "The emails to look up (a contact list): neither stored nor logged.",
            "additionalProperties": false, "required": ["emails"],
            "properties": [
                "emails": [
                    "type": "array", "maxItems": .integer(TimelineService.maxContactEmails),
                    "items": ["type": "string"],
                    "description": .string(
                        "At most \(TimelineService.maxContactEmails) emails (more is 400 invalid_argument); any "
                            + "case; one that is not a well-formed address simply matches nobody.")
                ]
            ]
        ]
    }

    /// A multipart form whose `image` part is the image file, with `others` beside it.
    /// A multipart form: its file part, `file` (the image), and the `others`.
    private static func form(
        _ description: String, _ others: [(key: String, value: JSONValue)], file: String = "image"
    ) -> JSONValue {
        let image: JSONValue = [
            "type": "string", "format": "binary", "contentMediaType": "application/octet-stream",
            "description": .string(
                file == "video" ? "The video file: \(videoDescription)." : "The image file: \(imageDescription).")
        ]
        return [
            "type": "object", "description": .string(description), "additionalProperties": false,
            "required": [.string(file)], "properties": .object(others + [(key: file, value: image)])
        ]
    }
}
