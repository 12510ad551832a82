/// Every command of SPEC.md, as plain values. Field values are raw user input; `decide`
/// validates and normalises them.
public enum Command: Sendable, Equatable {
    case createUser(username: String, email: String, password: String, bio: String?, url: String?)
    case signIn(email: String, password: String)
    case signOut(session: String)
    case updateProfile(username: String?, bio: String?, url: String?)
    case follow(user: String)
    case unfollow(user: String)
    /// `image` is base64.
    case addPost(image: String, caption: String?)
    case deletePost(post: String)
    case addComment(post: String, text: String)
    case deleteComment(comment: String)
    case like(post: String)
    case unlike(post: String)
    case reportPost(post: String, reason: String)
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
        case .reportPost: .reportPost
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
             .reportPost, .eraseUser, .requestPasswordReset, .changePassword, .changeEmail:
            true
        }
    }
}

/// The public names of the commands: the one place each is spelled. `Catalogue` decodes a
/// command by switching over these (exhaustively), and `schemas/commands/<name>.schema.json`
/// exists for each (a test checks).
public enum CommandName: String, CaseIterable, Sendable {
    case createUser, signIn, signOut, updateProfile, follow, unfollow, addPost, deletePost, addComment, deleteComment,
         like, unlike, reportPost, eraseUser, requestPasswordReset, resetPassword, changePassword, changeEmail
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
