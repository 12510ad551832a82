import Foundation

// The registry: every command and every event of Timeline, by case and by public name, and
// the one switch per concern that dispatches a case to its feature's file (`Features/`, where
// each command's decision and each event's payload live). A new command or event is a case
// here: the exhaustive switches below then fail to build until each has its arm, and the
// payload's `EventPayload` conformance asks for the rest (docs/adding-a-command.md).

// MARK: - Commands

/// Every command of docs/spec.md, as plain values. Field values are raw user input; `decide`
/// validates and normalises them.
public enum Command: Sendable, Equatable {
    /// Signs up: a new user with a unique username and email (answers the profile).
    case createUser(username: String, email: String, password: String, bio: String?, url: String?)
    /// Starts a session (answers its token, shown once).
    case signIn(email: String, password: String)
    /// Ends the session with this token.
    case signOut(session: String)
    /// Changes the acting user's username, bio, url, profile photo or discoverability (`nil`
    /// keeps a field; "" clears bio and url; `avatar` sets the photo from a base64 image or
    /// removes it; `discoverable` says whether others may find the user by email, see
    /// `findContacts`).
    case updateProfile(username: String?, bio: String?, url: String?, avatar: AvatarUpdate? = nil, discoverable: Bool? = nil)
    /// The acting user follows `user` (idempotent).
    case follow(user: String)
    /// The acting user stops following `user` (idempotent).
    case unfollow(user: String)
    /// `image` is base64; `location`, where the photo was taken (recorded sealed, as `PostPlaced`).
    case addPost(image: String, caption: String?, location: Place? = nil)
    /// Deletes one of the acting user's posts, with its comments and likes.
    case deletePost(post: String)
    /// Comments on a post.
    case addComment(post: String, text: String)
    /// Deletes a comment (its author's, or any on the acting user's post).
    case deleteComment(comment: String)
    /// Likes a post (idempotent).
    case like(post: String)
    /// Takes a like back (idempotent).
    case unlike(post: String)
    /// Saves a post to the acting user's bookmarks (idempotent).
    case bookmark(post: String)
    /// Takes a post out of the acting user's bookmarks (idempotent).
    case unbookmark(post: String)
    /// The acting user blocks `user` (idempotent): it ends the follows between them both ways.
    case block(user: String)
    /// The acting user lifts their block of `user` (idempotent).
    case unblock(user: String)
    /// Reports a post to the operators, with a reason.
    case reportPost(post: String, reason: String)
    /// Removes a post for breaking the rules, saying why (operators only): it leaves every
    /// list like a deleted post, and its author's activity shows the reason.
    case removePost(post: String, reason: String)
    /// Dismisses the reports standing against a post (operators only): it leaves the report
    /// queue and is shown again; reports made before no longer count.
    case dismissReports(post: String)
    /// Erases a user: their posts, comments, likes and follows are removed and their personal
    /// data made unrecoverable. By the user themself, giving their current `password` (a
    /// stolen session is not the account), or by an operator (no password).
    case eraseUser(user: String, password: String? = nil)
    /// Issues a one-time token to set `user`'s password. Only an operator may ask (and then
    /// delivers the token out of band): a user, or a session, is refused with `forbidden`.
    case requestPasswordReset(user: String)
    /// Sets a password (and optionally the email) with a reset token. Ends every session and
    /// every other reset token of the user.
    case resetPassword(token: String, password: String, email: String?)
    /// Changes the acting user's password; needs the current one. Ends every session
    /// (this one too) and every reset token of the user.
    case changePassword(currentPassword: String, newPassword: String)
    /// Changes the acting user's email; needs their password.
    case changeEmail(password: String, email: String)

    /// The public command name (`timeline exec`'s `command`, the schema's file name).
    public var name: String { kind.rawValue }

