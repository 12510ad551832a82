/// How other servers find this one's accounts and what it runs: WebFinger (RFC 7033), host-meta
/// (RFC 6415) and NodeInfo 2.1.
enum Discovery {
    /// A WebFinger answer (JRD): the account, its other names, and where its actor and page are.
    struct JRD: Codable, Sendable {
        var subject: String
        var aliases: [String]
        var links: [Link]
    }

    /// A JRD link: `self` (the actor, `type` its media type), or `http://webfinger.net/rel/profile-page`.
    struct Link: Codable, Sendable {
        var rel: String
        var type: String?
        var href: String?
        var template: String?
    }

    /// `/.well-known/nodeinfo`: where the NodeInfo documents are.
    struct NodeInfoLinks: Codable, Sendable {
        var links: [Link]
    }

    /// NodeInfo 2.1 (nodeinfo.diaspora.software/ns/schema/2.1).
    struct NodeInfo: Codable, Sendable {
        var version = "2.1"
        var software: Software
        var protocols = ["activitypub"]
        var services = Services()
        var openRegistrations: Bool
        var usage: Usage
        var metadata: Metadata

        struct Software: Codable, Sendable {
            var name = "timeline"
            var version: String
            var repository: String?
            var homepage: String?
        }
        struct Services: Codable, Sendable {
            var inbound: [String] = []
            var outbound: [String] = []
        }
        struct Usage: Codable, Sendable {
            var users: Users
            var localPosts: Int
        }
        struct Users: Codable, Sendable {
            var total: Int
        }
        struct Metadata: Codable, Sendable {
            var nodeName: String
            var nodeDescription: String
        }
    }

    /// The NodeInfo 2.1 schema's URI, the `rel` of its link.
    static let nodeInfoSchema = "http://nodeinfo.diaspora.software/ns/schema/2.1"
    /// NodeInfo's media type, with its profile.
    static let nodeInfoType = "application/json; profile=\"\(nodeInfoSchema)#\""
}
