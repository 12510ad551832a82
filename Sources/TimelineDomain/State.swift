/// A user as the write side and the profile read model know it.
package struct UserRecord: Equatable, Sendable {
    /// The user's id.
    public var id: UserID
    /// The user's (normalised) username.
    public var username: String
    /// The keyed hash of the user's email (`DecisionContext.hashEmail`, as failed sign-ins
    /// record it): the read models never hold an email in clear. `nil` for an account without one.
    public var emailHash: String?
    /// The user's argon2id password hash (`nil`: the account has none).
    public var passwordHash: String?
    /// The profile's bio, if any.
    public var bio: String?
    /// The profile's link, if any.
    public var url: String?
    /// How many posts the user has.
    public var postCount: Int
    /// How many users follow the user.
    public var followerCount: Int
    /// How many users the user follows.
    public var followingCount: Int
    /// When the account was created (ms since 1970).
    public var createdAt: Int64
    /// The profile photo, if any.
    public var avatar: Avatar?
    /// The profile's header image (a 1500×500 band and a 600×200 one), if any.
    public var header: Avatar?
    /// Whether others may find the user by email (`findContacts`); on by default.
    public var discoverable: Bool
    /// Whether following the user needs their approval (a private account); off by default.
    public var locked: Bool
    /// Whether the user holds the `moderator` role.
    public var moderator = false
    /// Whether a moderator suspended the account (until unsuspended).
    public var suspended = false
    /// A user record; the counters start at zero.
    public init(
        id: UserID, username: String, emailHash: String?, passwordHash: String?, bio: String?, url: String?,
        postCount: Int = 0, followerCount: Int = 0, followingCount: Int = 0, createdAt: Int64, avatar: Avatar? = nil,
        discoverable: Bool = true, locked: Bool = false
    ) {
        self.id = id
        self.username = username
        self.emailHash = emailHash
        self.passwordHash = passwordHash
        self.bio = bio
        self.url = url
        self.postCount = postCount
        self.followerCount = followerCount
        self.followingCount = followingCount
        self.createdAt = createdAt
        self.avatar = avatar
        self.discoverable = discoverable
        self.locked = locked
    }

    /// The stored images the profile shows: its photo's squares and its header's bands.
    public var profileImages: [ImageID] {
        [avatar?.large, avatar?.small, header?.large, header?.small].compactMap { $0 }
    }
}

/// A post as the posts read model keeps it; the library hands it out as `Post`.
package struct PostRecord: Equatable, Sendable {
    /// The post's id.
    public var id: PostID
    /// Who posted it.
    public var author: UserID
    /// The post's image.
    public var image: ImageID
    /// The caption, if any.
    public var caption: String?
    /// The hashtags of the caption.
    public var hashtags: [String]
    /// How many likes it has.
    public var likeCount: Int
    /// How many comments it has.
    public var commentCount: Int
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// The full variant's width after orientation (`nil` for posts from before variants).
    public var width: Int?
    /// The full variant's height after orientation (`nil` for posts from before variants).
    public var height: Int?
    /// The photo's variants (`nil` for posts from before variants).
    public var variants: ImageVariants?
    /// Who sees it.
    public var visibility: PostVisibility
    /// Whom a direct post addresses (empty for every other post).
    public var addressees: [UserID]
    /// A post record; the counters start at zero.
    public init(
        id: PostID, author: UserID, image: ImageID, caption: String?, hashtags: [String],
        likeCount: Int = 0, commentCount: Int = 0, createdAt: Int64,
        width: Int? = nil, height: Int? = nil, variants: ImageVariants? = nil, visibility: PostVisibility = .public,
        addressees: [UserID] = []
    ) {
        self.id = id
        self.author = author
        self.image = image
        self.caption = caption
        self.hashtags = hashtags
        self.likeCount = likeCount
        self.commentCount = commentCount
        self.createdAt = createdAt
        self.width = width
        self.height = height
        self.variants = variants
        self.visibility = visibility
        self.addressees = addressees
    }
}

