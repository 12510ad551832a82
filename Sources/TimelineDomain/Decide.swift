/// What deciding may use besides state: the time, fresh identifiers and the work done before
/// deciding that must not run inside the writer (password hashing and verification).
package struct DecisionContext {
    public var now: Int64
    public var newID: () -> String
    /// Hex BLAKE2b of a session token.
    public var hashToken: (String) -> String
    /// Hex BLAKE2b of an owner's image bytes (the image's address).
    public var contentID: (UserID, [UInt8]) -> String
    /// Keyed hash of a (lowercased) email, as failed sign-ins record it.
    public var hashEmail: (String) -> String = { $0 }
    /// argon2id hash of the password of a `createUser` (computed before deciding).
    public var passwordHash: String?
    /// For `signIn`, `changePassword` and `changeEmail`: the user whose password was verified
    /// (nil when it did not match).
    public var verifiedUser: UserID?
    /// For `changePassword` and `changeEmail`: the stored hash the given password matched, so
    /// deciding can tell that the password has not changed since it was verified.
    public var verifiedPasswordHash: String?
    /// A keyed hash of where the command came from (an HTTP client's address), if known:
    /// failed sign-ins are limited per email and origin.
    public var origin: String?
    /// A fresh random token (the new session of `signIn`, the token of `requestPasswordReset`).
    public var newToken: String?
    public var sessionLifetime: Int64 = 30 * 24 * 3600 * 1000
    /// For `addPost`: the photo as the image pipeline produced it (decoded before deciding).
    public var processedImage: ProcessedImage?
    /// For `updateProfile` with a new photo: its 320 px and 96 px squares (made before deciding).
    public var processedAvatar: (large: ImageUpload, small: ImageUpload)?
    /// A post with this many standing reports (distinct reporters, since the last dismissal) is
    /// hidden from everyone but its author: to them it is `not_found`.
    public var hideAfterReports: Int = .max

    public init(now: Int64, newID: @escaping () -> String, hashToken: @escaping (String) -> String,
                contentID: @escaping (UserID, [UInt8]) -> String) {
        self.now = now; self.newID = newID; self.hashToken = hashToken; self.contentID = contentID
    }
}

/// What a command produced: events to append, image blobs to store, and its outcome (which
/// may be a failure that still records events, as a failed sign-in does).
package struct Decision: Sendable {
    public var events: [Event] = []
    /// New images, by content address.
    public var blobs: [ImageID: ImageUpload] = [:]
    public var outcome: Result<Outcome, TimelineError>
    /// The user the events are recorded as acting (`nil`: `system`, as SPEC names every actor
    /// that is not a user — the operator's tools too).
    public var actor: UserID?

    public init(events: [Event] = [], blobs: [ImageID: ImageUpload] = [:], outcome: Result<Outcome, TimelineError>, actor: UserID? = nil) {
        self.events = events; self.blobs = blobs; self.outcome = outcome; self.actor = actor
    }
}

/// The successful result of a command, by reference; the service reads the referenced record
/// back from the read models after applying the events.
package enum Outcome: Sendable, Equatable {
    case user(UserID)
    /// The acting user's profile as they see it, with their settings (`updateProfile`).
    case ownProfile(UserID)
    case session(token: String, user: UserID)
    /// A one-time token for the user (shown once).
    case token(String)
    case post(PostID)
    case comment(CommentID)
    case changed(Bool)
    case done
}

/// Sign-in rate limit: this many failures per email within the window refuse further tries.
package enum SignInPolicy {
    public static let maxFailures = 5
    public static let window: Int64 = 15 * 60 * 1000
    /// How long a password-reset token stays valid: one hour.
    public static let resetLifetime: Int64 = 3600 * 1000
}

/// Decides a command: validates it against `state` and returns its events, or throws a typed
/// error (nothing to append). Pure: all I/O is behind `state` and `context`.
package func decide(_ command: Command, actor: Actor, state: some DecisionState, context: DecisionContext) throws -> Decision {
    var decider = Decider(state: state, context: context)
    return try decider.decide(command, actor: actor)
}

