/// Every fact Timeline records. Each case's payload is an immutable value; the type names are
/// stable public names (`UserCreated`, …) and each has a schema version.
public enum Event: Equatable, Sendable {
    /// A user signed up (or was imported): `UserCreated`.
    case userCreated(UserCreated)
    /// A user changed their username, bio, url, profile photo or discoverability: `ProfileUpdated`.
    case profileUpdated(ProfileUpdated)
    /// A session started: `SignedIn`.
    case signedIn(SignedIn)
    /// A session ended: `SignedOut`.
    case signedOut(SignedOut)
    /// A sign-in failed: `SignInFailed`.
    case signInFailed(SignInFailed)
    /// A photo was posted: `PostAdded`.
    case postAdded(PostAdded)
    /// A post was placed (where its photo was taken), right after its `PostAdded`: `PostPlaced`.
    case postPlaced(PostPlaced)
    /// A post from before the image pipeline got its variants: `PostImageProcessed`.
    case postImageProcessed(PostImageProcessed)
    /// A post was deleted: `PostDeleted`.
    case postDeleted(PostDeleted)
    /// A comment was added: `CommentAdded`.
    case commentAdded(CommentAdded)
    /// A comment was deleted: `CommentDeleted`.
    case commentDeleted(CommentDeleted)
    /// A user liked a post: `LikeAdded`.
    case likeAdded(Like)
    /// A user took a like back: `LikeRemoved`.
    case likeRemoved(Like)
    /// A user followed another: `Followed`.
    case followed(Follow)
    /// A user stopped following another: `Unfollowed`.
    case unfollowed(Follow)
    /// A post was reported: `PostReported`.
    case postReported(PostReported)
    /// An operator removed a post: `PostRemoved`.
    case postRemoved(PostRemoved)
    /// An operator dismissed the reports standing against a post: `ReportsDismissed`.
    case reportsDismissed(ReportsDismissed)
    /// A user was erased (their key destroyed): `UserErased`.
    case userErased(UserErased)
    /// An operator issued a password-reset token: `PasswordResetRequested`.
    case passwordResetRequested(PasswordResetRequested)
    /// A password was set (with a reset token or the current password): `PasswordChanged`.
    case passwordChanged(PasswordChanged)
    /// A user changed their email: `EmailChanged`.
    case emailChanged(EmailChanged)
    /// A user saved a post to their bookmarks: `Bookmarked`.
    case bookmarked(Bookmark)
    /// A user took a post out of their bookmarks: `Unbookmarked`.
    case unbookmarked(Bookmark)
    /// A user blocked another: `Blocked`.
    case blocked(Block)
    /// A user lifted a block: `Unblocked`.
    case unblocked(Block)

    /// The stable type name stored in the envelope.
    public var typeName: EventType {
        switch self {
        case .userCreated: .userCreated
        case .profileUpdated: .profileUpdated
        case .signedIn: .signedIn
        case .signedOut: .signedOut
        case .signInFailed: .signInFailed
        case .postAdded: .postAdded
        case .postPlaced: .postPlaced
        case .postImageProcessed: .postImageProcessed
        case .postDeleted: .postDeleted
        case .commentAdded: .commentAdded
        case .commentDeleted: .commentDeleted
        case .likeAdded: .likeAdded
        case .likeRemoved: .likeRemoved
        case .followed: .followed
        case .unfollowed: .unfollowed
        case .postReported: .postReported
        case .postRemoved: .postRemoved
        case .reportsDismissed: .reportsDismissed
        case .userErased: .userErased
        case .passwordResetRequested: .passwordResetRequested
        case .passwordChanged: .passwordChanged
        case .emailChanged: .emailChanged
        case .bookmarked: .bookmarked
        case .unbookmarked: .unbookmarked
        case .blocked: .blocked
        case .unblocked: .unblocked
        }
    }

