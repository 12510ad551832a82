import Timeline

/// The OpenAPI document's `components/schemas`: the results' schemas of `schemas/results/`,
/// pages of them, and the request bodies, made from the commands' schemas of
/// `schemas/commands/` with the limits of `Validation`.
enum Components {
    /// The fields of an exec line that an HTTP request does not send.
    static let execOnlyFields: Set<String> = ["command", "id", "as", "session"]

    /// The component name of the request body of the command `name`.
    static func requestName(_ command: String) -> String { command + "Request" }

    static func schemas() throws(TimelineError) -> [String: Any] {
        let envelope = try SchemaFiles.load("envelope.schema.json")
        let definitions = envelope["$defs"] as? [String: Any] ?? [:]
        var schemas: [String: Any] = [:]
        var identifier = definitions["identifier"] as? [String: Any] ?? [:]
        identifier["description"] = "An identifier of a user, post, comment or image: 1–64 of [A-Za-z0-9_-]. "
            + "Ids the server makes are 20-character time-sortable push ids."
        schemas["identifier"] = identifier
        schemas["place"] = try SchemaFiles.localised(definitions["place"] ?? [:], from: "envelope.schema.json")
        for name in try SchemaFiles.names(in: "results") {
            schemas[name] = try SchemaFiles.localised(try SchemaFiles.load("results/\(name).schema.json"), from: "results/\(name).schema.json")
        }
        let page = try SchemaFiles.load("results/page.schema.json")
        for (name, item, description) in [("userPage", "user", "A page of users."), ("postPage", "post", "A page of posts, newest first."),
                                          ("commentPage", "comment", "A page of comments, oldest first."),
                                          ("activityPage", "activityItem", "A page of activity, newest first."),
                                          ("suggestionPage", "suggestion", "A page of suggested users, the most followed by the bearer's follows first.")] {
            schemas[name] = self.page(of: item, page, description)
        }
        schemas["health"] = [
            "type": "object", "description": "The answer of /healthz and /readyz.", "required": ["status"],
            "properties": ["status": ["type": "string", "description": "ok, or why the server is not ready."]],
        ] as [String: Any]
        for route in TimelineAPI.routes {
            guard let body = route.operation?.body else { continue }
            switch body {
            case let .command(name, path, description):
                schemas[requestName(name)] = try request(name, without: path, description)
            case .contacts:
                schemas["findContactsRequest"] = contacts
            case .photoPost:
                var post = try request("addPost", without: [], "addPost as JSON: the image's bytes in base64.")
                if var properties = post["properties"] as? [String: Any], var image = properties["image"] as? [String: Any] {
                    image["description"] = "The image file in base64: \(imageDescription)."
                    properties["image"] = image
                    post["properties"] = properties
                }
                schemas[requestName("addPost")] = post
                schemas["addPostForm"] = form("addPost as multipart/form-data (what FormData and iOS uploads send).", [
                    "caption": constrained("caption", ["type": "string"]),
                    "location": ["type": "string", "contentMediaType": "application/json",
                                 "description": "Where the photo was taken: a JSON object {latitude, longitude, name?} as text (see the place schema)."],
                    "sensitive": ["enum": ["true", "false"], "description": "Blur the photo until the viewer asks to see it."],
                    "warning": constrained("warning", ["type": "string"]),
                ])
            case .mediaUpload:
                schemas[requestName("uploadMedia")] = try request("uploadMedia", without: [], "uploadMedia as JSON: the image's bytes in base64.")
                schemas["uploadMediaForm"] = form("A photo to attach to a post later, as multipart/form-data.", [
                    "alt": constrained("alt", ["type": "string"]),
                ])
            case .avatar:
                schemas["avatarForm"] = form("A profile photo as multipart/form-data.", [:])
            }
        }
        return schemas
    }

    /// What an uploaded image may be.
    private static let imageDescription = "JPEG, PNG, GIF, HEIC or WebP (by content, not by name), at most \(ImageUpload.maxBytes >> 20) MiB"

    private static func page(of item: String, _ page: [String: Any], _ description: String) -> [String: Any] {
        var items = (page["properties"] as? [String: Any])?["items"] as? [String: Any] ?? [:]
        items["items"] = ["$ref": "#/components/schemas/\(item)"]
        return [
            "type": "object", "description": description, "additionalProperties": false, "required": page["required"] ?? [],
            "properties": ["items": items, "next": ["$ref": "#/components/schemas/page/properties/next"]],
        ]
    }

