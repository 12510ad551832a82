import TimelineDomain

/// A conversation of direct messages as one participant sees it (Mastodon's `Conversation`).
public struct Conversation: Sendable, Equatable {
    /// Its id: its first message's.
    public var id: ConversationID
    /// The other participants (the viewer left out).
    public var accounts: [UserID]
    /// Its last message the viewer may see.
    public var lastPost: Post
    /// Whether a message came in since the viewer last read it.
    public var unread: Bool
}

extension TimelineService {
    /// `user`'s conversations of direct messages, the newest last message first (the cursors
    /// are last messages' ids). Private: only the user's own.
    public func conversations(of user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError)
        -> Page<Conversation>
    {
        let page = try page.validated()
        return try read { try $0.conversations(of: user, page) }
    }

    /// `user`'s direct posts, their own and those addressed to them, newest first (Mastodon's
    /// direct timeline). Private: only the user's own.
    public func directPosts(of user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Post> {
        let page = try page.validated()
        return try read { try $0.directPosts(of: user, page) }
    }

    /// The conversation `id` of `user`'s list, as they see it (`not_found` when it is not there).
    public func conversation(_ id: ConversationID, of user: UserID) throws(TimelineError) -> Conversation {
        try read { view in
            guard let entry = try view.models.conversations.entries.get((user, id), view.txn),
                let post = try Presenter(try view.privacy(for: user)).listedPost(entry.last, on: .conversations)
            else { throw TimelineError.notFound("conversation", id.rawValue) }
            let others = try view.models.conversations.participants.members(of: id, view.txn).filter { $0 != user }
            return Conversation(id: id, accounts: others, lastPost: post, unread: entry.unread)
        }
    }
}
