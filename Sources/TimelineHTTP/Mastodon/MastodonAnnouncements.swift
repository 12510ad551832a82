import Foundation
import JSONModel
import MicroHTTPD
import Timeline

// The operator's announcements, as Mastodon answers them (docs.joinmastodon.org/methods/
// announcements): the list with what the bearer read and their reactions, dismissing one,
// and reacting with a unicode emoji (no custom emoji exist here).

extension Mastodon {
    /// An emoji reaction to an announcement.
    struct Reaction: Codable, Sendable {
        var name: String
        var count: Int
        var me: Bool
    }

    /// An account an announcement mentions (none are: announcements are plain text here).
    struct AnnouncementAccount: Codable, Sendable {
        var id: String
        var username: String
        var url: String
        var acct: String
    }

    /// A status an announcement links (none are).
    struct AnnouncementStatus: Codable, Sendable {
        var id: String
        var url: String
    }

    /// An announcement (`GET /api/v1/announcements`).
    struct Announcement: Codable, Sendable {
        var id: String
        var content: String
        var starts_at: Nullable<String>
        var ends_at: Nullable<String>
        var all_day: Bool
        var published_at: String
        var updated_at: String
        var read: Bool
        var mentions: [AnnouncementAccount]
        var statuses: [AnnouncementStatus]
        var tags: [StatusTag]
        var emojis: [CustomEmoji]
        var reactions: [Reaction]
    }
}

extension MastodonAPI {
    static let announcementRoutes: [Route] = [
        now(
            "GET", "/api/v1/announcements", .bearer, scope: "read",
            doc: .init(
                "The announcements in effect, newest first, with whether the bearer dismissed each and the reactions.",
                returns: .announcements)
        ) { api, request, entities in
            let viewer = try request.requireViewer()
            return Responses.entity(
                200,
                try api.service.announcements(viewer: viewer).map { announcement throws(TimelineError) in
                    try MastodonAPI.announcement(announcement, ids: entities.ids)
                })
        },
        later(
            "POST", "/api/v1/announcements/{id}/dismiss", .bearer, scope: "write:accounts",
            doc: .init("Marks an announcement read for the bearer.", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.dismissAnnouncement(announcement: request.parameters["id"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        later(
            "PUT", "/api/v1/announcements/{id}/reactions/{name}", .bearer, scope: "write:favourites",
            doc: .init("Reacts to an announcement with a unicode emoji.", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(
                .addAnnouncementReaction(
                    announcement: request.parameters["id"] ?? "", name: request.parameters["name"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        later(
            "DELETE", "/api/v1/announcements/{id}/reactions/{name}", .bearer, scope: "write:favourites",
            doc: .init("Takes the bearer's emoji reaction to an announcement back.", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(
                .removeAnnouncementReaction(
                    announcement: request.parameters["id"] ?? "", name: request.parameters["name"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        }
    ]

    /// An announcement as Mastodon's entity (an all-day one's times are midnight UTC).
    static func announcement(_ a: AnnouncementView, ids: MastodonIDs) throws(TimelineError) -> Mastodon.Announcement {
        let r = a.record
        func time(_ ms: Int64?) -> Nullable<String> { Nullable(ms.map(JSONOutput.timestamp)) }
        return Mastodon.Announcement(
            id: try ids.id(.announcement(r.id)), content: paragraphs(r.text), starts_at: time(r.startsAt),
            ends_at: time(r.endsAt),
            all_day: r.allDay, published_at: JSONOutput.timestamp(r.publishedAt),
            updated_at: JSONOutput.timestamp(r.publishedAt), read: a.read ?? false, mentions: [], statuses: [],
            tags: [], emojis: [],
            reactions: a.reactions.map { Mastodon.Reaction(name: $0.name, count: $0.count, me: $0.me ?? false) })
    }
}
