import Foundation
import JSONModel
import Timeline

/// The OpenAPI 3.1 document of the Mastodon API, generated from its route table
/// (`MastodonAPI.table`: each route's `MastodonDoc` and scope) and the entity schemas below.
/// Served at `/api/openapi.json` and printed by `timeline openapi --mastodon`; what the
/// entities hold is docs.joinmastodon.org's, as far as Timeline has it.
public enum MastodonOpenAPI {
    /// The document as pretty-printed JSON with sorted keys (the same bytes every time).
    public static func bytes() throws(TimelineError) -> [UInt8] {
        do {
            return Array(JSONWriter.pretty(try document(), sortedKeys: true).utf8)
        } catch {
            throw TimelineError(.internal, "the Mastodon OpenAPI document: \(error)")
        }
    }

    /// The document the server answers with and its ETag, made once.
    static let served = Result { () throws(TimelineError) in
        let document = try bytes()
        return (bytes: document, tag: Revalidation.tag(of: document))
    }

    static func document() throws -> JSONValue {
        var paths: [(key: String, value: JSONValue)] = []
        for route in MastodonAPI.table {
            guard let doc = route.mastodon else { continue }
            let method = route.method.lowercased()
            if let index = paths.firstIndex(where: { $0.key == route.template }) {
                paths[index].value = paths[index].value.setting(method, operation(route, doc))
            } else {
                paths.append((route.template, [method: operation(route, doc)]))
            }
        }
        let scopes = JSONValue.object(
            (Array(OAuthScope.topLevel) + OAuthScope.granular).map {
                (key: $0, value: .string("Mastodon's \($0) scope"))
            })
        let limits = JSONValue.object(
            rateLimitHeaders.map { name in
                let what = name.dropFirst(12).lowercased()
                return (
                    key: name,
                    value: ["description": .string("Mastodon's rate limit: \(what)."), "schema": ["type": "string"]]
                )
            })
        return [
            "openapi": "3.1.0",
            "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
            "info": [
                "title": "Timeline's Mastodon client API",
                "version": .string(MastodonAPI.version),
                "summary":
                    "Mastodon's client API (docs.joinmastodon.org) over Timeline, for the apps people already have.",
                "description": .string(
                    "Generated from the server's Mastodon route table (`timeline openapi --mastodon`). Parameters come "
                        + "in the query, or a form-urlencoded, JSON or multipart body; `name[]` is a list. Errors are "
                        + "`{\"error\": \"…\"}` (OAuth's endpoints add `error_description`). Pages of statuses take "
                        + "`max_id`, `since_id`, `min_id` and `limit` and answer a `Link` header with `next` and `prev`. "
                        + "Every answer carries `X-RateLimit-Limit`, `-Remaining` and `-Reset`."),
                "license": ["name": "All rights reserved", "identifier": "LicenseRef-Proprietary"]
            ],
            "servers": [["url": "/", "description": "The server this document was fetched from."]],
            "paths": .object(paths),
            "components": [
                "securitySchemes": [
                    "oauth": [
                        "type": "oauth2",
                        "flows": [
                            "authorizationCode": [
                                "authorizationUrl": "/oauth/authorize", "tokenUrl": "/oauth/token", "scopes": scopes
                            ],
                            "clientCredentials": ["tokenUrl": "/oauth/token", "scopes": scopes]
                        ]
                    ]
                ],
                "headers": limits,
                "responses": [
                    "Error": [
                        "description": "Mastodon's error.", "content": ["application/json": ["schema": ref("Error")]]
                    ]
                ],
                "schemas": .object(try schemas().map { (key: $0.name, value: $0.schema.json) })
            ]
        ]
    }

