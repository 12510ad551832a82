import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// Statuses beyond posting one: edits and their history, the source, the thread (`context`:
/// a post's comments are its descendants), who favourited it; the public timeline, the
/// bearer's bookmarks and favourites, and search; boosts (reblogs): a boost is a status of its
/// own, whose `reblog` is the boosted post (Features/Boosts.swift).
extension MastodonAPI {
    static let statusRoutes: [Route] = [
        later(
            "PUT", "/api/v1/statuses/{id}", scope: "write:statuses",
            doc: .init(
                "Edits a post: its caption, its photos' alt texts and its poll (a changed poll starts over; none "
                    + "takes it away).", returns: .status,
                form: [
                    "status", "media_attributes[][id]", "media_attributes[][description]", "sensitive", "spoiler_text",
                    "poll[options][]", "poll[expires_in]", "poll[multiple]", "poll[hide_totals]"
                ])
        ) { api, request, entities in
            try await api.mastodonEditStatus(request, entities)
        },
        now(
            "GET", "/api/v1/statuses/{id}/history", .viewerOptional, scope: "read:statuses",
            doc: .init("A post's versions, oldest first.", returns: .statusEdits)
        ) { api, request, entities in
            let id: PostID = try mastodonID(request.parameters["id"])
            let detail = try api.service.post(id, viewer: request.viewer, comments: PageRequest(limit: 1))
            let author = try entities.account(try api.service.user(detail.post.author, viewer: request.viewer))
            let versions = try api.service.history(of: id, viewer: request.viewer)
            // Mastodon lists the versions oldest first, the current one last.
            return Responses.entity(
                200,
                try versions.sorted { $0.at < $1.at }.map { version throws(TimelineError) in
                    Mastodon.StatusEdit(
                        content: try entities.content(version.caption ?? "").html,
                        spoiler_text: detail.post.warning ?? "",
                        sensitive: detail.post.sensitive, created_at: JSONOutput.timestamp(version.at), account: author,
                        poll: JSONNull(), media_attachments: try detail.post.media.map(entities.media), emojis: [])
                })
        },
        now(
            "GET", "/api/v1/statuses/{id}/source", scope: "read:statuses",
            doc: .init("A post's plain caption and warning, to edit.", returns: .statusSource)
        ) { api, request, entities in
            let id: PostID = try mastodonID(request.parameters["id"])
            let post = try api.service.post(id, viewer: request.viewer, comments: PageRequest(limit: 1)).post
            return Responses.entity(
                200,
                Mastodon.StatusSource(
                    id: try entities.ids.id(.post(post.id)), text: post.caption ?? "", spoiler_text: post.warning ?? "")
            )
        },
        now(
            "GET", "/api/v1/statuses/{id}/context", .viewerOptional, scope: "read:statuses",
            doc: .init("A status's thread: a post's comments are its descendants.", returns: .context)
        ) { api, request, entities in
            try api.mastodonContext(request, entities)
        },
        now(
            "GET", "/api/v1/statuses/{id}/favourited_by", .viewerOptional, scope: "read:accounts",
            doc: .init("Who likes a post.", returns: .accounts, query: ["max_id", "limit"])
        ) { api, request, entities in
            let id: PostID = try mastodonID(request.parameters["id"])
            return try api.mastodonCursorPage(
                request, entities,
                { page throws(TimelineError) in
                    try api.service.likes(of: id, page, viewer: request.viewer)
                }, render: entities.account)
        },
        now(
            "GET", "/api/v1/statuses/{id}/reblogged_by", .viewerOptional, scope: "read:accounts",
            doc: .init("Who boosted a post, the latest boost first.", returns: .accounts, query: ["max_id", "limit"])
        ) { api, request, entities in
            let id = try api.mastodonBoostedPost(request)
            return try api.mastodonCursorPage(
                request, entities,
                { page throws(TimelineError) in
                    try api.service.boosters(of: id, page, viewer: request.viewer)
                }, render: entities.account)
        },
        later(
            "POST", "/api/v1/statuses/{id}/reblog", scope: "write:statuses",
            doc: .init(
                "Boosts a post (a boost's id boosts its post): the boost, a status of its own whose reblog is the "
                    + "post; again, the same boost. A post for followers only or of a private account is refused.",
                returns: .status, form: ["visibility"])
        ) { api, request, entities in
            let post = try api.mastodonBoostedPost(request)
            let visibility = try MastodonParams(request.http).string("visibility")
            guard
                case .created(let boost) = try await api.execute(
                    .reblog(post: post.rawValue, visibility: visibility), request)
            else { throw TimelineError(.internal, "reblog answered no boost") }
            let boosted = try api.service.boost(PostID(boost), viewer: request.viewer)
            return Responses.entity(
                200,
                try entities.status(
                    boostOf: boosted,
                    booster: try api.service.user(try request.requireViewer(), viewer: request.viewer),
                    author: try api.service.user(boosted.author, viewer: request.viewer)))
        },
        later(
            "POST", "/api/v1/statuses/{id}/unreblog", scope: "write:statuses",
            doc: .init("Takes the bearer's boost of a post back: the post, as it is now.", returns: .status)
        ) { api, request, entities in
            let post = try api.mastodonBoostedPost(request)
            _ = try await api.execute(.unreblog(post: post.rawValue), request)
            return Responses.entity(200, try api.mastodonStatus(post.rawValue, request, entities).entity)
        },
        now(
            "GET", "/api/v1/timelines/public", .viewerOptional, scope: "read:statuses",
            doc: .init(
                "Every public post, newest first.", returns: .statuses, query: ["local", "remote", "only_media"],
                paged: true)
        ) { api, request, entities in
            // `local` keeps this server's accounts' posts, `remote` other servers' (a remote account's
            // username is its handle, name@host); `only_media` changes nothing (every post has photos).
            let params = try MastodonParams(request.http)
            let local = try params.bool("local") == true, remote = try params.bool("remote") == true
            return try api.mastodonPage(request, entities) { page throws(TimelineError) in
                var posts = try api.service.publicPosts(page, viewer: request.viewer)
                if local || remote { posts.items.removeAll { $0.authorUsername.contains("@") != remote } }
                return posts
            }
        },
        now(
            "GET", "/api/v1/bookmarks", scope: "read:bookmarks",
            doc: .init(
                "The bearer's bookmarks, the latest saved first.", returns: .statuses, query: ["max_id", "limit"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            // Paged in the order they were saved, by the list's own cursor.
            return try api.mastodonCursorPage(
                request, entities, limits: (20, 40),
                { page throws(TimelineError) in try api.service.bookmarks(of: me, page) },
                render: api.statuses(request, entities))
        },
        now(
            "GET", "/api/v1/favourites", scope: "read:favourites",
            doc: .init("The posts the bearer likes.", returns: .statuses, paged: true)
        ) { api, request, entities in
            let me = try request.requireViewer()
            return try api.mastodonPage(request, entities) { page throws(TimelineError) in
                try api.service.liked(by: me, page)
            }
        },
        later(
            "GET", "/api/v2/search", .viewerOptional, scope: "read:search",
            doc: .init(
                "Accounts, the hashtag and its posts; with resolve=true, an account or post of another server.",
                returns: .search, query: ["q", "type", "limit", "resolve"])
        ) { api, request, entities in try await api.mastodonSearch(request, entities) }
    ]
}

extension TimelineAPI {
    /// The post a reblog route's `{id}` names: a post's own, or a boost's post (as Mastodon boosts
    /// a boost's original).
    func mastodonBoostedPost(_ request: APIRequest) throws(TimelineError) -> PostID {
        let id: PostID = try mastodonID(request.parameters["id"])
        if let boosted = try mastodonFind({ () throws(TimelineError) in try service.boost(id, viewer: request.viewer) })
        {
            return boosted.id
        }
        return id
    }

    /// `PUT /api/v1/statuses/:id`: a new caption (`status`) and alt texts
    /// (`media_attributes[][id]` with `media_attributes[][description]`).
    func mastodonEditStatus(_ request: APIRequest, _ entities: MastodonEntities) async throws(TimelineError)
        -> HTTPResponse
    {
        let id: PostID = try mastodonID(request.parameters["id"])
        let params = try MastodonParams(request.http)
        let ids = params.list("media_attributes[][id]"), descriptions = params.list("media_attributes[][description]")
        guard ids.count == descriptions.count else {
            throw TimelineError.invalid("media_attributes", "each media_attributes entry needs its id and description")
        }
        var alts: [String: String?] = [:]
        for (media, text) in zip(ids, descriptions) {
            alts[try entities.ids.media(media).rawValue] = text.isEmpty ? String?.none : text
        }
        let caption: String?? = params.string("status").map { $0.isEmpty ? String?.none : $0 }
        // As Mastodon's edit: the poll given is the post's from now on, and none takes it away.
        _ = try await execute(
            .editPost(post: id.rawValue, caption: caption, alts: alts, poll: .some(try params.poll())), request)
        return Responses.entity(200, try mastodonStatus(id.rawValue, request, entities).entity)
    }

    /// The most messages a direct answer's context climbs (Mastodon's own context is bounded too).
    static let maxAncestors = 40

    /// `GET /api/v1/statuses/:id/context`: a post's comments are its descendants (oldest
    /// first, as a thread reads), and a direct answer's ancestors the messages it answers; a
    /// comment's ancestors are its post and the comment it answers.
    func mastodonContext(_ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError) -> HTTPResponse {
        let raw = request.parameters["id"] ?? ""
        // Each author's profile read once (a thread names the same few people again and again).
        var authors: [UserID: Profile] = [:]
        func author(_ user: UserID) throws(TimelineError) -> Profile {
            if let known = authors[user] { return known }
            let profile = try service.user(user, viewer: request.viewer)
            authors[user] = profile
            return profile
        }
        if let detail = try mastodonFind({ () throws(TimelineError) in
            try service.post(try mastodonID(raw), viewer: request.viewer, comments: PageRequest(limit: 1))
        }) {
            var comments: [Comment] = [], cursor: String?
            repeat {
                let page = try service.comments(
                    of: detail.post.id, PageRequest(limit: 100, before: cursor), viewer: request.viewer)
                comments += page.items
                cursor = page.next
            } while cursor != nil && comments.count < 4_000
            var descendants: [Mastodon.Status] = []
            for comment in comments.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
                var status = try entities.status(comment, author: try author(comment.author), on: detail.post)
                status.in_reply_to_account_id = Nullable(try entities.ids.id(.account(detail.post.author)))
                descendants.append(status)
            }
            // A direct answer's ancestors: the messages it answers, up the thread as far as the
            // viewer may see them (at most `maxAncestors`), the first of the thread first.
            var ancestors: [Mastodon.Status] = [], answered = detail.post.inReplyTo
            while let id = answered, ancestors.count < Self.maxAncestors,
                let parent = try mastodonFind({ () throws(TimelineError) in
                    try service.post(id, viewer: request.viewer, comments: PageRequest(limit: 1)).post
                })
            {
                ancestors.insert(try entities.status(parent, author: try author(parent.author)), at: 0)
                answered = parent.inReplyTo
            }
            return Responses.entity(200, Mastodon.Context(ancestors: ancestors, descendants: descendants))
        }
        let comment = try service.comment(try mastodonID(raw), viewer: request.viewer)
        let post = try service.post(comment.post, viewer: request.viewer, comments: PageRequest(limit: 1)).post
        var ancestors = [try entities.status(post, author: try service.user(post.author, viewer: request.viewer))]
        if let answered = comment.replyTo,
            let parent = try mastodonFind({ () throws(TimelineError) in
                try service.comment(answered, viewer: request.viewer)
            })
        {
            let author = try service.user(parent.author, viewer: request.viewer)
            ancestors.append(try entities.status(parent, author: author, on: post))
        }
        return Responses.entity(200, Mastodon.Context(ancestors: ancestors, descendants: []))
    }

    /// `GET /api/v2/search`: accounts by username prefix, the hashtag `q` names, and that
    /// hashtag's statuses (`type` narrows to one of them; full-text search of captions is not
    /// offered, as on Mastodon servers without a search index). With `resolve=true` and a
    /// signed-in viewer, a handle or URL of another server's account or post is looked up there
    /// (`resolveRemote`) and comes first.
    func mastodonSearch(_ request: APIRequest, _ entities: MastodonEntities) async throws(TimelineError)
        -> HTTPResponse
    {
        let params = try MastodonParams(request.http)
        let query = (params.string("q") ?? "").trimmingCharacters(in: .whitespaces)
        let type = params.string("type")
        guard type == nil || ["accounts", "hashtags", "statuses"].contains(type!) else {
            throw TimelineError.invalid("type", "type must be accounts, hashtags or statuses")
        }
        let limit = min(max(Int(params.string("limit") ?? "") ?? 20, 1), 40)
        var accounts: [Mastodon.Account] = [], hashtags: [Mastodon.Tag] = [], statuses: [Mastodon.Status] = []
        if try params.bool("resolve") == true, request.viewer != nil {
            // What cannot be found there is no result, as on Mastodon (not an error).
            var found: (account: UserID?, post: PostID?) = (nil, nil)
            do { found = try await resolveRemote(query, FederationURLs(origin: request.origin)) } catch
                where error.code == .notFound
            {}
            if let account = found.account, type == nil || type == "accounts" {
                accounts.append(try entities.account(try service.user(account, viewer: request.viewer)))
            }
            if let post = found.post, type == nil || type == "statuses" {
                let detail = try service.post(post, viewer: request.viewer, comments: PageRequest(limit: 1))
                statuses.append(try entities.status(detail.post, author: try service.user(detail.post.author)))
            }
            if !accounts.isEmpty || !statuses.isEmpty {
                return Responses.entity(200, Mastodon.Search(accounts: accounts, hashtags: [], statuses: statuses))
            }
        }
        let word = query.trimmingCharacters(in: CharacterSet(charactersIn: "@#"))
        let name = word.split(separator: "@").first.map(String.init) ?? ""
        if !name.isEmpty, type == nil || type == "accounts", !query.hasPrefix("#") {
            accounts = try service.searchUsers(prefix: name, PageRequest(limit: limit), viewer: request.viewer).items
                .map(entities.account)
        }
        if !word.isEmpty, !query.hasPrefix("@"), word.allSatisfy(TextTokens.isWord) {
            let posts = try service.hashtag(word, PageRequest(limit: limit), viewer: request.viewer).items
            if type == nil || type == "hashtags", !posts.isEmpty {
                let name = word.lowercased()
                hashtags = [entities.tag(name, history: try service.tagHistory(name))]
            }
            if type == nil || type == "statuses" {
                for post in posts {
                    let author = try service.user(post.author, viewer: request.viewer)
                    statuses.append(try entities.status(post, author: author))
                }
            }
        }
        return Responses.entity(200, Mastodon.Search(accounts: accounts, hashtags: hashtags, statuses: statuses))
    }
}
