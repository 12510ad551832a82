import Foundation
import TimelineDomain

/// The JSON forms of results, with the field names of SPEC.md.
enum JSONOutput {
    static func optional(_ value: String?) -> Any { value ?? NSNull() }

    static func profile(_ p: Profile) -> [String: Any] {
        ["id": p.id.rawValue, "username": p.username, "bio": optional(p.bio), "url": optional(p.url),
         "postCount": p.postCount, "followerCount": p.followerCount, "followingCount": p.followingCount]
    }

    static func post(_ p: Post) -> [String: Any] {
        ["id": p.id.rawValue, "author": p.author.rawValue, "caption": optional(p.caption), "image": p.image.rawValue,
         "hashtags": p.hashtags, "likeCount": p.likeCount, "commentCount": p.commentCount]
    }

    static func comment(_ c: Comment) -> [String: Any] {
        ["id": c.id.rawValue, "post": c.post.rawValue, "author": c.author.rawValue, "text": c.text]
    }

    static func activity(_ a: ActivityItem) -> [String: Any] {
        var out: [String: Any] = ["kind": a.kind.rawValue, "actor": a.actor.rawValue, "at": a.at]
        if let post = a.post { out["post"] = post.rawValue }
        if let comment = a.comment { out["comment"] = comment.rawValue }
        return out
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

    static func result(_ r: CommandResult) -> Any {
        switch r {
        case .user(let p): profile(p)
        case let .session(token, user): ["session": token, "user": profile(user)] as [String: Any]
        case .post(let p): post(p)
        case .comment(let c): comment(c)
        case .changed(let changed): ["changed": changed]
        case .token(let token): ["token": token]
        case .done: [String: Any]()
        }
    }

    static func error(_ e: TimelineError) -> [String: Any] {
        var out: [String: Any] = ["code": e.code.rawValue, "message": e.message]
        if let field = e.field { out["field"] = field }
        return out
    }

    /// One compact line of JSON.
    static func line(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return #"{"ok":false,"error":{"code":"internal","message":"result could not be encoded"}}"#
        }
        return String(decoding: data, as: UTF8.self)
    }
}