/// Checks everything about a `createUser` or `resetPassword` that deciding it will check,
/// short of the password hash (input rules, uniqueness, the reset token), so that the slow
/// argon2id hashing runs only for a command that can succeed. Other commands pass. The writer
/// decides again against the state it then sees.
package func precheck(_ command: Command, state: some DecisionState, context: DecisionContext) throws {
    let decider = Decider(state: state, context: context)
    switch command {
    case let .createUser(username, email, password, bio, url):
        _ = try decider.newUser(username: username, email: email, password: password, bio: bio, url: url)
    case let .resetPassword(token, password, email):
        _ = try decider.passwordReset(token: token, password: password, email: email)
    default:
        break
    }
}

struct Decider<State: DecisionState> {
    let state: State
    let context: DecisionContext

    mutating func decide(_ command: Command, actor: Actor) throws -> Decision {
        switch command {
        case let .createUser(username, email, password, bio, url):
            return try createUser(username: username, email: email, password: password, bio: bio, url: url)
        case let .signIn(email, _):
            return try signIn(email: email)
        case let .signOut(token):
            let hash = context.hashToken(token)
            guard let session = try state.session(hash: hash), session.expiresAt > context.now else {
                throw TimelineError(.unauthenticated, "the session is not valid")
            }
            return Decision(events: [.signedOut(SignedOut(userId: session.user, sessionHash: hash))], outcome: .success(.done),
                            actor: session.user)
        case let .eraseUser(user):
            return try erase(user, actor: actor)
        case let .requestPasswordReset(user):
            let target: UserID = try Validation.identifier(user, field: "user")
            // The token is as good as the password: only the operator gets one, and delivers
            // it out of band (a stolen session must not be able to ask for it).
            guard actor == .operator else {
                _ = try resolve(actor)
                throw TimelineError(.forbidden, "only an operator can issue a password reset token")
            }
            guard try state.user(target) != nil else { throw TimelineError.notFound("user", target.rawValue) }
            guard let token = context.newToken else { throw TimelineError(.internal, "no token was generated") }
            let event = PasswordResetRequested(userId: target, tokenHash: context.hashToken(token), expiresAt: context.now + SignInPolicy.resetLifetime)
            return Decision(events: [.passwordResetRequested(event)], outcome: .success(.token(token)))
        case let .resetPassword(token, password, email):
            let (reset, hash, email) = try passwordReset(token: token, password: password, email: email)
            guard let passwordHash = context.passwordHash else { throw TimelineError(.internal, "password was not hashed") }
            let event = PasswordChanged(userId: reset.user, passwordHash: passwordHash, email: email, resetTokenHash: hash)
            return Decision(events: [.passwordChanged(event)], outcome: .success(.user(reset.user)), actor: reset.user)
        case let .removePost(post, reason):
            let id: PostID = try Validation.identifier(post, field: "post")
            try requireOperator(actor, "remove a post")
            let post = try existingPost(id.rawValue)
            let event = PostRemoved(postId: post.id, authorId: post.author, reason: try Validation.reason(reason))
            return Decision(events: [.postRemoved(event)], outcome: .success(.done))
        case let .dismissReports(post):
            let id: PostID = try Validation.identifier(post, field: "post")
            try requireOperator(actor, "dismiss reports")
            let post = try existingPost(id.rawValue)
            // Nothing standing (never reported, or dismissed already): nothing to dismiss.
            let standing = try state.standingReports(post.id, upTo: 1) > 0
            return Decision(events: standing ? [.reportsDismissed(ReportsDismissed(postId: post.id))] : [],
                            outcome: .success(.changed(standing)))
        default:
            let me = try resolve(actor)
            var decision = try decide(command, by: me)
            decision.actor = me.id
            return decision
        }
    }

    /// Refuses every caller but the operator: a user or session with `forbidden`, nobody with
    /// `unauthenticated`.
    private func requireOperator(_ actor: Actor, _ what: String) throws {
        guard actor == .operator else {
            _ = try resolve(actor)
            throw TimelineError(.forbidden, "only an operator can \(what)")
        }
    }