    /// Which command this is, without its fields.
    public var kind: CommandName {
        switch self {
        case .createUser: .createUser
        case .signIn: .signIn
        case .signOut: .signOut
        case .updateProfile: .updateProfile
        case .follow: .follow
        case .unfollow: .unfollow
        case .addPost: .addPost
        case .deletePost: .deletePost
        case .addComment: .addComment
        case .deleteComment: .deleteComment
        case .like: .like
        case .unlike: .unlike
        case .bookmark: .bookmark
        case .unbookmark: .unbookmark
        case .block: .block
        case .unblock: .unblock
        case .reportPost: .reportPost
        case .removePost: .removePost
        case .dismissReports: .dismissReports
        case .eraseUser: .eraseUser
        case .requestPasswordReset: .requestPasswordReset
        case .resetPassword: .resetPassword
        case .changePassword: .changePassword
        case .changeEmail: .changeEmail
        }
    }

    /// Whether the command needs an acting user (all but `createUser`, `signIn`, `signOut`, `resetPassword`).
    public var needsActor: Bool {
        switch self {
        case .createUser, .signIn, .signOut, .resetPassword: false
        case .updateProfile, .follow, .unfollow, .addPost, .deletePost, .addComment, .deleteComment, .like, .unlike,
             .bookmark, .unbookmark, .block, .unblock, .reportPost, .removePost, .dismissReports, .eraseUser, .requestPasswordReset,
             .changePassword, .changeEmail:
            true
        }
    }
}

/// The public names of the commands: the one place each is spelled. `Catalogue` decodes a
/// command by switching over these (exhaustively), and `schemas/commands/<name>.schema.json`
/// exists for each (a test checks).
public enum CommandName: String, CaseIterable, Sendable {
    /// `Command.createUser`.
    case createUser
    /// `Command.signIn`.
    case signIn
    /// `Command.signOut`.
    case signOut
    /// `Command.updateProfile`.
    case updateProfile
    /// `Command.follow`.
    case follow
    /// `Command.unfollow`.
    case unfollow
    /// `Command.addPost`.
    case addPost
    /// `Command.deletePost`.
    case deletePost
    /// `Command.addComment`.
    case addComment
    /// `Command.deleteComment`.
    case deleteComment
    /// `Command.like`.
    case like
    /// `Command.unlike`.
    case unlike
    /// `Command.bookmark`.
    case bookmark
    /// `Command.unbookmark`.
    case unbookmark
    /// `Command.block`.
    case block
    /// `Command.unblock`.
    case unblock
    /// `Command.reportPost`.
    case reportPost
    /// `Command.removePost`.
    case removePost
    /// `Command.dismissReports`.
    case dismissReports
    /// `Command.eraseUser`.
    case eraseUser
    /// `Command.requestPasswordReset`.
    case requestPasswordReset
    /// `Command.resetPassword`.
    case resetPassword
    /// `Command.changePassword`.
    case changePassword
    /// `Command.changeEmail`.
    case changeEmail
}

/// Reads the fields of a command (`timeline exec`'s JSON line, an HTTP request); a field the
/// decoder does not ask for is refused afterwards by the reader.
package protocol CommandFields {
    /// Whether the field is present (even as `null`).
    func has(_ field: String) -> Bool
    /// A required string.
    func string(_ field: String) throws(TimelineError) -> String
    /// A string, or `nil` when absent.
    func optionalString(_ field: String) throws(TimelineError) -> String?
    /// A boolean, or `nil` when absent.
    func optionalBool(_ field: String) throws(TimelineError) -> Bool?
    /// A place (`{latitude, longitude, name?}`), or `nil` when absent.
    func optionalPlace(_ field: String) throws(TimelineError) -> Place?
}

