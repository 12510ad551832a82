import TimelineDomain

/// The read side of the library API. Every query reads one consistent snapshot; unknown or
/// deleted users and posts answer `not_found`. A `viewer` adds what that user sees of the
/// results: whether they follow each user (`followedByViewer`) and liked each post
/// (`likedByViewer`).
extension TimelineService {
    /// A user's profile.
    ///
    /// - Parameters:
    ///   - id: the user.
    ///   - viewer: who reads it (their follow, block and mute of the user are told).
    ///   - countingUnread: `false` leaves the viewer's own `unreadActivity` nil: a reader that
    ///     never shows it (an author beside their post) skips counting up to 1,000 items.
    public func user(_ id: UserID, viewer: UserID? = nil, countingUnread: Bool = true) throws(TimelineError)
        -> Profile
    {
        try read { try $0.profile(id, viewer: viewer, countingUnread: countingUnread) }
    }

    /// The profile of the user with this username (case-insensitive).
    public func user(named username: String, viewer: UserID? = nil) throws(TimelineError) -> Profile {
        try user(try userID(named: username), viewer: viewer)
    }

    /// The id of the user with this username (case-insensitive).
    public func userID(named username: String) throws(TimelineError) -> UserID {
        // A remote account's username is its handle, name@host (lower case): looked up as it is.
        let remote = username.contains("@") && username.utf8.count <= Validation.maxActorURL
        guard let name = remote ? username.lowercased() : try? Validation.username(username) else {
            throw TimelineError(.notFound, "no user named \(username.prefix(200))")
        }
        return try read { view in
            guard let id = try view.userID(username: name) else {
                throw TimelineError(.notFound, "no user named \(name)")
            }
            return id
        }
    }

    /// The user an `@username` in a text names, as `viewer` reads it: `nil` when there is none,
    /// or when they are out of `viewer`'s sight (suspended, or one of them blocks the other), so
    /// that the mention stays plain text and does not give their id away.
    public func mentionedUser(_ username: String, viewer: UserID?) throws(TimelineError) -> UserID? {
        guard let name = try? Validation.username(username) else { return nil }
        return try read { view in
            guard let id = try view.userID(username: name), try !view.hidden(id, from: viewer) else { return nil }
            return id
        }
    }

    /// The user a live session token belongs to; `unauthenticated` for an unknown, expired,
    /// signed-out or revoked session.
    public func userID(session token: String) throws(TimelineError) -> UserID {
        try read { view in try liveSession(token, view).user }
    }

    /// The live session of `token` in `view`: known, unexpired, not revoked, its user there.
    private func liveSession(_ token: String, _ view: ReadView) throws -> SessionRecord {
        guard let session = try view.session(hash: Self.hashToken(token)),
            session.expiresAt > options.clock.nowMilliseconds(),
            try view.user(session.user) != nil
        else { throw TimelineError(.unauthenticated, "the session is not valid or has expired") }
        return session
    }

    /// Where in the log `user`'s credentials last changed — a password change or reset,
    /// signing out everywhere, a suspension — or nil if never: whatever was granted on their
    /// password before it no longer holds (the authorize page's ticket compares it).
    package func lastCredentialChange(of user: UserID) throws(TimelineError) -> UInt64? {
        try read { view in try view.models.sessions.credentialChanges.get(user, view.txn) }
    }

    /// What a live bearer token is and may do: a person's session (`user`; `app` and `scopes`
    /// nil for a first-party session, which may do everything) or an OAuth app's own token (no
    /// `user`); `unauthenticated` for any other token, as `userID(session:)`.
    public func grant(session token: String) throws(TimelineError) -> Grant {
        try read { view in
            func app(_ id: String?) throws -> OAuthApp? {
                try id.flatMap { try view.models.sessions.apps.get($0, view.txn) }.map {
                    OAuthApp($0, clientSecret: nil)
                }
            }
            // A person's session first (almost every bearer); an app's own token only otherwise.
            do {
                let session = try liveSession(token, view)
                return Grant(user: session.user, app: try app(session.app), scopes: session.scopes)
            } catch let error as TimelineError where error.code == .unauthenticated {
                guard let issued = try view.appToken(hash: Self.hashToken(token)),
                    issued.expiresAt > options.clock.nowMilliseconds()
                else { throw error }
                return Grant(user: nil, app: try app(issued.app), scopes: issued.scopes)
            }
        }
    }

