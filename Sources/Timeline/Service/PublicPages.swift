import TimelineDomain

/// The addresses of the pages people open and share: a profile's, `ORIGIN/@username`, and a
/// post's, `ORIGIN/@username/POST`. Defined once for every layer that writes one (the Mastodon
/// API's `url`s, ActivityPub's, a push's link); the server sends a browser that opens one to the
/// web app's screen of it, and answers an ActivityPub client with the document.
public enum PublicPages {
    /// `username`'s profile page under `origin`.
    public static func profile(_ username: String, at origin: String) -> String { "\(origin)/@\(username)" }

    /// The page of `post`, by `username`, under `origin`.
    public static func post(_ post: PostID, by username: String, at origin: String) -> String {
        "\(origin)/@\(username)/\(post.rawValue)"
    }
}