    /// The aggregate the event belongs to: `user-<id>`, `post-<id>` or `signin-<email hash>`.
    public var stream: String {
        switch self {
        case .userCreated(let e): "user-\(e.userId)"
        case .profileUpdated(let e): "user-\(e.userId)"
        case .signedIn(let e): "user-\(e.userId)"
        case .signedOut(let e): "user-\(e.userId)"
        case .signInFailed(let e): "signin-\(e.emailHash.prefix(32))"
        case .postAdded(let e): "post-\(e.postId)"
        case .postPlaced(let e): "post-\(e.postId)"
        case .postImageProcessed(let e): "post-\(e.postId)"
        case .postDeleted(let e): "post-\(e.postId)"
        case .commentAdded(let e): "post-\(e.postId)"
        case .commentDeleted(let e): "post-\(e.postId)"
        case .likeAdded(let e), .likeRemoved(let e): "post-\(e.postId)"
        case .followed(let e), .unfollowed(let e): "user-\(e.followerId)"
        case .postReported(let e): "post-\(e.postId)"
        case .postRemoved(let e): "post-\(e.postId)"
        case .reportsDismissed(let e): "post-\(e.postId)"
        case .userErased(let e): "user-\(e.userId)"
        case .passwordResetRequested(let e): "user-\(e.userId)"
        case .passwordChanged(let e): "user-\(e.userId)"
        case .emailChanged(let e): "user-\(e.userId)"
        case .bookmarked(let e), .unbookmarked(let e): "user-\(e.userId)"
        case .blocked(let e), .unblocked(let e): "user-\(e.blockerId)"
        }
    }

    /// The images stored with the event (a cluster node ships them with it): every variant of
    /// a post's photo (and the image of a post from before variants), the squares of a profile
    /// photo.
    public var storedImages: [ImageID] {
        switch self {
        case .postAdded(let e): return [e.imageId] + (e.variants?.all ?? [])
        case .postImageProcessed(let e): return e.variants.all
        case .profileUpdated(let e):
            guard case .set(let avatar)? = e.avatar else { return [] }
            return [avatar.large, avatar.small]
        case .userCreated, .signedIn, .signedOut, .signInFailed, .postDeleted, .commentAdded, .commentDeleted, .likeAdded,
             .likeRemoved, .followed, .unfollowed, .postReported, .userErased, .passwordResetRequested, .passwordChanged,
             .emailChanged, .bookmarked, .unbookmarked, .blocked, .unblocked, .postPlaced, .postRemoved, .reportsDismissed:
            return []
        }
    }
}

/// Stable event type names. The raw value is the public name.
public enum EventType: String, CaseIterable, Sendable {
    /// A user signed up (or was imported): `UserCreated`.
    case userCreated = "UserCreated"
    /// A user changed their username, bio or url: `ProfileUpdated`.
    case profileUpdated = "ProfileUpdated"
    /// A session started: `SignedIn`.
    case signedIn = "SignedIn"
    /// A session ended: `SignedOut`.
    case signedOut = "SignedOut"
    /// A sign-in failed: `SignInFailed`.
    case signInFailed = "SignInFailed"
    /// A photo was posted: `PostAdded`.
    case postAdded = "PostAdded"
    /// A post was placed (where its photo was taken): `PostPlaced`.
    case postPlaced = "PostPlaced"
    /// A post from before the image pipeline got its variants: `PostImageProcessed`.
    case postImageProcessed = "PostImageProcessed"
    /// A post was deleted: `PostDeleted`.
    case postDeleted = "PostDeleted"
    /// A comment was added: `CommentAdded`.
    case commentAdded = "CommentAdded"
    /// A comment was deleted: `CommentDeleted`.
    case commentDeleted = "CommentDeleted"
    /// A user liked a post: `LikeAdded`.
    case likeAdded = "LikeAdded"
    /// A user took a like back: `LikeRemoved`.
    case likeRemoved = "LikeRemoved"
    /// A user followed another: `Followed`.
    case followed = "Followed"
    /// A user stopped following another: `Unfollowed`.
    case unfollowed = "Unfollowed"
    /// A post was reported: `PostReported`.
    case postReported = "PostReported"
    /// An operator removed a post: `PostRemoved`.
    case postRemoved = "PostRemoved"
    /// An operator dismissed the reports standing against a post: `ReportsDismissed`.
    case reportsDismissed = "ReportsDismissed"
    /// A user was erased (their key destroyed): `UserErased`.
    case userErased = "UserErased"
    /// An operator issued a password-reset token: `PasswordResetRequested`.
    case passwordResetRequested = "PasswordResetRequested"
    /// A password was set (with a reset token or the current password): `PasswordChanged`.
    case passwordChanged = "PasswordChanged"
    /// A user changed their email: `EmailChanged`.
    case emailChanged = "EmailChanged"
    /// A user saved a post to their bookmarks: `Bookmarked`.
    case bookmarked = "Bookmarked"
    /// A user took a post out of their bookmarks: `Unbookmarked`.
    case unbookmarked = "Unbookmarked"
    /// A user blocked another: `Blocked`.
    case blocked = "Blocked"
    /// A user lifted a block: `Unblocked`.
    case unblocked = "Unblocked"

