/// The names of the log's streams, each spelled once: every envelope stores its stream's name
/// (and the stream index is keyed by it), so these spellings are part of the log's format.
package enum StreamName {
    /// A user's stream: their account, sessions and password, and the follows, blocks and
    /// bookmarks they make.
    public static func user(_ id: UserID) -> String { "user-\(id)" }

    /// A post's stream: the post, its comments, likes, reports and moderation.
    public static func post(_ id: PostID) -> String { "post-\(id)" }

    /// An OAuth app's stream (its registration).
    public static func app(_ id: String) -> String { "app-\(id)" }

    /// The failed sign-ins for one email: named by the first 32 characters of its keyed hash,
    /// so the email never appears in a stream name.
    public static func signIn(emailHash: String) -> String { "signin-\(emailHash.prefix(32))" }
}