/// A comment as the comments read model keeps it.
package struct CommentRecord: Equatable, Sendable {
    /// The comment's id.
    public var id: CommentID
    /// The post it is on.
    public var post: PostID
    /// Who wrote it.
    public var author: UserID
    /// Its text.
    public var text: String
    /// When it was written (ms since 1970).
    public var createdAt: Int64
    /// The comment it replies to, if any.
    public var replyTo: CommentID?
    /// A comment record.
    public init(id: CommentID, post: PostID, author: UserID, text: String, createdAt: Int64, replyTo: CommentID? = nil)
    {
        self.id = id
        self.post = post
        self.author = author
        self.text = text
        self.createdAt = createdAt
        self.replyTo = replyTo
    }
}

/// A session (or app token) as the sessions read model keeps it, found by its token's hash.
package struct SessionRecord: Equatable, Sendable {
    /// The signed-in user.
    public var user: UserID
    /// When it expires (ms since 1970).
    public var expiresAt: Int64
    /// The OAuth app the token was issued to, and the scopes it holds (`nil`: a first-party
    /// session, which may do everything).
    public var app: String?
    /// The scopes the token holds (`nil` with `app`: a first-party session).
    public var scopes: [String]?
    /// A session record.
    public init(user: UserID, expiresAt: Int64, app: String? = nil, scopes: [String]? = nil) {
        self.user = user
        self.expiresAt = expiresAt
        self.app = app
        self.scopes = scopes
    }
}

