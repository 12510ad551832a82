import Foundation
import TimelineDomain

/// The JSON forms of results, with the field names of docs/spec.md.
package enum JSONOutput {
    static func optional(_ value: String?) -> Any { value ?? NSNull() }

    static func profile(_ p: Profile) -> [String: Any] {
        var out: [String: Any] = ["id": p.id.rawValue, "username": p.username, "bio": optional(p.bio), "url": optional(p.url),
                                  "postCount": p.postCount, "followerCount": p.followerCount, "followingCount": p.followingCount,
                                  "avatar": p.avatar.map { ["large": $0.large.rawValue, "small": $0.small.rawValue] } ?? NSNull()]
        if let followed = p.followedByViewer { out["followedByViewer"] = followed }
        if let blocked = p.blockedByViewer { out["blockedByViewer"] = blocked }
        if let muted = p.mutedByViewer { out["mutedByViewer"] = muted }
        if let until = p.mutedUntil { out["mutedUntil"] = until }
        if let unread = p.unreadActivity { out["unreadActivity"] = unread }
        if let discoverable = p.discoverable { out["discoverable"] = discoverable }
        out["locked"] = p.locked
        if let moderator = p.moderator { out["moderator"] = moderator }
        if let requested = p.requestedByViewer { out["requestedByViewer"] = requested }
        if let notifies = p.notifiesViewer { out["notifiesViewer"] = notifies }
        return out
    }

    /// The moderators' queue: `{posts: [{post, count, reporters, reasons, newestAt, hidden, preview}], accounts: [{user,
    /// username, count, reporters, reasons, posts, newestAt, suspended}]}`.
    static func moderation(_ queue: ModerationQueue) -> [String: Any] {
        let posts: [[String: Any]] = queue.posts.map { entry in
            let r = entry.report
            return ["post": r.post.rawValue, "count": r.count, "reporters": r.reporters.map(\.rawValue), "reasons": r.reasons,
                    "newestAt": r.newestAt, "hidden": r.hidden, "preview": entry.post.map(post) ?? NSNull()]
        }
        let accounts: [[String: Any]] = queue.accounts.map { a in
            ["user": a.user.rawValue, "username": a.username, "count": a.count, "reporters": a.reporters.map(\.rawValue),
             "reasons": a.reasons, "posts": a.posts.map(\.rawValue), "newestAt": a.newestAt, "suspended": a.suspended]
        }
        return ["posts": posts, "accounts": accounts]
    }

    static func suggestion(_ s: Suggestion) -> [String: Any] {
        ["user": profile(s.user), "followedByCount": s.followedByCount, "followedBy": s.followedBy]
    }

    /// A post's JSON form.
    package static func post(_ p: Post) -> [String: Any] {
        var out: [String: Any] = ["id": p.id.rawValue, "author": p.author.rawValue, "authorUsername": p.authorUsername,
                                  "caption": optional(p.caption), "image": p.image.rawValue, "hashtags": p.hashtags,
                                  "likeCount": p.likeCount, "commentCount": p.commentCount, "createdAt": timestamp(p.createdAt),
                                  "width": p.width ?? NSNull(), "height": p.height ?? NSNull(),
                                  "variants": p.variants?.jsonObject ?? NSNull()]
        if let liked = p.likedByViewer { out["likedByViewer"] = liked }
        if let saved = p.bookmarkedByViewer { out["bookmarkedByViewer"] = saved }
        if let location = p.location { out["location"] = location.jsonObject }
        if let edited = p.editedAt { out["editedAt"] = timestamp(edited) }
        out["sensitive"] = p.sensitive
        out["visibility"] = p.visibility.rawValue
        out["media"] = p.media.map(media)
        if let warning = p.warning { out["warning"] = warning }
        return out
    }

    /// A photo: `{id, image, width, height, variants, blurhash, alt}` (the last five null when unknown).
    static func media(_ m: MediaAttachment) -> [String: Any] {
        ["id": m.id, "image": m.image.rawValue, "width": m.width ?? NSNull(), "height": m.height ?? NSNull(),
         "variants": m.variants?.jsonObject ?? NSNull(), "blurhash": optional(m.blurhash), "alt": optional(m.alt)]
    }

    static func comment(_ c: Comment) -> [String: Any] {
        var out: [String: Any] = ["id": c.id.rawValue, "post": c.post.rawValue, "author": c.author.rawValue, "authorUsername": c.authorUsername,
                                  "text": c.text, "createdAt": timestamp(c.createdAt)]
        if let replyTo = c.replyTo { out["replyTo"] = replyTo.rawValue }
        return out
    }

    /// An activity item's JSON form.
    package static func activity(_ a: ActivityItem) -> [String: Any] {
        var out: [String: Any] = ["id": a.id, "kind": a.kind.rawValue, "at": a.at, "createdAt": timestamp(a.at)]
        if let actor = a.actor { out["actor"] = actor.rawValue }
        if let name = a.actorUsername { out["actorUsername"] = name }
        if let post = a.post { out["post"] = post.rawValue }
        if let comment = a.comment { out["comment"] = comment.rawValue }
        if let reason = a.reason { out["reason"] = reason }
        return out
    }

    /// Milliseconds since 1970 as RFC 3339 in UTC with milliseconds (`2026-12-01T03:04:05.123Z`).
    package static func timestamp(_ ms: Int64) -> String {
        var out: [UInt8] = []
        writeTimestamp(ms, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `timestamp(ms)`'s characters (every post on a page has one: no string is made).
    static func writeTimestamp(_ ms: Int64, into out: inout [UInt8]) {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func digits(_ value: Int, _ width: Int) { CompactJSONWriter.writeInteger(value, into: &out, minimumDigits: width) }
        digits(Int(parts.tm_year) + 1900, 4); out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2); out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2); out.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2); out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2); out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2); out.append(UInt8(ascii: "."))
        digits(Int(ms - seconds * 1000), 3); out.append(UInt8(ascii: "Z"))
    }

    static func page<Item>(_ page: Page<Item>, _ item: (Item) -> [String: Any]) -> [String: Any] {
        ["items": page.items.map(item), "next": optional(page.next)]
    }

    static func postDetail(_ d: PostDetail) -> [String: Any] {
        var out = post(d.post)
        out["comments"] = page(d.comments, comment)
        out["likedByViewer"] = d.likedByViewer
        return out
    }

    static func image(_ i: StoredImage) -> [String: Any] {
        ["image": i.id.rawValue, "mediaType": i.mediaType.rawValue, "data": Data(i.bytes).base64EncodedString()]
    }

    /// A query's answer.
    package static func answer(_ a: QueryResult) -> [String: Any] {
        switch a {
        case .user(let p): profile(p)
        case .users(let users): page(users, profile)
        case .suggestions(let suggestions): page(suggestions, suggestion)
        case .contacts(let users): ["users": users.map(profile)]
        case .post(let detail): postDetail(detail)
        case .posts(let posts): page(posts, post)
        case .comments(let comments): page(comments, comment)
        case .activity(let items): page(items, activity)
        case .follows(let follows): ["follows": follows]
        case .image(let i): image(i)
        case .history(let versions):
            ["versions": versions.map { ["caption": optional($0.caption), "hashtags": $0.hashtags, "createdAt": timestamp($0.at)] as [String: Any] }]
        case .moderation(let queue): moderation(queue)
        }
    }

    /// A command's result as JSON: the record it names, `{"changed": …}`, a new session or token.
    package static func result(_ r: CommandResult) -> Any {
        switch r {
        case .user(let p): profile(p)
        case let .session(token, user): ["session": token, "user": profile(user)] as [String: Any]
        case .post(let p): post(p)
        case .media(let m): media(m)
        case .app(let a):
            ["id": a.id, "name": a.name, "website": optional(a.website), "redirectUris": a.redirectURIs, "scopes": a.scopes,
             "clientSecret": optional(a.clientSecret)] as [String: Any]
        case .comment(let c): comment(c)
        case .changed(let changed): ["changed": changed]
        case .token(let token): ["token": token]
        case .done: [String: Any]()
        }
    }

    /// An error's JSON object, `{code, message, field?}`: the one shape of every error answer
    /// (exec's `error`, and the HTTP body's `error`).
    package static func error(_ e: TimelineError) -> [String: Any] {
        var out: [String: Any] = ["code": e.code.rawValue, "message": e.message]
        if let field = e.field { out["field"] = field }
        return out
    }

    /// One compact line of JSON.
    static func line(_ object: [String: Any]) -> String {
        String(decoding: bytes(object), as: UTF8.self)
    }
}
