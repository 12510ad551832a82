/// Where a read shows a post, a comment, an account or an activity item to a viewer. Each
/// surface has its rules (docs/security.md, "Who sees what"); `Privacy` applies them.
package enum Surface: Sendable, CaseIterable {
    /// The viewer's home timeline: it holds only the posts of whom they follow (a block ends a
    /// follow), so no follow or block is checked per post.
    case home
    /// A boosted post in the viewer's home timeline: its author may be someone they do not
    /// follow, so followers-only (its author's account locked since), blocks either way and
    /// mutes are checked as anywhere else.
    case boosted
    /// The live stream of the home timeline (and its activity): no materialised list, so the
    /// author must be followed.
    case stream
    /// One of the viewer's lists: its members' posts, merged at read time from their post
    /// lists (no materialised list), so each author must be followed, as on the stream.
    case list
    /// A user's profile page and their posts.
    case profile
    /// A hashtag's posts.
    case hashtag
    /// Search: public posts, places, users, suggestions, contacts, mentions and lists of users.
    case search
    /// The posts the viewer likes.
    case favourites
    /// The viewer's bookmarks.
    case bookmarks
    /// One post (its page, its likers, its comments' post, one of its images).
    case post
    /// A post's comment thread.
    case comments
    /// The viewer's activity feed.
    case notifications
    /// A push message (what the activity feed would show).
    case push
    /// The viewer's export of their own data.
    case export
    /// The trends: what counts is what nobody signed in may see (public posts only: never a
    /// followers-only post or a locked account's); what shows, what the viewer may see of it.
    case trends
    /// A collection of accounts to feature (Mastodon's collections): its owner and the accounts
    /// it features. A block either way or a suspension hides the owner (and the collection
    /// with them) and each featured account; mutes hide nothing (as in a list of users).
    case collections
    /// The viewer's conversations of direct messages (their last messages).
    case conversations
    /// The stories row (and acting on a story: viewing, replying): the live stories of those the
    /// viewer follows, as their posts are anywhere — a locked account's for its followers, blocks
    /// either way and mutes hide them. One story, its photo and a profile's highlights are as
    /// one post (`post`) and a profile (`profile`).
    case stories
    /// Acting on a post (like, comment, bookmark, report): a hidden post is `not_found`. Blocks
    /// are answered by the command with its own error, and mutes do not stop acting.
    case command

    /// Whether the viewer's mutes hide the muted users' posts here.
    package var mutesHidePosts: Bool {
        switch self {
        case .home, .boosted, .stream, .list, .hashtag, .search, .favourites, .notifications, .push, .trends,
            .stories:
            true
        case .profile, .bookmarks, .post, .comments, .export, .collections, .conversations, .command: false
        }
    }

    /// Whether the viewer's mutes hide what the muted users do here (their comments, their
    /// activity items); a muted account itself is never hidden from a list or search.
    package var mutesHideDoings: Bool {
        switch self {
        case .comments, .notifications, .push, .stream: true
        default: false
        }
    }

    /// Whether a block either way hides the other user's posts here (`home` and `stream` show
    /// only followees, and a block ends a follow; a command answers blocks itself).
    package var blocksHidePosts: Bool {
        switch self {
        case .home, .stream, .command: false
        default: true
        }
    }

    /// Whether a block either way hides the other user's account here (not their profile page,
    /// which says the block, nor the viewer's own export).
    package var blocksHideAccounts: Bool {
        switch self {
        case .profile, .export: false
        default: true
        }
    }

    /// Whether a followers-only post needs the viewer to follow its author here (`home` holds
    /// followees' posts only; `stream` asks a follow of every author).
    package var checksFollowersOnly: Bool { self != .home }

    /// Whether only followed authors' posts show here.
    package var needsFollow: Bool { self == .stream || self == .list }
}

/// What the privacy policy reads of a post: a `PostRecord`, or a stored record's bytes.
package protocol PostFacts {
    /// The post's id.
    var id: PostID { get }
    /// Its author.
    var author: UserID { get }
    /// Whether only its author's followers may see it.
    var isFollowersOnly: Bool { get }
    /// Whether it is a direct message: only its author and its addressees may see it.
    var isDirect: Bool { get }
    /// Whether a direct post addresses `user` (a stored record compares bytes).
    func isAddressed(_ user: UserID) -> Bool
    /// Whether `user` is its author (a stored record compares bytes).
    func isAuthor(_ user: UserID) -> Bool
    /// Whether enough reports may stand against it to reach `threshold` (a cheap bound: `true`
    /// when unknown; the counted reports are read only then).
    func mayBeHiddenByReports(threshold: Int) -> Bool
}

extension PostFacts {
    /// Compares the author's id.
    package func isAuthor(_ user: UserID) -> Bool { author == user }
    /// Unknown: the counted reports are read.
    package func mayBeHiddenByReports(threshold: Int) -> Bool { true }
}