/// What deciding a command may read of the current state. The LMDB read models implement it
/// inside the write transaction; tests can implement it in memory.
package protocol DecisionState {
    /// The user `id` (`nil`: none).
    func user(_ id: UserID) throws -> UserRecord?
    /// The user holding this (normalised) username.
    func userID(username: String) throws -> UserID?
    /// The user holding this (lowercased) email.
    func userID(email: String) throws -> UserID?
    /// The post `id` (`nil`: none).
    func post(_ id: PostID) throws -> PostRecord?
    /// The comment `id` (`nil`: none).
    func comment(_ id: CommentID) throws -> CommentRecord?
    /// Whether `follower` follows `followee`.
    func follows(_ follower: UserID, _ followee: UserID) throws -> Bool
    /// Whether `follower` has asked to follow `followee` (a locked account) and awaits an answer.
    func followRequested(_ follower: UserID, _ followee: UserID) throws -> Bool
    /// Whether `follower` asked to be notified of each of `followee`'s posts (while following
    /// or asking to).
    func notifies(_ follower: UserID, _ followee: UserID) throws -> Bool
    /// Who awaits `user`'s answer to their follow request, oldest first.
    func followRequests(to user: UserID) throws -> [UserID]
    /// Whether `user` likes `post`.
    func likes(_ user: UserID, _ post: PostID) throws -> Bool
    /// The id of `user`'s boost of `post`, if they boosted it.
    func boost(by user: UserID, of post: PostID) throws -> PostID?
    /// The boost `id`, if it stands.
    func boostRecord(_ id: PostID) throws -> BoostRecord?
    /// Every boost `user` made that stands, in boost id order.
    func boosts(by user: UserID) throws -> [BoostRecord]
    /// Whether `follower`'s home timeline shows `followee`'s boosts (not hidden with `reblogs` false).
    func showsBoosts(_ follower: UserID, _ followee: UserID) throws -> Bool
    /// Whether `blocker` blocks `blocked` (one direction).
    func blocks(_ blocker: UserID, _ blocked: UserID) throws -> Bool
    /// The id of the newest activity item `user` has read (`nil`: none yet).
    func activityMarker(of user: UserID) throws -> String?
    /// Whether `user`'s activity holds the item `item` now (`nil`: any item at all).
    func holdsActivity(of user: UserID, item: String?) throws -> Bool
    /// The id of the newest item in `user`'s activity (`nil`: none).
    func newestActivity(of user: UserID) throws -> String?
    /// `muter`'s mute of `muted`, ended or not (`nil`: none).
    func mute(_ muter: UserID, _ muted: UserID) throws -> MuteRecord?
    /// Media `id`, attached or not (`nil`: none, or deleted).
    func media(_ id: MediaID) throws -> MediaRecord?
    /// Up to `limit` media no post holds, uploaded before `time` (ms), oldest first.
    func unattachedMedia(uploadedBefore time: Int64, limit: Int) throws -> [MediaRecord]
    /// The OAuth app `id`, if registered.
    func app(_ id: String) throws -> AppRecord?
    /// Whether `reporter`'s report of the account `user` stands.
    func userReported(_ reporter: UserID, _ user: UserID) throws -> Bool
    /// How many reports of the account `user` stand.
    func userReportCount(_ user: UserID) throws -> Int
    /// Whether `post` is in `user`'s bookmarks.
    func bookmarks(_ user: UserID, _ post: PostID) throws -> Bool
    /// Whether `user` has reported `post`, standing or dismissed (one report per reporter and post).
    func reported(_ user: UserID, _ post: PostID) throws -> Bool
    /// How many reports against `post` stand (made since its reports were last dismissed),
    /// counting at most `limit`.
    func standingReports(_ post: PostID, upTo limit: Int) throws -> Int
    /// How many of `post`'s standing reports count towards hiding it (from established
    /// accounts its author does not block, one per origin), counting at most `limit`.
    func countedReports(_ post: PostID, upTo limit: Int) throws -> Int
    /// The session (or app token) whose token has this hash (expired or not).
    func session(hash: String) throws -> SessionRecord?
    /// The unredeemed authorization code with this hash, unless a password change revoked it (expired or not).
    func authorization(hash: String) throws -> AuthorizationRecord?
    /// The app token with this hash (expired or not).
    func appToken(hash: String) throws -> AppTokenRecord?
    /// The push subscription of the token with this hash, if any.
    func pushSubscription(sessionHash: String) throws -> PushSubscriptionRecord?
    /// Failed sign-ins for the email with this keyed hash at or after `since` (ms).
    /// Failed sign-ins counted under `limiterKey` (see `SignInFailed.limiterKey`) since `since`.
    func signInFailures(limiterKey: String, since: Int64) throws -> Int
    /// The story `id` (shown or not, until it is deleted or expired), or `nil`.
    func story(_ id: StoryID) throws -> StoryRecord?
    /// Whether `viewer` has seen `story`.
    func hasViewed(_ story: StoryID, _ viewer: UserID) throws -> Bool
    /// `user`'s two-factor sign-in: enrolled (confirmed or not), or `nil`.
    func twoFactor(_ user: UserID) throws -> TwoFactorRecord?
    /// Whether `user`'s ActivityPub actor has its signing key.
    func hasActorKey(_ user: UserID) throws -> Bool
    /// The remote account of the actor whose id is `actor`, if it was seen.
    func remoteAccount(actor: String) throws -> RemoteAccountRecord?
    /// The local post that is the remote `Note` `object`, if it came in.
    func remotePost(object: String) throws -> PostID?
    /// The local comment that is the remote `Note` `object`, if it came in.
    func remoteComment(object: String) throws -> CommentID?
    /// The remote accounts of the server `host` known here.
    func remoteAccounts(onHost host: String) throws -> [UserID]
    /// Whether `user` blocks the server `host` (`blockAccountDomain`).
    func blocksDomain(_ user: UserID, _ host: String) throws -> Bool
    /// Whether the operator blocked the server `host`.
    func domainBlocked(_ host: String) throws -> Bool
    /// The unexpired-or-not reset token with this hash.
    func passwordReset(hash: String) throws -> SessionRecord?
    /// When `user` last asked for a reset by email (ms), if they ever did.
    func lastPasswordResetRequest(_ user: UserID) throws -> Int64?
    /// Everything a user has done that erasing them must undo.
    func footprint(of user: UserID) throws -> UserFootprint
    /// Whether a moderator suspended `user` (a read model may answer from its own list).
    func isSuspended(_ user: UserID) throws -> Bool
    /// Whether `user`'s account is locked (private: all its posts are for its followers).
    func isLocked(_ user: UserID) throws -> Bool
    /// Whether `a` blocks `b` or `b` blocks `a`.
    func blockedEitherWay(_ a: UserID, _ b: UserID) throws -> Bool
    /// One of the instance's texts ("" when not set).
    func instanceText(_ field: InstanceTextField) throws -> String
    /// The server's rules, in the order they were added.
    func instanceRules() throws -> [InstanceRuleRecord]
    /// The announcement `id`, unless removed (`nil`: none).
    func announcement(_ id: AnnouncementID) throws -> AnnouncementRecord?
    /// Whether `user` dismissed the announcement `id`.
    func announcementDismissed(_ id: AnnouncementID, by user: UserID) throws -> Bool
    /// The reactions to the announcement `id`, one per emoji, in the order each was first given.
    func announcementReactions(_ id: AnnouncementID) throws -> [AnnouncementReactionRecord]
    /// The list `id`, unless deleted (`nil`: none).
    func list(_ id: ListID) throws -> ListRecord?
    /// `owner`'s lists, oldest first.
    func lists(of owner: UserID) throws -> [ListRecord]
    /// Whether `account` is in the list `id`.
    func listHas(_ id: ListID, _ account: UserID) throws -> Bool
    /// The collection `id`, unless deleted (`nil`: none).
    func collection(_ id: CollectionID) throws -> CollectionRecord?
    /// `owner`'s collections, oldest first.
    func collections(of owner: UserID) throws -> [CollectionRecord]
    /// The items of the collection `id` (revoked ones too), in the order added.
    func collectionItems(_ id: CollectionID) throws -> [CollectionItemRecord]
    /// Whether the conversation `id` is in `user`'s list of conversations (they take part in
    /// it, it holds a message, and they did not remove it since its last one).
    func conversationListed(_ id: ConversationID, for user: UserID) throws -> Bool
    /// `user`'s notification policy (`NotificationPolicy.standard` until they set one).
    func notificationPolicy(of user: UserID) throws -> NotificationPolicy
    /// Whether `user`'s activity holds notifications from `account` in a notification request.
    func holdsNotificationRequest(of user: UserID, from account: UserID) throws -> Bool
    /// Whether a moderator hid the hashtag or post `subject` from the trends.
    func trendHidden(_ kind: TrendKind, _ subject: String) throws -> Bool
    /// The filter that is, or holds as a keyword or a status, the id `id` (`nil`: none).
    func filter(holding id: String) throws -> FilterSaved?
    /// `user`'s filters, expired ones too, in the order they were made.
    func filters(of user: UserID) throws -> [FilterSaved]
    /// The poll `id`, unless its post or the poll itself is gone (`nil`: none).
    func poll(_ id: PollID) throws -> PollRecord?
    /// The poll on `post`, if it has one.
    func poll(ofPost post: PostID) throws -> PollRecord?
    /// Whether `user` has voted in `poll` (since it was last set).
    func voted(_ user: UserID, in poll: PollID) throws -> Bool
    /// Whether `user` pinned their post `post`.
    func pinned(_ user: UserID, _ post: PostID) throws -> Bool
    /// How many posts `user` has pinned.
    func pinCount(_ user: UserID) throws -> Int
    /// Whether `user` muted the thread of `post`.
    func mutesConversation(_ user: UserID, _ post: PostID) throws -> Bool
    /// `writer`'s private note on `target` (`nil`: none).
    func accountNote(_ writer: UserID, _ target: UserID) throws -> String?
    /// Whether `user` features `target` on their profile.
    func endorses(_ user: UserID, _ target: UserID) throws -> Bool
    /// Whether `user` asked never to be suggested `target` again.
    func dismissedSuggestion(_ user: UserID, _ target: UserID) throws -> Bool
    /// Whether `user`'s annual report of `year` was read (`nil`: never asked for).
    func annualReportRead(_ user: UserID, _ year: Int) throws -> Bool?
    /// Whether `user` features the hashtag `tag` on their profile.
    func featuresTag(_ user: UserID, _ tag: String) throws -> Bool
    /// How many hashtags `user` features.
    func featuredTagCount(_ user: UserID) throws -> Int
    /// The pending scheduled post `id` (`nil`: none, or published or cancelled).
    func scheduledPost(_ id: ScheduledPostID) throws -> ScheduledPostRecord?
    /// `user`'s pending scheduled posts, in schedule id order.
    func scheduledPosts(of user: UserID) throws -> [ScheduledPostRecord]
    /// The pending scheduled post holding the uploaded photo `media`, if any.
    func scheduledPost(holding media: MediaID) throws -> ScheduledPostID?
    /// Whether `user` follows the hashtag `tag`.
    func followsTag(_ user: UserID, _ tag: String) throws -> Bool
    /// How many hashtags `user` follows.
    func followedTagCount(_ user: UserID) throws -> Int
}

