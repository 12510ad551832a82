import Foundation
import Timeline

/// Mastodon's entities (docs.joinmastodon.org, "Entities") made from Timeline's results: an
/// `Account` from a profile, a `Status` from a post (a photo post is a status with media), a
/// `MediaAttachment` from a photo. What Timeline has no notion of (boosts, polls, cards,
/// custom emojis, profile fields) is answered as Mastodon answers for an account or status
/// that has none.
struct MastodonEntities {
    /// `http://host` of the request: the URLs the entities carry.
    let base: String
    /// Finds a mentioned account by username (content links only accounts that exist).
    private let service: TimelineService
    /// Who reads the entities: content links only the mentioned accounts they may see.
    var viewer: UserID?

    /// The entities of `request`'s answer, read from `service`, for its viewer.
    init(_ request: APIRequest, _ service: TimelineService) {
        base = Self.base(of: request)
        self.service = service
        viewer = request.viewer
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
        try MastodonContent(text, base: base) { [viewer] name throws(TimelineError) in
            try service.mentionedUser(name, viewer: viewer)
        }
    }

    /// A profile as an `Account`. `discoverable` is the user's own setting, which only they
    /// read (`Profile.discoverable`); anyone else gets `null`, Mastodon's "not set".
    func account(_ p: Profile) -> [String: Any] {
        let avatar = p.avatar.map { "\(base)/v1/images/\($0.large.rawValue)" } ?? "\(base)/app/icon.svg"
        return [
            "id": p.id.rawValue, "username": p.username, "acct": p.username, "display_name": p.username,
            "locked": p.locked, "bot": false, "discoverable": p.discoverable.map { $0 as Any } ?? NSNull(),
            "group": false, "indexable": false,
            "created_at": JSONOutput.timestamp(p.createdAt), "note": Self.html(p.bio ?? ""), "url": "\(base)/#/u/\(p.username)", "uri": "\(base)/users/\(p.username)",
            "avatar": avatar, "avatar_static": avatar, "header": "", "header_static": "",
            "followers_count": p.followerCount, "following_count": p.followingCount, "statuses_count": p.postCount,
            "last_status_at": NSNull(), "emojis": [Any](), "fields": [Any](),
        ]
    }

    /// The bearer's own account, with `source` (the plain bio, the posting defaults and how
    /// many follow requests await their answer).
    func credentialAccount(_ p: Profile) throws(TimelineError) -> [String: Any] {
        var out = account(p)
        let requests = try service.followRequestCount(to: p.id)
        out["source"] = ["note": p.bio ?? "", "privacy": p.locked ? "private" : "public", "sensitive": false, "language": NSNull(),
                         "fields": [Any](), "follow_requests_count": requests] as [String: Any]
        return out
    }

    /// A post as a status; `author` is its author's profile.
    func status(_ post: Post, author: Profile) throws(TimelineError) -> [String: Any] {
        let content = try content(post.caption ?? "")
        return [
            "id": post.id.rawValue, "created_at": JSONOutput.timestamp(post.createdAt), "in_reply_to_id": NSNull(),
            "in_reply_to_account_id": NSNull(), "sensitive": post.sensitive, "spoiler_text": post.warning ?? "",
            "visibility": Self.visibility(post.visibility), "language": NSNull(),
            "uri": "\(base)/v1/posts/\(post.id.rawValue)", "url": "\(base)/#/post/\(post.id.rawValue)",
            "replies_count": post.commentCount, "reblogs_count": 0, "favourites_count": post.likeCount,
            "edited_at": post.editedAt.map { JSONOutput.timestamp($0) as Any } ?? NSNull(),
            "favourited": post.likedByViewer ?? false, "reblogged": false, "muted": false,
            "bookmarked": post.bookmarkedByViewer ?? false, "pinned": false,
            "content": content.html, "reblog": NSNull(), "application": NSNull(), "account": account(author),
            "media_attachments": post.media.map(media), "mentions": content.mentions, "tags": content.tags, "emojis": [Any](),
            "card": NSNull(), "poll": NSNull(),
        ]
    }