    private func resolve(_ actor: Actor) throws -> UserRecord {
        switch actor {
        case .anonymous, .operator:
            throw TimelineError(.unauthenticated, "this command needs a signed-in user")
        case .user(let id):
            guard let user = try state.user(id) else { throw TimelineError(.unauthenticated, "no user with id \(id)") }
            return user
        case .session(let hash):
            guard let session = try state.session(hash: hash), session.expiresAt > context.now,
                  let user = try state.user(session.user)
            else { throw TimelineError(.unauthenticated, "the session is not valid or has expired") }
            return user
        }
    }

    /// Undoes everything the user did (so every count and timeline stays right), then records
    /// the erasure; the service destroys their key once it is committed.
    private func erase(_ raw: String, actor: Actor) throws -> Decision {
        let target: UserID = try Validation.identifier(raw, field: "user")
        if actor != .operator {
            let me = try resolve(actor)
            guard me.id == target else { throw TimelineError(.forbidden, "a user can only erase themself") }
        }
        guard try state.user(target) != nil else { throw TimelineError.notFound("user", target.rawValue) }
        let footprint = try state.footprint(of: target)
        var events: [Event] = []
        events += footprint.blocking.map { .unblocked(Block(blockerId: target, blockedId: $0)) }
        events += footprint.blockedBy.map { .unblocked(Block(blockerId: $0, blockedId: target)) }
        events += footprint.bookmarks.map { .unbookmarked(Bookmark(postId: $0, userId: target)) }
        events += footprint.comments.map { .commentDeleted(CommentDeleted(commentId: $0.id, postId: $0.post)) }
        events += footprint.likes.map { .likeRemoved(Like(postId: $0, userId: target)) }
        events += footprint.posts.map { .postDeleted(PostDeleted(postId: $0, authorId: target)) }
        events += footprint.following.map { .unfollowed(Follow(followerId: target, followeeId: $0)) }
        events += footprint.followers.map { .unfollowed(Follow(followerId: $0, followeeId: target)) }
        events.append(.userErased(UserErased(userId: target)))
        return Decision(events: events, outcome: .success(.done), actor: actor == .operator ? nil : target)
    }

    /// The reset a `resetPassword` uses, its token's hash and the normalised new email, or why
    /// the command fails.
    func passwordReset(token: String, password: String, email: String?) throws -> (reset: SessionRecord, hash: String, email: String?) {
        let hash = context.hashToken(token)
        guard let reset = try state.passwordReset(hash: hash), reset.expiresAt > context.now, try state.user(reset.user) != nil else {
            throw TimelineError(.unauthenticated, "the reset token is not valid or has expired", field: "token")
        }
        try Validation.password(password)
        let email = try email.map(Validation.email)
        if let email, let holder = try state.userID(email: email), holder != reset.user {
            throw TimelineError(.emailTaken, "email is already registered", field: "email")
        }
        return (reset, hash, email)
    }

    /// The normalised fields of a new user, or why `createUser` fails.
    func newUser(username: String, email: String, password: String, bio: String?, url: String?) throws
        -> (username: String, email: String, bio: String?, url: String?) {
        let username = try Validation.username(username)
        let email = try Validation.email(email)
        try Validation.password(password)
        let bio = try bio.map(Validation.bio).flatMap(nonEmpty)
        let url = try url.map(Validation.url).flatMap(nonEmpty)
        guard try state.userID(username: username) == nil else {
            throw TimelineError(.usernameTaken, "username \(username) is taken", field: "username")
        }
        guard try state.userID(email: email) == nil else {
            throw TimelineError(.emailTaken, "email is already registered", field: "email")
        }
        return (username, email, bio, url)
    }

    private func createUser(username: String, email: String, password: String, bio: String?, url: String?) throws -> Decision {
        let (username, email, bio, url) = try newUser(username: username, email: email, password: password, bio: bio, url: url)
        guard let hash = context.passwordHash else { throw TimelineError(.internal, "password was not hashed") }
        let id = UserID(context.newID())
        let event = UserCreated(userId: id, username: username, email: email, passwordHash: hash, bio: bio, url: url)
        return Decision(events: [.userCreated(event)], outcome: .success(.user(id)), actor: id)
    }

