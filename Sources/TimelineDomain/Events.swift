/// Every fact Timeline records. Each case's payload is an immutable value; the type names are
/// stable public names (`UserCreated`, …) and each has a schema version.
public enum Event: Equatable, Sendable {
    case userCreated(UserCreated)
    case profileUpdated(ProfileUpdated)
    case signedIn(SignedIn)
    case signedOut(SignedOut)
    case signInFailed(SignInFailed)
    case postAdded(PostAdded)
    case postDeleted(PostDeleted)
    case commentAdded(CommentAdded)
    case commentDeleted(CommentDeleted)
    case likeAdded(Like)
    case likeRemoved(Like)
    case followed(Follow)
    case unfollowed(Follow)
    case postReported(PostReported)
    case userErased(UserErased)
    case passwordResetRequested(PasswordResetRequested)
    case passwordChanged(PasswordChanged)
    case emailChanged(EmailChanged)

    /// The stable type name stored in the envelope.
    public var typeName: EventType {
        switch self {
        case .userCreated: .userCreated
        case .profileUpdated: .profileUpdated
        case .signedIn: .signedIn
        case .signedOut: .signedOut
        case .signInFailed: .signInFailed
        case .postAdded: .postAdded
        case .postDeleted: .postDeleted
        case .commentAdded: .commentAdded
        case .commentDeleted: .commentDeleted
        case .likeAdded: .likeAdded
        case .likeRemoved: .likeRemoved
        case .followed: .followed
        case .unfollowed: .unfollowed
        case .postReported: .postReported
        case .userErased: .userErased
        case .passwordResetRequested: .passwordResetRequested
        case .passwordChanged: .passwordChanged
        case .emailChanged: .emailChanged
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
        case .postDeleted(let e): "post-\(e.postId)"
        case .commentAdded(let e): "post-\(e.postId)"
        case .commentDeleted(let e): "post-\(e.postId)"
        case .likeAdded(let e), .likeRemoved(let e): "post-\(e.postId)"
        case .followed(let e), .unfollowed(let e): "user-\(e.followerId)"
        case .postReported(let e): "post-\(e.postId)"
        case .userErased(let e): "user-\(e.userId)"
        case .passwordResetRequested(let e): "user-\(e.userId)"
        case .passwordChanged(let e): "user-\(e.userId)"
        case .emailChanged(let e): "user-\(e.userId)"
        }
    }
}

/// Stable event type names. The raw value is the public name.
public enum EventType: String, CaseIterable, Sendable {
    case userCreated = "UserCreated"
    case profileUpdated = "ProfileUpdated"
    case signedIn = "SignedIn"
    case signedOut = "SignedOut"
    case signInFailed = "SignInFailed"
    case postAdded = "PostAdded"
    case postDeleted = "PostDeleted"
    case commentAdded = "CommentAdded"
    case commentDeleted = "CommentDeleted"
    case likeAdded = "LikeAdded"
    case likeRemoved = "LikeRemoved"
    case followed = "Followed"
    case unfollowed = "Unfollowed"
    case postReported = "PostReported"
    case userErased = "UserErased"
    case passwordResetRequested = "PasswordResetRequested"
    case passwordChanged = "PasswordChanged"
    case emailChanged = "EmailChanged"

    /// The schema version new events of this type are written with. Version 2 of the types
    /// with personal fields stores those fields sealed with the owner's key (crypto-shredding);
    /// version 1 stored them in clear and is still read (upcast) by the payload codec.
    /// `PasswordChanged` v2 may have no reset token (a change with the current password).
    /// `SignInFailed` v3 adds the attempt's origin.
    public var currentVersion: UInt8 {
        switch self {
        case .signInFailed: 3
        case .userCreated, .profileUpdated, .postAdded, .commentAdded, .postReported, .passwordChanged: 2
        case .signedIn, .signedOut, .postDeleted, .commentDeleted, .likeAdded, .likeRemoved, .followed, .unfollowed,
             .userErased, .passwordResetRequested, .emailChanged:
            1
        }
    }
}

public struct UserCreated: Equatable, Sendable {
    public var userId: UserID
    public var username: String
    /// Lowercased; `nil` for imported accounts without an email.
    public var email: String?
    /// argon2id string; `nil` for accounts that must set a password first.
    public var passwordHash: String?
    public var bio: String?
    public var url: String?
    public init(userId: UserID, username: String, email: String?, passwordHash: String?, bio: String? = nil, url: String? = nil) {
        self.userId = userId; self.username = username; self.email = email
        self.passwordHash = passwordHash; self.bio = bio; self.url = url
    }
}

/// Only the fields that changed are present.
public struct ProfileUpdated: Equatable, Sendable {
    public var userId: UserID
    public var username: String?
    public var bio: String?
    public var url: String?
    public init(userId: UserID, username: String? = nil, bio: String? = nil, url: String? = nil) {
        self.userId = userId; self.username = username; self.bio = bio; self.url = url
    }
}