    private static let rateLimitHeaders = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]

    private static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }

    /// The schema of an answer: a component, or an array of one (`[Account]`).
    private static func schema(_ answer: MastodonSchema) -> JSONValue {
        let name = answer.rawValue
        return name.hasPrefix("[") ? ["type": "array", "items": ref(String(name.dropFirst().dropLast()))] : ref(name)
    }

    private static func operation(_ route: Route, _ doc: MastodonDoc) -> JSONValue {
        let id =
            route.method.lowercased()
            + route.template.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
            .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        let tag: JSONValue = route.template.hasPrefix("/api") ? "api" : "oauth"
        var out: JSONValue = ["operationId": .string(id), "summary": .string(doc.summary), "tags": [tag]]
        let scopes = JSONValue.array(route.scope.names.map(JSONValue.string))
        let security: JSONValue =
            switch route.access {
            case .anyone where route.scope == .none: []
            case .bearer: [["oauth": scopes]]
            default: [[:], ["oauth": scopes]]
            }
        out = out.setting("security", security)
        var parameters: [JSONValue] = []
        for name in route.pathParameters {
            parameters.append(["name": .string(name), "in": "path", "required": true, "schema": ["type": "string"]])
        }
        let query = doc.query + (doc.paged ? ["max_id", "since_id", "min_id", "limit"] : [])
        for name in query {
            parameters.append(["name": .string(name), "in": "query", "required": false, "schema": field(name)])
        }
        if !parameters.isEmpty { out = out.setting("parameters", .array(parameters)) }
        if !doc.form.isEmpty || !doc.files.isEmpty {
            var properties: [(key: String, value: JSONValue)] = doc.form.map { (key: $0, value: field($0)) }
            var type = "application/x-www-form-urlencoded"
            if !doc.files.isEmpty {
                type = "multipart/form-data"
                for file in doc.files {
                    properties.append((file, ["type": "string", "contentMediaType": "application/octet-stream"]))
                }
            }
            let body: JSONValue = ["schema": ["type": "object", "properties": .object(properties)]]
            out = out.setting("requestBody", ["required": false, "content": .object([(key: type, value: body)])])
        }
        let limits = JSONValue.object(
            rateLimitHeaders.map { (key: $0, value: ["$ref": .string("#/components/headers/\($0)")]) })
        let content: JSONValue =
            switch doc.returns {
            case .text: ["text/plain": ["schema": ["type": "string"]]]
            case .page: ["text/html": ["schema": ["type": "string"]]]
            case .stream: ["text/event-stream": ["schema": ["type": "string"]]]
            default: ["application/json": ["schema": schema(doc.returns)]]
            }
        var responses: JSONValue = ["200": ["description": .string(doc.summary), "headers": limits, "content": content]]
        if doc.returns == .stream {
            responses = responses.setting("101", ["description": "Switched to the WebSocket protocol."])
        }
        if doc.returns == .page {
            let page: JSONValue = [
                "description": "The page, telling what went wrong.",
                "content": ["text/html": ["schema": ["type": "string"]]]
            ]
            for status in ["400", "403", "500"] { responses = responses.setting(status, page) }
        }
        for status in doc.otherStatuses {
            responses = responses.setting(String(status), ["description": "A redirect to the app's redirect URI."])
        }
        for status in ["400", "401", "403", "404", "405", "413", "415", "422", "429", "507"]
        where responses[status] == nil {
            responses = responses.setting(status, ["$ref": "#/components/responses/Error"])
        }
        return out.setting("responses", responses.setting("default", ["$ref": "#/components/responses/Error"]))
    }

    /// A parameter's schema: a string, or a list of them (`name[]`).
    private static func field(_ name: String) -> JSONValue {
        name.hasSuffix("[]") ? ["type": "array", "items": ["type": "string"]] : ["type": "string"]
    }

    // MARK: - Entities

    /// The entities' schemas, read from their types (`MastodonModels.swift`), each named as
    /// Mastodon's documentation names it; one that holds another refers to it.
    static func schemas() throws -> [(name: String, schema: JSONSchema)] {
        let named: [(String, JSONSchema)] =
            [
                ("Error", try .of(Mastodon.Error.self)),
                ("Empty", try .of(Mastodon.Empty.self)),
                ("Account", try .of(Mastodon.Account.self)),
                ("CredentialAccount", try .of(Mastodon.CredentialAccount.self)),
                ("CustomEmoji", try .of(Mastodon.CustomEmoji.self)),
                ("Field", try .of(Mastodon.Field.self)),
                ("MediaAttachment", try .of(Mastodon.MediaAttachment.self)),
                ("MetaDetails", try .of(Mastodon.MetaDetails.self)),
                ("Tag", try .of(Mastodon.Tag.self)),
                ("StatusTag", try .of(Mastodon.StatusTag.self)),
                ("StatusMention", try .of(Mastodon.Mention.self)),
                ("StatusVisibilityEnum", try .of(Mastodon.Visibility.self)),
                ("Status", try .of(Mastodon.Status.self)),
                ("Poll", try .of(Mastodon.Poll.self)),
                ("PollOption", try .of(Mastodon.PollOption.self)),
                ("StatusEdit", try .of(Mastodon.StatusEdit.self)),
                ("StatusSource", try .of(Mastodon.StatusSource.self)),
                ("Context", try .of(Mastodon.Context.self)),
                ("Relationship", try .of(Mastodon.Relationship.self)),
                ("SuggestionSourcesEnum", try .of(Mastodon.SuggestionSource.self)),
                ("Suggestion", try .of(Mastodon.Suggestion.self)),
                ("FamiliarFollowers", try .of(Mastodon.FamiliarFollowers.self)),
                ("FeaturedTag", try .of(Mastodon.FeaturedTag.self)),
                ("NotificationTypeEnum", try .of(Mastodon.NotificationType.self)),
                ("Notification", try .of(Mastodon.Notification.self)),
                ("NotificationGroup", try .of(Mastodon.NotificationGroup.self)),
                ("PartialAccountWithAvatar", try .of(Mastodon.PartialAccountWithAvatar.self)),
                ("GroupedNotificationsResults", try .of(Mastodon.GroupedNotificationsResults.self)),
                ("CountResponse", try .of(Mastodon.CountResponse.self)),
                ("NotificationPolicy", try .of(Mastodon.NotificationPolicy.self)),
                ("NotificationRequest", try .of(Mastodon.NotificationRequest.self)),
                ("NotificationRequestsMerged", try .of(Mastodon.NotificationRequestsMerged.self)),
                ("V1NotificationPolicy", try .of(Mastodon.V1NotificationPolicy.self)),
                ("Application", try .of(Mastodon.Application.self)),
                ("WebPushSubscription", try .of(Mastodon.WebPushSubscription.self)),
                ("Token", try .of(Mastodon.Token.self)),
                ("Marker", try .of(Mastodon.Marker.self)),
                ("Markers", try .of(Mastodon.Markers.self)),
                ("Report", try .of(Mastodon.Report.self)),
                ("Search", try .of(Mastodon.Search.self)),
                ("Rule", try .of(Mastodon.Rule.self)),
                ("List", try .of(Mastodon.List.self)),
                ("ShallowTag", try .of(Mastodon.ShallowTag.self)),
                ("CollectionItem", try .of(Mastodon.CollectionItem.self)),
                ("Collection", try .of(Mastodon.Collection.self)),
                ("CollectionWithAccounts", try .of(Mastodon.CollectionWithAccounts.self)),
                ("WrappedCollection", try .of(Mastodon.WrappedCollection.self)),
                ("WrappedCollections", try .of(Mastodon.WrappedCollections.self)),
                ("WrappedCollectionItem", try .of(Mastodon.WrappedCollectionItem.self)),
                ("Conversation", try .of(Mastodon.Conversation.self)),
                ("ScheduledStatus", try .of(Mastodon.ScheduledStatus.self)),
                ("InstanceConfiguration", try .of(Mastodon.Configuration.self)),
                ("InstanceV1", try .of(Mastodon.V1Instance.self)),
                ("Instance", try .of(Mastodon.Instance.self)),
                ("OAuthServerMetadata", try .of(Mastodon.OAuthServerMetadata.self)),
                ("Role", try .of(Mastodon.Role.self)),
                ("Preferences", try .of(Mastodon.Preferences.self)),
                ("OEmbedResponse", try .of(Mastodon.OEmbed.self)),
                ("UserInfo", try .of(Mastodon.UserInfo.self)),
                ("Profile", try .of(Mastodon.Profile.self))
            ] + (try instanceSchemas()) + (try filterSchemas()) + (try annualReportSchemas())
        return JSONSchema.components(named.map { (name: $0.0, schema: $0.1) })
    }
}
