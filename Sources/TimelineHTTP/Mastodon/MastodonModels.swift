import JSONModel

// Mastodon's entities (docs.joinmastodon.org, "Entities"; Tests/mastodon/openapi/schema.json)
// as Swift types, with Mastodon's member names: `MastodonEntities` fills them in, the answers
// encode them (`Responses.entity`) and the OpenAPI document's components are read from them
// (`MastodonOpenAPI`). A member Mastodon always writes, `null` when it has no value, is
// `Nullable`; one Timeline never has (a poll, a card, a boost) is `JSONNull`; one written only
// sometimes is an optional.

/// Mastodon's entities, by their names in Mastodon's documentation.
enum Mastodon {
    /// A status's visibility.
    enum Visibility: String, Codable, Sendable, SchemaEnumeration {
        case `public`, unlisted, `private`, direct
    }

    /// A custom emoji (none exist here: every list of them is empty).
    struct CustomEmoji: Codable, Sendable {
        var shortcode: String
        var url: String
        var static_url: String
        var visible_in_picker: Bool
    }

    /// A profile field (none exist here: every list of them is empty).
    struct Field: Codable, Sendable {
        var name: String
        var value: String
        var verified_at: Nullable<String>
    }

    /// A user's profile.
    struct Account: Codable, Sendable {
        var id: String
        var username: String
        var acct: String
        var display_name: String
        var locked: Bool
        var bot: Bool
        /// The user's own setting, shown to them only; `null` (not set) to anyone else.
        var discoverable: Nullable<Bool>
        var group: Bool
        var indexable: Bool
        var created_at: String
        var note: String
        var url: String
        var uri: String
        var avatar: String
        var avatar_static: String
        var header: String
        var header_static: String
        var followers_count: Int
        var following_count: Int
        var statuses_count: Int
        var last_status_at: Nullable<String>
        var emojis: [CustomEmoji]
        var fields: [Field]
    }

    /// What `verify_credentials` adds to the bearer's own account.
    struct Source: Codable, Sendable {
        var note: String
        var privacy: Visibility
        var sensitive: Bool
        var language: Nullable<String>
        var fields: [Field]
        var follow_requests_count: Int
        /// Whether the account's public posts may be found by searching their text: Timeline
        /// searches no post text, so false for everyone.
        var indexable: Bool
    }

    /// The role an account holds: Timeline's one role, `moderator`, or none (`id` "-99", as
    /// Mastodon answers for an account without a role).
    struct Role: Codable, Sendable {
        var id: String
        var name: String
        var color: String
        var permissions: String
        var highlighted: Bool
    }

    /// The bearer's own account: an `Account` with its `source`.
    struct CredentialAccount: Codable, Sendable {
        var account: Account
        var source: Source
        var role: Role

        private enum CodingKeys: String, CodingKey { case source, role }

        init(account: Account, source: Source, role: Role) {
            self.account = account
            self.source = source
            self.role = role
        }

        /// The account's members, then `source` and `role`, in one object.
        init(from decoder: any Decoder) throws {
            account = try Account(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            source = try container.decode(Source.self, forKey: .source)
            role = try container.decode(Role.self, forKey: .role)
        }

        /// The account's members, then `source` and `role`, in one object.
        func encode(to encoder: any Encoder) throws {
            try account.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(source, forKey: .source)
            try container.encode(role, forKey: .role)
        }
    }

    /// What kind of file an attachment is (a photo is an image, a video a video).
    enum MediaType: String, Codable, Sendable, SchemaEnumeration {
        case image, gifv, video, audio, unknown
    }

    /// One size of an attachment.
    struct MetaDetails: Codable, Sendable {
        var width: Int
        var height: Int
        var size: String
        var aspect: Double
        /// A video's frame rate as Mastodon writes it (`"30/1"`), and the same as a number.
        var frame_rate: String? = nil
        var fps: Double? = nil
        /// A video's duration in seconds and its bit rate in bits a second.
        var duration: Double? = nil
        var bitrate: Int? = nil
    }

