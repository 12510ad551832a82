@_exported import TimelineDomain

/// A user's public profile.
public struct Profile: Sendable, Equatable {
    /// The user's identifier.
    public var id: UserID
    /// The unique username (NFKC-folded, lowercased).
    public var username: String
    /// A short self-description, if set.
    public var bio: String?
    /// A link, if set.
    public var url: String?
    /// How many posts the user has (not deleted).
    public var postCount: Int
    /// How many users follow this one.
    public var followerCount: Int
    /// How many users this one follows.
    public var followingCount: Int
    /// When the account was made (ms since 1970).
    public var createdAt: Int64
    /// Whether the viewer follows this user (`nil` when the query had no viewer).
    public var followedByViewer: Bool?
    /// Whether the viewer blocks this user (`nil` when the query had no viewer).
    public var blockedByViewer: Bool?
    /// Whether following this user needs their approval (a private account).
    public var locked: Bool
    /// Whether the user holds the `moderator` role; shown only to the user themself.
    public var moderator: Bool?
    /// Whether the viewer has asked to follow this user and awaits an answer (`nil` when the
    /// query had no viewer).
    public var requestedByViewer: Bool?
    /// Whether the viewer asked to be notified of each of this user's posts (`follow`'s
    /// `notify`; `nil` when the query had no viewer).
    public var notifiesViewer: Bool?
    /// The viewer's private note on this user ("" when none; `nil` when the query had no
    /// viewer). Only the note's writer ever reads it.
    public var noteByViewer: String?
    /// Whether the viewer endorses (features) this user on their profile (`nil` when the query
    /// had no viewer).
    public var endorsedByViewer: Bool?
    /// Whether the viewer mutes this user now (`nil` when the query had no viewer). Only the
    /// viewer's own mute: nobody learns who mutes them.
    public var mutedByViewer: Bool?
    /// When the viewer's mute of this user ends by itself (ms since 1970; `nil` when it is not
    /// timed, or there is none).
    public var mutedUntil: Int64?
    /// How many of the user's activity items they have not read (counted up to
    /// `unreadActivityLimit`); shown only to the user themself.
    public var unreadActivity: Int?
    /// The most unread items counted (a badge says "999+" past it).
    public static let unreadActivityLimit = 1000
    /// The profile photo's 320 px and 96 px squares, if set.
    public var avatar: Avatar?
    /// The profile header's 1500×500 (`large`) and 600×200 (`small`) bands, if set.
    public var header: Avatar?
    /// Whether others may find this user by email (`findContacts`); shown only to the user
    /// themself: in their own profile read as themself, and in `updateProfile`'s answer (`nil`
    /// everywhere else).
    public var discoverable: Bool?

    /// `own`: the viewer is the user themself, who alone sees their settings (`discoverable`).
    init(_ u: UserRecord, followedByViewer: Bool? = nil, blockedByViewer: Bool? = nil, own: Bool = false) {
        id = u.id
        username = u.username
        bio = u.bio
        url = u.url
        avatar = u.avatar
        header = u.header
        postCount = u.postCount
        followerCount = u.followerCount
        followingCount = u.followingCount
        createdAt = u.createdAt
        self.followedByViewer = followedByViewer
        self.blockedByViewer = blockedByViewer
        locked = u.locked
        discoverable = own ? u.discoverable : nil
        moderator = own ? u.moderator : nil
    }
}

/// Someone the viewer might follow (`suggestions`): followed by people the viewer follows.
public struct Suggestion: Sendable, Equatable {
    /// The suggested user's profile, as the viewer sees it.
    public var user: Profile
    /// How many of the people the viewer follows follow this user (among those sampled:
    /// see `TimelineService.suggestions(for:_:)`); the list is ranked by it. 0 in the fallback
    /// list of popular public accounts.
    public var followedByCount: Int
    /// The usernames of up to three of them, the viewer's most recent follows first (for
    /// "followed by @x and 2 others").
    public var followedBy: [String]
}

/// A post as lists, timelines and its detail show it: enough to draw its row without another
/// request. It holds its stored record's bytes (one copy, made when it was read) and makes each
/// field's value when asked for, so a page costs what it reads, not what it could show.
public struct Post: Sendable, Equatable {
    let readings: PostReadings
    /// Whether the viewer liked it (`nil` when the query had no viewer).
    public let likedByViewer: Bool?
    /// Whether the post is in the viewer's bookmarks (`nil` when the query had no viewer).
    public let bookmarkedByViewer: Bool?
    /// The viewer's warn and blur filters it matched where it was read (hide ones leave it out).
    public internal(set) var filtered: [FilterMatch] = []
    /// Whether the viewer boosted it (`nil` when the query had no viewer).
    public internal(set) var boostedByViewer: Bool?
    /// The boost by which it came into a home timeline, when it did (`nil` for the post itself).
    public internal(set) var boost: BoostInfo?

