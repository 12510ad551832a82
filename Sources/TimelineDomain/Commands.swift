/// Every command of SPEC.md, as plain values. Field values are raw user input; `decide`
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
    /// data made unrecoverable. By the user themself, or by an operator.
    case eraseUser(user: String)
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

/// Who runs a command, as the domain sees it.
package enum Actor: Sendable, Equatable {
    /// A trusted local operator acting as this user.
    case user(UserID)
    /// A session, named by the hash of its token.
    case session(hash: String)
    /// A trusted local operator acting as nobody in particular (e.g. `timeline erase-user`).
    case `operator`
    case anonymous
}

/// What `updateProfile` does to the profile photo.
public enum AvatarUpdate: Sendable, Equatable {
    /// Sets it from an image (base64), stored as 320 px and 96 px squares.
    case set(String)
    /// Removes it.
    case remove
}
