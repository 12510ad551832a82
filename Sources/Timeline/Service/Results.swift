@_exported import TimelineDomain

/// A user's public profile.
public struct Profile: Sendable, Equatable {
    public var id: UserID
    public var username: String
    public var bio: String?
    public var url: String?
    public var postCount: Int
    public var followerCount: Int
    public var followingCount: Int
    /// Whether the viewer follows this user (`nil` when the query had no viewer).
    public var followedByViewer: Bool?

    init(_ u: UserRecord, followedByViewer: Bool? = nil) {
        id = u.id; username = u.username; bio = u.bio; url = u.url
        postCount = u.postCount; followerCount = u.followerCount; followingCount = u.followingCount
        self.followedByViewer = followedByViewer
    }
}

/// A post as lists, timelines and its detail show it: enough to draw its row without another
/// request.
public struct Post: Sendable, Equatable {
    public var id: PostID
    public var author: UserID
    public var authorUsername: String
    public var image: ImageID
    public var caption: String?
    public var hashtags: [String]
    public var likeCount: Int
    public var commentCount: Int
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// Whether the viewer liked it (`nil` when the query had no viewer).
    public var likedByViewer: Bool?

    init(_ p: PostRecord, authorUsername: String, likedByViewer: Bool?) {
        id = p.id; author = p.author; self.authorUsername = authorUsername; image = p.image; caption = p.caption
        hashtags = p.hashtags; likeCount = p.likeCount; commentCount = p.commentCount; createdAt = p.createdAt
        self.likedByViewer = likedByViewer
    }
}

public struct Comment: Sendable, Equatable {
    public var id: CommentID
    public var post: PostID
    public var author: UserID
    public var authorUsername: String
    public var text: String
    /// Milliseconds since 1970.
    public var createdAt: Int64

    init(_ c: CommentRecord, authorUsername: String) {
        id = c.id; post = c.post; author = c.author; self.authorUsername = authorUsername; text = c.text; createdAt = c.createdAt
    }
}

/// A post with its comments (oldest first, paginated) and whether the viewer liked it.
public struct PostDetail: Sendable, Equatable {
    public var post: Post
    public var comments: Page<Comment>
    public var likedByViewer: Bool
}

/// Something that happened to a user.
public struct ActivityItem: Sendable, Equatable {
    public enum Kind: String, Sendable { case comment, like, follow }
    /// The item's cursor (pass as `before` to continue after it).
    public var id: String
    public var kind: Kind
    public var actor: UserID
    public var actorUsername: String
    public var post: PostID?
    public var comment: CommentID?
    /// Milliseconds since 1970.
    public var at: Int64
}

/// A stored image.
public struct StoredImage: Sendable, Equatable {
    public var id: ImageID
    public var mediaType: MediaType
    public var bytes: [UInt8]
}

/// One page of a list, and the cursor of the next page (`nil` after the last item).
public struct Page<Item: Sendable & Equatable>: Sendable, Equatable {
    public var items: [Item]
    public var next: String?
}

/// Which page to read: at most `limit` items (1–100, default 20) after the cursor `before`
/// (exclusive), which is the `next` of the previous page.
public struct PageRequest: Sendable, Equatable {
    public static let defaultLimit = 20
    public static let maxLimit = 100
    public var limit: Int
    public var before: String?

    public init(limit: Int = PageRequest.defaultLimit, before: String? = nil) {
        self.limit = limit
        self.before = before
    }

    func validated() throws(TimelineError) -> PageRequest {
        guard (1...Self.maxLimit).contains(limit) else { throw .invalid("limit", "limit must be 1–\(Self.maxLimit)") }
        if let before, before.isEmpty || before.utf8.count > 256 || before.utf8.contains(0) {
            throw .invalid("before", "before is not a valid cursor")
        }
        return self
    }
}

/// What a successful command returns.
public enum CommandResult: Sendable, Equatable {
    case user(Profile)
    /// A new session: the token (shown once, never stored) and the user.
    case session(token: String, user: Profile)
    case post(Post)
    case comment(Comment)
    /// A one-time password-reset token (shown once, stored only as a hash).
    case token(String)
    /// For follow/unfollow/like/unlike: whether anything changed.
    case changed(Bool)
    case done
}

/// Who issues a command.
public enum Caller: Sendable, Equatable {
    /// A trusted local operator acting as this user id.
    case user(String)
    /// A session token from `signIn`.
    case session(String)
    /// A trusted local operator acting as no user (e.g. `timeline erase-user`).
    case `operator`
    case anonymous
}