    /// A failed sign-in is recorded (for audit and the rate limit) only for an address some
    /// account could have, and at most `SignInPolicy.maxFailures` times per email per window:
    /// past that every try is refused with `rate_limited` and appends nothing. An address no
    /// account can have is answered like any wrong one and recorded nowhere.
    private func signIn(email raw: String) throws -> Decision {
        guard let email = try? Validation.email(raw) else { throw TimelineError(.invalidCredentials, "wrong email or password") }
        let emailHash = context.hashEmail(email)
        let failures = try state.signInFailures(limiterKey: SignInFailed.limiterKey(emailHash: emailHash, origin: context.origin),
                                                since: context.now - SignInPolicy.window)
        guard failures < SignInPolicy.maxFailures else {
            throw TimelineError(.rateLimited, "too many failed sign-ins for this email from here; try again later", field: "email")
        }
        guard let user = context.verifiedUser, let token = context.newToken,
              try state.userID(email: email) == user
        else {
            return Decision(events: [.signInFailed(SignInFailed(emailHash: emailHash, userId: try state.userID(email: email), origin: context.origin))],
                            outcome: .failure(TimelineError(.invalidCredentials, "wrong email or password")))
        }
        let event = SignedIn(userId: user, sessionHash: context.hashToken(token),
                             expiresAt: context.now + context.sessionLifetime)
        return Decision(events: [.signedIn(event)], outcome: .success(.session(token: token, user: user)), actor: user)
    }

    /// Checks the password given with `changePassword` or `changeEmail` (verified before
    /// deciding) against `me`'s current one. A wrong password counts as a failed sign-in for
    /// the user's email, under the same limit, so a session cannot be used to guess it.
    /// Returns the failure's decision, or `nil` when the password is right.
    private func checkPassword(of me: UserRecord) throws -> Decision? {
        let emailHash = me.email.map(context.hashEmail)
        if let emailHash, try state.signInFailures(limiterKey: SignInFailed.limiterKey(emailHash: emailHash, origin: context.origin),
                                                   since: context.now - SignInPolicy.window) >= SignInPolicy.maxFailures {
            throw TimelineError(.rateLimited, "too many failed password checks for this account; try again later")
        }
        if let hash = me.passwordHash, context.verifiedUser == me.id, context.verifiedPasswordHash == hash { return nil }
        return Decision(events: emailHash.map { [.signInFailed(SignInFailed(emailHash: $0, userId: me.id, origin: context.origin))] } ?? [],
                        outcome: .failure(TimelineError(.invalidCredentials, "wrong password")))
    }

    /// The user `raw` names, for `me` to `verb` (follow, block): a valid id, not `me`, and a
    /// user that exists.
    private func otherUser(_ raw: String, of me: UserRecord, _ verb: String) throws -> UserID {
        let target: UserID = try Validation.identifier(raw, field: "user")
        guard target != me.id else { throw TimelineError.invalid("user", "you cannot \(verb) yourself") }
        guard try state.user(target) != nil else { throw TimelineError.notFound("user", target.rawValue) }
        return target
    }

