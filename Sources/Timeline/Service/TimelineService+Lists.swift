import TimelineDomain

/// Lists: a user's lists, their members, the lists an account is in, and a list's timeline.
/// Each answers only the list's owner (another's list is `not_found`, as Mastodon answers).
extension TimelineService {
    /// `user`'s lists, oldest first.
    public func lists(of user: UserID) throws(TimelineError) -> [ListRecord] {
        try read { view in
            try view.requireUser(user)
            return try view.lists(of: user)
        }
    }

    /// `viewer`'s list `id`.
    public func list(_ id: ListID, viewer: UserID) throws(TimelineError) -> ListRecord {
        try read { try $0.ownList(id, viewer: viewer) }
    }

    /// The accounts in `viewer`'s list `id`, by account id, the latest account first.
    public func listAccounts(_ id: ListID, _ page: PageRequest = PageRequest(), viewer: UserID) throws(TimelineError)
        -> Page<Profile>
    {
        let page = try page.validated()
        return try read { view in
            _ = try view.ownList(id, viewer: viewer)
            return try view.pageDescending(view.models.lists.members, in: id, page) { account, _ in
                try view.listed(account, viewer: viewer)
            }
        }
    }

    /// `viewer`'s lists that hold `account`, oldest first.
    public func lists(containing account: UserID, viewer: UserID) throws(TimelineError) -> [ListRecord] {
        try read { view in
            try view.requireUser(account)
            let lists = view.models.lists
            return try lists.memberships.members(of: ListsProjection.membership(viewer, account), view.txn)
                .compactMap { try view.list($0) }
        }
    }

    /// The posts of the members of `viewer`'s list `id` that `viewer` may see, newest first
    /// (with `likedByViewer` for `viewer`): as exact as the home timeline at any depth.
    public func listTimeline(_ id: ListID, _ page: PageRequest = PageRequest(), viewer: UserID) throws(TimelineError)
        -> Page<Post>
    {
        let page = try page.validated()
        return try read { try $0.listTimeline(id, viewer: viewer, page) }
    }

    /// Whether `account` is in `viewer`'s list `id` (`not_found` for another's list).
    public func listHolds(_ id: ListID, _ account: UserID, viewer: UserID) throws(TimelineError) -> Bool {
        try read { view in
            _ = try view.ownList(id, viewer: viewer)
            return try view.listHas(id, account)
        }
    }

    /// Whether `author`'s posts leave `viewer`'s home timeline (and its live stream): they are
    /// in one of `viewer`'s exclusive lists.
    public func leavesHome(_ author: UserID, of viewer: UserID) throws(TimelineError) -> Bool {
        try read { view in
            for id in try view.models.lists.memberships.members(
                of: ListsProjection.membership(viewer, author), view.txn)
            where try view.list(id)?.exclusive == true {
                return true
            }
            return false
        }
    }
}
