import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// ActivityPub (W3C) as Mastodon and Pixelfed speak it (#43), a third route table beside
/// `/v1`'s and Mastodon's: discovery (WebFinger, host-meta, NodeInfo), each local user's actor
/// (`Person`) with its collections, and each post as a `Note`. A document is served to a
/// client that asks for `application/activity+json` or `application/ld+json`; a browser opening
/// the same address is sent to the web app's screen of it. Only what anyone may see is served:
/// a fetch is anonymous, so a followers-only or direct post is `not_found` here.
enum ActivityPubAPI {
    /// Every route of the ActivityPub layer.
    static let table: [Route] = Discovery.routes + actorRoutes + inboxRoutes + InstanceActor.routes

    /// A `GET` route given the request's federation URLs (async: an actor's first read makes
    /// its key, a command). An ActivityPub document it serves needs a signed request on a server
    /// in authorised-fetch mode (`Options.authorizedFetch`), unless it is `open` (discovery, the
    /// server's own actor: what a server reads to check a signature).
    static func get(
        _ template: String, open: Bool = false,
        _ answer: @escaping @Sendable (TimelineAPI, APIRequest, FederationURLs) async throws -> HTTPResponse
    ) -> Route {
        Route(
            "GET", template, .anyone, scope: .none,
            .later { api, request in
                if !open, api.options.authorizedFetch, wantsActivity(request.http) {
                    try await api.requireSignedFetch(request, owner: api.documentOwner(request))
                }
                return try await answer(api, request, FederationURLs(origin: request.origin))
            }, nil)
    }

    /// Whether the request asks for an ActivityPub document (its `Accept` names one of
    /// ActivityPub's two media types) rather than a page.
    static func wantsActivity(_ request: HTTPRequest) -> Bool {
        let accept = request.header("Accept")?.lowercased() ?? ""
        return accept.contains(ActivityStreams.mediaType) || accept.contains("application/ld+json")
    }

    /// `document` as `application/activity+json`.
    static func document(_ document: some Encodable, type: String = ActivityStreams.mediaType + "; charset=utf-8")
        -> HTTPResponse
    {
        var response = Responses.entity(200, document)
        response.headers =
            [("Content-Type", type), ("Vary", "Accept")]
            + response.headers.filter { $0.name.lowercased() != "content-type" }
        return response
    }

    /// A browser sent to `location` (the web app's screen of what it opened).
    static func redirect(_ location: String) -> HTTPResponse {
        Responses.empty(302, headers: [("Location", location), ("Vary", "Accept")])
    }