    /// The JSON body of the command `name`: its exec schema without the exec-only fields and
    /// those the path gives, each field with its limits.
    private static func request(_ name: String, without path: [String], _ description: String?) throws(TimelineError) -> [String: Any] {
        let file = "commands/\(name).schema.json"
        let command = try SchemaFiles.load(file)
        let dropped = execOnlyFields.union(path)
        var properties: [String: Any] = [:]
        for (field, schema) in command["properties"] as? [String: Any] ?? [:] where !dropped.contains(field) {
            properties[field] = constrained(field, try SchemaFiles.localised(schema, from: file) as? [String: Any] ?? [:])
        }
        var out: [String: Any] = [
            "type": "object", "additionalProperties": false, "properties": properties,
            "description": description ?? "The body of \(name) (schemas/commands/\(name).schema.json without the exec-only fields).",
        ]
        let required = (command["required"] as? [String] ?? []).filter { !dropped.contains($0) }
        if !required.isEmpty { out["required"] = required }
        if let oneOf = command["oneOf"] { out["oneOf"] = oneOf }
        return out
    }

    /// `schema` with the limits the server checks on the request field `field` (the
    /// description says where a limit counts bytes or characters).
    private static func constrained(_ field: String, _ schema: [String: Any]) -> [String: Any] {
        let password = "\(Validation.passwordBytes.lowerBound)–\(Validation.passwordBytes.upperBound) bytes of UTF-8."
        let limits: [String: Any] = switch field {
        case "username":
            ["minLength": Validation.usernameLength.lowerBound, "maxLength": Validation.usernameLength.upperBound,
             "description": "\(Validation.usernameLength.lowerBound)–\(Validation.usernameLength.upperBound) of [a-z0-9._] after lowercasing; unique case-insensitively."]
        case "email":
            ["minLength": Validation.emailBytes.lowerBound, "maxLength": Validation.emailBytes.upperBound,
             "description": "A well-formed address; stored lowercased; unique."]
        case "password", "newPassword": ["maxLength": Validation.passwordBytes.upperBound, "description": password]
        case "currentPassword": ["maxLength": Validation.passwordBytes.upperBound]
        case "bio": ["maxLength": Validation.maxBio, "description": "At most \(Validation.maxBio) characters."]
        case "url": ["maxLength": Validation.maxURL, "description": "An http or https URL, at most \(Validation.maxURL) characters."]
        case "caption":
            ["maxLength": Validation.maxCaption,
             "description": "At most \(Validation.maxCaption) characters; its #hashtags (at most \(Validation.maxHashtags)) are extracted."]
        case "text": ["minLength": 1, "maxLength": Validation.maxComment, "description": "1–\(Validation.maxComment) characters."]
        case "reason": ["minLength": 1, "maxLength": Validation.maxReason, "description": "Why the post is reported: 1–\(Validation.maxReason) characters."]
        case "alt": ["maxLength": MediaPolicy.maxAlt, "description": "A description of the photo for people who cannot see it: at most \(MediaPolicy.maxAlt) characters."]
        case "warning": ["maxLength": Validation.maxWarning, "description": "A content warning shown over the photo (it makes the post sensitive): at most \(Validation.maxWarning) characters."]
        default: [:]
        }
        return schema.merging(limits) { _, limit in limit }
    }

    private static var contacts: [String: Any] {
        [
        "type": "object", "description": "The emails to look up (a contact list): neither stored nor logged.",
        "additionalProperties": false, "required": ["emails"],
        "properties": ["emails": [
            "type": "array", "maxItems": TimelineService.maxContactEmails, "items": ["type": "string"],
            "description": "At most \(TimelineService.maxContactEmails) emails (more is 400 invalid_argument); any case; one that is "
                + "not a well-formed address simply matches nobody.",
        ] as [String: Any]],
        ]
    }

    /// A multipart form whose `image` part is the image file, with `others` beside it.
    private static func form(_ description: String, _ others: [String: Any]) -> [String: Any] {
        let image: [String: Any] = ["type": "string", "format": "binary", "contentMediaType": "application/octet-stream",
                                    "description": "The image file: \(imageDescription)."]
        return ["type": "object", "description": description, "additionalProperties": false, "required": ["image"],
                "properties": others.merging(["image": image]) { $1 }]
    }
}