    /// An attachment's sizes (`{}` for a photo from before the image pipeline).
    struct MediaMeta: Codable, Sendable {
        var original: MetaDetails?
        var small: MetaDetails?
    }

    /// A file attached to a status.
    struct MediaAttachment: Codable, Sendable {
        var id: String
        var type: MediaType
        /// Null while a video is transcoded (Mastodon's answer of 202).
        var url: Nullable<String>
        var preview_url: Nullable<String>
        var remote_url: Nullable<String>
        var text_url: Nullable<String>
        var meta: MediaMeta
        var description: Nullable<String>
        var blurhash: Nullable<String>
    }

    /// An account a status mentions.
    struct Mention: Codable, Sendable {
        var id: String
        var username: String
        var acct: String
        var url: String
    }

    /// A hashtag a status uses.
    struct StatusTag: Codable, Sendable {
        var name: String
        var url: String
    }

    /// A day of a hashtag's use (none are counted here).
    struct TagHistory: Codable, Sendable {
        var day: String
        var uses: String
        var accounts: String
    }

    /// A hashtag, as search finds it (`id`: its name, lowercased: hashtags have no other id here).
    struct Tag: Codable, Sendable {
        var id: String
        var name: String
        var url: String
        var history: [TagHistory]
        var following: Bool
        /// Whether the bearer features it on their profile (4.4; answered where it is asked).
        var featuring: Bool? = nil
    }

    /// A post, or a comment (a reply to its post).
    struct Status: Codable, Sendable {
        var id: String
        var created_at: String
        var in_reply_to_id: Nullable<String>
        var in_reply_to_account_id: Nullable<String>
        var sensitive: Bool
        var spoiler_text: String
        var visibility: Visibility
        var language: Nullable<String>
        var uri: String
        var url: String
        var replies_count: Int
        var reblogs_count: Int
        var favourites_count: Int
        var edited_at: Nullable<String>
        var favourited: Bool
        var reblogged: Bool
        var muted: Bool
        var bookmarked: Bool
        var pinned: Bool
        var content: String
        var reblog: Reblog
        var application: JSONNull
        var account: Account
        var media_attachments: [MediaAttachment]
        var mentions: [Mention]
        var tags: [StatusTag]
        var emojis: [CustomEmoji]
        var card: JSONNull
        var poll: Nullable<Poll>
        /// The bearer's filters it matched where it surfaced (left out when none).
        var filtered: [FilterResult]?
    }

    /// A status's `reblog`: the boosted status, for a boost; null for any other.
    indirect enum Reblog: Codable, Sendable, SchemaDescribed {
        /// Not a boost: null.
        case none
        /// A boost of this status.
        case of(Status)

        /// The boosted `Status`, or null (a reference: the schema of a status holds itself).
        static var jsonSchema: JSONSchema { JSONSchema.reference("#/components/schemas/Status").nullable }
        /// Null.
        static var schemaPlaceholder: Reblog { .none }

        /// Reads null or a status.
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            self = container.decodeNil() ? .none : .of(try container.decode(Status.self))
        }

