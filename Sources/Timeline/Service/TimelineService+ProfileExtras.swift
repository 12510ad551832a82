import TimelineDomain

/// The library's reads of the profile extras (#41): pinned posts, endorsed accounts, private
/// notes, muted conversations and familiar followers.
extension TimelineService {
    /// `user`'s pinned posts as `viewer` may see them on the profile, the latest pinned first
    /// (at most `Pin.maxPins`; none for a viewer either of them blocks).
    public func pinnedPosts(of user: UserID, viewer: UserID? = nil) throws(TimelineError) -> [Post] {
        try read { try $0.pinnedPosts(of: user, viewer: viewer) }
    }

    /// Whether `user` pinned their post `post`.
    public func pinned(_ user: UserID, _ post: PostID) throws(TimelineError) -> Bool {
        try read { try $0.pinned(user, post) }
    }

    /// Whether `user` muted the thread of `post`.
    public func mutesConversation(_ user: UserID, _ post: PostID) throws(TimelineError) -> Bool {
        try read { try $0.mutesConversation(user, post) }
    }

    /// `writer`'s private note on `target` ("" when none). Only the writer may read it: the
    /// HTTP layers ask it for the bearer alone.
    public func accountNote(by writer: UserID, on target: UserID) throws(TimelineError) -> String {
        try read { view in
            try view.requireUser(target)
            return try view.accountNote(writer, target) ?? ""
        }
    }

    /// Whether `user` endorses (features) `target`.
    public func endorses(_ user: UserID, _ target: UserID) throws(TimelineError) -> Bool {
        try read { try $0.endorses(user, target) }
    }

    /// The accounts `user` endorses as `viewer` may see them, the latest endorsed first.
    public func endorsements(of user: UserID, viewer: UserID? = nil) throws(TimelineError) -> [Profile] {
        try read { try $0.endorsements(of: user, viewer: viewer) }
    }

    /// The accounts `viewer` follows who follow `user` (Mastodon's familiar followers).
    public func familiarFollowers(of user: UserID, viewer: UserID) throws(TimelineError) -> [Profile] {
        try read { try $0.familiarFollowers(of: user, viewer: viewer) }
    }

    /// The hashtags `user` features, as `viewer` may see them (none across a block), in the
    /// order featured, each with how many of `user`'s posts `viewer` may see carry it.
    public func featuredTags(of user: UserID, viewer: UserID? = nil) throws(TimelineError) -> [FeaturedTagSummary] {
        try read { try $0.featuredTags(of: user, viewer: viewer) }
    }

    /// Hashtags `user` might feature: those of their own posts not featured yet, the most used first.
    public func featuredTagSuggestions(for user: UserID) throws(TimelineError) -> [String] {
        try read { try $0.featuredTagSuggestions(for: user) }
    }
}

/// A hashtag featured on a profile, with the posts of its owner that carry it.
public struct FeaturedTagSummary: Sendable, Equatable {
    /// The hashtag (lowercased, without `#`).
    public let tag: String
    /// How many of the owner's posts the reader may see carry it.
    public let postCount: Int
    /// When the newest of them was posted (ms since 1970; `nil`: none).
    public let lastPostAt: Int64?
}