    private func decide(_ command: Command, by me: UserRecord) throws -> Decision {
        switch command {
        case let .changePassword(_, newPassword):
            try Validation.password(newPassword, field: "newPassword")
            if let failure = try checkPassword(of: me) { return failure }
            guard let hash = context.passwordHash else { throw TimelineError(.internal, "password was not hashed") }
            let event = PasswordChanged(userId: me.id, passwordHash: hash, email: nil, resetTokenHash: nil)
            return Decision(events: [.passwordChanged(event)], outcome: .success(.user(me.id)))

        case let .changeEmail(_, email):
            let email = try Validation.email(email)
            if let failure = try checkPassword(of: me) { return failure }
            guard email != me.email else { return Decision(outcome: .success(.user(me.id))) }
            if try state.userID(email: email) != nil {
                throw TimelineError(.emailTaken, "email is already registered", field: "email")
            }
            return Decision(events: [.emailChanged(EmailChanged(userId: me.id, email: email))], outcome: .success(.user(me.id)))

        case let .updateProfile(username, bio, url, avatar, discoverable):
            var change = ProfileUpdated(userId: me.id)
            if let username {
                let name = try Validation.username(username)
                if name != me.username {
                    guard try state.userID(username: name) == nil else {
                        throw TimelineError(.usernameTaken, "username \(name) is taken", field: "username")
                    }
                    change.username = name
                }
            }
            if let bio = try bio.map(Validation.bio), bio != (me.bio ?? "") { change.bio = bio }
            if let url = try url.map(Validation.url), url != (me.url ?? "") { change.url = url }
            var blobs: [ImageID: ImageUpload] = [:]
            switch avatar {
            case nil: break
            case .remove?: if me.avatar != nil { change.avatar = .removed }
            case .set(let image)?:
                // Decoding and the squares happened before deciding (off the writer).
                guard let processed = context.processedAvatar else {
                    _ = try ImageUpload(base64: image)
                    throw TimelineError(.internal, "the avatar was not processed")
                }
                let new = Avatar(large: ImageID(context.contentID(me.id, processed.large.bytes)),
                                 small: ImageID(context.contentID(me.id, processed.small.bytes)))
                if new != me.avatar {
                    change.avatar = .set(new)
                    blobs = Dictionary([(new.large, processed.large), (new.small, processed.small)], uniquingKeysWith: { first, _ in first })
                }
            }
            if let discoverable, discoverable != me.discoverable { change.discoverable = discoverable }
            let changed = change.username != nil || change.bio != nil || change.url != nil || change.avatar != nil
                || change.discoverable != nil
            return Decision(events: changed ? [.profileUpdated(change)] : [], blobs: changed ? blobs : [:], outcome: .success(.ownProfile(me.id)))

        case let .follow(user), let .unfollow(user):
            let target = try otherUser(user, of: me, "follow")
            let following = try state.follows(me.id, target)
            let edge = Follow(followerId: me.id, followeeId: target)
            if case .follow = command {
                guard try !blockedEitherWay(me.id, target) else {
                    throw TimelineError(.forbidden, "you cannot follow a user while one of you blocks the other")
                }
                return Decision(events: following ? [] : [.followed(edge)], outcome: .success(.changed(!following)))
            }
            return Decision(events: following ? [.unfollowed(edge)] : [], outcome: .success(.changed(following)))

        case let .block(user), let .unblock(user):
            let target = try otherUser(user, of: me, "block")
            let blocking = try state.blocks(me.id, target)
            let block = Block(blockerId: me.id, blockedId: target)
            if case .unblock = command {
                return Decision(events: blocking ? [.unblocked(block)] : [], outcome: .success(.changed(blocking)))
            }
            guard !blocking else { return Decision(outcome: .success(.changed(false))) }
            // A block ends the follows both ways (so timelines stay SPEC's definition).
            var events: [Event] = []
            if try state.follows(me.id, target) { events.append(.unfollowed(Follow(followerId: me.id, followeeId: target))) }
            if try state.follows(target, me.id) { events.append(.unfollowed(Follow(followerId: target, followeeId: me.id))) }
            events.append(.blocked(block))
            return Decision(events: events, outcome: .success(.changed(true)))

        case let .addPost(image, caption, location):
            let caption = try caption.map(Validation.caption).flatMap(nonEmpty)
            let tags = try caption.map(Validation.hashtags(in:)) ?? []
            let place = try location.map(Validation.place)
            // Decoding, checking and re-encoding happened before deciding (off the writer).
            guard let processed = context.processedImage else {
                _ = try ImageUpload(base64: image)
                throw TimelineError(.internal, "the image was not processed")
            }
            let id = PostID(context.newID())
            func address(_ upload: ImageUpload) -> ImageID { ImageID(context.contentID(me.id, upload.bytes)) }
            let variants = ImageVariants(full: address(processed.full), feed: address(processed.feed), thumb: address(processed.thumb))
            let event = PostAdded(postId: id, authorId: me.id, imageId: variants.full, caption: caption, hashtags: tags,
                                  width: processed.width, height: processed.height, variants: variants)
            // A small photo's variants can be the same bytes (sizes never enlarge), hence one address.
            let blobs = Dictionary([(variants.full, processed.full), (variants.feed, processed.feed), (variants.thumb, processed.thumb)],
                                   uniquingKeysWith: { first, _ in first })
            var events: [Event] = [.postAdded(event)]
            // The place is an event of its own, so `PostAdded`'s encoding stays as it was.
            if let place { events.append(.postPlaced(PostPlaced(postId: id, authorId: me.id, place: place))) }
            return Decision(events: events, blobs: blobs, outcome: .success(.post(id)))

        case let .deletePost(post):
            let post = try existingPost(post)
            guard post.author == me.id else { throw TimelineError(.forbidden, "only the author can delete a post") }
            return Decision(events: [.postDeleted(PostDeleted(postId: post.id, authorId: post.author))], outcome: .success(.done))

        case let .addComment(post, text):
            let post = try visiblePost(post, to: me)
            guard try !blockedEitherWay(me.id, post.author) else {
                throw TimelineError(.forbidden, "you cannot comment on this user's posts")
            }
            let text = try Validation.commentText(text)
            let id = CommentID(context.newID())
            let event = CommentAdded(commentId: id, postId: post.id, authorId: me.id, text: text)
            return Decision(events: [.commentAdded(event)], outcome: .success(.comment(id)))

        case let .deleteComment(comment):
            let id: CommentID = try Validation.identifier(comment, field: "comment")
            guard let comment = try state.comment(id), let post = try state.post(comment.post) else {
                throw TimelineError.notFound("comment", id.rawValue)
            }
            guard comment.author == me.id || post.author == me.id else {
                throw TimelineError(.forbidden, "only the comment's author or the post's author can delete a comment")
            }
            return Decision(events: [.commentDeleted(CommentDeleted(commentId: id, postId: post.id))], outcome: .success(.done))

        case let .like(post), let .unlike(post):
            // A hidden post cannot be liked, but a like on it can be taken back.
            let post = if case .like = command { try visiblePost(post, to: me) } else { try existingPost(post) }
            let liked = try state.likes(me.id, post.id)
            let like = Like(postId: post.id, userId: me.id)
            if case .like = command {
                guard try !blockedEitherWay(me.id, post.author) else {
                    throw TimelineError(.forbidden, "you cannot like this user's posts")
                }
                return Decision(events: liked ? [] : [.likeAdded(like)], outcome: .success(.changed(!liked)))
            }
            return Decision(events: liked ? [.likeRemoved(like)] : [], outcome: .success(.changed(liked)))

        case let .bookmark(post), let .unbookmark(post):
            let post = if case .bookmark = command { try visiblePost(post, to: me) } else { try existingPost(post) }
            let saved = try state.bookmarks(me.id, post.id)
            let bookmark = Bookmark(postId: post.id, userId: me.id)
            if case .bookmark = command {
                return Decision(events: saved ? [] : [.bookmarked(bookmark)], outcome: .success(.changed(!saved)))
            }
            return Decision(events: saved ? [.unbookmarked(bookmark)] : [], outcome: .success(.changed(saved)))

        case let .reportPost(post, reason):
            let post = try visiblePost(post, to: me)
            let reason = try Validation.reason(reason)
            // One report per reporter and post: a repeat changes nothing.
            guard try !state.reported(me.id, post.id) else { return Decision(events: [], outcome: .success(.changed(false))) }
            let event = PostReported(postId: post.id, reporterId: me.id, reason: reason)
            return Decision(events: [.postReported(event)], outcome: .success(.changed(true)))

        case .createUser, .signIn, .signOut, .eraseUser, .requestPasswordReset, .resetPassword, .removePost, .dismissReports:
            throw TimelineError(.internal, "\(command.name) is decided without an actor")
        }
    }

    /// Whether `a` blocks `b` or `b` blocks `a`.
    private func blockedEitherWay(_ a: UserID, _ b: UserID) throws -> Bool {
        try state.blocks(a, b) || state.blocks(b, a)
    }

    private func existingPost(_ raw: String) throws -> PostRecord {
        let id: PostID = try Validation.identifier(raw, field: "post")
        guard let post = try state.post(id) else { throw TimelineError.notFound("post", id.rawValue) }
        return post
    }

    /// A post `me` can see: one hidden by reports (see `DecisionContext.hideAfterReports`) is
    /// `not_found` to everyone but its author, as the read side answers.
    private func visiblePost(_ raw: String, to me: UserRecord) throws -> PostRecord {
        let post = try existingPost(raw)
        guard try !state.hides(post, from: me.id, threshold: context.hideAfterReports) else {
            throw TimelineError.notFound("post", post.id.rawValue)
        }
        return post
    }
}

private func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }
