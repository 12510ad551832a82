import Foundation
import Timeline

/// Mastodon's trends: `GET /api/v1/trends/tags` and `/api/v1/trends/statuses`, the library's
/// `trendingTags` and `trendingPosts`, paged by `offset` as Mastodon pages them. Links are not
/// among them: Timeline makes no link previews (every status's `card` is null).
extension MastodonAPI {
    static let trendRoutes: [Route] = [
        now(
            "GET", "/api/v1/trends/tags", .viewerOptional, scope: "read:statuses",
            doc: .init(
                "The hashtags trending now, each with its last seven days.", returns: .tags,
                query: ["limit", "offset"])
        ) { api, request, entities in
            let page = try trendPage(request, default: 10, max: 20)
            return Responses.entity(
                200, try api.service.trendingTags(page).items.map { entities.tag($0.name, history: $0.history) })
        },
        now(
            "GET", "/api/v1/trends/statuses", .viewerOptional, scope: "read:statuses",
            doc: .init(
                "The public statuses trending now: the most liked and commented for their age.", returns: .statuses,
                query: ["limit", "offset"])
        ) { api, request, entities in
            let posts = try api.service.trendingPosts(
                try trendPage(request, default: 20, max: 40), viewer: request.viewer
            )
            .items
            try entities.ids.prefetch(posts.flatMap { [.post($0.id), .account($0.author)] })
            let render = api.statuses(request, entities)
            var statuses: [Mastodon.Status] = []
            for post in posts { if let status = try render(post) { statuses.append(status) } }
            return Responses.entity(200, statuses)
        }
    ]

    /// A trends page: `limit` (Mastodon's default and maximum for the list) from `offset`.
    private static func trendPage(_ request: APIRequest, default defaultLimit: Int, max maxLimit: Int)
        throws(TimelineError) -> PageRequest
    {
        let params = try MastodonParams(request.http)
        let limit = try params.limit(default: defaultLimit, max: maxLimit)
        let offset = try params.offset()
        return PageRequest(limit: limit, before: offset > 0 ? String(offset) : nil)
    }
}