    init(_ readings: PostReadings, likedByViewer: Bool?, bookmarkedByViewer: Bool?) {
        self.readings = readings
        self.likedByViewer = likedByViewer
        self.bookmarkedByViewer = bookmarkedByViewer
    }

    /// The post's identifier (creation order).
    public var id: PostID { readings.id }
    /// Who posted it.
    public var author: UserID { readings.author }
    /// The author's username now.
    public var authorUsername: String { readings.authorUsername }
    /// The photo (fetch it with `TimelineService.image(_:)`).
    public var image: ImageID { readings.image }
    /// The caption, if any.
    public var caption: String? { readings.caption }
    /// The caption's hashtags, NFC-normalised and lowercased, without `#`.
    public var hashtags: [String] { readings.hashtags }
    /// How many users like it.
    public var likeCount: Int { readings.fields.likeCount }
    /// How many comments it has.
    public var commentCount: Int { readings.fields.commentCount }
    /// Milliseconds since 1970.
    public var createdAt: Int64 { readings.fields.createdAt }
    /// When its caption was last edited (ms since 1970), if ever.
    public var editedAt: Int64? { readings.fields.editedAt }
    /// Whether apps should blur its photo until the viewer asks to see it.
    public var sensitive: Bool { readings.fields.sensitive }
    /// The content warning to show over a sensitive photo, if the author gave one.
    public var warning: String? { readings.warning }
    /// Who sees it.
    public var visibility: PostVisibility { readings.fields.visibility }
    /// Whom a direct post addresses (none for every other post).
    public var addressees: [UserID] { readings.addressees }
    /// The direct post it answers in its conversation, if it is an answer.
    public var inReplyTo: PostID? { readings.inReplyTo }
    /// Its poll, if it has one (`TimelineService.poll(_:viewer:)` reads it).
    public var poll: PollID? { readings.poll }
    /// How many boosts it has.
    public var boostCount: Int { readings.fields.boostCount }
    /// Its photos, in order (one for a post from before albums: its `image`).
    public var media: [MediaAttachment] { readings.media }
    /// The `full` image's width in pixels, after orientation (`nil` for posts from before the
    /// image pipeline, whose single image is served as stored).
    public var width: Int? { readings.fields.width }
    /// The `full` image's height in pixels (see `width`).
    public var height: Int? { readings.fields.height }
    /// The photo's variants: `full` (long side ≤ 1080 px, the same as `image`), `feed` (≤ 640)
    /// and `thumb` (320 px square); `nil` for posts from before the image pipeline.
    public var variants: ImageVariants? { readings.variants }
    /// Where the photo was taken, if the author said.
    public var location: Place? { readings.place }

    /// Equal when every field shown is.
    public static func == (a: Post, b: Post) -> Bool {
        a.id == b.id && a.author == b.author && a.authorUsername == b.authorUsername && a.image == b.image
            && a.caption == b.caption
            && a.hashtags == b.hashtags && a.likeCount == b.likeCount && a.commentCount == b.commentCount
            && a.createdAt == b.createdAt
            && a.likedByViewer == b.likedByViewer && a.bookmarkedByViewer == b.bookmarkedByViewer && a.width == b.width
            && a.height == b.height && a.variants == b.variants && a.location == b.location && a.editedAt == b.editedAt
            && a.sensitive == b.sensitive && a.warning == b.warning && a.visibility == b.visibility && a.poll == b.poll
            && a.media == b.media && a.boostCount == b.boostCount && a.boostedByViewer == b.boostedByViewer
            && a.boost == b.boost
    }

    /// The id of the timeline entry it is: its boost's id when it came in by a boost, else its own
    /// (a home timeline's cursors are these).
    public var entryId: PostID { boost?.id ?? id }
}

/// A boost (Mastodon's reblog): a status of its own with its own id, showing someone's post.
public struct BoostInfo: Sendable, Equatable {
    /// The boost's own id (creation order, the same order as posts').
    public var id: PostID
    /// Who boosted the post.
    public var by: UserID
    /// The booster's username now.
    public var byUsername: String
    /// When they boosted it (ms since 1970).
    public var at: Int64
    /// Who sees the boost.
    public var visibility: BoostVisibility
}