extension DecisionState {
    /// Whether a moderator suspended `user`, read from their record.
    package func isSuspended(_ user: UserID) throws -> Bool { try self.user(user)?.suspended == true }

    /// Whether `user`'s account is locked, read from their record.
    package func isLocked(_ user: UserID) throws -> Bool { try self.user(user)?.locked == true }

    /// Whether `a` blocks `b` or `b` blocks `a`, read as two blocks.
    package func blockedEitherWay(_ a: UserID, _ b: UserID) throws -> Bool { try blocks(a, b) || blocks(b, a) }

    /// Whether `post` is hidden from `viewer`, who is not its author: its author is suspended,
    /// it is for followers only or its author's account is locked and `viewer` does not follow
    /// its author, or at least
    /// `threshold` reports count against it.
    /// The one rule deciding (a hidden post is `not_found` to act on) and reading (it is left
    /// out of pages) share: `Privacy` on the `command` surface.
    package func hides(_ post: PostRecord, from viewer: UserID?, threshold: Int, vouched: Bool = false) throws -> Bool {
        var policy = Privacy(viewer: viewer, mutes: [], reportThreshold: threshold, state: self)
        if vouched { policy = policy.countingAsFollower(of: post.author) }
        return try !policy.mayShow(post: post, on: .command)
    }
}

/// A user's relationships and contributions, as erasure must undo them.
package struct UserFootprint: Equatable, Sendable {
    /// The users the user follows.
    public var following: [UserID] = []
    /// The users following the user.
    public var followers: [UserID] = []
    /// The locked accounts the user asked to follow, awaiting an answer.
    public var requested: [UserID] = []
    /// Who awaits the user's answer to their follow request.
    public var requestedBy: [UserID] = []
    /// The user's posts.
    public var posts: [PostID] = []
    /// The user's media no post holds.
    public var unattachedMedia: [MediaID] = []
    /// Posts (of others) the user likes.
    public var likes: [PostID] = []
    /// The user's comments on others' posts.
    public var comments: [CommentRecord] = []
    /// Every post in the user's bookmarks (their own posts too), in post id order.
    public var bookmarks: [PostID] = []
    /// Users the user blocks, in user id order.
    public var blocking: [UserID] = []
    /// Users who block the user, in user id order.
    public var blockedBy: [UserID] = []
    /// Users the user mutes (ended mutes too), in user id order.
    public var muting: [UserID] = []
    /// Users who mute the user (ended mutes too), in user id order.
    public var mutedBy: [UserID] = []
    /// An empty footprint.
    public init() {}
}