    static let actorRoutes: [Route] = [
        get("/users/{user}") { api, request, urls in
            let profile = try api.federatedProfile(id: request.parameters["user"] ?? "")
            guard wantsActivity(request.http) else { return redirect(urls.appProfile(profile.username)) }
            return document(try await api.person(profile, urls))
        },
        get("/@{username}") { api, request, urls in
            let profile = try api.service.user(named: request.parameters["username"] ?? "")
            guard wantsActivity(request.http) else { return redirect(urls.appProfile(profile.username)) }
            return document(try await api.person(profile, urls))
        },
        get("/users/{user}/statuses/{post}") { api, request, urls in
            let post = try api.federatedPost(request.parameters["post"] ?? "", by: request.parameters["user"] ?? "")
            guard wantsActivity(request.http) else { return redirect(urls.appPost(post.id)) }
            return document(try api.note(post, urls, withContext: true))
        },
        get("/users/{user}/comments/{comment}") { api, request, urls in
            // A local user's comment on a public post, as anyone sees it (a reply's parent is
            // fetched by the servers that thread it).
            guard let id = CommentID.parse(request.parameters["comment"] ?? "") else {
                throw TimelineError.notFound("comment", String((request.parameters["comment"] ?? "").prefix(64)))
            }
            let comment = try api.service.comment(id, viewer: nil)
            let post = try api.service.post(comment.post, viewer: nil, comments: PageRequest(limit: 1)).post
            guard comment.author.rawValue == request.parameters["user"], !comment.authorUsername.contains("@"),
                post.visibility == .public
            else { throw TimelineError.notFound("comment", id.rawValue) }
            guard wantsActivity(request.http) else { return redirect(urls.appPost(post.id)) }
            return document(try api.commentNote(comment, on: post, seenBy: comment.author, urls, withContext: true))
        },
        get("/users/{user}/statuses/{post}/activity") { api, request, urls in
            let post = try api.federatedPost(request.parameters["post"] ?? "", by: request.parameters["user"] ?? "")
            return document(try api.create(post, urls, withContext: true))
        },
        get("/@{username}/{post}") { api, request, urls in
            let author = try api.service.userID(named: request.parameters["username"] ?? "")
            let post = try api.federatedPost(request.parameters["post"] ?? "", by: author.rawValue)
            guard wantsActivity(request.http) else { return redirect(urls.appPost(post.id)) }
            return document(try api.note(post, urls, withContext: true))
        },
        get("/users/{user}/outbox") { api, request, urls in
            let profile = try api.federatedProfile(id: request.parameters["user"] ?? "")
            return try api.outbox(profile, request, urls)
        },
        get("/users/{user}/followers") { api, request, urls in
            let profile = try api.federatedProfile(id: request.parameters["user"] ?? "")
            // Who follows whom is told as a count only (as Mastodon's "hide your network"): the
            // list is each person's to show in the apps, not for every server to copy.
            return document(
                ActivityStreams.OrderedCollection<String>(
                    id: urls.followers(profile.id), totalItems: profile.followerCount))
        },
        get("/users/{user}/following") { api, request, urls in
            let profile = try api.federatedProfile(id: request.parameters["user"] ?? "")
            return document(
                ActivityStreams.OrderedCollection<String>(
                    id: urls.following(profile.id), totalItems: profile.followingCount))
        },
        get("/users/{user}/collections/featured") { api, request, urls in
            let profile = try api.federatedProfile(id: request.parameters["user"] ?? "")
            let notes = try api.service.pinnedPosts(of: profile.id, viewer: nil).map { post throws(TimelineError) in
                try api.note(post, urls, withContext: false)
            }
            return document(
                ActivityStreams.OrderedCollection(
                    id: urls.featured(profile.id), totalItems: notes.count, orderedItems: notes))
        }
    ]
}

extension TimelineAPI {
    /// The local user whose document a request asks for (its path's `user` or `username`), if any.
    func documentOwner(_ request: APIRequest) -> UserID? {
        if let raw = request.parameters["user"] { return UserID.parse(raw) }
        guard let name = request.parameters["username"] else { return nil }
        return try? service.userID(named: name)
    }

    /// The local user `raw` names, as anyone sees them (`not_found` for no such user, or one
    /// erased or suspended).
    func federatedProfile(id raw: String) throws(TimelineError) -> Profile {
        guard let id = UserID.parse(raw) else { throw TimelineError.notFound("user", String(raw.prefix(64))) }
        let profile = try service.user(id, viewer: nil, countingUnread: false)
        // Another server's account is its server's to serve: here it has no actor.
        guard !profile.username.contains("@") else { throw TimelineError.notFound("user", id.rawValue) }
        return profile
    }

    /// Post `raw` of the author `author` names, as anyone may see it (`not_found` otherwise:
    /// another author's, followers-only, direct, removed).
    func federatedPost(_ raw: String, by author: String) throws(TimelineError) -> Post {
        guard let id = PostID.parse(raw) else { throw TimelineError.notFound("post", String(raw.prefix(64))) }
        let post = try service.post(id, viewer: nil, comments: PageRequest(limit: 1)).post
        guard post.author.rawValue == author, post.visibility == .public, !post.authorUsername.contains("@") else {
            throw TimelineError.notFound("post", id.rawValue)
        }
        return post
    }

    /// `profile`'s actor document, with its key (made now, the first time it is asked for).
    func person(_ profile: Profile, _ urls: FederationURLs) async throws(TimelineError) -> ActivityStreams.Person {
        let id = profile.id
        let publicKey = try await service.actorPublicKey(of: id)
        let icon = profile.avatar.map { ActivityStreams.Image(mediaType: "image/jpeg", url: urls.image($0.large)) }
        let header = profile.header.map { ActivityStreams.Image(mediaType: "image/jpeg", url: urls.image($0.large)) }
        let summary = try MastodonContent(profile.bio ?? "", base: urls.origin) { _ in nil }.html
        return ActivityStreams.Person(
            id: urls.actor(id), preferredUsername: profile.username, name: profile.username, summary: summary,
            url: urls.profilePage(profile.username), published: JSONOutput.timestamp(profile.createdAt),
            inbox: urls.inbox(id), outbox: urls.outbox(id), followers: urls.followers(id),
            following: urls.following(id), featured: urls.featured(id),
            endpoints: .init(sharedInbox: urls.sharedInbox),
            publicKey: .init(id: urls.key(id), owner: urls.actor(id), publicKeyPem: publicKey),
            manuallyApprovesFollowers: profile.locked, discoverable: profile.discoverable ?? false,
            indexable: false, icon: icon, image: header)
    }