extension PostRecord: PostFacts {
    /// Whether it is for followers only.
    package var isFollowersOnly: Bool { visibility == .followers }
    /// Whether it is a direct message.
    package var isDirect: Bool { visibility == .direct }
    /// Whether it addresses `user`.
    package func isAddressed(_ user: UserID) -> Bool { addressees.contains(user) }
}

/// The one privacy policy: whether a post, comment, account or activity item may reach one
/// viewer, and where (`Surface`). Built once per read for the viewer, with their active mutes;
/// every read path, the live streams, push, export and deciding ask it. The rules are written
/// in docs/security.md ("Who sees what").
///
/// A class: a page passes it to every check of every post, and a copy of a struct of it retained
/// each of its references (the state's, the viewer's, the sets') every time.
package final class Privacy<State: DecisionState> {
    /// What the policy reads (blocks, follows, suspensions, reports).
    package let state: State
    /// Who reads (`nil`: nobody signed in).
    package let viewer: UserID?
    /// Whom the viewer mutes now.
    package let mutes: Set<UserID>
    /// How many counted reports hide a post.
    package let reportThreshold: Int
    /// The suspended users, when a read loaded them once (the home timeline); `nil`: asked per user.
    package let suspended: Set<UserID>?
    /// The users the viewer blocks or is blocked by, when a read loaded them once (a home
    /// timeline with followed tags, whose posts are strangers'); `nil`: asked per user.
    package let blockedUsers: Set<UserID>?
    /// An author whose follower the viewer counts as, though they do not follow them here: their
    /// own server vouched for the viewer (`receiveRemoteComment`); `nil`: none.
    package let vouchedBy: UserID?

    /// The policy for `viewer`, who mutes `mutes`, over `state`.
    package convenience init(viewer: UserID?, mutes: Set<UserID>, reportThreshold: Int, state: State) {
        self.init(viewer, mutes, reportThreshold, state, suspended: nil, blockedUsers: nil, vouchedBy: nil)
    }

    private init(
        _ viewer: UserID?, _ mutes: Set<UserID>, _ reportThreshold: Int, _ state: State,
        suspended: Set<UserID>?, blockedUsers: Set<UserID>?, vouchedBy: UserID?
    ) {
        self.viewer = viewer
        self.mutes = mutes
        self.reportThreshold = reportThreshold
        self.state = state
        self.suspended = suspended
        self.blockedUsers = blockedUsers
        self.vouchedBy = vouchedBy
    }

    /// This policy, answering suspensions from `suspended` (read once) instead of per user.
    package func knowingSuspended(_ suspended: Set<UserID>) -> Privacy {
        Privacy(
            viewer, mutes, reportThreshold, state, suspended: suspended, blockedUsers: blockedUsers,
            vouchedBy: vouchedBy)
    }

    /// This policy, answering blocks from `blocked` (the users the viewer blocks or is blocked
    /// by, read once) instead of per user; `nil` keeps asking per user.
    package func knowingBlocks(_ blocked: Set<UserID>?) -> Privacy {
        Privacy(
            viewer, mutes, reportThreshold, state, suspended: suspended, blockedUsers: blocked, vouchedBy: vouchedBy)
    }

    /// This policy, counting the viewer as a follower of `author` (whose own server vouched for
    /// them: a remote account answering a post of an account of its server); every other rule
    /// (suspension, reports, blocks, direct posts) stands.
    package func countingAsFollower(of author: UserID) -> Privacy {
        Privacy(
            viewer, mutes, reportThreshold, state, suspended: suspended, blockedUsers: blockedUsers, vouchedBy: author)
    }

    private func isSuspended(_ user: UserID) throws -> Bool {
        if let suspended { return suspended.contains(user) }
        return try state.isSuspended(user)
    }

    private func blockedEitherWay(_ user: UserID) throws -> Bool {
        guard let viewer else { return false }
        if let blockedUsers { return blockedUsers.contains(user) }
        return try state.blockedEitherWay(viewer, user)
    }

    private func follows(_ user: UserID) throws -> Bool {
        guard let viewer else { return false }
        return try user == vouchedBy || state.follows(viewer, user)
    }

    /// Whether `author`'s posts may reach the viewer on `surface` at all (before what a post
    /// itself says: followers only, reports). Their author always may; a locked account's
    /// posts only its followers (where followers-only posts are checked).
    package func mayShow(postsBy author: UserID, on surface: Surface) throws -> Bool {
        if author == viewer { return true }
        if surface.mutesHidePosts, mutes.contains(author) { return false }
        if try isSuspended(author) { return false }
        let needsFollow = try surface.needsFollow || (surface.checksFollowersOnly && state.isLocked(author))
        if needsFollow, try !follows(author) { return false }
        return try !surface.blocksHidePosts || !blockedEitherWay(author)
    }

    /// Whether `post` may reach the viewer on `surface`: its author always; otherwise not when
    /// the viewer mutes its author (where mutes hide posts), its author is suspended, it is for
    /// followers only or its author's account is locked (private: every post of it, earlier ones
    /// too, whatever their own visibility) and the viewer does not follow its author, enough
    /// counted reports stand against it, or a block stands between its author and the viewer
    /// (where blocks hide posts). A direct post reaches nobody but its author and its addressees,
    /// on every surface (and them whether or not they follow its author, a locked one too; a
    /// surface that needs a follow still does). The locked flag is the author's now, read at each read: a
    /// public post shows again when its author unlocks, a followers-only one stays so.
    package func mayShow(post: some PostFacts, on surface: Surface) throws -> Bool {
        if let viewer, post.isAuthor(viewer) { return true }
        let direct = post.isDirect
        if direct {
            guard let viewer, post.isAddressed(viewer) else { return false }
        }
        // The author's id is made only when a rule needs it (a stored record holds bytes).
        let needsAuthor =
            (surface.mutesHidePosts && !mutes.isEmpty) || suspended.map { !$0.isEmpty } ?? true
            || surface.needsFollow || surface.checksFollowersOnly || surface.blocksHidePosts
        let author = needsAuthor ? post.author : UserID("")
        if surface.mutesHidePosts, !mutes.isEmpty, mutes.contains(author) { return false }
        if suspended.map({ !$0.isEmpty }) ?? true, try isSuspended(author) { return false }
        let needsFollow =
            try surface.needsFollow || (!direct && surface.checksFollowersOnly && isForFollowers(post, by: author))
        if needsFollow, try !follows(author) { return false }
        let threshold = reportThreshold
        if post.mayBeHiddenByReports(threshold: threshold),
            try state.countedReports(post.id, upTo: threshold) >= threshold
        {
            return false
        }
        return try !surface.blocksHidePosts || !blockedEitherWay(author)
    }

    /// Whether a boost by `booster` may reach the viewer on `surface` (before the boosted post,
    /// which the caller asks of `mayShow(post:on:)`, on `boosted` for a home timeline): their own
    /// always; otherwise not when the viewer mutes the booster (where mutes hide posts), the
    /// booster is suspended, a block stands between them (anywhere: a boost is the booster's
    /// doing), or the boost is `private` (for the booster's followers) and the viewer does not
    /// follow the booster.
    package func mayShow(boostBy booster: UserID, isPrivate: Bool, on surface: Surface) throws -> Bool {
        if booster == viewer { return true }
        if surface.mutesHidePosts, mutes.contains(booster) { return false }
        if try isSuspended(booster) { return false }
        if try blockedEitherWay(booster) { return false }
        return try !isPrivate || follows(booster)
    }

    /// Whether only `post`'s author's followers (and the author) may see it: it is for followers
    /// only, or its author (`author`, its id) has locked their account now — private means
    /// private: every post of a locked account, earlier ones too, whatever their own visibility.
    package func isForFollowers(_ post: some PostFacts, by author: UserID) throws -> Bool {
        try post.isFollowersOnly || state.isLocked(author)
    }

    /// Whether `post` is for some viewers only (what shows it, its photo's bytes too, is
    /// private to them): a direct post, or one for followers (`isForFollowers(_:by:)`).
    package func isRestricted(_ post: some PostFacts, by author: UserID) throws -> Bool {
        try post.isDirect || isForFollowers(post, by: author)
    }

    /// Whether `user`'s account (or what they do: a comment, an activity item) may reach the
    /// viewer on `surface`: the viewer themselves always; otherwise not when `user` is
    /// suspended, the viewer mutes them (where mutes hide doings), or a block stands between
    /// them (where blocks hide accounts).
    package func mayShow(account user: UserID, on surface: Surface) throws -> Bool {
        if user == viewer { return true }
        if surface.mutesHideDoings, mutes.contains(user) { return false }
        if try isSuspended(user) { return false }
        return try !surface.blocksHideAccounts || !blockedEitherWay(user)
    }

    /// Whether a comment may reach the viewer on `surface` (`comments` for a thread, `post` for
    /// one comment): its author's account may (`mayShow(account:on:)`). Its post's visibility
    /// is the caller's to ask first.
    package func mayShow(comment: CommentRecord, on surface: Surface) throws -> Bool {
        try mayShow(account: comment.author, on: surface)
    }

    /// Whether an activity item may reach the viewer (`notifications` or `push`): the viewer's
    /// notification policy did not hold it in a notification request (`filtered`: it reaches no
    /// list, count, stream or push until the viewer accepts the request), its actor may
    /// (`mayShow(account:on:)`) and, for an item about a post that is not the viewer's own
    /// (a mention, a reply, a post they asked to be told of), that post is there and may
    /// (`post`: `nil` when it is gone).
    package func mayShowActivity(
        actor: UserID?, aboutPost: Bool, post: (some PostFacts)?, filtered: Bool = false,
        on surface: Surface
    ) throws -> Bool {
        if filtered { return false }
        if let actor, try !mayShow(account: actor, on: surface) { return false }
        guard aboutPost else { return true }
        guard let post else { return false }
        return try mayShow(post: post, on: surface)
    }
}