extension Command {
    /// Decodes a command of kind `kind` from `fields`. Its inverse is `jsonObject()` below: the
    /// two are kept side by side, and a test round-trips every command through them.
    package static func decode(_ kind: CommandName, _ fields: some CommandFields) throws(TimelineError) -> Command {
        switch kind {
        case .createUser:
            return .createUser(username: try fields.string("username"), email: try fields.string("email"),
                               password: try fields.string("password"), bio: try fields.optionalString("bio"),
                               url: try fields.optionalString("url"))
        case .signIn: return .signIn(email: try fields.string("email"), password: try fields.string("password"))
        case .signOut: return .signOut(session: try fields.string("session"))
        case .updateProfile:
            // `avatar`: a base64 image sets the photo, null removes it, absent keeps it.
            let avatar: AvatarUpdate? = fields.has("avatar") ? try fields.optionalString("avatar").map(AvatarUpdate.set) ?? .remove : nil
            return .updateProfile(username: try fields.optionalString("username"), bio: try fields.optionalString("bio"),
                                  url: try fields.optionalString("url"), avatar: avatar, discoverable: try fields.optionalBool("discoverable"))
        case .follow: return .follow(user: try fields.string("user"))
        case .unfollow: return .unfollow(user: try fields.string("user"))
        case .addPost:
            return .addPost(image: try fields.string("image"), caption: try fields.optionalString("caption"),
                            location: try fields.optionalPlace("location"))
        case .deletePost: return .deletePost(post: try fields.string("post"))
        case .addComment: return .addComment(post: try fields.string("post"), text: try fields.string("text"))
        case .deleteComment: return .deleteComment(comment: try fields.string("comment"))
        case .like: return .like(post: try fields.string("post"))
        case .unlike: return .unlike(post: try fields.string("post"))
        case .bookmark: return .bookmark(post: try fields.string("post"))
        case .unbookmark: return .unbookmark(post: try fields.string("post"))
        case .block: return .block(user: try fields.string("user"))
        case .unblock: return .unblock(user: try fields.string("user"))
        case .reportPost: return .reportPost(post: try fields.string("post"), reason: try fields.string("reason"))
        case .removePost: return .removePost(post: try fields.string("post"), reason: try fields.string("reason"))
        case .dismissReports: return .dismissReports(post: try fields.string("post"))
        case .eraseUser: return .eraseUser(user: try fields.string("user"), password: try fields.optionalString("password"))
        case .requestPasswordReset: return .requestPasswordReset(user: try fields.string("user"))
        case .resetPassword:
            return .resetPassword(token: try fields.string("token"), password: try fields.string("password"), email: try fields.optionalString("email"))
        case .changePassword:
            return .changePassword(currentPassword: try fields.string("currentPassword"), newPassword: try fields.string("newPassword"))
        case .changeEmail: return .changeEmail(password: try fields.string("password"), email: try fields.string("email"))
        }
    }

    /// The canonical JSON form of the command (a `timeline exec` line without `id`/`as`),
    /// valid against `schemas/commands/<name>.schema.json`.
    public func jsonObject() -> [String: Any] {
        var out: [String: Any] = ["command": name]
        func set(_ key: String, _ value: String?) { if let value { out[key] = value } }
        switch self {
        case let .createUser(username, email, password, bio, url):
            set("username", username); set("email", email); set("password", password); set("bio", bio); set("url", url)
        case let .signIn(email, password): set("email", email); set("password", password)
        case let .signOut(session): set("session", session)
        case let .updateProfile(username, bio, url, avatar, discoverable):
            set("username", username); set("bio", bio); set("url", url)
            switch avatar {
            case nil: break
            case .remove?: out["avatar"] = NSNull()
            case .set(let image)?: out["avatar"] = image
            }
            if let discoverable { out["discoverable"] = discoverable }
        case let .follow(user), let .unfollow(user), let .block(user), let .unblock(user): set("user", user)
        case let .addPost(image, caption, location):
            set("image", image); set("caption", caption)
            if let location { out["location"] = location.jsonObject }
        case let .deletePost(post), let .like(post), let .unlike(post), let .bookmark(post), let .unbookmark(post),
             let .dismissReports(post):
            set("post", post)
        case let .addComment(post, text): set("post", post); set("text", text)
        case let .deleteComment(comment): set("comment", comment)
        case let .reportPost(post, reason), let .removePost(post, reason): set("post", post); set("reason", reason)
        case let .eraseUser(user, password): set("user", user); set("password", password)
        case let .requestPasswordReset(user): set("user", user)
        case let .resetPassword(token, password, email): set("token", token); set("password", password); set("email", email)
        case let .changePassword(current, new): set("currentPassword", current); set("newPassword", new)
        case let .changeEmail(password, email): set("password", password); set("email", email)
        }
        return out
    }
}