    /// `post` as a `Note`: its caption as HTML with its hashtags and mentions linked (and
    /// listed in `tag`), each photo or video an attachment named by its alt text. A direct post
    /// mentions, and is addressed to, its addressees, and names the `Note` it answers.
    func note(_ post: Post, _ urls: FederationURLs, withContext: Bool) throws(TimelineError) -> ActivityStreams.Note {
        let content = try MastodonContent(post.caption ?? "", base: urls.origin) { name throws(TimelineError) in
            try service.mentionedUser(name, viewer: nil)?.rawValue
        }
        let mentioned = post.visibility == .direct ? post.addressees : content.mentions.map { UserID($0.id) }
        let mentions = try mentioned.map { user throws(TimelineError) in try mention(user, urls) }
        let hashtags = content.tags.map { ActivityStreams.Tag(type: "Hashtag", href: $0.url, name: "#\($0.name)") }
        let (to, cc) = audience(post, urls, mentioned: mentions.map(\.href))
        return ActivityStreams.Note(
            context: withContext ? ActivityStreams.context : nil, id: urls.note(post.id, by: post.author),
            attributedTo: urls.actor(post.author), content: content.html, summary: post.warning,
            sensitive: post.sensitive || post.warning != nil, published: JSONOutput.timestamp(post.createdAt),
            updated: post.editedAt.map { JSONOutput.timestamp($0) },
            url: urls.postPage(post.id, by: post.authorUsername), to: to, cc: cc,
            inReplyTo: try post.inReplyTo.map { answered throws(TimelineError) in
                try noteID(of: answered, seenBy: post.author, urls)
            },
            attachment: post.media.compactMap { attachment($0, urls) }, tag: hashtags + mentions)
    }

    /// The `Mention` of `user`: a local user's actor here, another server's account's there.
    func mention(_ user: UserID, _ urls: FederationURLs) throws(TimelineError) -> ActivityStreams.Tag {
        if let remote = try service.remoteAccount(user) {
            return ActivityStreams.Tag(type: "Mention", href: remote.actor, name: "@" + remote.username)
        }
        let username = try service.user(user, countingUnread: false).username
        return ActivityStreams.Tag(type: "Mention", href: urls.actor(user), name: "@\(username)@\(urls.domain)")
    }

    /// The `Note` id of `post` (which `viewer` sees): its own server's for another server's post,
    /// this server's otherwise.
    func noteID(of post: PostID, seenBy viewer: UserID, _ urls: FederationURLs) throws(TimelineError) -> String {
        if let remote = try service.remoteObject(of: post) { return remote.object }
        return urls.note(post, by: try service.post(post, viewer: viewer, comments: PageRequest(limit: 1)).post.author)
    }

    /// A local user's `comment` on `post` (which `viewer` sees) as a reply `Note`: answering the
    /// `Note` of the comment it replies to (that comment's own on another server), else the post's,
    /// and mentioning their authors; public when the post is, else addressed to those authors and,
    /// on a followers-only post, its author's followers (who see the post, and so its comments).
    func commentNote(
        _ comment: Comment, on post: Post, seenBy viewer: UserID, _ urls: FederationURLs, withContext: Bool
    )
        throws(TimelineError) -> ActivityStreams.Note
    {
        let content = try MastodonContent(comment.text, base: urls.origin) { name throws(TimelineError) in
            try service.mentionedUser(name, viewer: nil)?.rawValue
        }
        let replied = try comment.replyTo.flatMap { id throws(TimelineError) in
            try mastodonFind { () throws(TimelineError) in try service.comment(id, viewer: viewer) }
        }
        let object: String
        if let replied {
            object = try service.remoteObject(ofComment: replied.id) ?? urls.comment(replied.id, by: replied.author)
        } else {
            object = try noteID(of: post.id, seenBy: viewer, urls)
        }
        let mentioned = [post.author] + (replied.map { $0.author == post.author ? [] : [$0.author] } ?? [])
        let mentions = try mentioned.map { user throws(TimelineError) in try mention(user, urls) }
        let actors = mentions.map(\.href), isPublic = post.visibility == .public
        // A followers-only post's comments are for its author's followers: the collection is the
        // author's actor id and `/followers`, here and on the servers that federate with us.
        let followers = post.visibility == .followers ? [actors[0] + "/followers"] : []
        let id = urls.comment(comment.id, by: comment.author)
        return ActivityStreams.Note(
            context: withContext ? ActivityStreams.context : nil, id: id, attributedTo: urls.actor(comment.author),
            content: content.html, summary: nil, sensitive: false, published: JSONOutput.timestamp(comment.createdAt),
            updated: nil, url: id, to: isPublic ? [ActivityStreams.publicAudience] : actors,
            cc: isPublic ? actors : followers, inReplyTo: object, attachment: [], tag: mentions)
    }