public struct SignedIn: Equatable, Sendable {
    public var userId: UserID
    /// Hex BLAKE2b-256 of the session token; the token itself is never recorded.
    public var sessionHash: String
    public var expiresAt: Int64
    public init(userId: UserID, sessionHash: String, expiresAt: Int64) {
        self.userId = userId; self.sessionHash = sessionHash; self.expiresAt = expiresAt
    }
}

public struct SignedOut: Equatable, Sendable {
    public var userId: UserID
    public var sessionHash: String
    public init(userId: UserID, sessionHash: String) { self.userId = userId; self.sessionHash = sessionHash }
}

/// A failed sign-in. The email is recorded only as a keyed hash (it may not even belong to a
/// user); `userId` is set when it does. `origin` is a keyed hash of where the attempt came
/// from (the HTTP client's address; absent for local tools): failures are limited per email
/// *and* origin, so nobody can lock an owner out by failing on purpose from elsewhere.
public struct SignInFailed: Equatable, Sendable {
    public var emailHash: String
    public var userId: UserID?
    public var origin: String?
    public init(emailHash: String, userId: UserID? = nil, origin: String? = nil) {
        self.emailHash = emailHash; self.userId = userId; self.origin = origin
    }

    /// What failures are counted under: the email's hash, with the origin's when known.
    public var limiterKey: String { SignInFailed.limiterKey(emailHash: emailHash, origin: origin) }

    public static func limiterKey(emailHash: String, origin: String?) -> String {
        origin.map { emailHash + "@" + $0 } ?? emailHash
    }
}

/// A one-time token to set a password was issued (to the user, or by an operator for an
/// imported account that has none). Only the token's hash is recorded.
public struct PasswordResetRequested: Equatable, Sendable {
    public var userId: UserID
    public var tokenHash: String
    public var expiresAt: Int64
    public init(userId: UserID, tokenHash: String, expiresAt: Int64) {
        self.userId = userId; self.tokenHash = tokenHash; self.expiresAt = expiresAt
    }
}

/// A password was set, with a reset token (and, optionally, the account's email) or with the
/// current password. Every session and reset token the user had before it ends.
public struct PasswordChanged: Equatable, Sendable {
    public var userId: UserID
    public var passwordHash: String?
    public var email: String?
    /// The reset token used (now spent); `nil` when the current password was given instead.
    public var resetTokenHash: String?
    public init(userId: UserID, passwordHash: String?, email: String?, resetTokenHash: String?) {
        self.userId = userId; self.passwordHash = passwordHash; self.email = email; self.resetTokenHash = resetTokenHash
    }
}

/// A user changed their email (giving their password). The old email is free again.
public struct EmailChanged: Equatable, Sendable {
    public var userId: UserID
    /// Lowercased; `nil` only when read back after the user was erased.
    public var email: String?
    public init(userId: UserID, email: String?) { self.userId = userId; self.email = email }
}

/// A user's personal data was erased: the key that sealed it is destroyed.
public struct UserErased: Equatable, Sendable {
    public var userId: UserID
    public init(userId: UserID) { self.userId = userId }
}

public struct PostAdded: Equatable, Sendable {
    public var postId: PostID
    public var authorId: UserID
    public var imageId: ImageID
    public var caption: String?
    public var hashtags: [String]
    public init(postId: PostID, authorId: UserID, imageId: ImageID, caption: String?, hashtags: [String]) {
        self.postId = postId; self.authorId = authorId; self.imageId = imageId
        self.caption = caption; self.hashtags = hashtags
    }
}

public struct PostDeleted: Equatable, Sendable {
    public var postId: PostID
    public var authorId: UserID
    public init(postId: PostID, authorId: UserID) { self.postId = postId; self.authorId = authorId }
}

public struct CommentAdded: Equatable, Sendable {
    public var commentId: CommentID
    public var postId: PostID
    public var authorId: UserID
    public var text: String
    public init(commentId: CommentID, postId: PostID, authorId: UserID, text: String) {
        self.commentId = commentId; self.postId = postId; self.authorId = authorId; self.text = text
    }
}

public struct CommentDeleted: Equatable, Sendable {
    public var commentId: CommentID
    public var postId: PostID
    public init(commentId: CommentID, postId: PostID) { self.commentId = commentId; self.postId = postId }
}

/// Payload of `LikeAdded` and `LikeRemoved`.
public struct Like: Equatable, Sendable {
    public var postId: PostID
    public var userId: UserID
    public init(postId: PostID, userId: UserID) { self.postId = postId; self.userId = userId }
}

/// Payload of `Followed` and `Unfollowed`.
public struct Follow: Equatable, Sendable {
    public var followerId: UserID
    public var followeeId: UserID
    public init(followerId: UserID, followeeId: UserID) { self.followerId = followerId; self.followeeId = followeeId }
}

public struct PostReported: Equatable, Sendable {
    public var postId: PostID
    public var reporterId: UserID
    public var reason: String
    public init(postId: PostID, reporterId: UserID, reason: String) {
        self.postId = postId; self.reporterId = reporterId; self.reason = reason
    }
}
