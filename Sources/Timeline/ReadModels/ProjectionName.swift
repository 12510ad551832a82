/// The read models, by name, in the order they are applied (timeline after the follow graph
/// and posts: it reads them as they stand after the same event). The library builds one projection for
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
    /// Posts' places and the cell index of `nearby`.
    case places
    /// Pinned posts, muted conversations, private notes on accounts and endorsements.
    case profileExtras
    /// Each user's activity feed.
    case activity
    /// The home timelines (hybrid fan-out).
    case timeline
    /// Posts by hashtag, and who follows which (after `timeline`, which reads a deleted or
    /// edited post's hashtags, and a follow of a tag, before they change).
    case hashtags
    /// The boosts: each one, each user's and each post's (after `timeline`, which reads a
    /// deleted post's boosts before they go).
    case boosts
    /// The instance's texts and rules, announcements, and the weekly activity.
    case instance
    /// Each user's filters (muted words and posts).
    case filters
    /// Polls on posts, their votes and the `poll` notifications due when they end.
    case polls
    /// The users' lists and their members.
    case lists
    /// The users' collections of accounts to feature and their items.
    case collections
    /// The conversations of direct messages, per participant.
    case conversations
    /// Pending scheduled posts, by user and by when they are due.
    case scheduledPosts
    /// Stories, who viewed each, highlights, and those whose day ends next.
    case stories
    /// The numeric id of every object the Mastodon API shows.
    case numericIDs
    /// Federation: the local actors' signing keys.
    case federation
}