    /// The `Create` of a local user's comment (its `commentNote`).
    func reply(_ note: ActivityStreams.Note) -> ActivityStreams.Activity {
        ActivityStreams.Activity(
            context: ActivityStreams.context, id: note.id + "/activity", type: "Create", actor: note.attributedTo,
            published: note.published, to: note.to, cc: note.cc, object: note)
    }

    /// The `Create` of `post`, as an outbox lists it.
    func create(_ post: Post, _ urls: FederationURLs, withContext: Bool) throws(TimelineError)
        -> ActivityStreams.Activity
    {
        let note = try note(post, urls, withContext: false)
        return ActivityStreams.Activity(
            context: withContext ? ActivityStreams.context : nil, id: urls.create(post.id, by: post.author),
            type: "Create", actor: note.attributedTo, published: note.published, to: note.to, cc: note.cc,
            object: note)
    }

    /// Who a post is addressed to, by its visibility: everyone (and the followers in copy),
    /// the followers, or only those mentioned.
    private func audience(_ post: Post, _ urls: FederationURLs, mentioned: [String]) -> (to: [String], cc: [String]) {
        switch post.visibility {
        case .public: ([ActivityStreams.publicAudience], [urls.followers(post.author)] + mentioned)
        case .followers: ([urls.followers(post.author)], mentioned)
        case .direct: (mentioned, [])
        }
    }

    /// A photo (its 1080 px JPEG) or a transcoded video (its MP4); a video not ready is left out.
    private func attachment(_ media: MediaAttachment, _ urls: FederationURLs) -> ActivityStreams.Attachment? {
        switch media.video {
        case nil:
            return ActivityStreams.Attachment(
                mediaType: "image/jpeg", url: urls.image(media.variants?.full ?? media.image), name: media.alt,
                blurhash: media.blurhash, width: media.width, height: media.height, focalPoint: [0, 0])
        case .ready?:
            return ActivityStreams.Attachment(
                mediaType: "video/mp4", url: urls.video(media.id), name: media.alt, blurhash: media.blurhash,
                width: media.width, height: media.height)
        case .processing?, .failed?:
            return nil
        }
    }

    /// The outbox: its size and first page, or (with `page=true`) a page of `Create`s of the
    /// user's public posts, newest first, `max_id` the cursor.
    func outbox(_ profile: Profile, _ request: APIRequest, _ urls: FederationURLs) throws(TimelineError)
        -> HTTPResponse
    {
        let outbox = urls.outbox(profile.id)
        let query = Dictionary(request.http.query.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        guard query["page"] == "true" else {
            return ActivityPubAPI.document(
                ActivityStreams.OrderedCollection<String>(
                    id: outbox, totalItems: profile.postCount, first: outbox + "?page=true"))
        }
        let maxID = try query["max_id"].map { raw throws(TimelineError) in
            guard PostID.parse(raw) != nil else { throw TimelineError.invalid("max_id", "not a post id") }
            return raw
        }
        let page = try service.posts(by: profile.id, PageRequest(limit: 20, before: maxID), viewer: nil)
        let items = try page.items.filter { $0.visibility == .public }.map { post throws(TimelineError) in
            try create(post, urls, withContext: false)
        }
        let here = outbox + "?page=true" + (maxID.map { "&max_id=\($0)" } ?? "")
        return ActivityPubAPI.document(
            ActivityStreams.OrderedCollectionPage(
                id: here, partOf: outbox, next: page.next.map { outbox + "?page=true&max_id=\($0)" },
                orderedItems: items))
    }
}