/// One version of a post's caption (`TimelineService.history(of:viewer:)`).
public struct PostVersion: Sendable, Equatable {
    /// The caption then, if any.
    public var caption: String?
    /// Its hashtags.
    public var hashtags: [String]
    /// When this version was made: posted or edited (ms since 1970).
    public var at: Int64
}

/// A comment on a post.
public struct Comment: Sendable, Equatable {
    /// The comment's identifier (creation order).
    public var id: CommentID
    /// The post it is on.
    public var post: PostID
    /// Who wrote it.
    public var author: UserID
    /// The author's username now.
    public var authorUsername: String
    /// The comment's text (NFC).
    public var text: String
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// The comment it replies to, if any.
    public var replyTo: CommentID?
    /// The viewer's warn and blur filters it matched in its thread (hide ones leave it out).
    public internal(set) var filtered: [FilterMatch] = []

    init(_ c: CommentRecord, authorUsername: String) {
        id = c.id
        post = c.post
        author = c.author
        self.authorUsername = authorUsername
        text = c.text
        createdAt = c.createdAt
        replyTo = c.replyTo
    }
}

/// A post with its comments (oldest first, paginated) and whether the viewer liked it.
public struct PostDetail: Sendable, Equatable {
    /// The post.
    public var post: Post
    /// The first page of its comments, oldest first.
    public var comments: Page<Comment>
    /// Whether the viewer likes it (`false` without a viewer).
    public var likedByViewer: Bool
}

/// Something that happened to a user.
public struct ActivityItem: Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Sendable, CaseIterable {
        /// Someone commented on one of the user's posts.
        case comment
        /// Someone liked one of the user's posts.
        case like
        /// Someone followed the user.
        case follow
        /// The operator removed one of the user's posts (`reason` says why).
        case removed
        /// Someone `@mentioned` the user in a caption or a comment (`comment` says which).
        case mention
        /// Someone replied to the user's comment (`comment` is the reply).
        case reply
        /// Someone asked to follow the user's locked account (gone once answered or withdrawn).
        case followRequest = "follow_request"
        /// Someone the user follows, and asked to be notified of, posted (`post` is the post).
        case post
        /// A poll the user made or voted in ended (`post` is its post, `actor` its author): due
        /// from the poll's end, with nothing written then (`PollsProjection`).
        case poll
        /// Someone boosted one of the user's posts (gone with the boost).
        case boost
        /// Someone featured the user in one of their collections (`collection` says which; gone
        /// when the user leaves it or it is deleted).
        case addedToCollection = "added_to_collection"
    }

    /// The item's cursor (pass as `before` to continue after it).
    public var id: String
    /// What happened.
    public var kind: Kind
    /// Who did it (`nil` for `removed`: the operator is nobody in particular).
    public var actor: UserID?
    /// Their username now (`nil` with `actor`).
    public var actorUsername: String?
    /// The post it concerns (comments, likes, mentions, replies, removals, new posts).
    public var post: PostID?
    /// The comment (comments only).
    public var comment: CommentID?
    /// Milliseconds since 1970.
    public var at: Int64
    /// Why the operator removed the post (`removed` only).
    public var reason: String? = nil
    /// The collection the user was featured in (`addedToCollection` only).
    public var collection: CollectionID? = nil
}

extension ActivityItem.Kind {
    /// Mastodon's notification type for this kind, which is also its push alert's name: a
    /// comment on one's post, a reply and an `@mention` are `mention`, a like is `favourite`, a
    /// post one asked to be told of is `status`, a boost `reblog`; nil for a moderators' removal, which Mastodon
    /// has no type for.
    public var mastodonType: String? {
        switch self {
        case .comment, .reply, .mention: "mention"
        case .like: "favourite"
        case .follow: "follow"
        case .followRequest: "follow_request"
        case .post: "status"
        case .poll: "poll"
        case .boost: "reblog"
        case .addedToCollection: "added_to_collection"
        case .removed: nil
        }
    }
}

/// A stored image.
public struct StoredImage: Sendable, Equatable {
    /// Its content address.
    public var id: ImageID
    /// Its type, recognised from its content.
    public var mediaType: MediaType
    /// The image file's bytes.
    public var bytes: [UInt8]
    /// Whether it is a followers-only post's photo: answered only to who may see the post, and
    /// never to be kept by a shared cache.
    public var restricted = false
    /// Whether it is only a photo uploaded for a post not yet made: answered to its uploader
    /// alone, and not to be kept by any cache without asking again (it may be deleted unposted).
    public var unposted = false
}

