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
}
