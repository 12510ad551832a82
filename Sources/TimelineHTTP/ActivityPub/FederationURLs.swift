import Foundation
import Timeline

/// The ActivityPub ids of this server's objects and the pages a browser opens for them, made in
/// one place. Ids carry the user's and post's stable identifiers, never a username (which its
/// owner may change): `https://HOST/users/USER`, `…/statuses/POST`. The pages people share carry
/// the username: `https://HOST/@alice`, `https://HOST/@alice/POST`. Both answer ActivityPub
/// documents to a client that asks for them (`ActivityPubAPI.wantsActivity`).
struct FederationURLs: Sendable {
    /// `https://HOST` (or the origin the request reached, without `--domain`).
    let origin: String

    /// The authority of `origin` (`photos.example`, `localhost:8443`): the `@host` of handles.
    var domain: String { Validation.host(of: origin) ?? origin }

    func actor(_ user: UserID) -> String { "\(origin)/users/\(user.rawValue)" }
    /// The local user whose actor id `id` is, if it is one.
    func user(ofActor id: String) -> UserID? {
        let prefix = "\(origin)/users/"
        return id.hasPrefix(prefix) ? UserID.parse(String(id.dropFirst(prefix.count))) : nil
    }
    func key(_ user: UserID) -> String { actor(user) + "#main-key" }
    func inbox(_ user: UserID) -> String { actor(user) + "/inbox" }
    func outbox(_ user: UserID) -> String { actor(user) + "/outbox" }
    func followers(_ user: UserID) -> String { actor(user) + "/followers" }
    func following(_ user: UserID) -> String { actor(user) + "/following" }
    func featured(_ user: UserID) -> String { actor(user) + "/collections/featured" }
    var sharedInbox: String { "\(origin)/inbox" }
    /// The server's own actor (`InstanceActor`), and its key.
    var instanceActor: String { "\(origin)/actor" }
    var instanceActorKey: String { instanceActor + "#main-key" }
    func note(_ post: PostID, by author: UserID) -> String { actor(author) + "/statuses/\(post.rawValue)" }
    /// The local post whose `Note` id `id` is (or whose page it is), if it is one.
    func post(ofNote id: String) -> PostID? {
        guard id.hasPrefix(origin + "/"), let last = id.split(separator: "/").last else { return nil }
        let path = id.dropFirst(origin.count)
        guard path.hasPrefix("/users/") && path.contains("/statuses/") || path.hasPrefix("/@") else { return nil }
        return PostID.parse(String(last))
    }
    func create(_ post: PostID, by author: UserID) -> String { note(post, by: author) + "/activity" }
    /// A comment's `Note` (sent as a reply to another server's post).
    func comment(_ comment: CommentID, by author: UserID) -> String { actor(author) + "/comments/\(comment.rawValue)" }
    /// The local comment whose `Note` id `id` is, if it is one.
    func comment(ofNote id: String) -> CommentID? {
        guard id.hasPrefix(origin + "/users/"), id.contains("/comments/"), let last = id.split(separator: "/").last
        else { return nil }
        return CommentID.parse(String(last))
    }
    func profilePage(_ username: String) -> String { PublicPages.profile(username, at: origin) }
    func postPage(_ post: PostID, by username: String) -> String { PublicPages.post(post, by: username, at: origin) }
    func tag(_ name: String) -> String {
        "\(origin)/tags/" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name)
    }
    func image(_ id: ImageID) -> String { "\(origin)/v1/images/\(id.rawValue)" }
    func video(_ media: String) -> String { "\(origin)/v1/videos/\(media)" }
    /// The web app's screen of a profile and of a post (where a browser is sent).
    func appProfile(_ username: String) -> String { "\(origin)/#/u/\(username)" }
    func appPost(_ post: PostID) -> String { "\(origin)/#/post/\(post.rawValue)" }
}