/// A photo of a post (or uploaded for one): its sizes, blurhash and alt text.
public struct MediaAttachment: Sendable, Equatable {
    /// The media id (`uploadMedia`'s); for a post from before media, its image's id.
    public var id: String
    /// The `full` variant's width in pixels, after orientation (`nil` for a post's photo from
    /// before the image pipeline).
    public var width: Int?
    /// The `full` variant's height in pixels (see `width`).
    public var height: Int?
    /// The variants (`nil` for a photo from before the image pipeline: `image` is then all there is).
    public var variants: ImageVariants?
    /// The photo's image id (its `full` variant's).
    public var image: ImageID
    /// Its colours as a BlurHash, for a placeholder while it loads (`nil` for a post's photo from before media).
    public var blurhash: String?
    /// Its description for people who cannot see it, if given.
    public var alt: String?
    /// For a video: where its transcoding stands (in a post, always `ready`, with its file;
    /// the variants and size are then its poster's and its own). `nil` for a photo.
    public var video: VideoState?

    init(
        id: String, width: Int?, height: Int?, variants: ImageVariants?, image: ImageID? = nil, blurhash: String?,
        alt: String?, video: VideoState? = nil
    ) {
        self.video = video
        self.id = id
        self.width = width
        self.height = height
        self.variants = variants
        self.image = image ?? variants?.full ?? ImageID(id)
        self.blurhash = blurhash
        self.alt = alt
    }
}

/// An OAuth app (Mastodon's `Application`).
public struct OAuthApp: Sendable, Equatable {
    /// Its `client_id`.
    public var id: String
    /// Its name.
    public var name: String
    /// Its website, if any.
    public var website: String?
    /// Where an authorization may send its code.
    public var redirectURIs: [String]
    /// The scopes it may ask for.
    public var scopes: [String]
    /// Its client secret: only in `registerApp`'s answer (only its hash is kept).
    public var clientSecret: String?

    init(_ app: AppRecord, clientSecret: String?) {
        id = app.id
        name = app.name
        website = app.website
        redirectURIs = app.redirectURIs
        scopes = app.scopes
        self.clientSecret = clientSecret
    }
}

/// A token's push subscription (Web Push): where and how to push, and what.
public struct PushSubscription: Sendable, Equatable {
    /// The hash of the token it belongs to: its stable name.
    public var sessionHash: String
    /// The subscriber.
    public var user: UserID
    /// The push service's https URL.
    public var endpoint: String
    /// The browser's P-256 public key, base64url.
    public var p256dh: String
    /// The browser's authentication secret, base64url.
    public var auth: String
    /// RFC 8291's aes128gcm (false: the legacy aesgcm).
    public var standard: Bool
    /// The notification types it wants (Mastodon's alert names).
    public var alerts: [String]
    /// Whose actions push: all, followed, follower, none.
    public var policy: PushPolicy

    init(sessionHash: String, _ r: PushSubscriptionRecord) {
        self.sessionHash = sessionHash
        user = r.user
        endpoint = r.endpoint
        p256dh = r.p256dh
        auth = r.auth
        standard = r.standard
        alerts = r.alerts
        policy = r.policy
    }
}

/// What a bearer token is (`TimelineService.grant(session:)`).
public struct Grant: Sendable, Equatable {
    /// The person it acts for (nil: an app's own token).
    public var user: UserID?
    /// The OAuth app it was issued to (nil: a first-party session).
    public var app: OAuthApp?
    /// What it may do (nil: everything, a first-party session).
    public var scopes: [String]?
    /// A grant for `user`, through `app`, of `scopes`.
    public init(user: UserID?, app: OAuthApp?, scopes: [String]?) {
        self.user = user
        self.app = app
        self.scopes = scopes
    }
}

/// One page of a list, and the cursor of the next page (`nil` after the last item).
public struct Page<Item: Sendable & Equatable>: Sendable, Equatable {
    /// The page's items, in the list's order.
    public var items: [Item]
    /// The cursor to pass as `before` for the next page; `nil` once the last item was shown.
    public var next: String?
}

