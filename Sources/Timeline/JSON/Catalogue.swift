import Foundation
import TimelineDomain

/// The one list of commands and queries by their public names, and the fields each takes:
/// `timeline exec` (fields from a JSON line) and the HTTP API (fields from the body, the path
/// and the query string) both decode requests here, and both answer with `JSONOutput`. A new
/// command or query is added here once (and to `Command`/`Query`, whose exhaustive switches
/// point at the rest).
package enum Catalogue {
    /// Decodes the command `name` from `input` (reading, and so accepting, only its fields).
    package static func command(named name: String, _ input: JSONInput) throws(TimelineError) -> Command {
        guard let kind = CommandName(rawValue: name) else {
            throw TimelineError.invalid("command", "unknown command \(name.prefix(64))")
        }
        return try command(kind, input)
    }

    /// Decodes a command of kind `kind` from `input`. Its inverse is `Command.jsonObject()`
    /// below: the two are kept side by side, and a test round-trips every command through them.
    package static func command(_ kind: CommandName, _ input: JSONInput) throws(TimelineError) -> Command {
        switch kind {
        case .createUser:
            return .createUser(username: try input.string("username"), email: try input.string("email"),
                               password: try input.string("password"), bio: try input.optionalString("bio"),
                               url: try input.optionalString("url"))
        case .signIn: return .signIn(email: try input.string("email"), password: try input.string("password"))
        case .signOut: return .signOut(session: try input.string("session"))
        case .updateProfile:
            // `avatar`: a base64 image sets the photo, null removes it, absent keeps it.
            let avatar: AvatarUpdate? = input.has("avatar") ? try input.optionalString("avatar").map(AvatarUpdate.set) ?? .remove : nil
            return .updateProfile(username: try input.optionalString("username"), bio: try input.optionalString("bio"),
                                  url: try input.optionalString("url"), avatar: avatar, discoverable: try input.optionalBool("discoverable"))
        case .follow: return .follow(user: try input.string("user"))
        case .unfollow: return .unfollow(user: try input.string("user"))
        case .addPost:
            return .addPost(image: try input.string("image"), caption: try input.optionalString("caption"),
                            location: try input.optionalPlace("location"))
        case .deletePost: return .deletePost(post: try input.string("post"))
        case .addComment: return .addComment(post: try input.string("post"), text: try input.string("text"))
        case .deleteComment: return .deleteComment(comment: try input.string("comment"))
        case .like: return .like(post: try input.string("post"))
        case .unlike: return .unlike(post: try input.string("post"))
        case .bookmark: return .bookmark(post: try input.string("post"))
        case .unbookmark: return .unbookmark(post: try input.string("post"))
        case .block: return .block(user: try input.string("user"))
        case .unblock: return .unblock(user: try input.string("user"))
        case .reportPost: return .reportPost(post: try input.string("post"), reason: try input.string("reason"))
        case .removePost: return .removePost(post: try input.string("post"), reason: try input.string("reason"))
        case .dismissReports: return .dismissReports(post: try input.string("post"))
        case .eraseUser: return .eraseUser(user: try input.string("user"))
        case .requestPasswordReset: return .requestPasswordReset(user: try input.string("user"))
        case .resetPassword:
            return .resetPassword(token: try input.string("token"), password: try input.string("password"), email: try input.optionalString("email"))
        case .changePassword:
            return .changePassword(currentPassword: try input.string("currentPassword"), newPassword: try input.string("newPassword"))
        case .changeEmail: return .changeEmail(password: try input.string("password"), email: try input.string("email"))
        }
    }

    /// Decodes the query `name` from `input` (reading, and so accepting, only its fields).
    package static func query(named name: String, _ input: JSONInput) throws(TimelineError) -> Query {
        guard let kind = QueryName(rawValue: name) else {
            throw TimelineError.invalid("query", "unknown query \(name.prefix(64))")
        }
        return try query(kind, input)
    }

    /// Decodes a query of kind `kind` from `input`.
    package static func query(_ kind: QueryName, _ input: JSONInput) throws(TimelineError) -> Query {
        switch kind {
        case .user: return .user(try input.identifier("user"))
        case .userByName: return .userByName(try input.string("username"))
        case .users: return .users(try input.page())
        case .searchUsers: return .searchUsers(prefix: try input.optionalString("prefix") ?? "", try input.page())
        case .followers: return .followers(try input.identifier("user"), try input.page())
        case .following: return .following(try input.identifier("user"), try input.page())
        case .follows: return .follows(try input.identifier("user"), target: try input.identifier("target"))
        case .posts: return .posts(try input.identifier("user"), try input.page())
        case .post: return .post(try input.identifier("post"), comments: try input.page())
        case .comments: return .comments(try input.identifier("post"), try input.page())
        case .likes: return .likes(try input.identifier("post"), try input.page())
        case .timeline: return .timeline(try input.identifier("user"), try input.page())
        case .hashtag: return .hashtag(try input.string("tag"), try input.page())
        case .activity: return .activity(try input.identifier("user"), try input.page())
        case .image:
            let image: ImageID = try input.identifier("image")
            guard let raw = try input.optionalString("variant") else { return .image(image) }
            guard let variant = ImageVariant(rawValue: raw) else {
                throw TimelineError.invalid("variant", "variant must be full, feed or thumb")
            }
            return .image(image, variant: variant)
        case .bookmarks: return .bookmarks(try input.page())
        case .blocked: return .blocked(try input.page())
        case .nearby:
            guard let latitude = try input.optionalNumber("latitude") else { throw .invalid("latitude", "latitude is required") }
            guard let longitude = try input.optionalNumber("longitude") else { throw .invalid("longitude", "longitude is required") }
            return .nearby(latitude: latitude, longitude: longitude, radiusKm: try input.optionalNumber("radiusKm") ?? Query.defaultRadiusKm,
                           try input.page())
        case .suggestions: return .suggestions(try input.page())
        case .findContacts: return .findContacts(emails: try input.strings("emails"))
        }
    }
}

