import TimelineDomain

/// Binary encoding of event payloads, per type and schema version. Decoding an older version
/// upcasts it to the current shape here, so the rest of the code only sees current events.
/// (Every type is at version 1 today; a v2 adds a `case (.type, 1)` that fills new fields.)
enum PayloadCodec {
    static func encode(_ event: Event) -> [UInt8] {
        var w = ByteWriter(capacity: 96)
        switch event {
        case .userCreated(let e):
            w.string(e.userId.rawValue); w.string(e.username); w.optionalString(e.email)
            w.optionalString(e.passwordHash); w.optionalString(e.bio); w.optionalString(e.url)
        case .profileUpdated(let e):
            w.string(e.userId.rawValue); w.optionalString(e.username); w.optionalString(e.bio); w.optionalString(e.url)
        case .signedIn(let e):
            w.string(e.userId.rawValue); w.string(e.sessionHash); w.int64(e.expiresAt)
        case .signedOut(let e):
            w.string(e.userId.rawValue); w.string(e.sessionHash)
        case .signInFailed(let e):
            w.string(e.email)
        case .postAdded(let e):
            w.string(e.postId.rawValue); w.string(e.authorId.rawValue); w.string(e.imageId.rawValue)
            w.optionalString(e.caption); w.strings(e.hashtags)
        case .postDeleted(let e):
            w.string(e.postId.rawValue); w.string(e.authorId.rawValue)
        case .commentAdded(let e):
            w.string(e.commentId.rawValue); w.string(e.postId.rawValue); w.string(e.authorId.rawValue); w.string(e.text)
        case .commentDeleted(let e):
            w.string(e.commentId.rawValue); w.string(e.postId.rawValue)
        case .likeAdded(let e), .likeRemoved(let e):
            w.string(e.postId.rawValue); w.string(e.userId.rawValue)
        case .followed(let e), .unfollowed(let e):
            w.string(e.followerId.rawValue); w.string(e.followeeId.rawValue)
        case .postReported(let e):
            w.string(e.postId.rawValue); w.string(e.reporterId.rawValue); w.string(e.reason)
        }
        return w.bytes
    }

    static func decode(type: EventType, version: UInt8, _ bytes: [UInt8]) throws(CorruptRecord) -> Event {
        guard version == 1 else { throw CorruptRecord(message: "\(type.rawValue) v\(version) is newer than this build") }
        var r = ByteReader(bytes)
        let event: Event
        switch type {
        case .userCreated:
            event = .userCreated(UserCreated(userId: UserID(try r.string()), username: try r.string(), email: try r.optionalString(),
                                             passwordHash: try r.optionalString(), bio: try r.optionalString(), url: try r.optionalString()))
        case .profileUpdated:
            event = .profileUpdated(ProfileUpdated(userId: UserID(try r.string()), username: try r.optionalString(),
                                                   bio: try r.optionalString(), url: try r.optionalString()))
        case .signedIn:
            event = .signedIn(SignedIn(userId: UserID(try r.string()), sessionHash: try r.string(), expiresAt: try r.int64()))
        case .signedOut:
            event = .signedOut(SignedOut(userId: UserID(try r.string()), sessionHash: try r.string()))
        case .signInFailed:
            event = .signInFailed(SignInFailed(email: try r.string()))
        case .postAdded:
            event = .postAdded(PostAdded(postId: PostID(try r.string()), authorId: UserID(try r.string()), imageId: ImageID(try r.string()),
                                         caption: try r.optionalString(), hashtags: try r.strings()))
        case .postDeleted:
            event = .postDeleted(PostDeleted(postId: PostID(try r.string()), authorId: UserID(try r.string())))
        case .commentAdded:
            event = .commentAdded(CommentAdded(commentId: CommentID(try r.string()), postId: PostID(try r.string()),
                                               authorId: UserID(try r.string()), text: try r.string()))
        case .commentDeleted:
            event = .commentDeleted(CommentDeleted(commentId: CommentID(try r.string()), postId: PostID(try r.string())))
        case .likeAdded:
            event = .likeAdded(Like(postId: PostID(try r.string()), userId: UserID(try r.string())))
        case .likeRemoved:
            event = .likeRemoved(Like(postId: PostID(try r.string()), userId: UserID(try r.string())))
        case .followed:
            event = .followed(Follow(followerId: UserID(try r.string()), followeeId: UserID(try r.string())))
        case .unfollowed:
            event = .unfollowed(Follow(followerId: UserID(try r.string()), followeeId: UserID(try r.string())))
        case .postReported:
            event = .postReported(PostReported(postId: PostID(try r.string()), reporterId: UserID(try r.string()), reason: try r.string()))
        }
        try r.expectEnd()
        return event
    }
}
