import JSONModel

// Mastodon's `Instance` (v2) and `V1Instance`: what this server is and allows.

extension Mastodon {
    /// A server rule (none are set here).
    struct Rule: Codable, Sendable {
        var id: String
        var text: String
        var hint: String
    }

    /// What the server allows, shared by both instance entities.
    struct Configuration: Codable, Sendable {
        /// Where the streaming API is.
        struct URLs: Codable, Sendable { var streaming: String }
        /// Account limits.
        struct Accounts: Codable, Sendable {
            var max_featured_tags: Int
            var max_pinned_statuses: Int
        }
        /// Status limits.
        struct Statuses: Codable, Sendable {
            var max_characters: Int
            var max_media_attachments: Int
            var characters_reserved_per_url: Int
        }
        /// Upload limits.
        struct MediaAttachments: Codable, Sendable {
            var supported_mime_types: [String]
            var image_size_limit: Int
            var image_matrix_limit: Int
            var video_size_limit: Int
            var video_frame_rate_limit: Int
            var video_matrix_limit: Int
        }
        /// The limits a poll is held to (`PollLimits`).
        struct Polls: Codable, Sendable {
            var max_options: Int
            var max_characters_per_option: Int
            var min_expiration: Int
            var max_expiration: Int
        }
        /// Whether statuses can be translated.
        struct Translation: Codable, Sendable { var enabled: Bool }
        /// The server's VAPID key, for push subscriptions.
        struct Vapid: Codable, Sendable { var public_key: String }

        var urls: URLs
        var accounts: Accounts
        var statuses: Statuses
        var media_attachments: MediaAttachments
        var polls: Polls
        var translation: Translation
        var vapid: Vapid
    }

    /// The server (`GET /api/v2/instance`).
    struct Instance: Codable, Sendable {
        /// Active users.
        struct Usage: Codable, Sendable {
            /// Users active this month.
            struct Users: Codable, Sendable { var active_month: Int }
            var users: Users
        }
        /// The server's image.
        struct Thumbnail: Codable, Sendable { var url: String }
        /// One size of the server's icon.
        struct Icon: Codable, Sendable {
            var src: String
            var size: String
        }
        /// The API's version numbers (Mastodon's: which operations are answered).
        struct APIVersions: Codable, Sendable { var mastodon: Int }
        /// Whether and how people sign up.
        struct Registrations: Codable, Sendable {
            var enabled: Bool
            var approval_required: Bool
            var message: Nullable<String>
        }
        /// Whom to contact.
        struct Contact: Codable, Sendable {
            /// The operator's address (`timeline serve --contact-email`), or the server's
            /// `postmaster@` (RFC 2142).
            var email: String
            var account: Nullable<Account>
        }

        var domain: String
        var title: String
        var version: String
        var api_versions: APIVersions
        var source_url: String
        var description: String
        var usage: Usage
        var thumbnail: Thumbnail
        var icon: [Icon]
        var languages: [String]
        var configuration: Configuration
        var registrations: Registrations
        var contact: Contact
        var rules: [Rule]
    }

    /// The server as Mastodon's v1 described it (`GET /api/v1/instance`).
    struct V1Instance: Codable, Sendable {
        /// Where the streaming API is.
        struct URLs: Codable, Sendable { var streaming_api: String }
        /// How big the server is.
        struct Stats: Codable, Sendable {
            var user_count: Int
            var status_count: Int
            var domain_count: Int
        }

        var uri: String
        var title: String
        var short_description: String
        var description: String
        var email: String
        var version: String
        var urls: URLs
        var stats: Stats
        var thumbnail: String
        var languages: [String]
        var registrations: Bool
        var approval_required: Bool
        var invites_enabled: Bool
        var configuration: Configuration
        var contact_account: Nullable<Account>
        var rules: [Rule]
    }
}