    /// A post's visibility as Mastodon's: followers-only is `private`.
    static func visibility(_ visibility: PostVisibility) -> String { visibility == .followers ? "private" : "public" }

    /// A comment as a status (Pixelfed's mapping): a reply to its post, or to the comment it
    /// answers, seen by whoever sees its post (`on`, read when not given).
    func status(_ comment: Comment, author: Profile, on post: Post? = nil) throws(TimelineError) -> [String: Any] {
        let content = try content(comment.text)
        let visibility: PostVisibility
        if let post {
            visibility = post.visibility
        } else {
            visibility = try service.post(comment.post, viewer: viewer, comments: PageRequest(limit: 1)).post.visibility
        }
        return [
            "id": comment.id.rawValue, "created_at": JSONOutput.timestamp(comment.createdAt),
            "in_reply_to_id": comment.replyTo?.rawValue ?? comment.post.rawValue, "in_reply_to_account_id": NSNull(),
            "sensitive": false, "spoiler_text": "", "visibility": Self.visibility(visibility), "language": NSNull(),
            "uri": "\(base)/v1/comments/\(comment.id.rawValue)", "url": "\(base)/#/post/\(comment.post.rawValue)",
            "replies_count": 0, "reblogs_count": 0, "favourites_count": 0, "edited_at": NSNull(), "favourited": false,
            "reblogged": false, "muted": false, "bookmarked": false, "pinned": false, "content": content.html,
            "reblog": NSNull(), "application": NSNull(), "account": account(author), "media_attachments": [Any](),
            "mentions": content.mentions, "tags": content.tags, "emojis": [Any](), "card": NSNull(), "poll": NSNull(),
        ]
    }

    /// The bearer's relationship with `p` (`followedBy`: whether `p` follows the bearer;
    /// `requestedBy`: whether `p` asks to; `blockedBy`: whether `p` blocks the bearer).
    func relationship(_ p: Profile, followedBy: Bool, requestedBy: Bool, blockedBy: Bool) -> [String: Any] {
        [
            "id": p.id.rawValue, "following": p.followedByViewer ?? false, "showing_reblogs": true, "notifying": p.notifiesViewer ?? false,
            "languages": NSNull(), "followed_by": followedBy, "blocking": p.blockedByViewer ?? false,
            "blocked_by": blockedBy,
            "muting": p.mutedByViewer ?? false, "muting_notifications": p.mutedByViewer ?? false,
            "requested": p.requestedByViewer ?? false, "requested_by": requestedBy, "domain_blocking": false, "endorsed": false, "note": "",
        ]
    }

    /// A photo as an image attachment: `url` the full size, `preview_url` the 320 px square.
    func media(_ m: MediaAttachment) -> [String: Any] {
        let full = m.variants?.full ?? m.image, small = m.variants?.thumb ?? m.image
        var meta: [String: Any] = [:]
        if let width = m.width, let height = m.height {
            meta["original"] = ["width": width, "height": height, "size": "\(width)x\(height)", "aspect": Double(width) / Double(height)]
            meta["small"] = ["width": 320, "height": 320, "size": "320x320", "aspect": 1.0]
        }
        return [
            "id": m.id, "type": "image", "url": "\(base)/v1/images/\(full.rawValue)", "preview_url": "\(base)/v1/images/\(small.rawValue)",
            "remote_url": NSNull(), "text_url": NSNull(), "meta": meta, "description": m.alt ?? NSNull(), "blurhash": m.blurhash ?? NSNull(),
        ]
    }

    /// Text as Mastodon's HTML: escaped, in a paragraph, lines broken with `<br>`.
    static func html(_ text: String) -> String {
        guard !text.isEmpty else { return "" }
        return "<p>" + HTMLText.escape(text).replacingOccurrences(of: "\n", with: "<br>") + "</p>"
    }
}
