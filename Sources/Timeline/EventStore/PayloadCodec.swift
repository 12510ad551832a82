import Sodium
import TimelineDomain

/// Where the payload codec finds the keys that seal personal fields.
protocol PayloadKeys: Sendable {
    /// The user's key, or `nil` once they are erased; throws when it could not be read.
    func key(for user: UserID) throws(KeyStoreError) -> [UInt8]?
    /// The user's key, created if they have none yet.
    func ensureKey(for user: UserID) throws -> [UInt8]
    /// Keyed hash of an email (upcasts v1 `SignInFailed`, which held the email in clear).
    func emailHash(_ email: String) -> String
}

/// Binary encoding of event payloads, per type and schema version.
///
/// Personal fields (email, password hash, bio, url, caption and hashtags, a post's place,
/// comment text, report reason, and the reason the operator gave for removing a post, sealed
/// with its author's key) are written in one section sealed with the owner's key
/// (XChaCha20-Poly1305, bound to the owner's id). When the key has been destroyed the section
/// cannot be opened: the
/// event decodes with those fields absent and `erased` set, and the hash chain — computed over
/// the sealed bytes — still verifies.
///
/// Decoding an older version upcasts it to the current shape here, so the rest of the code only
/// sees current events: version 1 of the sealed types held the same fields in clear.
enum PayloadCodec {
    /// Types whose version 1 held personal fields in clear (version 2 seals them).
    static let legacyPlainV1: Set<EventType> = [.userCreated, .profileUpdated, .postAdded, .commentAdded, .postReported]

    static func encode(_ event: Event, keys: any PayloadKeys) throws -> [UInt8] {
        var w = ByteWriter(capacity: 96)
        func seal(_ owner: UserID, _ fill: (inout ByteWriter) -> Void) throws {
            var inner = ByteWriter()
            fill(&inner)
            w.blob(Sodium.seal(inner.bytes, key: try keys.ensureKey(for: owner), context: Array(owner.rawValue.utf8)))
        }
        switch event {
        case .userCreated(let e):
            w.string(e.userId.rawValue); w.string(e.username)
            try seal(e.userId) { $0.optionalString(e.email); $0.optionalString(e.passwordHash); $0.optionalString(e.bio); $0.optionalString(e.url) }
        case .profileUpdated(let e):
            w.string(e.userId.rawValue); w.optionalString(e.username)
            try seal(e.userId) { $0.optionalString(e.bio); $0.optionalString(e.url) }
            // v3 appends the photo's change (1: removed, 2: the squares' ids), v4 then the
            // discoverable setting's (3: off, 4: on); without them the payload is encoded
            // exactly as v2 was.
            switch e.avatar {
            case nil: break
            case .removed?: w.u8(1)
            case .set(let avatar)?: w.u8(2); w.string(avatar.large.rawValue); w.string(avatar.small.rawValue)
            }
            if let discoverable = e.discoverable { w.u8(discoverable ? 4 : 3) }
        case .signedIn(let e):
            w.string(e.userId.rawValue); w.string(e.sessionHash); w.int64(e.expiresAt)
        case .signedOut(let e):
            w.string(e.userId.rawValue); w.string(e.sessionHash)
        case .signInFailed(let e):
            w.string(e.emailHash); w.optionalString(e.userId?.rawValue); w.optionalString(e.origin)
        case .postAdded(let e):
            w.string(e.postId.rawValue); w.string(e.authorId.rawValue); w.string(e.imageId.rawValue)
            try seal(e.authorId) { $0.optionalString(e.caption); $0.strings(e.hashtags) }
            // v3 appends what the image pipeline produced, so a rebuild never re-encodes; a post
            // without it (an import's image, stored as it came) is encoded exactly as v2 was.
            if let variants = e.variants, let width = e.width, let height = e.height {
                w.int(width); w.int(height); w.string(variants.feed.rawValue); w.string(variants.thumb.rawValue)
            }
        case .postPlaced(let e):
            w.string(e.postId.rawValue); w.string(e.authorId.rawValue)
            guard let place = e.place else { throw CorruptRecord(message: "PostPlaced without its place") }
            try seal(e.authorId) { $0.double(place.latitude); $0.double(place.longitude); $0.optionalString(place.name) }
        case .postImageProcessed(let e):
            w.string(e.postId.rawValue); w.string(e.authorId.rawValue); w.string(e.sourceImageId.rawValue)
            w.int(e.width); w.int(e.height)
            w.string(e.variants.full.rawValue); w.string(e.variants.feed.rawValue); w.string(e.variants.thumb.rawValue)
        case .postDeleted(let e):
            w.string(e.postId.rawValue); w.string(e.authorId.rawValue)
        case .commentAdded(let e):
            w.string(e.commentId.rawValue); w.string(e.postId.rawValue); w.string(e.authorId.rawValue)
            try seal(e.authorId) { $0.string(e.text) }
        case .commentDeleted(let e):
            w.string(e.commentId.rawValue); w.string(e.postId.rawValue)
        case .likeAdded(let e), .likeRemoved(let e):
            w.string(e.postId.rawValue); w.string(e.userId.rawValue)
        case .bookmarked(let e), .unbookmarked(let e):
            w.string(e.postId.rawValue); w.string(e.userId.rawValue)
        case .blocked(let e), .unblocked(let e):
            w.string(e.blockerId.rawValue); w.string(e.blockedId.rawValue)
        case .followed(let e), .unfollowed(let e):
            w.string(e.followerId.rawValue); w.string(e.followeeId.rawValue)
        case .postReported(let e):
            w.string(e.postId.rawValue); w.string(e.reporterId.rawValue)
            try seal(e.reporterId) { $0.string(e.reason) }
        case .postRemoved(let e):
            // The operator's reason is about the author's post: sealed with their key.
            w.string(e.postId.rawValue); w.string(e.authorId.rawValue)
            try seal(e.authorId) { $0.string(e.reason) }
        case .reportsDismissed(let e):
            w.string(e.postId.rawValue)
        case .userErased(let e):
            w.string(e.userId.rawValue)
        case .passwordResetRequested(let e):
            w.string(e.userId.rawValue); w.string(e.tokenHash); w.int64(e.expiresAt)
        case .passwordChanged(let e):
            w.string(e.userId.rawValue); w.optionalString(e.resetTokenHash)
            try seal(e.userId) { $0.optionalString(e.passwordHash); $0.optionalString(e.email) }
        case .emailChanged(let e):
            w.string(e.userId.rawValue)
            try seal(e.userId) { $0.optionalString(e.email) }
        }
        return w.bytes
    }