        /// Writes null or the status.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .none: try container.encodeNil()
            case .of(let status): try container.encode(status)
            }
        }
    }

    /// One version of a status.
    struct StatusEdit: Codable, Sendable {
        var content: String
        var spoiler_text: String
        var sensitive: Bool
        var created_at: String
        var account: Account
        var poll: JSONNull
        var media_attachments: [MediaAttachment]
        var emojis: [CustomEmoji]
    }

    /// A status's plain text, to edit.
    struct StatusSource: Codable, Sendable {
        var id: String
        var text: String
        var spoiler_text: String
    }

    /// A status's thread.
    struct Context: Codable, Sendable {
        var ancestors: [Status]
        var descendants: [Status]
    }

    /// The bearer's relationship with an account.
    struct Relationship: Codable, Sendable {
        var id: String
        var following: Bool
        var showing_reblogs: Bool
        var notifying: Bool
        var languages: Nullable<[String]>
        var followed_by: Bool
        var blocking: Bool
        var blocked_by: Bool
        var muting: Bool
        var muting_notifications: Bool
        var requested: Bool
        var requested_by: Bool
        var domain_blocking: Bool
        var endorsed: Bool
        var note: String
    }

    /// What a notification is about.
    enum NotificationType: String, Codable, Sendable, SchemaEnumeration {
        case mention, status, reblog, follow, follow_request, favourite, poll, update
        case adminSignUp = "admin.sign_up", adminReport = "admin.report"
        case severed_relationships, moderation_warning, quote, quoted_update, added_to_collection, collection_update
    }

    /// Something that happened to the bearer.
    struct Notification: Codable, Sendable {
        var id: String
        var type: NotificationType
        var created_at: String
        var account: Account
        var status: Nullable<Status>
        var group_key: String
        /// The collection the bearer was featured in (`added_to_collection` only; absent otherwise).
        var collection: Collection? = nil
    }

    /// A read position.
    struct Marker: Codable, Sendable {
        var last_read_id: String
        var version: Int
        var updated_at: String
    }

    /// The bearer's read markers (the notifications one only; `{}` without it).
    struct Markers: Codable, Sendable {
        var notifications: Marker?
    }

    /// An app registered for OAuth (`client_secret` only in the answer that registers it).
    struct Application: Codable, Sendable {
        var id: String
        var name: String
        var website: Nullable<String>
        var scopes: [String]
        var redirect_uri: String
        var redirect_uris: [String]
        var client_id: String
        var client_secret: String?
        var vapid_key: String
    }

    /// An OAuth token.
    struct Token: Codable, Sendable {
        var access_token: String
        var token_type: String
        var scope: String
        var created_at: Int
    }

    /// A report to the moderators.
    struct Report: Codable, Sendable {
        var id: String
        var action_taken: Bool
        var action_taken_at: Nullable<String>
        var category: String
        var comment: String
        var forwarded: Bool
        var created_at: String
        var status_ids: [String]
        var rule_ids: [String]
        var target_account: Account
    }

    /// What a search found.
    struct Search: Codable, Sendable {
        var accounts: [Account]
        var hashtags: [Tag]
        var statuses: [Status]
    }

    /// A token's push subscription (`alerts` by Mastodon's alert names).
    struct WebPushSubscription: Codable, Sendable {
        var id: String
        var endpoint: String
        var standard: Bool
        var alerts: [String: Bool]
        var policy: String
        var server_key: String
    }

    /// A failure: `error`, and OAuth's `error_description`.
    struct Error: Codable, Sendable {
        var error: String
        var error_description: String?
    }

    /// An answer with nothing to say: `{}`.
    struct Empty: Codable, Sendable {}

    /// OAuth 2 authorization server metadata (RFC 8414).
    struct OAuthServerMetadata: Codable, Sendable {
        var issuer: String
        var authorization_endpoint: String
        var token_endpoint: String
        var revocation_endpoint: String
        var app_registration_endpoint: String
        var scopes_supported: [String]
        var response_types_supported: [String]
        var response_modes_supported: [String]
        var grant_types_supported: [String]
        var token_endpoint_auth_methods_supported: [String]
        var code_challenge_methods_supported: [String]
        var service_documentation: String
        var userinfo_endpoint: String
    }

    /// The bearer as OpenID Connect's UserInfo says it (`GET /oauth/userinfo`, Mastodon 4.4+).
    struct UserInfo: Codable, Sendable {
        var iss: String
        var sub: String
        var name: String
        var preferred_username: String
        var profile: String
        var picture: String
    }

    /// The bearer's preferences (`GET /api/v1/preferences`), by Mastodon's colon-named keys.
    struct Preferences: Codable, Sendable {
        var visibility: Visibility
        var sensitive: Bool
        var language: Nullable<String>
        var expandMedia: String
        var expandSpoilers: Bool

        private enum CodingKeys: String, CodingKey {
            case visibility = "posting:default:visibility", sensitive = "posting:default:sensitive"
            case language = "posting:default:language", expandMedia = "reading:expand:media"
            case expandSpoilers = "reading:expand:spoilers"
        }
    }

    /// A post as oEmbed describes it for embedding (`GET /api/oembed`).
    struct OEmbed: Codable, Sendable {
        var type: String
        var version: String
        var title: String
        var author_name: String
        var author_url: String
        var provider_name: String
        var provider_url: String
        var cache_age: Int
        var html: String
        var width: Int
        /// Always null (the embed's height follows its content), a string when set in Mastodon's.
        var height: Nullable<String>
    }

    /// A streamed event on a WebSocket: the entity as JSON text in `payload`.
    struct StreamingEvent: Codable, Sendable {
        var stream: [String]
        var event: String
        var payload: String
    }

    /// What a WebSocket client sends: `{"type": "subscribe"|"unsubscribe", "stream": …}`.
    struct StreamingCommand: Codable, Sendable {
        var type: String?
        var stream: String?
        /// The list of a `list` stream (its id).
        var list: String?
        /// The hashtag of a `hashtag` or `hashtag:local` stream.
        var tag: String?
    }
}