    /// The schema version new events of this type are written with. Version 2 of the types
    /// with personal fields stores those fields sealed with the owner's key (crypto-shredding);
    /// version 1 stored them in clear and is still read (upcast) by the payload codec.
    /// `PasswordChanged` v2 may have no reset token (a change with the current password).
    /// `SignInFailed` v3 adds the attempt's origin. `ProfileUpdated` v3 adds the profile photo's
    /// change (the ids of the squares produced, or its removal). `ProfileUpdated` v4 adds the
    /// `discoverable` setting's change.
    public var currentVersion: UInt8 {
        switch self {
        case .profileUpdated: 4
        case .signInFailed, .postAdded: 3
        case .userCreated, .commentAdded, .postReported, .passwordChanged: 2
        case .signedIn, .signedOut, .postPlaced, .postDeleted, .commentDeleted, .likeAdded, .likeRemoved, .followed, .unfollowed,
             .userErased, .passwordResetRequested, .emailChanged, .bookmarked, .unbookmarked, .blocked, .unblocked,
             .postRemoved, .reportsDismissed, .postImageProcessed:
            1
        }
    }
}

/// The payload of `UserCreated`.
public struct UserCreated: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// The username (normalised).
    public var username: String
    /// Lowercased; `nil` for imported accounts without an email.
    public var email: String?
    /// argon2id string; `nil` for accounts that must set a password first.
    public var passwordHash: String?
    /// The bio ("" clears it).
    public var bio: String?
    /// The url ("" clears it).
    public var url: String?
    /// A `UserCreated` payload.
    public init(userId: UserID, username: String, email: String?, passwordHash: String?, bio: String? = nil, url: String? = nil) {
        self.userId = userId; self.username = username; self.email = email
        self.passwordHash = passwordHash; self.bio = bio; self.url = url
    }
}

/// Only the fields that changed are present.
public struct ProfileUpdated: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// The username (normalised).
    public var username: String?
    /// The bio ("" clears it).
    public var bio: String?
    /// The url ("" clears it).
    public var url: String?
    /// The profile photo's change: `.set` with the squares produced, `.removed`; `nil` keeps it.
    public var avatar: AvatarChange?
    /// The new value of the `discoverable` setting (v4: whether others may find the user by
    /// email); `nil` keeps it.
    public var discoverable: Bool?
    /// A `ProfileUpdated` payload.
    public init(userId: UserID, username: String? = nil, bio: String? = nil, url: String? = nil, avatar: AvatarChange? = nil,
                discoverable: Bool? = nil) {
        self.userId = userId; self.username = username; self.bio = bio; self.url = url; self.avatar = avatar
        self.discoverable = discoverable
    }
}

/// A profile photo as stored: two squares, by content address.
public struct Avatar: Equatable, Sendable {
    /// The 320 px square.
    public var large: ImageID
    /// The 96 px square.
    public var small: ImageID
    /// An avatar of two stored squares.
    public init(large: ImageID, small: ImageID) { self.large = large; self.small = small }
}

/// How a `ProfileUpdated` changed the profile photo.
public enum AvatarChange: Equatable, Sendable {
    /// A new photo, as the image pipeline produced it.
    case set(Avatar)
    /// The photo was removed.
    case removed
}

/// The payload of `SignedIn`.
public struct SignedIn: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// Hex BLAKE2b-256 of the session token; the token itself is never recorded.
    public var sessionHash: String
    /// When it expires (ms since 1970).
    public var expiresAt: Int64
    /// A `SignedIn` payload.
    public init(userId: UserID, sessionHash: String, expiresAt: Int64) {
        self.userId = userId; self.sessionHash = sessionHash; self.expiresAt = expiresAt
    }
}

/// The payload of `SignedOut`.
public struct SignedOut: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// Hex BLAKE2b-256 of the session token; the token itself is never recorded.
    public var sessionHash: String
    /// A `SignedOut` payload.
    public init(userId: UserID, sessionHash: String) { self.userId = userId; self.sessionHash = sessionHash }
}

