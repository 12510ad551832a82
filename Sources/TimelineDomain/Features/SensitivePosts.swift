import JSONModel

// Sensitive photos: `addPost` with `sensitive` (or a content `warning`) records
// `PostMarkedSensitive` right after the post's `PostAdded`, in the same commit, so `PostAdded`'s
// encoding stays as it was (as `PostPlaced` does for a place). Apps blur such a photo until the
// viewer asks to see it, showing the warning.

/// The payload of `PostMarkedSensitive`: the post's photo is sensitive, with an optional content
/// warning (sealed with the author's key, as the caption is).
public struct PostMarkedSensitive: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's author (whose key seals the warning).
    public var authorId: UserID
    /// What the viewer is warned of, if the author said (`nil` too once the author is erased).
    public var warning: String?
    /// A `PostMarkedSensitive` payload.
    public init(postId: PostID, authorId: UserID, warning: String?) {
        self.postId = postId
        self.authorId = authorId
        self.warning = warning
    }
}

extension PostMarkedSensitive: EventPayload {
    /// The aggregate `PostMarkedSensitive` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `PostMarkedSensitive` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `PostMarkedSensitive` event is about: `postId`.
    package var post: PostID? { postId }

    /// Writes a `PostMarkedSensitive` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        try sealer.seal(authorId, into: &w) { $0.optionalString(warning) }
    }

    /// Reads a stored `PostMarkedSensitive` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let post = PostID(try r.string()), author = UserID(try r.string())
        let warning = try opener.personal(author, from: &r) { try $0.optionalString() } ?? nil
        self.init(postId: post, authorId: author, warning: warning)
    }

    /// A one-line human summary of a `PostMarkedSensitive` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) marked \(postId) sensitive" + (warning.map { ": \(clip($0))" } ?? "")
    }
}

extension Validation {
    /// The longest content warning, in characters (Pixelfed's and Mastodon's are short texts).
    public static let maxWarning = 200

    /// A content warning: text of at most `maxWarning` characters; empty is none.
    public static func warning(_ raw: String) throws(TimelineError) -> String? {
        let text = try Validation.text(raw, field: "warning", max: maxWarning, allowEmpty: true)
        return text.allSatisfy(\.isWhitespace) ? nil : text
    }
}

// MARK: - JSON Schemas of the payloads

extension PostMarkedSensitive {
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "warning": "The content warning, if any (absent too once the author was erased)."
    ]
}
