import Foundation
import JSONModel
import Timeline

/// Mastodon's entities (docs.joinmastodon.org, "Entities") made from Timeline's results: an
/// `Account` from a profile, a `Status` from a post (a photo post is a status with media), a
/// `MediaAttachment` from a photo, a `Poll` from a post's poll. What Timeline has no notion of (boosts, cards,
/// custom emojis, profile fields) is answered as Mastodon answers for an account or status
/// that has none.
struct MastodonEntities {
    /// `http://host` of the request: the URLs the entities carry.
    let base: String
    /// Finds a mentioned account by username (content links only accounts that exist).
    private let service: TimelineService
    /// Who reads the entities: content links only the mentioned accounts they may see.
    var viewer: UserID?
    /// The numeric ids the entities carry, and the objects clients' ids name.
    let ids: MastodonIDs

    /// The entities of `request`'s answer, read from `service`, for its viewer.
    init(_ request: APIRequest, _ service: TimelineService) {
        base = Self.base(of: request)
        self.service = service
        viewer = request.viewer
        ids = MastodonIDs(service)
    }

    /// The same entities as `viewer` reads them (a stream's owner, named by its token).
    func reading(as viewer: UserID) -> MastodonEntities {
        var copy = self
        copy.viewer = viewer
        return copy
    }

    /// This server's origin as the request's client reaches it (`APIRequest.origin`: configured,
    /// or a checked `Host`).
    static func base(of request: APIRequest) -> String { request.origin }

    /// Text as a status's content, with its mentions and hashtags: a mention of an account out
    /// of the viewer's sight (suspended, blocked either way) is plain text.
    func content(_ text: String) throws(TimelineError) -> MastodonContent {
        // `mentionedUser` answers nil for a name out of sight; what it throws is a real failure.
        try MastodonContent(text, base: base) { [viewer, ids] name throws(TimelineError) in
            guard let user = try service.mentionedUser(name, viewer: viewer) else { return nil }
            return try ids.id(.account(user))
        }
    }

    /// The header of an account without one: a plain band the web app serves, as Mastodon
    /// answers its `missing.png`.
    var missingHeader: String { "\(base)/app/header-missing.png" }

    /// A profile as an `Account`. `discoverable` is the user's own setting, which only they
    /// read (`Profile.discoverable`); anyone else gets `null`, Mastodon's "not set".
    func account(_ p: Profile) throws(TimelineError) -> Mastodon.Account {
        let avatar = p.avatar.map { "\(base)/v1/images/\($0.large.rawValue)" } ?? "\(base)/app/icon.svg"
        let header = p.header.map { "\(base)/v1/images/\($0.large.rawValue)" } ?? missingHeader
        // Another server's account (`name@host`): its actor's id is both its page and its uri,
        // its `username` the name alone and its `acct` the whole handle, as Mastodon answers.
        let urls = FederationURLs(origin: base)
        let remote = p.username.contains("@") ? try service.remoteAccount(p.id) : nil
        let username = remote == nil ? p.username : String(p.username.prefix { $0 != "@" })
        return Mastodon.Account(
            id: try ids.id(.account(p.id)), username: username, acct: p.username, display_name: username,
            locked: p.locked, bot: false, discoverable: Nullable(p.discoverable), group: false, indexable: false,
            created_at: JSONOutput.timestamp(p.createdAt), note: Self.html(p.bio ?? ""),
            url: remote?.actor ?? urls.profilePage(p.username), uri: remote?.actor ?? urls.actor(p.id),
            avatar: avatar, avatar_static: avatar, header: header, header_static: header,
            followers_count: p.followerCount, following_count: p.followingCount, statuses_count: p.postCount,
            last_status_at: Nullable(nil), emojis: [], fields: [])
    }

    /// The bearer's own account, with `source` (the plain bio, the posting defaults and how
    /// many follow requests await their answer) and `role` (`Self.role`).
    func credentialAccount(_ p: Profile) throws(TimelineError) -> Mastodon.CredentialAccount {
        let requests = try service.followRequestCount(to: p.id)
        let source = Mastodon.Source(
            note: p.bio ?? "", privacy: p.locked ? .private : .public, sensitive: false, language: Nullable(nil),
            fields: [], follow_requests_count: requests, indexable: false)
        return Mastodon.CredentialAccount(account: try account(p), source: source, role: Self.role(p))
    }