/// A failed sign-in. The email is recorded only as a keyed hash (it may not even belong to a
/// user); `userId` is set when it does. `origin` is a keyed hash of where the attempt came
/// from (the HTTP client's address; absent for local tools): failures are limited per email
/// *and* origin, so nobody can lock an owner out by failing on purpose from elsewhere.
public struct SignInFailed: Equatable, Sendable {
    /// A keyed hash of the email tried.
    public var emailHash: String
    /// The user concerned.
    public var userId: UserID?
    /// A keyed hash of where the attempt came from (absent for local tools).
    public var origin: String?
    /// A `SignInFailed` payload.
    public init(emailHash: String, userId: UserID? = nil, origin: String? = nil) {
        self.emailHash = emailHash; self.userId = userId; self.origin = origin
    }

    /// What failures are counted under: the email's hash, with the origin's when known.
    public var limiterKey: String { SignInFailed.limiterKey(emailHash: emailHash, origin: origin) }

    /// The key failures from `emailHash` and `origin` are counted under.
    public static func limiterKey(emailHash: String, origin: String?) -> String {
        origin.map { emailHash + "@" + $0 } ?? emailHash
    }
}

/// A one-time token to set a password was issued (to the user, or by an operator for an
/// imported account that has none). Only the token's hash is recorded.
public struct PasswordResetRequested: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// Hex BLAKE2b-256 of the token; the token itself is never recorded.
    public var tokenHash: String
    /// When it expires (ms since 1970).
    public var expiresAt: Int64
    /// A `PasswordResetRequested` payload.
    public init(userId: UserID, tokenHash: String, expiresAt: Int64) {
        self.userId = userId; self.tokenHash = tokenHash; self.expiresAt = expiresAt
    }
}

/// A password was set, with a reset token (and, optionally, the account's email) or with the
/// current password. Every session and reset token the user had before it ends.
public struct PasswordChanged: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// The argon2id hash (never the password; redacted in every JSON form).
    public var passwordHash: String?
    /// The email (lowercased).
    public var email: String?
    /// The reset token used (now spent); `nil` when the current password was given instead.
    public var resetTokenHash: String?
    /// A `PasswordChanged` payload.
    public init(userId: UserID, passwordHash: String?, email: String?, resetTokenHash: String?) {
        self.userId = userId; self.passwordHash = passwordHash; self.email = email; self.resetTokenHash = resetTokenHash
    }
}

/// A user changed their email (giving their password). The old email is free again.
public struct EmailChanged: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// Lowercased; `nil` only when read back after the user was erased.
    public var email: String?
    /// A `EmailChanged` payload.
    public init(userId: UserID, email: String?) { self.userId = userId; self.email = email }
}

/// A user's personal data was erased: the key that sealed it is destroyed.
public struct UserErased: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// A `UserErased` payload.
    public init(userId: UserID) { self.userId = userId }
}

/// The payload of `PostAdded`.
public struct PostAdded: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's or comment's author.
    public var authorId: UserID
    /// The photo's content address.
    public var imageId: ImageID
    /// The caption, if any.
    public var caption: String?
    /// The caption's hashtags (normalised, without `#`).
    public var hashtags: [String]
    /// The `full` variant's width and height after orientation (v3; `nil` for older posts,
    /// whose single image is served as it was stored).
    public var width: Int?
    /// See `width`.
    public var height: Int?
    /// The variants produced (v3): `full` is `imageId`.
    public var variants: ImageVariants?
    /// A `PostAdded` payload.
    public init(postId: PostID, authorId: UserID, imageId: ImageID, caption: String?, hashtags: [String],
                width: Int? = nil, height: Int? = nil, variants: ImageVariants? = nil) {
        self.postId = postId; self.authorId = authorId; self.imageId = imageId
        self.caption = caption; self.hashtags = hashtags
        self.width = width; self.height = height; self.variants = variants
    }
}

/// The payload of `PostPlaced`: where a post's photo was taken. Appended right after the
/// post's `PostAdded`, in the same commit; the place is sealed with the author's key.
public struct PostPlaced: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's author (whose key seals the place).
    public var authorId: UserID
    /// The place; `nil` only when read back after the author was erased.
    public var place: Place?
    /// A `PostPlaced` payload.
    public init(postId: PostID, authorId: UserID, place: Place?) {
        self.postId = postId; self.authorId = authorId; self.place = place
    }
}