    /// Decodes a payload; `erased` is set when its sealed section's key is gone.
    static func decode(type: EventType, version: UInt8, _ bytes: [UInt8], keys: any PayloadKeys) throws -> (event: Event, erased: Bool) {
        guard version >= 1, version <= type.currentVersion else {
            throw CorruptRecord(message: "\(type.rawValue) v\(version) is newer than this build")
        }
        var r = ByteReader(bytes)
        var erased = false
        let plain = version == 1 && legacyPlainV1.contains(type)
        /// The personal fields: in clear (v1) or in a sealed section (v2); `nil` when erased.
        func personal(_ owner: UserID) throws -> ByteReader? {
            if plain { return r }
            let sealed = try r.blob()
            guard let key = try keys.key(for: owner) else { erased = true; return nil }
            guard let inner = Sodium.open(sealed, key: key, context: Array(owner.rawValue.utf8)) else {
                throw CorruptRecord(message: "sealed fields do not open with their owner's key")
            }
            return ByteReader(inner)
        }
        /// Reads from the personal section and, for v1, keeps the main reader in step.
        func read<T>(_ section: inout ByteReader?, _ body: (inout ByteReader) throws -> T) throws -> T? {
            guard section != nil else { return nil }
            let value = try body(&section!)
            if plain { r = section! }
            return value
        }
        let event: Event
        switch type {
        case .userCreated:
            let id = UserID(try r.string()), username = try r.string()
            var p = try personal(id)
            let email = try read(&p) { try $0.optionalString() } ?? nil
            let hash = try read(&p) { try $0.optionalString() } ?? nil
            let bio = try read(&p) { try $0.optionalString() } ?? nil
            let url = try read(&p) { try $0.optionalString() } ?? nil
            event = .userCreated(UserCreated(userId: id, username: username, email: email, passwordHash: hash, bio: bio, url: url))
        case .profileUpdated:
            let id = UserID(try r.string())
            let username = try r.optionalString()
            var p = try personal(id)
            let bio = try read(&p) { try $0.optionalString() } ?? nil
            let url = try read(&p) { try $0.optionalString() } ?? nil
            var change = ProfileUpdated(userId: id, username: username, bio: bio, url: url)
            // The tail: tagged changes, the photo's (v3) before the discoverable setting's (v4).
            var tag: UInt8?
            if version >= 3, !r.isAtEnd { tag = try r.u8() }
            if tag == 1 || tag == 2 {
                change.avatar = tag == 1 ? .removed : .set(Avatar(large: ImageID(try r.string()), small: ImageID(try r.string())))
                tag = nil
                if !r.isAtEnd { tag = try r.u8() }
            }
            if version >= 4, tag == 3 || tag == 4 {
                change.discoverable = tag == 4
                tag = nil
            }
            if let tag { throw CorruptRecord(message: "unknown change \(tag) in ProfileUpdated v\(version)") }
            event = .profileUpdated(change)
        case .signedIn:
            event = .signedIn(SignedIn(userId: UserID(try r.string()), sessionHash: try r.string(), expiresAt: try r.int64()))
        case .signedOut:
            event = .signedOut(SignedOut(userId: UserID(try r.string()), sessionHash: try r.string()))
        case .signInFailed:
            if plain {
                event = .signInFailed(SignInFailed(emailHash: keys.emailHash(try r.string())))
            } else {
                // v3 added the origin.
                event = .signInFailed(SignInFailed(emailHash: try r.string(), userId: try r.optionalString().map(UserID.init),
                                                   origin: version >= 3 ? try r.optionalString() : nil))
            }
        case .postAdded:
            let post = PostID(try r.string()), author = UserID(try r.string()), image = ImageID(try r.string())
            var p = try personal(author)
            let caption = try read(&p) { try $0.optionalString() } ?? nil
            let tags = try read(&p) { try $0.strings() } ?? []
            var added = PostAdded(postId: post, authorId: author, imageId: image, caption: caption, hashtags: tags)
            if version >= 3, !r.isAtEnd {
                added.width = try r.int(); added.height = try r.int()
                added.variants = ImageVariants(full: image, feed: ImageID(try r.string()), thumb: ImageID(try r.string()))
            }
            event = .postAdded(added)
        case .postPlaced:
            let post = PostID(try r.string()), author = UserID(try r.string())
            var p = try personal(author)
            let place = try read(&p) { Place(latitude: try $0.double(), longitude: try $0.double(), name: try $0.optionalString()) }
            event = .postPlaced(PostPlaced(postId: post, authorId: author, place: place))
        case .postImageProcessed:
            let post = PostID(try r.string()), author = UserID(try r.string()), source = ImageID(try r.string())
            let width = try r.int(), height = try r.int()
            let variants = ImageVariants(full: ImageID(try r.string()), feed: ImageID(try r.string()), thumb: ImageID(try r.string()))
            event = .postImageProcessed(PostImageProcessed(postId: post, authorId: author, sourceImageId: source,
                                                           width: width, height: height, variants: variants))
        case .postDeleted:
            event = .postDeleted(PostDeleted(postId: PostID(try r.string()), authorId: UserID(try r.string())))
        case .commentAdded:
            let comment = CommentID(try r.string()), post = PostID(try r.string()), author = UserID(try r.string())
            var p = try personal(author)
            let text = try read(&p) { try $0.string() } ?? ""
            event = .commentAdded(CommentAdded(commentId: comment, postId: post, authorId: author, text: text))
        case .commentDeleted:
            event = .commentDeleted(CommentDeleted(commentId: CommentID(try r.string()), postId: PostID(try r.string())))
        case .likeAdded:
            event = .likeAdded(Like(postId: PostID(try r.string()), userId: UserID(try r.string())))
        case .likeRemoved:
            event = .likeRemoved(Like(postId: PostID(try r.string()), userId: UserID(try r.string())))
        case .bookmarked:
            event = .bookmarked(Bookmark(postId: PostID(try r.string()), userId: UserID(try r.string())))
        case .unbookmarked:
            event = .unbookmarked(Bookmark(postId: PostID(try r.string()), userId: UserID(try r.string())))
        case .blocked:
            event = .blocked(Block(blockerId: UserID(try r.string()), blockedId: UserID(try r.string())))
        case .unblocked:
            event = .unblocked(Block(blockerId: UserID(try r.string()), blockedId: UserID(try r.string())))
        case .followed:
            event = .followed(Follow(followerId: UserID(try r.string()), followeeId: UserID(try r.string())))
        case .unfollowed:
            event = .unfollowed(Follow(followerId: UserID(try r.string()), followeeId: UserID(try r.string())))
        case .postReported:
            let post = PostID(try r.string()), reporter = UserID(try r.string())
            var p = try personal(reporter)
            let reason = try read(&p) { try $0.string() } ?? ""
            event = .postReported(PostReported(postId: post, reporterId: reporter, reason: reason))
        case .postRemoved:
            let post = PostID(try r.string()), author = UserID(try r.string())
            var p = try personal(author)
            let reason = try read(&p) { try $0.string() } ?? ""
            event = .postRemoved(PostRemoved(postId: post, authorId: author, reason: reason))
        case .reportsDismissed:
            event = .reportsDismissed(ReportsDismissed(postId: PostID(try r.string())))
        case .userErased:
            event = .userErased(UserErased(userId: UserID(try r.string())))
        case .passwordResetRequested:
            event = .passwordResetRequested(PasswordResetRequested(userId: UserID(try r.string()), tokenHash: try r.string(), expiresAt: try r.int64()))
        case .passwordChanged:
            // v1 always named the reset token used; v2 may not (a change with the current password).
            let id = UserID(try r.string()), reset = version == 1 ? try r.string() : try r.optionalString()
            var p = try personal(id)
            let hash = try read(&p) { try $0.optionalString() } ?? nil
            let email = try read(&p) { try $0.optionalString() } ?? nil
            event = .passwordChanged(PasswordChanged(userId: id, passwordHash: hash, email: email, resetTokenHash: reset))
        case .emailChanged:
            let id = UserID(try r.string())
            var p = try personal(id)
            event = .emailChanged(EmailChanged(userId: id, email: try read(&p) { try $0.optionalString() } ?? nil))
        }
        try r.expectEnd()
        return (event, erased)
    }
}
