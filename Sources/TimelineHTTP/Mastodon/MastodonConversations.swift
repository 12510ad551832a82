import Foundation
import JSONModel
import MicroHTTPD
import Timeline
import TimelineDomain

// Direct messages, as Mastodon answers them (docs.joinmastodon.org/methods/conversations,
// /methods/timelines#direct, /methods/streaming#direct, /entities/Conversation): the bearer's
// conversations, newest last status first, paged by the last statuses' ids (`Link`); one
// removed from the bearer's list only (the others keep it); one marked read; and the direct
// timeline, the bearer's direct statuses. A status posted with `visibility: direct` is seen only
// by its author and the accounts it mentions.

extension Mastodon {
    /// A conversation (`Conversation`): the other participants and the last status.
    struct Conversation: Codable, Sendable {
        var id: String
        var unread: Bool
        var accounts: [Account]
        var last_status: Nullable<Status>
    }
}

extension MastodonAPI {
    static let conversationRoutes: [Route] = [
        now(
            "GET", "/api/v1/conversations", .bearer, scope: "read:statuses",
            doc: .init(
                "The bearer's conversations, the newest last status first.", returns: .conversations, paged: true)
        ) { api, request, entities in
            let me = try request.requireViewer()
            return try api.mastodonPage(
                request, entities,
                { page throws(TimelineError) in try api.service.conversations(of: me, page) },
                object: { .post($0.lastPost.id) },
                alsoNumbered: {
                    [.conversation($0.id), .account($0.lastPost.author)] + $0.accounts.map { .account($0) }
                },
                render: { conversation throws(TimelineError) in
                    try api.mastodonConversation(conversation, viewer: me, entities)
                })
        },
        later(
            "DELETE", "/api/v1/conversations/{id}", .bearer, scope: "write:conversations",
            doc: .init("Removes a conversation from the bearer's list (only theirs).", returns: .empty)
        ) { api, request, entities in
            let id: ConversationID = try mastodonID(request.parameters["id"])
            _ = try await api.execute(.removeConversation(conversation: id.rawValue), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        later(
            "POST", "/api/v1/conversations/{id}/read", .bearer, scope: "write:conversations",
            doc: .init("Marks a conversation read.", returns: .conversation)
        ) { api, request, entities in
            let me = try request.requireViewer()
            let id: ConversationID = try mastodonID(request.parameters["id"])
            _ = try await api.execute(.markConversationRead(conversation: id.rawValue), request)
            let conversation = try api.service.conversation(id, of: me)
            return Responses.entity(200, try api.mastodonConversation(conversation, viewer: me, entities))
        },
        now(
            "GET", "/api/v1/timelines/direct", .bearer, scope: "read:statuses",
            doc: .init("The bearer's direct statuses, newest first.", returns: .statuses, paged: true)
        ) { api, request, entities in
            let me = try request.requireViewer()
            return try api.mastodonPage(request, entities) { page throws(TimelineError) in
                try api.service.directPosts(of: me, page)
            }
        }
    ]
}

extension TimelineAPI {
    /// A conversation as Mastodon's entity, as `viewer` sees it: participants out of their sight
    /// are left out.
    func mastodonConversation(_ c: Conversation, viewer: UserID, _ entities: MastodonEntities) throws(TimelineError)
        -> Mastodon.Conversation
    {
        var accounts: [Mastodon.Account] = []
        for user in c.accounts {
            if let profile = try mastodonFind({ () throws(TimelineError) in try service.user(user, viewer: viewer) }) {
                accounts.append(try entities.account(profile))
            }
        }
        let author = try service.user(c.lastPost.author, viewer: viewer)
        return Mastodon.Conversation(
            id: try entities.ids.id(.conversation(c.id)), unread: c.unread, accounts: accounts,
            last_status: Nullable(try entities.status(c.lastPost, author: author)))
    }
}
