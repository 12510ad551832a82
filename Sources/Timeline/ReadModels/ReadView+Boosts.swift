import LMDB
import TimelineDomain

/// The boosts' reads: a boost in a home timeline (each post once, at the first entry by which it
/// came in), one boost as a status of its own, and who boosted a post. What may reach the viewer
/// is `Privacy`'s (`mayShow(boostBy:isPrivate:on:)` for the booster, `mayShow(post:on:)` for
/// the post).
extension ReadView {
    /// The boost `id` in `viewer`'s home timeline, as its post with `Post.boost` set, or `nil`
    /// when it does not show there: it is gone; its booster's boosts do not come in (not the
    /// viewer, not followed, hidden with `reblogs` false, or out of the viewer's sight); the post
    /// came in before — its author is the viewer or one they follow (the post itself is in the
    /// timeline), it came in by a hashtag the viewer follows (`cameInByTag`), or an earlier
    /// boost of it came in; or the post may not reach the viewer
    /// (`boosted`: blocks, a locked author, mutes, reports, suspension).
    func homeBoost(
        _ id: PostID, of viewer: UserID, _ present: Presenter, excluding excluded: Set<UserID>,
        following: TagFollowing? = nil
    ) throws -> Post? {
        guard let boost = try models.boosts.boost(id, txn) else { return nil }
        // A boost asks of blocks twice (its booster, its post's author): read once per page.
        try present.knowBlocks()
        let privacy = present.privacy
        // The entry's booster is followed (or is the viewer): a timeline holds only followees'
        // boosts, and only followees' boost lists are merged.
        guard try comesIn(boost.booster, to: viewer, privacy, excluded, followed: true) else { return nil }
        if boost.author == viewer { return nil }
        if try follows(viewer, boost.author) { return nil }
        // The post's record, read once for the checks below and to show it.
        guard let stored = try storedPost(Array(boost.post.rawValue.utf8)) else { return nil }
        // The post came in by a followed tag, at its own place.
        if try cameInByTag(stored, following, privacy) { return nil }
        // Most posts have one boost: the earlier ones are looked for only when there are others.
        var earlierCameIn = false
        if stored.fields.boostCount > 1 {
            try models.boosts.byPost.forEach(in: boost.post, txn) { earlier, booster in
                guard earlier < id else { return false }
                earlierCameIn = try comesIn(booster, to: viewer, privacy, excluded)
                return !earlierCameIn
            }
        }
        guard !earlierCameIn, var post = try present.listed(stored, on: .boosted) else {
            return nil
        }
        post.boost = try info(boost, present)
        return post
    }

    /// Whether `booster`'s boosts come into `viewer`'s home timeline: the viewer's own, or those
    /// of a followee whose boosts they did not hide and whom the policy lets reach them (a
    /// private boost is for the booster's followers: they are one), unless the booster is one of
    /// `excluded`, the members of the viewer's exclusive lists (whose boosts, as their posts,
    /// are read in the list, as Mastodon's exclusive lists keep them).
    /// `followed`: the viewer is known to follow `booster` (no need to read it).
    private func comesIn(
        _ booster: UserID, to viewer: UserID, _ privacy: Privacy<ReadView>, _ excluded: Set<UserID>,
        followed: Bool = false
    ) throws -> Bool {
        if booster == viewer { return true }
        if excluded.contains(booster) { return false }
        guard try followed || follows(viewer, booster), try models.boosts.shows(viewer, booster, txn) else {
            return false
        }
        return try privacy.mayShow(boostBy: booster, isPrivate: false, on: .home)
    }

    private func info(_ boost: BoostRecord, _ present: Presenter) throws -> BoostInfo {
        BoostInfo(
            id: boost.id, by: boost.booster, byUsername: try present.username(boost.booster), at: boost.createdAt,
            visibility: boost.visibility)
    }

    /// The boost `id` as `viewer` sees it on its own (a status of its own): its post with
    /// `Post.boost` set; `not_found` when it is gone or may not reach them (the booster's part
    /// and the post's, on `post`).
    func boost(_ id: PostID, viewer: UserID?) throws -> Post {
        let present = Presenter(try privacy(for: viewer))
        guard let boost = try models.boosts.boost(id, txn),
            try present.privacy.mayShow(boostBy: boost.booster, isPrivate: boost.visibility == .private, on: .post),
            var post = try present.listedPost(boost.post, on: .post)
        else { throw TimelineError.notFound("boost", id.rawValue) }
        post.boost = try info(boost, present)
        return post
    }

    /// Whether `id` is a boost that stands.
    func isBoost(_ id: PostID) throws -> Bool { try models.boosts.boosts.contains(id, txn) }

    /// Who boosted `post` (Mastodon's `reblogged_by`), the latest boost first: those the viewer
    /// may see (`listed`), of a post they may see.
    func boosters(of post: PostID, _ request: PageRequest, viewer: UserID?) throws -> Page<Profile> {
        try requireVisiblePost(post, viewer: viewer)
        let privacy = try privacy(for: viewer)
        return try pageDescending(models.boosts.byPost, in: post, request) { boost, booster in
            guard let record = try models.boosts.boost(boost, txn),
                try privacy.mayShow(boostBy: booster, isPrivate: record.visibility == .private, on: .search)
            else { return nil }
            return try listed(booster, viewer: viewer)
        }
    }

    /// `user`'s posts and boosts merged, newest entry first (Mastodon's account statuses, which
    /// show an account's reblogs): each boost as its post with `Post.boost` set, when the viewer
    /// may see the booster's boost (a private one needs a follow) and the post (`profile`).
    func postsAndBoosts(by user: UserID, _ request: PageRequest, viewer: UserID?) throws -> Page<Post> {
        try requireUser(user)
        let present = Presenter(try privacy(for: viewer))
        let sources = [
            MergeSource(prefix: models.posts.postsByUser.prefix(user), floor: nil),
            MergeSource(prefix: models.boosts.byUser.prefix(user), floor: nil, ownsValues: true)
        ]
        let databases = [models.posts.postsByUser.database, models.boosts.byUser.database]
        return try txn.withCursors(databases) { cursors in
            try MergeSource.page(sources, cursors, request) { id, value in
                guard value != nil else { return try present.listedPost(id, on: .profile) }
                let boostID = PostID(String(decoding: id, as: UTF8.self))
                guard let boost = try models.boosts.boost(boostID, txn),
                    try present.privacy.mayShow(
                        boostBy: boost.booster, isPrivate: boost.visibility == .private, on: .profile),
                    var post = try present.listedPost(boost.post, on: .profile)
                else { return nil }
                post.boost = try info(boost, present)
                return post
            }
        }
    }
}
