import Foundation
import JSONModel

/// The JSON forms of the results `/v1` and `timeline exec` answer, as Swift types: each encodes
/// (through `JSONValueEncoder` and `JSONWriter`, members sorted) to the bytes answered, and
/// its JSON Schema (`schemas/results/`, the OpenAPI components) is read from the same type
/// with what its `SchemaDocumented` conformance says. `JSONOutput` makes them from the
/// service's results. Member order is the order of the schema's properties.
package enum ResultJSON {
    /// A user's public profile (`user.schema.json`).
    struct User: Codable, Sendable, SchemaDocumented {
        var id: String
        var username: String
        var bio: Nullable<String>
        var url: Nullable<String>
        var postCount: Int
        var followerCount: Int
        var followingCount: Int
        var followedByViewer: Bool?
        var blockedByViewer: Bool?
        var mutedByViewer: Bool?
        var mutedUntil: Int64?
        var discoverable: Bool?
        var avatar: Nullable<Avatar>
        var header: Nullable<Header>
        var unreadActivity: Int?
        var locked: Bool
        var requestedByViewer: Bool?
        var notifiesViewer: Bool?
        var noteByViewer: String?
        var endorsedByViewer: Bool?
        var moderator: Bool?
    }

    /// A profile photo's squares, by image id.
    struct Avatar: Codable, Sendable, SchemaDocumented {
        var large: String
        var small: String
    }

    /// A profile header's bands, by image id.
    struct Header: Codable, Sendable, SchemaDocumented {
        var large: String
        var small: String
    }

    /// Someone the viewer might follow (`suggestion.schema.json`).
    struct Suggestion: Codable, Sendable, SchemaDocumented {
        var user: User
        var followedByCount: Int
        var followedBy: [String]
    }

    /// A post as lists, timelines and addPost give it (`post.schema.json`).
    struct Post: Codable, Sendable, SchemaDocumented {
        var id: String
        var author: String
        var authorUsername: String
        var caption: Nullable<String>
        var image: Nullable<String>
        var inReplyTo: String?
        var hashtags: [String]
        var likeCount: Int
        var commentCount: Int
        var createdAt: String
        var editedAt: String?
        var likedByViewer: Bool?
        var width: Nullable<Int>
        var height: Nullable<Int>
        var variants: Nullable<Variants>
        var bookmarkedByViewer: Bool?
        var location: Place?
        var sensitive: Bool
        var warning: String?
        var visibility: String
        var addressees: [String]?
        var media: [Media]
        var filtered: [FilterResult]?
        var poll: String?
        var boostCount: Int
        var boostedByViewer: Bool?
        var boost: Boost?
    }

    /// A filter of the viewer's that a post or comment matched (warn or blur).
    struct FilterResult: Codable, Sendable, SchemaDocumented {
        var filter: String
        var title: String
        var action: String
        var keywordMatches: [String]?
        var statusMatches: [String]?
    }

    /// The boost by which a post came into a home timeline (a post's `boost`).
    struct Boost: Codable, Sendable, SchemaDocumented {
        var id: String
        var by: String
        var byUsername: String
        var at: String
        var visibility: String
    }

    /// The image ids of a photo's variants.
    struct Variants: Codable, Sendable, SchemaDocumented {
        var full: String
        var feed: String
        var thumb: String
    }

    /// Where a photo was taken (the envelope's `place`).
    struct Place: Codable, Sendable {
        var latitude: Double
        var longitude: Double
        var name: String?
    }

    /// A photo of a post, or one uploaded for a post (`media.schema.json`).
    struct Media: Codable, Sendable, SchemaDocumented {
        var id: String
        var image: String
        var width: Nullable<Int>
        var height: Nullable<Int>
        var variants: Nullable<Variants>
        var blurhash: Nullable<String>
        var alt: Nullable<String>
        var video: Video?
    }

    /// A video's state and, once transcoded, what a player is told of it.
    struct Video: Codable, Sendable, SchemaDocumented {
        var state: String
        var duration: Double?
        var fps: Double?
        var bytes: Int?
        var hasAudio: Bool?
        var reason: String?
    }

    /// A post with its first page of comments (`postDetail.schema.json`): the post's members,
    /// `comments` and `likedByViewer`, in one object.
    struct PostDetail: Codable, Sendable, SchemaDocumented {
        var post: Post
        var comments: Page<Comment>
        var likedByViewer: Bool

        private enum CodingKeys: String, CodingKey { case comments, likedByViewer }

        init(post: Post, comments: Page<Comment>, likedByViewer: Bool) {
            self.post = post
            self.comments = comments
            self.likedByViewer = likedByViewer
        }

        /// Reads the post's members and the detail's own.
        init(from decoder: any Decoder) throws {
            post = try Post(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            comments = try container.decode(Page<Comment>.self, forKey: .comments)
            likedByViewer = try container.decode(Bool.self, forKey: .likedByViewer)
        }

        /// Writes the post's members and the detail's own (which replace the post's `likedByViewer`).
        func encode(to encoder: any Encoder) throws {
            try post.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(comments, forKey: .comments)
            try container.encode(likedByViewer, forKey: .likedByViewer)
        }
    }

    /// A comment on a post (`comment.schema.json`).
    struct Comment: Codable, Sendable, SchemaDocumented {
        var id: String
        var post: String
        var author: String
        var authorUsername: String
        var text: String
        var createdAt: String
        var replyTo: String?
        var filtered: [FilterResult]?
    }

    /// Something that happened to a user (`activityItem.schema.json`).
    struct ActivityItem: Codable, Sendable, SchemaDocumented {
        var id: String
        var kind: String
        var actor: String?
        var actorUsername: String?
        var post: String?
        var comment: String?
        var at: Int64
        var createdAt: String
        var reason: String?
        var collection: String?
    }

    /// One page of a list (`page.schema.json`; `userPage`, `postPage`, … in OpenAPI).
    struct Page<Item: Codable & Sendable>: Codable, Sendable {
        var items: [Item]
        var next: Nullable<String>
    }

    /// A post's caption versions (`postHistory.schema.json`).
    struct PostHistory: Codable, Sendable, SchemaDocumented {
        var versions: [Version]

        /// One version of the caption.
        struct Version: Codable, Sendable, SchemaDocumented {
            var caption: Nullable<String>
            var hashtags: [String]
            var createdAt: String
        }
    }

    /// The image query's answer in exec (`image.schema.json`).
    struct Image: Codable, Sendable, SchemaDocumented {
        var image: String
        var mediaType: String
        var data: String
    }

    /// The moderators' report queue (`moderationQueue.schema.json`).
    struct ModerationQueue: Codable, Sendable, SchemaDocumented {
        var posts: [ReportedPost]
        var accounts: [ReportedAccount]

        /// A reported post.
        struct ReportedPost: Codable, Sendable, SchemaDocumented {
            var post: String
            var count: Int
            var reporters: [String]
            var reasons: [String]
            var newestAt: Int64
            var hidden: Bool
            var preview: Nullable<Post>
        }

        /// A reported account.
        struct ReportedAccount: Codable, Sendable, SchemaDocumented {
            var user: String
            var username: String
            var count: Int
            var reporters: [String]
            var reasons: [String]
            var posts: [String]
            var newestAt: Int64
            var suspended: Bool
        }
    }

    /// A new session (`session.schema.json`).
    struct Session: Codable, Sendable, SchemaDocumented {
        var session: String
        var user: User
    }

    /// Whether a command changed anything (`changed.schema.json`).
    struct Changed: Codable, Sendable, SchemaDocumented {
        var changed: Bool
    }

    /// Whether one user follows another (`follows.schema.json`).
    struct Follows: Codable, Sendable, SchemaDocumented {
        var follows: Bool
    }

    /// An object's Mastodon id (`mastodonId.schema.json`).
    struct MastodonID: Codable, Sendable, SchemaDocumented {
        var mastodonId: String
    }

    /// The servers the acting user blocks (`servers.schema.json`).
    struct Servers: Codable, Sendable, SchemaDocumented {
        var servers: [String]
    }

    /// The users found by email (`contacts.schema.json`).
    struct Contacts: Codable, Sendable, SchemaDocumented {
        var users: [User]
    }

    /// A trending hashtag (`trendingTag.schema.json`), as `trendingTags` lists it.
    struct TrendingTag: Codable, Sendable, SchemaDocumented {
        var name: String
        var history: [TagDay]

        init(_ tag: Timeline.TrendingTag) {
            name = tag.name
            history = tag.history.map {
                TagDay(day: JSONOutput.timestamp($0.day), uses: $0.uses, accounts: $0.accounts)
            }
        }
    }

    /// One day of a hashtag's uses.
    struct TagDay: Codable, Sendable, SchemaDocumented {
        var day: String
        var uses: Int
        var accounts: Int
    }

    /// A hashtag (`tag.schema.json`), as `tags` lists it.
    struct Tag: Codable, Sendable, SchemaDocumented {
        var name: String
    }

    /// A one-time token (`token.schema.json`).
    struct Token: Codable, Sendable, SchemaDocumented {
        var token: String
    }

    /// An authenticator's enrolment (`enrollTwoFactor`'s answer).
    struct TwoFactorEnrollment: Codable, Sendable, SchemaDocumented {
        var secret: String
        var otpauthURI: String
        var qrCode: String

        init(_ e: Timeline.TwoFactorEnrollment) {
            secret = e.secret
            otpauthURI = e.otpauthURI
            qrCode = Data(e.qrCodePNG).base64EncodedString()
        }
    }

    /// Whether two-factor sign-in is on (`GET /v1/me/two-factor`).
    struct TwoFactorStatus: Codable, Sendable, SchemaDocumented {
        var enabled: Bool
        var recoveryCodesLeft: Int
    }

    /// An import the server runs (`POST /v1/me/imports`, `GET /v1/me/imports/{import}`).
    struct ImportJob: Codable, Sendable, SchemaDocumented {
        var id: String
        var state: String
        var done: Int
        var total: Int
        var report: ImportReportJSON?
        var error: Failure.Detail?
    }

    /// What an import did.
    struct ImportReportJSON: Codable, Sendable, SchemaDocumented {
        var imported: [String: Int]
        var alreadyPresent: [String: Int]
        var skipped: [ImportSkipped]
    }

    /// What an import skipped for one reason.
    struct ImportSkipped: Codable, Sendable, SchemaDocumented {
        var reason: String
        var count: Int
        var examples: [String]
    }

    /// Two-factor sign-in's recovery codes (`confirmTwoFactor`'s answer).
    struct RecoveryCodes: Codable, Sendable, SchemaDocumented {
        var recoveryCodes: [String]
    }

    /// An OAuth app registered (`registerApp`'s answer in exec).
    struct App: Codable, Sendable {
        var id: String
        var name: String
        var website: Nullable<String>
        var redirectUris: [String]
        var scopes: [String]
        var clientSecret: Nullable<String>
    }

    /// A record made, by its new id (`addInstanceRule`, `addAnnouncement`).
    struct Created: Codable, Sendable, SchemaDocumented {
        var id: String
    }

    /// Nothing (a command done with nothing to say): `{}`.
    struct Done: Codable, Sendable {}

    /// A failure's body (`error.schema.json`): `{"error": {code, message, field?}}`.
    struct Failure: Codable, Sendable, SchemaDocumented {
        var error: Detail

        /// A failure's code, message and field.
        struct Detail: Codable, Sendable, SchemaDocumented {
            var code: String
            var message: String
            var field: String?
        }
    }

    /// A ticket for `GET /v1/stream?ticket=` (`streamTicket.schema.json`).
    struct StreamTicket: Codable, Sendable, SchemaDocumented {
        var ticket: String
        var expiresIn: Int

        /// A ticket valid `expiresIn` seconds.
        init(ticket: String, expiresIn: Int) {
            self.ticket = ticket
            self.expiresIn = expiresIn
        }
    }

    /// A token's push subscription (`pushSubscription.schema.json`).
    struct PushSubscription: Codable, Sendable, SchemaDocumented {
        var endpoint: String
        var standard: Bool
        var alerts: [String]
        var policy: String
        var serverKey: String

        /// `subscription` as its subscriber sees it, with the server's VAPID key.
        init(_ subscription: Timeline.PushSubscription, serverKey: String) {
            endpoint = subscription.endpoint
            standard = subscription.standard
            alerts = subscription.alerts
            policy = subscription.policy.rawValue
            self.serverKey = serverKey
        }
    }

    /// The answer of `/healthz` and `/readyz` (`health.schema.json`).
    struct Health: Codable, Sendable {
        var status: String
        var behind: Int64?
    }

    /// A live stream's `removed` event: the post that is gone.
    struct Removed: Codable, Sendable {
        var post: String
    }
}