/// The payload of `PostImageProcessed`: the image of a post written before the image pipeline
/// (stored as uploaded) went through it (`timeline media reprocess`). What was produced is
/// recorded, so replaying the log never decodes or encodes an image; from then on the post's
/// `image` is `variants.full`. Recorded by the operator, in the post's stream.
public struct PostImageProcessed: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's author (the variants are sealed with their key, like every image of theirs).
    public var authorId: UserID
    /// The image the variants were made from (the post's `image` until now; still stored).
    public var sourceImageId: ImageID
    /// The `full` variant's width in pixels, after orientation.
    public var width: Int
    /// The `full` variant's height in pixels, after orientation.
    public var height: Int
    /// The variants produced.
    public var variants: ImageVariants
    /// A `PostImageProcessed` payload.
    public init(postId: PostID, authorId: UserID, sourceImageId: ImageID, width: Int, height: Int, variants: ImageVariants) {
        self.postId = postId; self.authorId = authorId; self.sourceImageId = sourceImageId
        self.width = width; self.height = height; self.variants = variants
    }
}

/// The payload of `PostDeleted`.
public struct PostDeleted: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's or comment's author.
    public var authorId: UserID
    /// A `PostDeleted` payload.
    public init(postId: PostID, authorId: UserID) { self.postId = postId; self.authorId = authorId }
}

/// The payload of `CommentAdded`.
public struct CommentAdded: Equatable, Sendable {
    /// The comment concerned.
    public var commentId: CommentID
    /// The post concerned.
    public var postId: PostID
    /// The post's or comment's author.
    public var authorId: UserID
    /// The comment's text.
    public var text: String
    /// A `CommentAdded` payload.
    public init(commentId: CommentID, postId: PostID, authorId: UserID, text: String) {
        self.commentId = commentId; self.postId = postId; self.authorId = authorId; self.text = text
    }
}

/// The payload of `CommentDeleted`.
public struct CommentDeleted: Equatable, Sendable {
    /// The comment concerned.
    public var commentId: CommentID
    /// The post concerned.
    public var postId: PostID
    /// A `CommentDeleted` payload.
    public init(commentId: CommentID, postId: PostID) { self.commentId = commentId; self.postId = postId }
}

/// Payload of `LikeAdded` and `LikeRemoved`.
public struct Like: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The user concerned.
    public var userId: UserID
    /// A `Like` payload.
    public init(postId: PostID, userId: UserID) { self.postId = postId; self.userId = userId }
}

/// Payload of `Followed` and `Unfollowed`.
public struct Follow: Equatable, Sendable {
    /// Who follows.
    public var followerId: UserID
    /// Who is followed.
    public var followeeId: UserID
    /// A `Follow` payload.
    public init(followerId: UserID, followeeId: UserID) { self.followerId = followerId; self.followeeId = followeeId }
}

/// Payload of `Bookmarked` and `Unbookmarked`: private to the user (recorded in their own
/// stream, listed only to them).
public struct Bookmark: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// Whose bookmark it is.
    public var userId: UserID
    /// A `Bookmark` payload.
    public init(postId: PostID, userId: UserID) { self.postId = postId; self.userId = userId }
}

/// Payload of `Blocked` and `Unblocked`. While a block stands neither user can follow the
/// other, nor like or comment on the other's posts, nor find the other in lists.
public struct Block: Equatable, Sendable {
    /// Who blocks.
    public var blockerId: UserID
    /// Who is blocked.
    public var blockedId: UserID
    /// A `Block` payload.
    public init(blockerId: UserID, blockedId: UserID) { self.blockerId = blockerId; self.blockedId = blockedId }
}

/// The payload of `PostReported`.
public struct PostReported: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// Who reported it.
    public var reporterId: UserID
    /// Why.
    public var reason: String
    /// A `PostReported` payload.
    public init(postId: PostID, reporterId: UserID, reason: String) {
        self.postId = postId; self.reporterId = reporterId; self.reason = reason
    }
}

/// The payload of `PostRemoved`: an operator took a post down. It leaves every list as a
/// deleted post does, and its author's activity says why.
public struct PostRemoved: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's author (whose activity gets the reason).
    public var authorId: UserID
    /// Why, as the operator wrote it (sealed with the author's key; "" once they are erased).
    public var reason: String
    /// A `PostRemoved` payload.
    public init(postId: PostID, authorId: UserID, reason: String) {
        self.postId = postId; self.authorId = authorId; self.reason = reason
    }
}

/// The payload of `ReportsDismissed`: an operator found nothing wrong with a post. The reports
/// made before no longer count (the post leaves the queue and is shown again); their reporters
/// cannot report it again, other users can.
public struct ReportsDismissed: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// A `ReportsDismissed` payload.
    public init(postId: PostID) { self.postId = postId }
}
