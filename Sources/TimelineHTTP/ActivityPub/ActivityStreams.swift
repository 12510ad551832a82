import JSONModel

/// The ActivityStreams 2.0 documents this server publishes (W3C ActivityPub), in the shapes
/// Mastodon and Pixelfed read: each a `Codable` type, so each shape is written once.
enum ActivityStreams {
    /// The `@context` of every document: ActivityStreams, the security vocabulary (an actor's
    /// `publicKey`), and the extension terms Mastodon defines and reads.
    static let context: JSONValue = [
        "https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1",
        [
            "manuallyApprovesFollowers": "as:manuallyApprovesFollowers", "sensitive": "as:sensitive",
            "Hashtag": "as:Hashtag", "toot": "http://joinmastodon.org/ns#",
            "featured": ["@id": "toot:featured", "@type": "@id"], "discoverable": "toot:discoverable",
            "indexable": "toot:indexable", "blurhash": "toot:blurhash",
            "focalPoint": ["@container": "@list", "@id": "toot:focalPoint"]
        ]
    ]

    /// Everyone: the `to` or `cc` of a public post.
    static let publicAudience = "https://www.w3.org/ns/activitystreams#Public"
    /// Whether `id` names the public collection, spelt in full or in either short form JSON-LD allows.
    static func isPublic(_ id: String) -> Bool { id == publicAudience || id == "as:Public" || id == "Public" }

    /// The media type of ActivityPub documents.
    static let mediaType = "application/activity+json"

    /// An actor's public key, as the security vocabulary names it.
    struct PublicKey: Codable, Sendable {
        var id: String
        var owner: String
        var publicKeyPem: String
    }

    /// An image (an actor's icon or header, a post's photo).
    struct Image: Codable, Sendable {
        var type = "Image"
        var mediaType: String
        var url: String
    }

    /// The endpoints an actor shares with the server's others.
    struct Endpoints: Codable, Sendable {
        var sharedInbox: String
    }

    /// A local user's actor: a `Person`.
    struct Person: Codable, Sendable {
        var context = ActivityStreams.context
        var id: String
        var type = "Person"
        var preferredUsername: String
        var name: String
        var summary: String
        var url: String
        var published: String
        var inbox: String
        var outbox: String
        var followers: String
        var following: String
        var featured: String
        var endpoints: Endpoints
        var publicKey: PublicKey
        var manuallyApprovesFollowers: Bool
        var discoverable: Bool
        var indexable: Bool
        var icon: Image?
        var image: Image?

        enum CodingKeys: String, CodingKey {
            case context = "@context", id, type, preferredUsername, name, summary, url, published, inbox, outbox,
                followers, following, featured, endpoints, publicKey, manuallyApprovesFollowers, discoverable,
                indexable, icon, image
        }
    }

    /// The server's own actor (`InstanceActor`): an `Application`, as Mastodon's.
    struct Application: Codable, Sendable {
        var context = ActivityStreams.context
        var id: String
        var type = "Application"
        var preferredUsername: String
        var url: String
        var inbox: String
        var outbox: String
        var endpoints: Endpoints
        var publicKey: PublicKey
        var manuallyApprovesFollowers = true

        enum CodingKeys: String, CodingKey {
            case context = "@context", id, type, preferredUsername, url, inbox, outbox, endpoints, publicKey,
                manuallyApprovesFollowers
        }
    }

    /// A photo or video of a post: `name` its alt text.
    struct Attachment: Codable, Sendable {
        var type = "Document"
        var mediaType: String
        var url: String
        var name: String?
        var blurhash: String?
        var width: Int?
        var height: Int?
        var focalPoint: [Double]?
    }

    /// A hashtag or a mention in a post's `tag`.
    struct Tag: Codable, Sendable {
        /// `Hashtag` or `Mention`.
        var type: String
        var href: String
        /// `#tag`, or `@user@host`.
        var name: String
    }

    /// A post: a `Note`.
    struct Note: Codable, Sendable {
        var context: JSONValue?
        var id: String
        var type = "Note"
        var attributedTo: String
        var content: String
        var summary: String?
        var sensitive: Bool
        var published: String
        var updated: String?
        var url: String
        var to: [String]
        var cc: [String]
        var inReplyTo: String?
        var attachment: [Attachment]
        var tag: [Tag]

        enum CodingKeys: String, CodingKey {
            case context = "@context", id, type, attributedTo, content, summary, sensitive, published, updated, url, to,
                cc, inReplyTo, attachment, tag
        }
    }

    /// An activity whose object is a post (`Create`).
    struct Activity: Codable, Sendable {
        var context: JSONValue?
        var id: String
        var type: String
        var actor: String
        var published: String?
        var to: [String]
        var cc: [String]
        var object: Note

        enum CodingKeys: String, CodingKey {
            case context = "@context", id, type, actor, published, to, cc, object
        }
    }

    /// An answer to another server's activity (`Accept`, `Reject`), whose object is that
    /// activity as it came.
    struct Answer: Codable, Sendable {
        var context: JSONValue = "https://www.w3.org/ns/activitystreams"
        var id: String
        var type: String
        var actor: String
        var object: JSONValue

        enum CodingKeys: String, CodingKey {
            case context = "@context", id, type, actor, object
        }
    }

    /// A collection: its size and where its first page is (its items shown page by page), or,
    /// for a short one, its items (`featured`).
    struct OrderedCollection<Item: Codable & Sendable>: Codable, Sendable {
        var context = ActivityStreams.context
        var id: String
        var type = "OrderedCollection"
        var totalItems: Int
        var first: String?
        var orderedItems: [Item]?

        enum CodingKeys: String, CodingKey {
            case context = "@context", id, type, totalItems, first, orderedItems
        }
    }

    /// One page of a collection, newest first.
    struct OrderedCollectionPage<Item: Codable & Sendable>: Codable, Sendable {
        var context = ActivityStreams.context
        var id: String
        var type = "OrderedCollectionPage"
        var partOf: String
        var next: String?
        var orderedItems: [Item]

        enum CodingKeys: String, CodingKey {
            case context = "@context", id, type, partOf, next, orderedItems
        }
    }
}
