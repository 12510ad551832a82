import TimelineDomain

/// The read side of the library API. Every query reads one consistent snapshot; unknown or
/// deleted users and posts answer `not_found`.
extension TimelineService {
    /// A user's profile.
    public func user(_ id: UserID) throws(TimelineError) -> Profile {
        try read { try $0.profile(id) }
    }

    /// The profile of the user with this username (case-insensitive).
    public func user(named username: String) throws(TimelineError) -> Profile {
        guard let name = try? Validation.username(username) else { throw TimelineError(.notFound, "no user named \(username)") }
        return try read { view in
            guard let id = try view.userID(username: name) else { throw TimelineError(.notFound, "no user named \(name)") }
            return try view.profile(id)
        }
    }

    /// All users, newest first.
    public func users(_ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Profile> {
        let page = try page.validated()
        return try read { try $0.users(page) }
    }

    /// Users whose username starts with `prefix` (case-insensitive), in username order. The
    /// cursor is a username.
    public func searchUsers(prefix: String, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Profile> {
        let page = try page.validated()
        return try read { try $0.searchUsers(prefix: prefix, page) }
    }

    /// Who follows `user`, by follower id descending.
    public func followers(of user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Profile> {
        let page = try page.validated()
        return try read { try $0.followers(of: user, page) }
    }

    /// Whom `user` follows, by id descending.
    public func following(of user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Profile> {
        let page = try page.validated()
        return try read { try $0.following(of: user, page) }
    }

    /// Whether `user` follows `target`.
    public func follows(_ user: UserID, _ target: UserID) throws(TimelineError) -> Bool {
        try read { view in
            try view.requireUser(user)
            try view.requireUser(target)
            return try view.follows(user, target)
        }
    }

    /// `user`'s posts, newest first.
    public func posts(by user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Post> {
        let page = try page.validated()
        return try read { try $0.posts(by: user, page) }
    }

    /// A post with its comments (oldest first; `page` pages the comments) and whether
    /// `viewer` liked it.
    public func post(_ id: PostID, viewer: UserID? = nil, comments page: PageRequest = PageRequest()) throws(TimelineError) -> PostDetail {
        let page = try page.validated()
        return try read { try $0.postDetail(id, viewer: viewer, page) }
    }

    /// The home timeline of `user`: their own and followed users' posts, newest first.
    public func timeline(of user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Post> {
        let page = try page.validated()
        return try read { try $0.timeline(of: user, page) }
    }

    /// Posts with this hashtag (with or without `#`, any case), newest first.
    public func hashtag(_ tag: String, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Post> {
        let page = try page.validated()
        return try read { try $0.hashtag(tag, page) }
    }

    /// What happened to `user`: comments and likes on their posts, new followers; newest first.
    public func activity(of user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<ActivityItem> {
        let page = try page.validated()
        return try read { try $0.activity(of: user, page) }
    }

    /// An image's bytes and media type.
    public func image(_ id: ImageID) throws(TimelineError) -> StoredImage {
        let keys = log.keys
        return try read { try $0.image(id, keys: keys) }
    }
}