    /// The push subscription of a live token, if it has one.
    public func pushSubscription(session token: String) throws(TimelineError) -> PushSubscription? {
        try read { view in
            _ = try liveSession(token, view)
            let hash = Self.hashToken(token)
            return try view.pushSubscription(sessionHash: hash).map { PushSubscription(sessionHash: hash, $0) }
        }
    }

    /// `user`'s push subscriptions whose tokens are live (what a notification is pushed to).
    public func pushSubscriptions(of user: UserID) throws(TimelineError) -> [PushSubscription] {
        try read { view in
            let now = options.clock.nowMilliseconds()
            return try view.models.sessions.pushByUser.members(of: user, view.txn).compactMap {
                hash -> PushSubscription? in
                guard let session = try view.session(hash: hash), session.expiresAt > now, session.user == user,
                    let record = try view.pushSubscription(sessionHash: hash)
                else { return nil }
                return PushSubscription(sessionHash: hash, record)
            }
        }
    }

    /// Looks up an OAuth app by its `client_id` (nil for no such app): what the authorize page shows.
    public func app(_ id: String) throws(TimelineError) -> OAuthApp? {
        guard IdentifierSyntax.isValid(id) else { return nil }
        return try read { view in try view.app(id).map { OAuthApp($0, clientSecret: nil) } }
    }

    /// The profile of the user a live session token belongs to (`GET /v1/me`);
    /// `unauthenticated` for an unknown, expired, signed-out or revoked session.
    public func me(session token: String) throws(TimelineError) -> Profile {
        try user(try userID(session: token))
    }

    /// All users, newest first.
    public func users(_ page: PageRequest = PageRequest(), viewer: UserID? = nil) throws(TimelineError) -> Page<Profile>
    {
        let page = try page.validated()
        return try read { try $0.users(page, viewer: viewer) }
    }

    /// Users whose username starts with `prefix` (case-insensitive; "" is everyone), in
    /// username order. The cursor is a username.
    public func searchUsers(prefix: String, _ page: PageRequest = PageRequest(), viewer: UserID? = nil)
        throws(TimelineError) -> Page<Profile>
    {
        let page = try page.validated()
        return try read { try $0.searchUsers(prefix: prefix, page, viewer: viewer) }
    }

    /// Who follows `user`, the newest follow first (a re-follow moves to the top).
    public func followers(of user: UserID, _ page: PageRequest = PageRequest(), viewer: UserID? = nil)
        throws(TimelineError) -> Page<Profile>
    {
        let page = try page.validated()
        return try read { try $0.followers(of: user, page, viewer: viewer) }
    }

