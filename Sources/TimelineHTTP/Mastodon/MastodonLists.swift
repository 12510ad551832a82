import Foundation
import MicroHTTPD
import Timeline
import TimelineDomain

// Lists, as Mastodon answers them (docs.joinmastodon.org/methods/lists, and
// /api/v1/timelines/list/:list_id): the bearer's lists, one list, making, changing and deleting
// one, its accounts (only accounts the bearer follows go in: 422 otherwise), the bearer's lists
// holding an account, and a list's timeline. Another's list is 404, as Mastodon answers.

extension Mastodon {
    /// A list (`List`).
    struct List: Codable, Sendable {
        var id: String
        var title: String
        var replies_policy: String
        var exclusive: Bool
    }
}

extension MastodonAPI {
    static let listRoutes: [Route] = [
        now(
            "GET", "/api/v1/lists", .bearer, scope: "read:lists",
            doc: .init("The bearer's lists, oldest first.", returns: .lists)
        ) { api, request, entities in
            let me = try request.requireViewer()
            return Responses.entity(200, try mastodonLists(try api.service.lists(of: me), entities))
        },
        later(
            "POST", "/api/v1/lists", .bearer, scope: "write:lists",
            doc: .init("Makes a list.", returns: .list, form: ["title", "replies_policy", "exclusive"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let result = try await api.execute(
                .createList(
                    title: params.string("title") ?? "", repliesPolicy: params.string("replies_policy"),
                    exclusive: try params.bool("exclusive")), request)
            guard case .created(let id) = result else { throw TimelineError(.internal, "createList made no list") }
            return try mastodonList(ListID(id), api, request, entities)
        },
        now(
            "GET", "/api/v1/lists/{id}", .bearer, scope: "read:lists",
            doc: .init("One of the bearer's lists.", returns: .list)
        ) { api, request, entities in
            try mastodonList(try mastodonID(request.parameters["id"]), api, request, entities)
        },
        later(
            "PUT", "/api/v1/lists/{id}", .bearer, scope: "write:lists",
            doc: .init(
                "Changes a list's title, replies policy or exclusiveness.", returns: .list,
                form: ["title", "replies_policy", "exclusive"])
        ) { api, request, entities in
            let id: ListID = try mastodonID(request.parameters["id"])
            let params = try MastodonParams(request.http)
            _ = try await api.execute(
                .updateList(
                    list: id.rawValue, title: params.string("title"), repliesPolicy: params.string("replies_policy"),
                    exclusive: try params.bool("exclusive")), request)
            return try mastodonList(id, api, request, entities)
        },
        later(
            "DELETE", "/api/v1/lists/{id}", .bearer, scope: "write:lists",
            doc: .init("Deletes a list.", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.deleteList(list: request.parameters["id"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        now(
            "GET", "/api/v1/lists/{id}/accounts", .bearer, scope: "read:lists",
            doc: .init("The accounts in a list.", returns: .accounts, query: ["max_id", "limit"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            let id: ListID = try mastodonID(request.parameters["id"])
            return try api.mastodonCursorPage(
                request, entities, { page throws(TimelineError) in try api.service.listAccounts(id, page, viewer: me) },
                render: entities.account)
        },
        later(
            "POST", "/api/v1/lists/{id}/accounts", .bearer, scope: "write:lists",
            doc: .init("Puts accounts the bearer follows in a list.", returns: .empty, form: ["account_ids[]"])
        ) { api, request, entities in
            let accounts = try listAccountIDs(request, entities)
            _ = try await api.execute(.addToList(list: request.parameters["id"] ?? "", users: accounts), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        later(
            "DELETE", "/api/v1/lists/{id}/accounts", .bearer, scope: "write:lists",
            doc: .init("Takes accounts out of a list.", returns: .empty, form: ["account_ids[]"])
        ) { api, request, entities in
            let accounts = try listAccountIDs(request, entities)
            _ = try await api.execute(.removeFromList(list: request.parameters["id"] ?? "", users: accounts), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        now(
            "GET", "/api/v1/accounts/{id}/lists", .bearer, scope: "read:lists",
            doc: .init("The bearer's lists that hold an account.", returns: .lists)
        ) { api, request, entities in
            let me = try request.requireViewer()
            let account: UserID = try mastodonID(request.parameters["id"])
            return Responses.entity(
                200, try mastodonLists(try api.service.lists(containing: account, viewer: me), entities))
        },
        now(
            "GET", "/api/v1/timelines/list/{list_id}", .bearer, scope: "read:lists",
            doc: .init("The posts of a list's accounts, newest first.", returns: .statuses, paged: true)
        ) { api, request, entities in
            let me = try request.requireViewer()
            let id = try entities.ids.list(request.parameters["list_id"])
            return try api.mastodonPage(request, entities) { page throws(TimelineError) in
                try api.service.listTimeline(id, page, viewer: me)
            }
        }
    ]

    /// The accounts `account_ids[]` names, as native ids (an unknown one is 404).
    private static func listAccountIDs(_ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError)
        -> [String]
    {
        var out: [String] = []
        for raw in try MastodonParams(request.http).list("account_ids") {
            out.append(try entities.ids.user(raw).rawValue)
        }
        guard !out.isEmpty else { throw TimelineError.invalid("account_ids", "account_ids must name an account") }
        return out
    }

    /// The bearer's list `id` as Mastodon's entity.
    private static func mastodonList(
        _ id: ListID, _ api: TimelineAPI, _ request: APIRequest, _ entities: MastodonEntities
    ) throws(TimelineError) -> HTTPResponse {
        let me = try request.requireViewer()
        return Responses.entity(200, try list(try api.service.list(id, viewer: me), ids: entities.ids))
    }

    /// Lists as Mastodon's entities.
    private static func mastodonLists(_ lists: [ListRecord], _ entities: MastodonEntities) throws(TimelineError)
        -> [Mastodon.List]
    {
        try entities.ids.prefetch(lists.map { NumberedObject.list($0.id) })
        var out: [Mastodon.List] = []
        for list in lists { out.append(try MastodonAPI.list(list, ids: entities.ids)) }
        return out
    }

    /// A list as Mastodon's entity.
    static func list(_ list: ListRecord, ids: MastodonIDs) throws(TimelineError) -> Mastodon.List {
        Mastodon.List(
            id: try ids.id(.list(list.id)), title: list.title, replies_policy: list.repliesPolicy.rawValue,
            exclusive: list.exclusive)
    }
}
