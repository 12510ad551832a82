import Foundation
import MicroHTTPD
import Timeline

/// The Mastodon API's writes, each one of the library's commands run as the bearer: photos
/// (`POST /api/v2/media`, `PUT`/`GET /api/v1/media/:id`), statuses (a post needs its photos,
/// `media_ids[]`; `in_reply_to_id` makes a comment, as Pixelfed maps them, or with `visibility`
/// `direct` and a direct message answered, a message of its conversation), favourites,
/// bookmarks, follows and relationships.
extension MastodonAPI {
    static let writeRoutes: [Route] = [
        later(
            "POST", "/api/v2/media", scope: "write:media",
            doc: .init(
                "Uploads a photo with its description (alt text).", returns: .media, form: ["description", "focus"],
                files: ["file"])
        ) { api, request, entities in try await api.mastodonUpload(request, entities) },
        later(
            "POST", "/api/v1/media", scope: "write:media",
            doc: .init("Uploads a photo (v1 path).", returns: .media, form: ["description", "focus"], files: ["file"])
        ) { api, request, entities in try await api.mastodonUpload(request, entities) },
        later(
            "PUT", "/api/v1/media/{id}", scope: "write:media",
            doc: .init("Changes a photo's description.", returns: .media, form: ["description", "focus"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let result = try await api.execute(
                .updateMedia(media: request.parameters["id"] ?? "", alt: params.string("description")), request)
            guard case .media(let media) = result else { throw TimelineError(.internal, "not a photo") }
            return Responses.entity(200, try entities.media(media))
        },
        now(
            "GET", "/api/v1/media/{id}", scope: "write:media",
            doc: .init(
                "One of the bearer's photos or videos: 206 while a video is transcoded, 200 once ready, 422 when it "
                    + "could not be.", returns: .media)
        ) { api, request, entities in
            let media = try api.service.media(
                try mastodonID(request.parameters["id"]), viewer: try request.requireViewer())
            switch media.video {
            case .processing: return Responses.entity(206, try entities.media(media))
            case .failed(let reason): throw TimelineError.invalid("file", "Error processing the video: \(reason)")
            case .ready, nil: return Responses.entity(200, try entities.media(media))
            }
        },
        later(
            "POST", "/api/v1/statuses", scope: "write:statuses",
            doc: .init(
                "Posts photos (media_ids[]) or, with in_reply_to_id, a comment; with scheduled_at (at least 5 "
                    + "minutes ahead), schedules the post and answers a ScheduledStatus.", returns: .status,
                form: [
                    "status", "media_ids[]", "in_reply_to_id", "sensitive", "spoiler_text", "visibility", "language",
                    "poll[options][]", "poll[expires_in]", "poll[multiple]", "poll[hide_totals]", "scheduled_at"
                ]
            )
        ) { api, request, entities in try await api.mastodonPostStatus(request, entities) },
        later(
            "DELETE", "/api/v1/statuses/{id}", scope: "write:statuses",
            doc: .init("Deletes a status (a post or a comment); answers it as it was.", returns: .status)
        ) { api, request, entities in
            let id = request.parameters["id"] ?? ""
            let status = try api.mastodonStatus(id, request, entities)
            _ = try await api.execute(status.isComment ? .deleteComment(comment: id) : .deletePost(post: id), request)
            return Responses.entity(200, status.entity)
        },
        later(
            "POST", "/api/v1/statuses/{id}/favourite", scope: "write:favourites",
            doc: .init("Likes a post.", returns: .status)
        ) { api, request, entities in
            try await api.mastodonPostAction(.like(post: request.parameters["id"] ?? ""), request, entities)
        },
        later(
            "POST", "/api/v1/statuses/{id}/unfavourite", scope: "write:favourites",
            doc: .init("Takes a like back.", returns: .status)
        ) { api, request, entities in
            try await api.mastodonPostAction(.unlike(post: request.parameters["id"] ?? ""), request, entities)
        },
        later(
            "POST", "/api/v1/statuses/{id}/bookmark", scope: "write:bookmarks",
            doc: .init("Bookmarks a post.", returns: .status)
        ) { api, request, entities in
            try await api.mastodonPostAction(.bookmark(post: request.parameters["id"] ?? ""), request, entities)
        },
        later(
            "POST", "/api/v1/statuses/{id}/unbookmark", scope: "write:bookmarks",
            doc: .init("Takes a bookmark back.", returns: .status)
        ) { api, request, entities in
            try await api.mastodonPostAction(.unbookmark(post: request.parameters["id"] ?? ""), request, entities)
        },
        later(
            "POST", "/api/v1/accounts/{id}/follow", scope: "write:follows",
            doc: .init(
                "Follows an account (asks, if it is locked); notify: be notified of each of its posts; reblogs "
                    + "false: hide its boosts from the home timeline.",
                returns: .relationship, form: ["notify", "reblogs"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let notify = try params.bool("notify"), reblogs = try params.bool("reblogs")
            return try await api.mastodonAccountAction(
                .follow(user: request.parameters["id"] ?? "", notify: notify, reblogs: reblogs), request, entities)
        },
        later(
            "POST", "/api/v1/accounts/{id}/unfollow", scope: "write:follows",
            doc: .init("Unfollows an account (or withdraws a request).", returns: .relationship)
        ) { api, request, entities in
            try await api.mastodonAccountAction(.unfollow(user: request.parameters["id"] ?? ""), request, entities)
        },
        now(
            "GET", "/api/v1/accounts/relationships", scope: "read:follows",
            doc: .init("The bearer's relationships with accounts.", returns: .relationships, query: ["id[]"])
        ) { api, request, entities in
            let me = try request.requireViewer()
            let ids = try MastodonParams(request.http).list("id")
            // An id that names no account in sight is left out, as Mastodon leaves it.
            var relationships: [Mastodon.Relationship] = []
            for id in ids {
                guard
                    let relationship = try mastodonFind({ () throws(TimelineError) in
                        try api.mastodonRelationship(with: try entities.ids.user(id), viewer: me, entities)
                    })
                else { continue }
                relationships.append(relationship)
            }
            return Responses.entity(200, relationships)
        }
    ]
}

extension TimelineAPI {
    /// `POST /api/v2/media`: the multipart `file`, with `description` (its alt text). A photo is
    /// processed at once (200); a video is transcoded after the answer (202, `url` null: the app
    /// polls `GET /api/v1/media/:id`), as Mastodon does.
    func mastodonUpload(_ request: APIRequest, _ entities: MastodonEntities) async throws(TimelineError) -> HTTPResponse
    {
        let params = try MastodonParams(request.http)
        guard let file = params.files["file"], !file.data.isEmpty || file.file != nil else {
            throw TimelineError.invalid("file", "file is required")
        }
        let alt = params.string("description")
        if isVideo(file) {
            guard case .media(let media) = try await storeVideo(file, alt: alt, request) else {
                throw TimelineError(.internal, "not a video")
            }
            return Responses.entity(202, try entities.media(media))
        }
        let image = Data(try photoBytes(file)).base64EncodedString()
        guard case .media(let media) = try await execute(.uploadMedia(image: image, alt: alt), request) else {
            throw TimelineError(.internal, "not a photo")
        }
        return Responses.entity(200, try entities.media(media))
    }

    /// `POST /api/v1/statuses`: a photo post (`status` its caption, `media_ids[]` 1–10 photos,
    /// `sensitive`, `spoiler_text` its warning, `visibility` public/unlisted or private), or,
    /// with `in_reply_to_id`, a comment on a post or a reply to a comment.
    func mastodonPostStatus(_ request: APIRequest, _ entities: MastodonEntities) async throws(TimelineError)
        -> HTTPResponse
    {
        let params = try MastodonParams(request.http)
        let text = params.string("status") ?? ""
        let scheduledAt = params.string("scheduled_at").flatMap { $0.isEmpty ? nil : $0 }
        if scheduledAt != nil, params.string("in_reply_to_id") != nil {
            throw TimelineError.invalid(
                "scheduled_at", "Validation failed: Scheduled at a reply (a comment) cannot be scheduled here")
        }
        if let target = params.string("in_reply_to_id") {
            var post: String, replyTo: String?
            switch try entities.ids.object(.status, target) {
            case .comment(let id):
                let answered = try service.comment(id, viewer: request.viewer)
                (post, replyTo) = (answered.post.rawValue, answered.id.rawValue)
            case .post(let id):
                // A direct reply to a direct message is a message of its conversation, as
                // Mastodon's is (a comment would never be the conversation's last status).
                if params.string("visibility") == "direct",
                    try service.post(id, viewer: request.viewer, comments: PageRequest(limit: 1)).post.visibility
                        == .direct
                {
                    return try await mastodonDirectAnswer(id, text: text, request, entities)
                }
                post = id.rawValue
            case let object: post = object.nativeID
            }
            guard
                case .comment(let comment) = try await execute(
                    .addComment(post: post, text: text, replyTo: replyTo), request)
            else {
                throw TimelineError(.internal, "not a comment")
            }
            let author = try service.user(comment.author, viewer: request.viewer)
            return Responses.entity(200, try entities.status(comment, author: author))
        }
        // Another's upload, a deleted one and a number of nothing are one answer, as Mastodon
        // gives it (422), which says nothing of whether the upload exists.
        let me = try request.requireViewer()
        let media = try params.list("media_ids").map { raw throws(TimelineError) in
            guard
                let upload = try mastodonFind({ () throws(TimelineError) in
                    try service.media(try entities.ids.media(raw), viewer: me)
                })
            else { throw TimelineError.invalid("media_ids", "Validation failed: media_ids names no upload of yours") }
            return upload.id
        }
        let visibility: PostVisibility? =
            switch params.string("visibility") {
            case nil: nil
            case "public", "unlisted": .public
            case "private": .followers
            case "direct": .direct
            default:
                throw TimelineError.invalid(
                    "visibility", "Validation failed: visibility must be public, unlisted, private or direct")
            }
        // A direct message may be text alone; every other status needs a photo.
        guard !media.isEmpty || visibility == .direct else {
            throw TimelineError.invalid("media_ids", "Validation failed: a post needs a photo (media_ids)")
        }
        let warning = params.string("spoiler_text").flatMap { $0.isEmpty ? nil : $0 }
        if let scheduledAt {
            return try await mastodonScheduleStatus(
                .schedulePost(
                    media: media, caption: text, scheduledAt: scheduledAt, sensitive: try params.bool("sensitive"),
                    warning: warning, visibility: visibility, poll: try params.poll()), request, entities)
        }
        let command =
            media.isEmpty
            ? Command.addDirectPost(caption: text)
            : Command.addPost(
                media: media, caption: text, sensitive: try params.bool("sensitive"), warning: warning,
                visibility: visibility, poll: try params.poll())
        guard case .post(let post) = try await execute(command, request) else {
            throw TimelineError(.internal, "not a post")
        }
        let author = try service.user(post.author, viewer: request.viewer)
        return Responses.entity(200, try entities.status(post, author: author))
    }

    /// `POST /api/v1/statuses` with `in_reply_to_id` a direct message and `visibility` `direct`:
    /// a direct message answering it in its conversation (`addPost`'s `inReplyTo`).
    func mastodonDirectAnswer(_ answered: PostID, text: String, _ request: APIRequest, _ entities: MastodonEntities)
        async throws(TimelineError) -> HTTPResponse
    {
        guard
            case .post(let post) = try await execute(
                .addDirectPost(caption: text, inReplyTo: answered.rawValue), request)
        else { throw TimelineError(.internal, "not a post") }
        let author = try service.user(post.author, viewer: request.viewer)
        return Responses.entity(200, try entities.status(post, author: author))
    }

    /// The status `id` (a post, or a comment) as the bearer sees it.
    func mastodonStatus(_ id: String, _ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError) -> (
        entity: Mastodon.Status, isComment: Bool
    ) {
        // A status id is a post's, a boost's or a comment's: only "no such post" sends it on.
        if let detail = try mastodonFind({ () throws(TimelineError) in
            try service.post(try mastodonID(id), viewer: request.viewer, comments: PageRequest(limit: 1))
        }) {
            let author = try service.user(detail.post.author, viewer: request.viewer)
            return (try entities.status(detail.post, author: author), false)
        }
        if let boosted = try mastodonFind({ () throws(TimelineError) in
            try service.boost(try mastodonID(id), viewer: request.viewer)
        }), let boost = boosted.boost {
            return (
                try entities.status(
                    boostOf: boosted, booster: try service.user(boost.by, viewer: request.viewer),
                    author: try service.user(boosted.author, viewer: request.viewer)), false
            )
        }
        let comment = try service.comment(try mastodonID(id), viewer: request.viewer)
        return (try entities.status(comment, author: try service.user(comment.author, viewer: request.viewer)), true)
    }

    /// Runs `command` on a post, then answers the post as a status.
    func mastodonPostAction(_ command: Command, _ request: APIRequest, _ entities: MastodonEntities)
        async throws(TimelineError) -> HTTPResponse
    {
        _ = try await execute(command, request)
        return Responses.entity(200, try mastodonStatus(request.parameters["id"] ?? "", request, entities).entity)
    }

    /// Runs `command` on an account, then answers the relationship.
    func mastodonAccountAction(_ command: Command, _ request: APIRequest, _ entities: MastodonEntities)
        async throws(TimelineError) -> HTTPResponse
    {
        _ = try await execute(command, request)
        let me = try request.requireViewer(), other: UserID = try mastodonID(request.parameters["id"])
        return Responses.entity(200, try mastodonRelationship(with: other, viewer: me, entities))
    }

    /// The bearer's `Relationship` with `other` (not found when `other` is out of the bearer's
    /// sight: a suspended account, as `service.user` hides it; a blocker's profile is not hidden
    /// from the one it blocks, who reads `blocked_by` as Mastodon tells it).
    func mastodonRelationship(with other: UserID, viewer me: UserID, _ entities: MastodonEntities) throws(TimelineError)
        -> Mastodon.Relationship
    {
        try entities.relationship(
            try service.user(other, viewer: me), followedBy: try service.follows(other, me),
            requestedBy: try service.followRequested(other, me),
            blockedBy: try service.blocks(other, me), showingReblogs: try service.showsBoosts(of: other, to: me),
            domainBlocking: try service.blocksServer(of: other, viewer: me))
    }
}
