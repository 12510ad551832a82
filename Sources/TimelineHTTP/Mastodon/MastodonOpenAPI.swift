import Foundation
import Timeline

/// The OpenAPI 3.1 document of the Mastodon API, generated from its route table
/// (`MastodonAPI.table`: each route's `MastodonDoc` and scope) and the entity schemas below.
/// Served at `/api/openapi.json` and printed by `timeline openapi --mastodon`; what the
/// entities hold is docs.joinmastodon.org's, as far as Timeline has it.
public enum MastodonOpenAPI {
    /// The document as pretty-printed JSON with sorted keys (the same bytes every time).
    public static func bytes() throws(TimelineError) -> [UInt8] {
        guard let data = try? JSONSerialization.data(withJSONObject: document(), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { throw TimelineError(.internal, "the Mastodon OpenAPI document is not JSON") }
        return Array(data) + [0x0A]
    }

    static let served = Result { () throws(TimelineError) in try bytes() }

    static func document() -> [String: Any] {
        var paths: [String: [String: Any]] = [:]
        for route in MastodonAPI.table {
            guard let doc = route.mastodon else { continue }
            paths[route.template, default: [:]][route.method.lowercased()] = operation(route, doc)
        }
        let scopes = Dictionary(uniqueKeysWithValues: (Array(OAuthScope.topLevel) + OAuthScope.granular).map { ($0, "Mastodon's \($0) scope") })
        return [
            "openapi": "3.1.0",
            "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
            "info": [
                "title": "Timeline's Mastodon client API",
                "version": MastodonAPI.version,
                "summary": "Mastodon's client API (docs.joinmastodon.org) over Timeline, for the apps people already have.",
                "description": "Generated from the server's Mastodon route table (`timeline openapi --mastodon`). Parameters come "
                    + "in the query, or a form-urlencoded, JSON or multipart body; `name[]` is a list. Errors are "
                    + "`{\"error\": \"…\"}` (OAuth's endpoints add `error_description`). Pages of statuses take `max_id`, "
                    + "`since_id`, `min_id` and `limit` and answer a `Link` header with `next` and `prev`. Every answer "
                    + "carries `X-RateLimit-Limit`, `-Remaining` and `-Reset`.",
                "license": ["name": "All rights reserved", "identifier": "LicenseRef-Proprietary"],
            ] as [String: Any],
            "servers": [["url": "/", "description": "The server this document was fetched from."]],
            "paths": paths,
            "components": [
                "securitySchemes": [
                    "oauth": ["type": "oauth2", "flows": [
                        "authorizationCode": ["authorizationUrl": "/oauth/authorize", "tokenUrl": "/oauth/token", "scopes": scopes],
                        "clientCredentials": ["tokenUrl": "/oauth/token", "scopes": scopes],
                    ]] as [String: Any],
                ],
                "headers": Dictionary(uniqueKeysWithValues: ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"].map { name in
                    (name, ["description": "Mastodon's rate limit: \(name.dropFirst(12).lowercased()).", "schema": ["type": "string"]] as [String: Any])
                }),
                "responses": ["Error": ["description": "Mastodon's error.", "content": ["application/json": ["schema": ref("Error")]]]],
                "schemas": schemas,
            ] as [String: Any],
        ]
    }