extension Decider {
    /// Decides `command` for `actor`; each command's decision is in its feature's file.
    func decide(_ command: Command, actor: Actor) throws -> Decision {
        switch command {
        case let .createUser(username, email, password, bio, url):
            try createUser(username: username, email: email, password: password, bio: bio, url: url)
        case let .signIn(email, _): try signIn(email: email)
        case let .signOut(session): try signOut(session)
        case let .updateProfile(username, bio, url, avatar, discoverable):
            try acting(actor) { try updateProfile(username: username, bio: bio, url: url, avatar: avatar, discoverable: discoverable, by: $0) }
        case let .follow(user): try acting(actor) { try follow(user, by: $0) }
        case let .unfollow(user): try acting(actor) { try unfollow(user, by: $0) }
        case let .addPost(image, caption, location): try acting(actor) { try addPost(image: image, caption: caption, location: location, by: $0) }
        case let .deletePost(post): try acting(actor) { try deletePost(post, by: $0) }
        case let .addComment(post, text): try acting(actor) { try addComment(post, text: text, by: $0) }
        case let .deleteComment(comment): try acting(actor) { try deleteComment(comment, by: $0) }
        case let .like(post): try acting(actor) { try like(post, by: $0) }
        case let .unlike(post): try acting(actor) { try unlike(post, by: $0) }
        case let .bookmark(post): try acting(actor) { try bookmark(post, by: $0) }
        case let .unbookmark(post): try acting(actor) { try unbookmark(post, by: $0) }
        case let .block(user): try acting(actor) { try block(user, by: $0) }
        case let .unblock(user): try acting(actor) { try unblock(user, by: $0) }
        case let .reportPost(post, reason): try acting(actor) { try reportPost(post, reason: reason, by: $0) }
        case let .removePost(post, reason): try removePost(post, reason: reason, actor: actor)
        case let .dismissReports(post): try dismissReports(post, actor: actor)
        case let .eraseUser(user, password): try eraseUser(user, password: password, actor: actor)
        case let .requestPasswordReset(user): try requestPasswordReset(user, actor: actor)
        case let .resetPassword(token, password, email): try resetPassword(token: token, password: password, email: email)
        case let .changePassword(_, newPassword): try acting(actor) { try changePassword(newPassword, by: $0) }
        case let .changeEmail(_, email): try acting(actor) { try changeEmail(email, by: $0) }
        }
    }
}

// MARK: - Events

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

    /// The payload, as the feature that defines it describes it.
    package var payload: any EventPayload {
        switch self {
        case .userCreated(let e): e
        case .profileUpdated(let e): e
        case .signedIn(let e): e
        case .signedOut(let e): e
        case .signInFailed(let e): e
        case .postAdded(let e): e
        case .postPlaced(let e): e
        case .postImageProcessed(let e): e
        case .postDeleted(let e): e
        case .commentAdded(let e): e
        case .commentDeleted(let e): e
        case .likeAdded(let e): e
        case .likeRemoved(let e): e
        case .followed(let e): e
        case .unfollowed(let e): e
        case .postReported(let e): e
        case .postRemoved(let e): e
        case .reportsDismissed(let e): e
        case .userErased(let e): e
        case .passwordResetRequested(let e): e
        case .passwordChanged(let e): e
        case .emailChanged(let e): e
        case .bookmarked(let e): e
        case .unbookmarked(let e): e
        case .blocked(let e): e
        case .unblocked(let e): e
        }
    }
}