    /// The role `p` holds, as Mastodon's `Role`: a moderator's is Mastodon's `Moderator` (id 1)
    /// with the permissions Timeline's moderators have (Mastodon's bits: manage reports, 1 << 4,
    /// and manage users, 1 << 10); anyone else's is the everyone role (id -99), with none
    /// (Timeline has no invites, Mastodon's one permission of everyone).
    static func role(_ p: Profile) -> Mastodon.Role {
        p.moderator == true
            ? Mastodon.Role(
                id: "1", name: "Moderator", color: "", permissions: String(1 << 4 | 1 << 10), highlighted: false)
            : Mastodon.Role(id: "-99", name: "", color: "", permissions: "0", highlighted: false)
    }

    /// A hashtag's page in the web app: its name percent-encoded, so that a tag of any script
    /// makes a valid URI.
    func tagURL(_ name: String) -> String {
        "\(base)/#/tag/" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "")
    }

    /// A hashtag as a `Tag` (its `id` is its name: hashtags have no other id here), with its
    /// uses over the last seven days, today first, as Mastodon's `TagHistory` (days in seconds).
    func tag(_ name: String, history: [TagDay]) -> Mastodon.Tag {
        Mastodon.Tag(
            id: name, name: name, url: tagURL(name),
            history: history.map {
                Mastodon.TagHistory(day: String($0.day / 1000), uses: String($0.uses), accounts: String($0.accounts))
            }, following: false)
    }

    /// A post as a status; `author` is its author's profile.
    func status(_ post: Post, author: Profile) throws(TimelineError) -> Mastodon.Status {
        let content = try content(post.caption ?? "")
        // The viewer's own: whether they pinned it (their post only) and muted its conversation.
        var pinned = false, muted = false
        if let viewer {
            if viewer == post.author { pinned = try service.pinned(viewer, post.id) }
            muted = try service.mutesConversation(viewer, post.id)
        }
        // Another server's post is known by its Note there (its id, and the page a person opens).
        let note = post.authorUsername.contains("@") ? try service.remoteObject(of: post.id)?.object : nil
        // A direct answer names the post it answers and its author, when the viewer may see it.
        let answered = try post.inReplyTo.flatMap { id throws(TimelineError) in
            try? service.post(id, viewer: viewer, comments: PageRequest(limit: 1)).post
        }
        return Mastodon.Status(
            id: try ids.id(.post(post.id)), created_at: JSONOutput.timestamp(post.createdAt),
            in_reply_to_id: Nullable(try answered.map { post throws(TimelineError) in try ids.id(.post(post.id)) }),
            in_reply_to_account_id: Nullable(
                try answered.map { post throws(TimelineError) in try ids.id(.account(post.author)) }),
            sensitive: post.sensitive, spoiler_text: post.warning ?? "",
            visibility: Self.visibility(post.visibility), language: Nullable(nil),
            uri: note ?? FederationURLs(origin: base).note(post.id, by: post.author),
            url: note ?? FederationURLs(origin: base).postPage(post.id, by: post.authorUsername),
            replies_count: post.commentCount, reblogs_count: post.boostCount, favourites_count: post.likeCount,
            edited_at: Nullable(post.editedAt.map { JSONOutput.timestamp($0) }),
            favourited: post.likedByViewer ?? false, reblogged: post.boostedByViewer ?? false, muted: muted,
            bookmarked: post.bookmarkedByViewer ?? false, pinned: pinned,
            content: content.html, reblog: .none, application: JSONNull(), account: try account(author),
            media_attachments: try post.media.map(media), mentions: content.mentions, tags: content.tags, emojis: [],
            card: JSONNull(),
            // Read only for a post that has one (`Post.poll`): no lookup for the others.
            poll: Nullable(
                try post.poll.map { id throws(TimelineError) in try poll(try service.poll(id, viewer: viewer)) }),
            filtered: try filterResults(post.filtered))
    }

    /// A boost as a status of its own (`post.boost` set): its own id, account (the booster's,
    /// `booster`), time and visibility, no content of its own, and `reblog` the boosted post
    /// (`author`'s). Its counts and the viewer's marks are the post's, as clients show them.
    func status(boostOf post: Post, booster: Profile, author: Profile) throws(TimelineError) -> Mastodon.Status {
        guard let boost = post.boost else { return try status(post, author: author) }
        let reblogged = try status(post, author: author)
        return Mastodon.Status(
            id: try ids.id(.boost(boost.id)), created_at: JSONOutput.timestamp(boost.at), in_reply_to_id: Nullable(nil),
            in_reply_to_account_id: Nullable(nil), sensitive: false, spoiler_text: "",
            visibility: Mastodon.Visibility(rawValue: boost.visibility.rawValue) ?? .public, language: Nullable(nil),
            uri: "\(base)/v1/boosts/\(boost.id.rawValue)", url: reblogged.url,
            replies_count: reblogged.replies_count, reblogs_count: reblogged.reblogs_count,
            favourites_count: reblogged.favourites_count, edited_at: Nullable(nil), favourited: reblogged.favourited,
            reblogged: reblogged.reblogged, muted: false, bookmarked: reblogged.bookmarked, pinned: false, content: "",
            reblog: .of(reblogged), application: JSONNull(), account: try account(booster), media_attachments: [],
            mentions: [], tags: [], emojis: [], card: JSONNull(), poll: Nullable(nil))
    }

    /// A post's visibility as Mastodon's: followers-only is `private`, direct `direct`.
    static func visibility(_ visibility: PostVisibility) -> Mastodon.Visibility {
        switch visibility {
        case .public: .public
        case .followers: .private
        case .direct: .direct
        }
    }

    /// A comment as a status (Pixelfed's mapping): a reply to its post, or to the comment it
    /// answers, seen by whoever sees its post (`on`, read when not given).
    func status(_ comment: Comment, author: Profile, on post: Post? = nil) throws(TimelineError) -> Mastodon.Status {
        let content = try content(comment.text)
        let visibility: PostVisibility
        if let post {
            visibility = post.visibility
        } else {
            visibility = try service.post(comment.post, viewer: viewer, comments: PageRequest(limit: 1)).post.visibility
        }
        // Its ActivityPub id: its Note here, or another server's comment's there.
        let note = author.username.contains("@") ? try service.remoteObject(ofComment: comment.id) : nil
        return Mastodon.Status(
            id: try ids.id(.comment(comment.id)), created_at: JSONOutput.timestamp(comment.createdAt),
            in_reply_to_id: Nullable(try ids.id(comment.replyTo.map(NumberedObject.comment) ?? .post(comment.post))),
            in_reply_to_account_id: Nullable(nil), sensitive: false, spoiler_text: "",
            visibility: Self.visibility(visibility), language: Nullable(nil),
            uri: note ?? FederationURLs(origin: base).comment(comment.id, by: comment.author),
            url: "\(base)/#/post/\(comment.post.rawValue)",
            replies_count: 0, reblogs_count: 0, favourites_count: 0, edited_at: Nullable(nil), favourited: false,
            reblogged: false, muted: false, bookmarked: false, pinned: false, content: content.html,
            reblog: .none, application: JSONNull(), account: try account(author), media_attachments: [],
            mentions: content.mentions, tags: content.tags, emojis: [], card: JSONNull(), poll: Nullable(nil),
            filtered: try filterResults(comment.filtered))
    }

    /// The bearer's relationship with `p` (`followedBy`: whether `p` follows the bearer;
    /// `requestedBy`: whether `p` asks to; `blockedBy`: whether `p` blocks the bearer;
    /// `showingReblogs`: whether the bearer's home timeline shows `p`'s boosts).
    func relationship(
        _ p: Profile, followedBy: Bool, requestedBy: Bool, blockedBy: Bool, showingReblogs: Bool = true,
        domainBlocking: Bool = false
    ) throws(TimelineError) -> Mastodon.Relationship {
        Mastodon.Relationship(
            id: try ids.id(.account(p.id)), following: p.followedByViewer ?? false, showing_reblogs: showingReblogs,
            notifying: p.notifiesViewer ?? false, languages: Nullable(nil), followed_by: followedBy,
            blocking: p.blockedByViewer ?? false, blocked_by: blockedBy,
            muting: p.mutedByViewer ?? false, muting_notifications: p.mutedByViewer ?? false,
            requested: p.requestedByViewer ?? false, requested_by: requestedBy, domain_blocking: domainBlocking,
            endorsed: p.endorsedByViewer ?? false, note: p.noteByViewer ?? "")
    }

    /// A photo as an image attachment: `url` the full size, `preview_url` the 320 px square. A
    /// video as a video attachment: `url` its MP4, `preview_url` its poster frame's 640 px
    /// variant, `meta.original` its size, duration, frame rate and bit rate; while it is
    /// transcoded, `url` and `preview_url` are null and `meta` empty (as Mastodon answers).
    func media(_ m: MediaAttachment) throws(TimelineError) -> Mastodon.MediaAttachment {
        let full = m.variants?.full ?? m.image, small = m.variants?.thumb ?? m.image
        var meta = Mastodon.MediaMeta()
        if let width = m.width, let height = m.height {
            meta.original = Mastodon.MetaDetails(
                width: width, height: height, size: "\(width)x\(height)", aspect: Double(width) / Double(height))
            meta.small = Mastodon.MetaDetails(width: 320, height: 320, size: "320x320", aspect: 1.0)
        }
        let id = try ids.id(.media(MediaID(m.id)))
        let description = Nullable(m.alt), blurhash = Nullable(m.blurhash)
        switch m.video {
        case nil:
            return Mastodon.MediaAttachment(
                id: id, type: .image, url: Nullable("\(base)/v1/images/\(full.rawValue)"),
                preview_url: Nullable("\(base)/v1/images/\(small.rawValue)"), remote_url: Nullable(nil),
                text_url: Nullable(nil), meta: meta, description: description, blurhash: blurhash)
        case .ready(let video):
            meta.original?.frame_rate = Self.frameRate(video.millihertz)
            meta.original?.fps = video.fps
            meta.original?.duration = video.seconds
            meta.original?.bitrate =
                video.durationMilliseconds > 0 ? video.bytes * 8000 / video.durationMilliseconds : nil
            // The preview is the poster's feed variant: the video's shape, its long side at most 640 px.
            if let width = m.width, let height = m.height, width > 0, height > 0 {
                let scale = min(1, 640 / Double(max(width, height)))
                let (w, h) = (Int((Double(width) * scale).rounded()), Int((Double(height) * scale).rounded()))
                meta.small = Mastodon.MetaDetails(width: w, height: h, size: "\(w)x\(h)", aspect: Double(w) / Double(h))
            }
            return Mastodon.MediaAttachment(
                id: id, type: .video, url: Nullable("\(base)/v1/videos/\(m.id)"),
                preview_url: Nullable(m.variants.map { "\(base)/v1/images/\($0.feed.rawValue)" }),
                remote_url: Nullable(nil), text_url: Nullable(nil), meta: meta, description: description,
                blurhash: blurhash)
        case .processing, .failed:
            return Mastodon.MediaAttachment(
                id: id, type: .video, url: Nullable(nil), preview_url: Nullable(nil), remote_url: Nullable(nil),
                text_url: Nullable(nil), meta: meta, description: description, blurhash: blurhash)
        }
    }

    /// A frame rate in frames per thousand seconds as Mastodon writes one: `"30/1"`, `"30000/1001"`.
    static func frameRate(_ millihertz: Int) -> String {
        millihertz % 1000 == 0 ? "\(millihertz / 1000)/1" : "\(millihertz)/1000"
    }

    /// Text as Mastodon's HTML: escaped, in a paragraph, lines broken with `<br>`.
    static func html(_ text: String) -> String {
        guard !text.isEmpty else { return "" }
        return "<p>" + HTMLText.escape(text).replacingOccurrences(of: "\n", with: "<br>") + "</p>"
    }
}