extension Command {
    /// The canonical JSON form of the command (a `timeline exec` line without `id`/`as`),
    /// valid against `schemas/commands/<name>.schema.json`.
    public func jsonObject() -> [String: Any] {
        var out: [String: Any] = ["command": name]
        func set(_ key: String, _ value: String?) { if let value { out[key] = value } }
        switch self {
        case let .createUser(username, email, password, bio, url):
            set("username", username); set("email", email); set("password", password); set("bio", bio); set("url", url)
        case let .signIn(email, password): set("email", email); set("password", password)
        case let .signOut(session): set("session", session)
        case let .updateProfile(username, bio, url, avatar, discoverable):
            set("username", username); set("bio", bio); set("url", url)
            switch avatar {
            case nil: break
            case .remove?: out["avatar"] = NSNull()
            case .set(let image)?: out["avatar"] = image
            }
            if let discoverable { out["discoverable"] = discoverable }
        case let .follow(user), let .unfollow(user), let .block(user), let .unblock(user): set("user", user)
        case let .addPost(image, caption, location):
            set("image", image); set("caption", caption)
            if let location { out["location"] = JSONOutput.place(location) }
        case let .deletePost(post), let .like(post), let .unlike(post), let .bookmark(post), let .unbookmark(post),
             let .dismissReports(post):
            set("post", post)
        case let .addComment(post, text): set("post", post); set("text", text)
        case let .deleteComment(comment): set("comment", comment)
        case let .reportPost(post, reason), let .removePost(post, reason): set("post", post); set("reason", reason)
        case let .eraseUser(user), let .requestPasswordReset(user): set("user", user)
        case let .resetPassword(token, password, email): set("token", token); set("password", password); set("email", email)
        case let .changePassword(current, new): set("currentPassword", current); set("newPassword", new)
        case let .changeEmail(password, email): set("password", password); set("email", email)
        }
        return out
    }
}
