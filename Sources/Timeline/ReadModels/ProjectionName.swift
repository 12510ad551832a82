/// The read models, by name, in the order they are applied (timeline last: it reads the follow
/// graph and posts as they stand after the same event). The library builds one projection for
/// each (`ReadModels`), and each projection's `fold` says what it does with every event.
public enum ProjectionName: String, CaseIterable, Sendable {
    /// Profiles and the unique username and email indexes.
    case profiles
    /// Sessions, reset tokens and recent failed sign-ins.
    case sessions
    /// The follow graph.
    case follows
    /// Posts, comments and likes.
    case posts
    /// Which post each image belongs to (the `image` query's variants).
    case postImages
    /// Posts by hashtag.
    case hashtags
    /// Posts' places and the cell index of `nearby`.
    case places
    /// Each user's activity feed.
    case activity
    /// The home timelines (hybrid fan-out).
    case timeline
    /// The instance's texts and rules, announcements, and the weekly activity.
    case instance
    /// The users' lists and their members.
    case lists
    /// The numeric id of every object the Mastodon API shows.
    case numericIDs
}