    /// Whom `user` follows, the newest follow first (a re-follow moves to the top).
    public func following(of user: UserID, _ page: PageRequest = PageRequest(), viewer: UserID? = nil)
        throws(TimelineError) -> Page<Profile>
    {
        let page = try page.validated()
        return try read { try $0.following(of: user, page, viewer: viewer) }
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
    public func posts(by user: UserID, _ page: PageRequest = PageRequest(), viewer: UserID? = nil) throws(TimelineError)
        -> Page<Post>
    {
        let page = try page.validated()
        return try read { view in
            try view.filtered(try view.posts(by: user, page, viewer: viewer), .account, viewer: viewer)
        }
    }

    /// A post with its comments (oldest first; `page` pages the comments) and whether
    /// `viewer` liked it.
    public func post(_ id: PostID, viewer: UserID? = nil, comments page: PageRequest = PageRequest())
        throws(TimelineError) -> PostDetail
    {
        let page = try page.validated()
        return try read { view in
            var detail = try view.postDetail(id, viewer: viewer, page)
            detail.comments = try view.filtered(detail.comments, viewer: viewer)
            return detail
        }
    }

    /// A post's comments, oldest first (`not_found` for a post hidden from `viewer`).
    public func comments(of post: PostID, _ page: PageRequest = PageRequest(), viewer: UserID? = nil)
        throws(TimelineError) -> Page<Comment>
    {
        let page = try page.validated()
        return try read { view in
            try view.filtered(
                try view.comments(of: post, page, viewer: viewer, Presenter(try view.privacy(for: nil))), viewer: viewer
            )
        }
    }

    /// Who liked `post`, the latest like first.
    public func likes(of post: PostID, _ page: PageRequest = PageRequest(), viewer: UserID? = nil) throws(TimelineError)
        -> Page<Profile>
    {
        let page = try page.validated()
        return try read { try $0.likers(of: post, page, viewer: viewer) }
    }

    /// Who boosted `post`, the latest boost first (those `viewer` may see, of a post they may see).
    public func boosters(of post: PostID, _ page: PageRequest = PageRequest(), viewer: UserID? = nil)
        throws(TimelineError) -> Page<Profile>
    {
        let page = try page.validated()
        return try read { try $0.boosters(of: post, page, viewer: viewer) }
    }

    /// `user`'s posts and boosts, newest first (a boost as its post with `Post.boost` set; its
    /// entry id is the page's cursor): Mastodon's account statuses.
    public func postsAndBoosts(by user: UserID, _ page: PageRequest = PageRequest(), viewer: UserID? = nil)
        throws(TimelineError) -> Page<Post>
    {
        let page = try page.validated()
        return try read { view in
            try view.filtered(try view.postsAndBoosts(by: user, page, viewer: viewer), .account, viewer: viewer)
        }
    }

    /// Whether `viewer`'s home timeline shows `user`'s boosts (`follow`'s `reblogs`).
    public func showsBoosts(of user: UserID, to viewer: UserID) throws(TimelineError) -> Bool {
        try read { try $0.models.boosts.shows(viewer, user, $0.txn) }
    }

    /// The boost `id` as a status of its own: its post, with `Post.boost` set (`not_found` when it
    /// is gone or out of `viewer`'s sight).
    public func boost(_ id: PostID, viewer: UserID? = nil) throws(TimelineError) -> Post {
        try read { try $0.boost(id, viewer: viewer) }
    }

    /// The home timeline of `user`: their own and followed users' posts, and the posts boosts by
    /// them brought in (each post once, at the first entry by which it came in), newest first
    /// (with `likedByViewer` for `user`).
    public func timeline(of user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Post> {
        let page = try page.validated()
        return try read { view in try view.filtered(try view.timeline(of: user, page), .home, viewer: user) }
    }

    /// Hashtags starting with `prefix` (with or without `#`, any case) that have a post the
    /// viewer may see, in tag order. The cursor is a tag.
    public func tags(prefix: String, _ page: PageRequest = PageRequest(), viewer: UserID? = nil) throws(TimelineError)
        -> Page<String>
    {
        let page = try page.validated()
        return try read { try $0.tags(prefix: prefix, page, viewer: viewer) }
    }

    /// Posts with this hashtag (with or without `#`, any case), newest first.
    public func hashtag(_ tag: String, _ page: PageRequest = PageRequest(), viewer: UserID? = nil) throws(TimelineError)
        -> Page<Post>
    {
        let page = try page.validated()
        return try read { view in
            try view.filtered(try view.hashtag(tag, page, viewer: viewer), .public, viewer: viewer)
        }
    }

    /// What happened to `user`: comments and likes on their posts, new followers, removals;
    /// newest first; only items of the `kinds` given, when given. With `actor`, only what that
    /// user did, with what a notification request holds of theirs (Mastodon's `account_id`).
    public func activity(
        of user: UserID, _ page: PageRequest = PageRequest(), kinds: Set<ActivityItem.Kind>? = nil,
        from actor: UserID? = nil
    ) throws(TimelineError) -> Page<ActivityItem> {
        let page = try page.validated()
        return try read { view in
            try view.filtered(try view.activity(of: user, page, kinds: kinds, from: actor), viewer: user)
        }
    }

    /// `user`'s bookmarks, the latest saved first. Private: `answer` gives only the viewer's own.
    public func bookmarks(of user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Post> {
        let page = try page.validated()
        return try read { try $0.bookmarks(of: user, page) }
    }

    /// The newest activity item `user` has read (their read marker), if any: Mastodon's
    /// notifications marker.
    public func activityMarker(of user: UserID) throws(TimelineError) -> String? {
        try read { view in try view.models.activity.markers.get(user, view.txn) }
    }

    /// Whether `blocker` blocks `blocked` (Mastodon's `blocked_by`, asked by the one blocked:
    /// a block does not hide the blocker's profile from them, so this tells them nothing their
    /// refused follow would not).
    public func blocks(_ blocker: UserID, _ blocked: UserID) throws(TimelineError) -> Bool {
        try read { view in try view.blocks(blocker, blocked) }
    }

    /// How many requests to follow `user` await their answer (Mastodon's
    /// `follow_requests_count`). Private: only `user` asks it.
    public func followRequestCount(to user: UserID) throws(TimelineError) -> Int {
        try read { view in try view.followRequests(to: user).count }
    }

    /// Whether `follower` awaits `followee`'s answer to a request to follow them.
    public func followRequested(_ follower: UserID, _ followee: UserID) throws(TimelineError) -> Bool {
        try read { view in try view.followRequested(follower, followee) }
    }

    /// The posts `user` likes, the newest post first. Private: the Mastodon API's favourites.
    public func liked(by user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Post> {
        let page = try page.validated()
        return try read { try $0.liked(by: user, page) }
    }

    /// Every public post, newest first, as `viewer` may see them (the Mastodon API's public timeline).
    public func publicPosts(_ page: PageRequest = PageRequest(), viewer: UserID? = nil) throws(TimelineError) -> Page<
        Post
    > {
        let page = try page.validated()
        return try read { view in try view.filtered(try view.publicPosts(page, viewer: viewer), .public, viewer: viewer)
        }
    }

    /// The users `user` blocks, the latest block first. Private: `answer` gives only the viewer's own.
    public func blocked(by user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Profile> {
        let page = try page.validated()
        return try read { try $0.blocked(by: user, page) }
    }

    /// Every version of post `id`'s caption, as it was posted first and after each edit (newest
    /// last), read from the post's stream in the log; `not_found` where `viewer` may not see the post.
    public func history(of id: PostID, viewer: UserID? = nil) throws(TimelineError) -> [PostVersion] {
        let log = self.log
        return try read { view in
            try view.requireVisiblePost(id, viewer: viewer)
            return try log.stream(StreamName.post(id), types: [.postAdded, .postEdited], view.txn).compactMap {
                envelope in
                switch envelope.event {
                case .postAdded(let e): PostVersion(caption: e.caption, hashtags: e.hashtags, at: envelope.timestamp)
                case .postEdited(let e): PostVersion(caption: e.caption, hashtags: e.hashtags, at: envelope.timestamp)
                default: nil  // the stream's other events (comments, likes, …) are not versions
                }
            }
        }
    }

    /// Who asked to follow `user` (a locked account) and awaits an answer, the latest request
    /// first. Private: only `user` sees it.
    public func followRequests(to user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<
        Profile
    > {
        let page = try page.validated()
        return try read { try $0.followRequests(to: user, page) }
    }

    /// The users `user` mutes, the latest mute first, each with `mutedUntil` when the mute ends by
    /// itself (ended mutes are left out). Private: only the muter sees it.
    public func muted(by user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<Profile> {
        let page = try page.validated()
        return try read { try $0.muted(by: user, page) }
    }

    /// Posts placed within `radiusKm` (more than 0, at most 50) of `latitude`, `longitude`
    /// (great-circle distance), newest first; the cursor is a post id. Exact: every placed post
    /// within the radius, none beyond it. Posts of users the viewer blocks, or who block the
    /// viewer, are left out.
    public func nearby(
        latitude: Double, longitude: Double, radiusKm: Double = TimelineService.defaultRadiusKm,
        _ page: PageRequest = PageRequest(),
        viewer: UserID? = nil
    ) throws(TimelineError) -> Page<Post> {
        let page = try page.validated()
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw .invalid("latitude", "latitude must be a number from -90 to 90")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw .invalid("longitude", "longitude must be a number from -180 to 180")
        }
        guard radiusKm.isFinite, radiusKm > 0, radiusKm <= Self.maxRadiusKm else {
            throw .invalid("radiusKm", "radiusKm must be more than 0 and at most \(Int(Self.maxRadiusKm))")
        }
        let centre = Place(latitude: latitude, longitude: longitude)
        return try read { view in
            try view.filtered(
                try view.nearby(centre, radiusKm: radiusKm, page, viewer: viewer), .public, viewer: viewer)
        }
    }

    /// The most emails one `findContacts` may look up.
    public static let maxContactEmails = 500
    /// The largest radius `nearby` searches, in kilometres.
    public static let maxRadiusKm = 50.0
    /// The radius `nearby` searches when none is given, in kilometres.
    public static let defaultRadiusKm = 10.0

    /// People `user` might follow: those followed by the people `user` follows, ranked by how
    /// many of them follow each (most first; ties by user id), without `user`, those `user`
    /// already follows, and anyone blocked either way. Private: `answer` gives only the
    /// viewer's own. The cursor is `<count>:<user id>` of the last item shown.
    ///
    /// The work is bounded, whatever the graph: it samples `user`'s 200 most recent follows and,
    /// of each, their 500 most recent follows (so a count is "among those sampled").
    ///
    /// When that leaves nobody (a new account follows no one), the answer is one page of the most
    /// followed, then most active (posts), public accounts, each with `followedByCount` 0.
    public func suggestions(for user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<
        Suggestion
    > {
        let page = try page.validated()
        return try read { try $0.suggestions(for: user, page) }
    }

    /// The profile directory: the accounts that let themselves be found (`discoverable`), as
    /// `viewer` sees them, most recently posting first (`.active`; accounts without posts last)
    /// or newest first (`.new`), without suspended accounts and anyone blocked either way. The
    /// cursor is an offset: the order moves as people post, as Mastodon's directory does.
    public func directory(_ order: DirectoryOrder = .active, _ page: PageRequest = PageRequest(), viewer: UserID? = nil)
        throws(TimelineError) -> Page<Profile>
    {
        let page = try page.validated()
        return try read { try $0.directory(order, page, viewer: viewer) }
    }

    /// The hashtags trending now: used by at least two accounts in public posts over the last
    /// two days, the most accounts first (then uses, then name), each with its last seven days;
    /// moderators' hidden ones left out. Paged by offset (`page.before`: the previous `next`).
    public func trendingTags(_ page: PageRequest = PageRequest()) throws(TimelineError) -> Page<TrendingTag> {
        let page = try page.validated()
        let offset = try Self.trendOffset(page)
        return try read { view in
            let tags = try view.trendingTags(offset: offset, limit: page.limit + 1)
            return Page(
                items: Array(tags.prefix(page.limit)), next: tags.count > page.limit ? "\(offset + page.limit)" : nil)
        }
    }

    /// The public posts of the last week trending now, as `viewer` may see them: ranked by likes
    /// and comments over their age; moderators' hidden ones left out. Paged by offset.
    public func trendingPosts(_ page: PageRequest = PageRequest(), viewer: UserID? = nil) throws(TimelineError)
        -> Page<Post>
    {
        let page = try page.validated()
        let offset = try Self.trendOffset(page)
        return try read { view in
            let posts = try view.trendingPosts(offset: offset, limit: page.limit + 1, viewer: viewer)
            return try view.filtered(
                Page(
                    items: Array(posts.prefix(page.limit)),
                    next: posts.count > page.limit ? "\(offset + page.limit)" : nil), .public, viewer: viewer)
        }
    }

    /// A hashtag's uses in public posts over the last seven days, today first.
    public func tagHistory(_ raw: String) throws(TimelineError) -> [TagDay] {
        let tag = Validation.hashtag(raw.hasPrefix("#") ? String(raw.dropFirst()) : raw)
        return try read { try $0.tagHistory(tag) }
    }

    /// The offset a trends page starts at: its `before`, a whole number below a million.
    private static func trendOffset(_ page: PageRequest) throws(TimelineError) -> Int {
        guard page.after == nil else { throw TimelineError.invalid("after", "this list is not paged by after") }
        guard let cursor = page.before else { return 0 }
        guard cursor.utf8.count <= 6, cursor.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let offset = Int(cursor)
        else { throw TimelineError.invalid("before", "before is not a valid cursor") }
        return offset
    }

    /// The users among `emails` who let others find them by email (`discoverable`, on by
    /// default), as `viewer` sees them, in the order of the emails (each user once), without
    /// `viewer` and anyone blocked either way. Matched through the same email index as
    /// sign-in (an email is lowercased; one no account can have simply matches nobody); the
    /// emails are neither stored nor logged. A user who is not discoverable is absent, exactly
    /// as an unknown email is. More than `maxContactEmails` emails is `invalid_argument`.
    /// Private: `answer` gives only the viewer's own.
    public func findContacts(_ emails: [String], viewer: UserID) throws(TimelineError) -> [Profile] {
        guard emails.count <= Self.maxContactEmails else {
            throw TimelineError.invalid("emails", "at most \(Self.maxContactEmails) emails at a time")
        }
        return try read { try $0.findContacts(emails, viewer: viewer) }
    }

    /// An image's bytes and media type. With a `variant`, `id` may be any image of a post (its
    /// `image`, which is the `full` variant): the answer is that post's image in the chosen size
    /// (`StoredImage.id` says which). An image without variants (a post's from before the image
    /// pipeline not yet reprocessed, a profile photo) answers itself for every variant. A
    /// followers-only post's photo is `not_found` unless `viewer` may see the post.
    public func image(_ id: ImageID, variant: ImageVariant? = nil, viewer: UserID? = nil) throws(TimelineError)
        -> StoredImage
    {
        let keys = log.keys
        return try read { view in
            try view.image(try variant.map { try view.variant($0, of: id) } ?? id, keys: keys, viewer: viewer)
        }
    }

}

/// What a query answers.
public enum QueryResult: Sendable, Equatable {
    /// One profile.
    case user(Profile)
    /// A page of profiles.
    case users(Page<Profile>)
    /// A page of suggested users.
    case suggestions(Page<Suggestion>)
    /// A page of trending hashtags.
    case trendingTags(Page<TrendingTag>)
    /// The users found by email (`findContacts`): not paged, at most one per email given.
    case contacts([Profile])
    /// Servers by host (`blockedServers`): not paged, in order.
    case servers([String])
    /// A post with its first comments.
    case post(PostDetail)
    /// A page of posts.
    case posts(Page<Post>)
    /// A page of hashtags (names without `#`).
    case tags(Page<String>)
    /// A page of comments.
    case comments(Page<Comment>)
    /// A page of activity.
    case activity(Page<ActivityItem>)
    /// Whether one user follows another.
    case follows(Bool)
    /// An image.
    case image(StoredImage)
    /// A post's versions, the first first.
    case history([PostVersion])
    /// The moderators' queue.
    case moderation(ModerationQueue)
    /// An object's Mastodon id (`mastodonId`).
    case mastodonID(NumericID)
    /// A user's notification policy.
    case notificationPolicy(NotificationPolicyView)
    /// A page of notification requests.
    case notificationRequests(Page<NotificationRequest>)
    /// One notification request.
    case notificationRequest(NotificationRequest)
    /// A user's filters.
    case filters([FilterSaved])
    /// A poll, as the viewer reads it.
    case poll(Poll)
    /// One of the viewer's lists.
    case list(ListRecord)
    /// Some of the viewer's lists, oldest first.
    case lists([ListRecord])
    /// One collection, as the viewer sees it.
    case collection(CollectionView)
    /// Some collections, as the viewer sees them.
    case collections([CollectionView])
    /// A page of the viewer's conversations of direct messages.
    case conversations(Page<Conversation>)
    /// One of the viewer's pending scheduled posts.
    case scheduledPost(ScheduledPost)
    /// A page of the viewer's pending scheduled posts, the latest scheduled first.
    case scheduledPosts(Page<ScheduledPost>)
    /// The viewer's stories row.
    case stories([StoryAuthor])
    /// One story.
    case story(Story)
    /// One of the acting user's photos or videos.
    case media(MediaAttachment)
    /// A profile's highlights, newest first.
    case highlights([Story])
    /// The viewer's report of a year, with its state.
    case annualReport(AnnualReportAnswer)
}
