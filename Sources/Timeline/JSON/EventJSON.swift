import Foundation
import TimelineDomain

extension EventEnvelope {
    /// The placeholder that replaces password hashes in every JSON form of the log.
    public static let redacted = "[redacted]"

    /// The JSON form of the event (audit output, export), valid against
    /// `schemas/envelope.schema.json` and `schemas/events/<type>.v<version>.schema.json`.
    /// Password hashes are always redacted.
    public func jsonObject() -> [String: Any] {
        var out: [String: Any] = [
            "sequence": sequence, "id": id.rawValue, "type": type.rawValue, "schemaVersion": Int(schemaVersion),
            "stream": stream, "streamVersion": streamVersion, "timestamp": timestamp, "actor": actor,
            "payload": event.payloadJSON(erased: erased), "previousHash": hex(previousHash), "hash": hex(hash),
        ]
        if erased { out["erased"] = true }
        if let correlationId { out["correlationId"] = correlationId }
        if let causationId { out["causationId"] = causationId }
        return out
    }

    /// One compact JSON line.
    public func jsonLine() -> String { JSONOutput.line(jsonObject()) }
}

extension Event {
    /// The payload's JSON form; absent optionals are omitted, and so are personal fields whose
    /// owner was erased (`erased`).
    public func payloadJSON(erased: Bool = false) -> [String: Any] {
        var out: [String: Any] = [:]
        func set(_ key: String, _ value: String?) { if let value { out[key] = value } }
        switch self {
        case .userCreated(let e):
            set("userId", e.userId.rawValue); set("username", e.username); set("email", e.email)
            if !erased { out["passwordHash"] = e.passwordHash == nil ? NSNull() : EventEnvelope.redacted }
            set("bio", e.bio); set("url", e.url)
        case .profileUpdated(let e):
            set("userId", e.userId.rawValue); set("username", e.username); set("bio", e.bio); set("url", e.url)
            switch e.avatar {
            case nil: break
            case .removed?: out["avatar"] = NSNull()
            case .set(let avatar)?: out["avatar"] = ["large": avatar.large.rawValue, "small": avatar.small.rawValue]
            }
            if let discoverable = e.discoverable { out["discoverable"] = discoverable }
        case .signedIn(let e):
            set("userId", e.userId.rawValue); set("sessionHash", e.sessionHash); out["expiresAt"] = e.expiresAt
        case .signedOut(let e):
            set("userId", e.userId.rawValue); set("sessionHash", e.sessionHash)
        case .signInFailed(let e):
            set("emailHash", e.emailHash); set("userId", e.userId?.rawValue); set("origin", e.origin)
        case .postAdded(let e):
            set("postId", e.postId.rawValue); set("authorId", e.authorId.rawValue); set("imageId", e.imageId.rawValue)
            set("caption", e.caption); out["hashtags"] = e.hashtags
            if let width = e.width, let height = e.height, let variants = e.variants {
                out["width"] = width; out["height"] = height
                out["variants"] = ["full": variants.full.rawValue, "feed": variants.feed.rawValue, "thumb": variants.thumb.rawValue]
            }
        case .postPlaced(let e):
            set("postId", e.postId.rawValue); set("authorId", e.authorId.rawValue)
            if let place = e.place {
                out["latitude"] = place.latitude; out["longitude"] = place.longitude; set("name", place.name)
            }
        case .postImageProcessed(let e):
            set("postId", e.postId.rawValue); set("authorId", e.authorId.rawValue); set("sourceImageId", e.sourceImageId.rawValue)
            out["width"] = e.width; out["height"] = e.height
            out["variants"] = ["full": e.variants.full.rawValue, "feed": e.variants.feed.rawValue, "thumb": e.variants.thumb.rawValue]
        case .postDeleted(let e):
            set("postId", e.postId.rawValue); set("authorId", e.authorId.rawValue)
        case .commentAdded(let e):
            set("commentId", e.commentId.rawValue); set("postId", e.postId.rawValue); set("authorId", e.authorId.rawValue)
            if !erased { set("text", e.text) }
        case .commentDeleted(let e):
            set("commentId", e.commentId.rawValue); set("postId", e.postId.rawValue)
        case .likeAdded(let e), .likeRemoved(let e):
            set("postId", e.postId.rawValue); set("userId", e.userId.rawValue)
        case .bookmarked(let e), .unbookmarked(let e):
            set("postId", e.postId.rawValue); set("userId", e.userId.rawValue)
        case .blocked(let e), .unblocked(let e):
            set("blockerId", e.blockerId.rawValue); set("blockedId", e.blockedId.rawValue)
        case .followed(let e), .unfollowed(let e):
            set("followerId", e.followerId.rawValue); set("followeeId", e.followeeId.rawValue)
        case .postReported(let e):
            set("postId", e.postId.rawValue); set("reporterId", e.reporterId.rawValue)
            if !erased { set("reason", e.reason) }
        case .postRemoved(let e):
            set("postId", e.postId.rawValue); set("authorId", e.authorId.rawValue)
            if !erased { set("reason", e.reason) }
        case .reportsDismissed(let e):
            set("postId", e.postId.rawValue)
        case .userErased(let e):
            set("userId", e.userId.rawValue)
        case .passwordResetRequested(let e):
            set("userId", e.userId.rawValue); set("tokenHash", e.tokenHash); out["expiresAt"] = e.expiresAt
        case .passwordChanged(let e):
            set("userId", e.userId.rawValue); set("resetTokenHash", e.resetTokenHash); set("email", e.email)
            if !erased { out["passwordHash"] = e.passwordHash == nil ? NSNull() : EventEnvelope.redacted }
        case .emailChanged(let e):
            set("userId", e.userId.rawValue); set("email", e.email)
        }
        return out
    }
}