/// Stable event type names. The raw value is the public name.
public enum EventType: String, CaseIterable, Sendable {
    /// A user signed up (or was imported): `UserCreated`.
    case userCreated = "UserCreated"
    /// A user changed their username, bio, url, profile photo or discoverability: `ProfileUpdated`.
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

    /// The payload type events of this type carry.
    var payloadType: any EventPayload.Type {
        switch self {
        case .userCreated: UserCreated.self
        case .profileUpdated: ProfileUpdated.self
        case .signedIn: SignedIn.self
        case .signedOut: SignedOut.self
        case .signInFailed: SignInFailed.self
        case .postAdded: PostAdded.self
        case .postPlaced: PostPlaced.self
        case .postImageProcessed: PostImageProcessed.self
        case .postDeleted: PostDeleted.self
        case .commentAdded: CommentAdded.self
        case .commentDeleted: CommentDeleted.self
        case .likeAdded: Like.self
        case .likeRemoved: Like.self
        case .followed: Follow.self
        case .unfollowed: Follow.self
        case .postReported: PostReported.self
        case .postRemoved: PostRemoved.self
        case .reportsDismissed: ReportsDismissed.self
        case .userErased: UserErased.self
        case .passwordResetRequested: PasswordResetRequested.self
        case .passwordChanged: PasswordChanged.self
        case .emailChanged: EmailChanged.self
        case .bookmarked: Bookmark.self
        case .unbookmarked: Bookmark.self
        case .blocked: Block.self
        case .unblocked: Block.self
        }
    }

    /// Reads a stored payload of this type (see `EventPayload.init(from:_:)`).
    package func decodePayload(_ r: inout ByteReader, _ opener: inout PayloadOpener) throws -> Event {
        switch self {
        case .userCreated: .userCreated(try UserCreated(from: &r, &opener))
        case .profileUpdated: .profileUpdated(try ProfileUpdated(from: &r, &opener))
        case .signedIn: .signedIn(try SignedIn(from: &r, &opener))
        case .signedOut: .signedOut(try SignedOut(from: &r, &opener))
        case .signInFailed: .signInFailed(try SignInFailed(from: &r, &opener))
        case .postAdded: .postAdded(try PostAdded(from: &r, &opener))
        case .postPlaced: .postPlaced(try PostPlaced(from: &r, &opener))
        case .postImageProcessed: .postImageProcessed(try PostImageProcessed(from: &r, &opener))
        case .postDeleted: .postDeleted(try PostDeleted(from: &r, &opener))
        case .commentAdded: .commentAdded(try CommentAdded(from: &r, &opener))
        case .commentDeleted: .commentDeleted(try CommentDeleted(from: &r, &opener))
        case .likeAdded: .likeAdded(try Like(from: &r, &opener))
        case .likeRemoved: .likeRemoved(try Like(from: &r, &opener))
        case .followed: .followed(try Follow(from: &r, &opener))
        case .unfollowed: .unfollowed(try Follow(from: &r, &opener))
        case .postReported: .postReported(try PostReported(from: &r, &opener))
        case .postRemoved: .postRemoved(try PostRemoved(from: &r, &opener))
        case .reportsDismissed: .reportsDismissed(try ReportsDismissed(from: &r, &opener))
        case .userErased: .userErased(try UserErased(from: &r, &opener))
        case .passwordResetRequested: .passwordResetRequested(try PasswordResetRequested(from: &r, &opener))
        case .passwordChanged: .passwordChanged(try PasswordChanged(from: &r, &opener))
        case .emailChanged: .emailChanged(try EmailChanged(from: &r, &opener))
        case .bookmarked: .bookmarked(try Bookmark(from: &r, &opener))
        case .unbookmarked: .unbookmarked(try Bookmark(from: &r, &opener))
        case .blocked: .blocked(try Block(from: &r, &opener))
        case .unblocked: .unblocked(try Block(from: &r, &opener))
        }
    }
}