/// Which page to read: at most `limit` items (1–100, default 20) after the cursor `before`
/// (exclusive), which is the `next` of the previous page.
public struct PageRequest: Sendable, Equatable {
    /// The page size when none is given.
    public static let defaultLimit = 20
    /// The largest page size.
    public static let maxLimit = 100
    /// How many items at most (1–100).
    public var limit: Int
    /// The `next` cursor of the previous page (`nil`: the first page).
    public var before: String?
    /// A cursor to read up from (exclusive): the page is the `limit` items right after it (the
    /// ones nearest it), still answered newest first, and has no `next` (page on up with its
    /// newest item's cursor). Honoured by the newest-first lists ordered by their cursors
    /// (posts, timelines, hashtags, likes, bookmarks, activity, follows, blocks, mutes);
    /// Mastodon's `min_id`. With `before`, the page lies between the two.
    public var after: String?

    /// A page of at most `limit` items after the cursor `before` (older than it), or right
    /// after the cursor `after` (newer than it).
    public init(limit: Int = PageRequest.defaultLimit, before: String? = nil, after: String? = nil) {
        self.limit = limit
        self.before = before
        self.after = after
    }

    func validated() throws(TimelineError) -> PageRequest {
        guard (1...Self.maxLimit).contains(limit) else { throw .invalid("limit", "limit must be 1–\(Self.maxLimit)") }
        if let before, before.isEmpty || before.utf8.count > 256 || before.utf8.contains(0) {
            throw .invalid("before", "before is not a valid cursor")
        }
        if let after, after.isEmpty || after.utf8.count > 256 || after.utf8.contains(0) {
            throw .invalid("after", "after is not a valid cursor")
        }
        return self
    }
}

/// A trending hashtag (`trendingTags`) and its last seven days.
public struct TrendingTag: Sendable, Equatable {
    /// The hashtag's normalised name, without `#`.
    public var name: String
    /// Its uses per day in public posts, today first (seven days).
    public var history: [TagDay]
}

/// One day of a hashtag's uses (Mastodon's `TagHistory`).
public struct TagDay: Sendable, Equatable {
    /// The day's start (00:00 UTC), ms since 1970.
    public var day: Int64
    /// How many public posts used the tag that day.
    public var uses: Int
    /// How many accounts posted them.
    public var accounts: Int
}

/// The orders of the profile directory (`directory`), Mastodon's `order`.
public enum DirectoryOrder: String, Sendable, CaseIterable {
    /// The accounts that posted most recently first.
    case active
    /// The newest accounts first.
    case new
}

/// What a successful command returns.
public enum CommandResult: Sendable, Equatable {
    /// The user created or changed (`createUser`, `updateProfile`, `resetPassword`, …).
    case user(Profile)
    /// A new session: the token (shown once, never stored) and the user.
    case session(token: String, user: Profile)
    /// The post added.
    case post(Post)
    /// The media uploaded or changed (`uploadMedia`, `updateMedia`).
    case media(MediaAttachment)
    /// An OAuth app registered (`registerApp`), with its client secret (shown this once).
    case app(OAuthApp)
    /// The comment added.
    case comment(Comment)
    /// A one-time token, shown once and stored only as a hash: a password reset's, an OAuth
    /// authorization code, an app's own token.
    case token(String)
    /// For follow/unfollow/like/unlike/bookmark/reportPost: whether anything changed.
    case changed(Bool)
    /// Done, with nothing to return (`signOut`, deletions, `eraseUser`, …).
    case done
    /// A record made that has no read of its own: its new id (`addInstanceRule`, `addAnnouncement`).
    case created(String)
    /// An authenticator's enrolment (`enrollTwoFactor`), shown once.
    case twoFactorEnrollment(TwoFactorEnrollment)
    /// A story posted (`postStory`).
    case story(Story)
    /// Two-factor sign-in's recovery codes (`confirmTwoFactor`), shown once and stored only as hashes.
    case recoveryCodes([String])
}

/// An authenticator app's enrolment: what it is told, by hand or by its camera.
public struct TwoFactorEnrollment: Sendable, Equatable {
    /// Who issues the codes, as authenticator apps show it.
    public static let issuer = "Timeline"
    /// The secret, base32 (typed by hand into an app that cannot scan).
    public var secret: String
    /// Its `otpauth://totp/` URI (Google Authenticator's Key Uri Format).
    public var otpauthURI: String
    /// A QR code of the URI, as a PNG.
    public var qrCodePNG: [UInt8]
}

/// Who issues a command.
public enum Caller: Sendable, Equatable {
    /// A trusted local operator acting as this user id.
    case user(String)
    /// A session token from `signIn`.
    case session(String)
    /// A trusted local operator acting as no user (e.g. `timeline erase-user`).
    case `operator`
    /// Nobody (for `createUser`, `signIn`, `signOut` and `resetPassword`).
    case anonymous
}