// What the types' Swift members do not say: the `date-time` and `uri` strings, and what each
// entity is (the document's descriptions). Only members whose every value is one.

private let time = JSONSchema.string(format: "date-time")
private let link = JSONSchema.string(format: "uri")

extension Mastodon.Account: SchemaDocumented {
    static let schemaDescription: String? = "A user's profile (Mastodon's Account)."
    static let memberSchemas = [
        "created_at": time, "url": link, "uri": link, "avatar": link, "avatar_static": link, "header": link,
        "header_static": link
    ]
}

extension Mastodon.Status: SchemaDocumented {
    static let schemaDescription: String? = "A post, or a comment as a reply to its post (Mastodon's Status)."
    static let memberSchemas = ["created_at": time, "edited_at": time.nullable, "uri": link, "url": link]
}

extension Mastodon.StatusEdit: SchemaDocumented {
    static let schemaDescription: String? = "One version of a status (Mastodon's StatusEdit)."
    static let memberSchemas = ["created_at": time]
}

extension Mastodon.MediaAttachment: SchemaDocumented {
    static let schemaDescription: String? = "A photo attached to a status (Mastodon's MediaAttachment)."
    static let memberSchemas = ["url": link, "preview_url": link]
}

extension Mastodon.Mention: SchemaDocumented {
    static let schemaDescription: String? = "An account a status mentions (Mastodon's StatusMention)."
    static let memberSchemas = ["url": link]
}

extension Mastodon.StatusTag: SchemaDocumented {
    static let schemaDescription: String? = "A hashtag a status uses (Mastodon's StatusTag)."
    static let memberSchemas = ["url": link]
}

extension Mastodon.Tag: SchemaDocumented {
    static let schemaDescription: String? = "A hashtag as search finds it (Mastodon's Tag)."
    static let memberSchemas = ["url": link]
}

extension Mastodon.Notification: SchemaDocumented {
    static let schemaDescription: String? = "Something that happened to the bearer (Mastodon's Notification)."
    static let memberSchemas = ["created_at": time]
}

extension Mastodon.Marker: SchemaDocumented {
    static let schemaDescription: String? = "A read position (Mastodon's Marker)."
    static let memberSchemas = ["updated_at": time]
}

extension Mastodon.Report: SchemaDocumented {
    static let schemaDescription: String? = "A report to the moderators (Mastodon's Report)."
    static let memberSchemas = ["created_at": time]
}