    private static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }

    /// The schema of an answer: a component, or an array of one (`[Account]`).
    private static func schema(_ answer: MastodonSchema) -> [String: Any] {
        let name = answer.rawValue
        return name.hasPrefix("[") ? ["type": "array", "items": ref(String(name.dropFirst().dropLast()))] : ref(name)
    }

    private static func operation(_ route: Route, _ doc: MastodonDoc) -> [String: Any] {
        let id = route.method.lowercased() + route.template.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
            .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        var out: [String: Any] = ["operationId": id, "summary": doc.summary, "tags": [route.template.hasPrefix("/api") ? "api" : "oauth"]]
        out["security"] = switch route.access {
        case .anyone where route.scope == .none: [[String: Any]]()
        case .bearer: [["oauth": route.scope.names]]
        default: [[:], ["oauth": route.scope.names]]
        }
        var parameters: [[String: Any]] = []
        for name in route.pathParameters {
            parameters.append(["name": name, "in": "path", "required": true, "schema": string])
        }
        let query = doc.query + (doc.paged ? ["max_id", "since_id", "min_id", "limit"] : [])
        for name in query {
            parameters.append(["name": name, "in": "query", "required": false, "schema": field(name)])
        }
        if !parameters.isEmpty { out["parameters"] = parameters }
        if !doc.form.isEmpty || !doc.files.isEmpty {
            var properties: [String: Any] = [:]
            for name in doc.form { properties[name] = field(name) }
            var content: [String: Any] = ["application/x-www-form-urlencoded": ["schema": ["type": "object", "properties": properties]]]
            if !doc.files.isEmpty {
                var multipart = properties
                for file in doc.files { multipart[file] = ["type": "string", "contentMediaType": "application/octet-stream"] }
                content = ["multipart/form-data": ["schema": ["type": "object", "properties": multipart] as [String: Any]]]
            }
            out["requestBody"] = ["required": false, "content": content]
        }
        let limits = Dictionary(uniqueKeysWithValues: ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"].map {
            ($0, ["$ref": "#/components/headers/\($0)"])
        })
        var success: [String: Any] = ["description": doc.summary, "headers": limits]
        switch doc.returns {
        case .text: success["content"] = ["text/plain": ["schema": ["type": "string"]]]
        case .page: success["content"] = ["text/html": ["schema": ["type": "string"]]]
        case .stream: success["content"] = ["text/event-stream": ["schema": ["type": "string"]]]
        default: success["content"] = ["application/json": ["schema": schema(doc.returns)]]
        }
        var responses: [String: Any] = ["200": success]
        if doc.returns == .stream { responses["101"] = ["description": "Switched to the WebSocket protocol."] }
        if doc.returns == .page {
            let page: [String: Any] = ["description": "The page, telling what went wrong.", "content": ["text/html": ["schema": ["type": "string"]]]]
            for status in ["400", "403", "500"] { responses[status] = page }
        }
        for status in doc.otherStatuses { responses[String(status)] = ["description": "A redirect to the app's redirect URI."] }
        for status in ["400", "401", "403", "404", "405", "413", "415", "422", "429", "507"] where responses[status] == nil {
            responses[status] = ["$ref": "#/components/responses/Error"]
        }
        responses["default"] = ["$ref": "#/components/responses/Error"]
        out["responses"] = responses
        return out
    }

    // MARK: - Entities

    // Computed: a `[String: Any]` cannot be a shared constant under strict concurrency.
    private static var string: [String: Any] { ["type": "string"] }
    private static var nullableString: [String: Any] { ["type": ["string", "null"]] }
    private static var boolean: [String: Any] { ["type": "boolean"] }
    private static var integer: [String: Any] { ["type": "integer"] }
    private static var time: [String: Any] { ["type": "string", "format": "date-time"] }
    /// A parameter's schema: a string, or a list of them (`name[]`).
    private static func field(_ name: String) -> [String: Any] { name.hasSuffix("[]") ? array(string) : string }

    private static func array(_ items: [String: Any]) -> [String: Any] { ["type": "array", "items": items] }

    private static func object(_ properties: [String: [String: Any]], required: [String]? = nil) -> [String: Any] {
        ["type": "object", "properties": properties, "required": (required ?? Array(properties.keys)).sorted()]
    }

    private static var schemas: [String: Any] {
        let account = object([
            "id": string, "username": string, "acct": string, "display_name": string, "locked": boolean, "bot": boolean,
            "discoverable": ["type": ["boolean", "null"]],
            "group": boolean, "created_at": time, "note": string, "url": string, "uri": string, "avatar": string,
            "avatar_static": string, "header": string, "header_static": string, "followers_count": integer, "following_count": integer,
            "statuses_count": integer, "last_status_at": nullableString, "emojis": array([:]), "fields": array([:]),
        ])
        var credential = account
        var credentialProperties = account["properties"] as! [String: [String: Any]]
        credentialProperties["source"] = object(["note": string, "privacy": string, "sensitive": boolean,
                                                 "fields": array([:]), "follow_requests_count": integer])
        credential["properties"] = credentialProperties
        credential["required"] = ((account["required"] as! [String]) + ["source"]).sorted()
        let media = object([
            "id": string, "type": ["type": "string", "enum": ["image", "gifv", "video", "audio", "unknown"]], "url": string,
            "preview_url": string, "remote_url": nullableString, "meta": ["type": "object"], "description": nullableString,
            "blurhash": nullableString,
        ])
        let tag = object(["name": string, "url": string])
        let mention = object(["id": string, "username": string, "acct": string, "url": string])
        let status = object([
            "id": string, "created_at": time, "in_reply_to_id": nullableString, "in_reply_to_account_id": nullableString,
            "sensitive": boolean, "spoiler_text": string, "visibility": ["type": "string", "enum": ["public", "unlisted", "private", "direct"]],
            "language": nullableString, "uri": string, "url": ["type": ["string", "null"]], "replies_count": integer, "reblogs_count": integer,
            "favourites_count": integer, "edited_at": ["type": ["string", "null"], "format": "date-time"], "favourited": boolean,
            "reblogged": boolean, "muted": boolean, "bookmarked": boolean, "pinned": boolean, "content": string,
            "reblog": ["type": "null"], "application": ["type": ["object", "null"]], "account": ref("Account"),
            "media_attachments": array(ref("MediaAttachment")), "mentions": array(ref("Mention")), "tags": array(ref("Tag")),
            "emojis": array([:]), "card": ["type": ["object", "null"]], "poll": ["type": ["object", "null"]],
        ])
        return [
            "Error": object(["error": string, "error_description": string], required: ["error"]),
            "Empty": ["type": "object"],
            "Account": account,
            "CredentialAccount": credential,
            "MediaAttachment": media,
            "Tag": tag,
            "Mention": mention,
            "Status": status,
            "StatusEdit": object(["content": string, "spoiler_text": string, "sensitive": boolean, "created_at": time,
                                  "account": ref("Account"), "media_attachments": array(ref("MediaAttachment")), "emojis": array([:])]),
            "StatusSource": object(["id": string, "text": string, "spoiler_text": string]),
            "Context": object(["ancestors": array(ref("Status")), "descendants": array(ref("Status"))]),
            "Relationship": object([
                "id": string, "following": boolean, "showing_reblogs": boolean, "notifying": boolean, "followed_by": boolean,
                "blocking": boolean, "blocked_by": boolean, "muting": boolean, "muting_notifications": boolean, "requested": boolean,
                "requested_by": boolean, "domain_blocking": boolean, "endorsed": boolean, "note": string,
            ]),
            "Notification": object(["id": string, "type": string, "created_at": time, "account": ref("Account"),
                                    "status": ["oneOf": [ref("Status"), ["type": "null"]]], "group_key": string]),
            "Application": object(["id": string, "name": string, "website": nullableString, "scopes": array(string),
                                   "redirect_uri": string, "redirect_uris": array(string), "client_id": string, "client_secret": string,
                                   "vapid_key": string], required: ["name", "scopes", "redirect_uris"]),
            "WebPushSubscription": object(["id": string, "endpoint": string, "standard": boolean, "alerts": ["type": "object"],
                                           "policy": string, "server_key": string]),
            "Token": object(["access_token": string, "token_type": string, "scope": string, "created_at": integer]),
            "Markers": ["type": "object", "properties": ["notifications": object(["last_read_id": string, "version": integer, "updated_at": time])]],
            "Report": object(["id": string, "action_taken": boolean, "category": string, "comment": string, "forwarded": boolean,
                              "created_at": time, "status_ids": array(string), "rule_ids": array(string), "target_account": ref("Account")],
                             required: ["id", "action_taken", "category", "comment", "created_at", "target_account"]),
            "Search": object(["accounts": array(ref("Account")), "statuses": array(ref("Status")), "hashtags": array(ref("Tag"))]),
            "InstanceV1": object(["uri": string, "title": string, "description": string, "version": string, "urls": ["type": "object"],
                                  "configuration": ["type": "object"], "registrations": boolean],
                                 required: ["uri", "title", "version", "urls"]),
            "Instance": object(["domain": string, "title": string, "version": string, "description": string, "configuration": ["type": "object"],
                                "registrations": ["type": "object"]], required: ["domain", "title", "version", "configuration"]),
            "OAuthServerMetadata": object(["issuer": string, "authorization_endpoint": string, "token_endpoint": string,
                                           "code_challenge_methods_supported": array(string), "grant_types_supported": array(string)]),
        ]
    }
}
