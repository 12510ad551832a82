import LMDB
import TimelineDomain

/// What a home timeline needs to take posts in by the hashtags its owner follows (#41): the
/// tags and the members of the owner's exclusive lists (who leave the home timeline, by a tag
/// too).
struct TagFollowing {
    /// The owner of the home timeline.
    let viewer: UserID
    /// The hashtags they follow.
    let tags: Set<String>
    /// The members of the viewer's exclusive lists.
    let excluded: Set<UserID>

    /// `ReadView.mayComeInByTag` for a post by `author` that the home merge met in a followed
    /// tag's list and in no other of its sources, answered without a read: it carries the tag
    /// (the tag's list holds it), and a followee's post was met first by the follow (a pushed
    /// followee's posts are in the materialised timeline, a pulled one's list is merged, and
    /// for one id the merge takes those sources before the tags'), so its author is no
    /// followee, unless a pulled one whose list the page left out (`unmerged`: muted, hidden).
    func mayComeInFromItsList(by author: UserID, unmerged: Set<UserID>) -> Bool {
        author != viewer && !excluded.contains(author) && !unmerged.contains(author)
    }
}

/// Followed hashtags' reads: who follows which tag, and the one rule by which a tagged post
/// comes into a home timeline. A followed tag's posts since its follow, and the newest before
/// it, are written into the timeline (`TimelineProjection`); its older ones are merged from
/// its post list (`HashtagsProjection.hashtags`) at read time (`timeline(of:_:)`): the choice
/// is measured in docs/performance.md.
extension ReadView {
    /// What `viewer`'s home timeline needs to take tagged posts in (`nil`: they follow none).
    func tagFollowing(of viewer: UserID, excluded: Set<UserID>) throws -> TagFollowing? {
        let tags = try models.hashtags.followedTags(of: viewer, txn)
        guard !tags.isEmpty else { return nil }
        return TagFollowing(viewer: viewer, tags: Set(tags), excluded: excluded)
    }

    /// The followed tags whose follow left older posts to be merged from the tag's list, each
    /// with the newest of those (`TimelineProjection` wrote the newer ones into the timeline).
    func tagListsToMerge(_ following: TagFollowing) throws -> [(tag: String, newest: String)] {
        try following.tags.sorted().compactMap { tag in
            guard let newest = try models.timeline.tagFollowers.get((tag, following.viewer), txn), !newest.isEmpty
            else { return nil }
            return (tag, newest)
        }
    }

    /// Whether `stored` may come into the home timeline by a followed tag, before the viewer's
    /// own policy, asked on `hashtag`: it carries a tag they follow, and it does not come in
    /// otherwise — it is not the viewer's own nor a followee's (those come in by the follow,
    /// once), nor an exclusive list member's. Its author being someone the viewer does not
    /// follow, the policy then shows it only when anyone may see it (never a followers-only
    /// post, a locked, suspended or reported-away author's) and no block or mute stands.
    func mayComeInByTag(_ stored: PostReadings, _ following: TagFollowing) throws -> Bool {
        guard stored.hashtags.contains(where: following.tags.contains) else { return false }
        let author = stored.author
        if author == following.viewer || following.excluded.contains(author) { return false }
        return try !follows(following.viewer, author)
    }

    /// Whether post `id` came into the home timeline by a followed tag (`mayComeInByTag`, and
    /// the viewer's policy on `hashtag`): a boost of it then does not show again.
    func cameInByTag(_ id: PostID, _ following: TagFollowing?, _ privacy: Privacy<ReadView>) throws -> Bool {
        guard let following, let stored = try storedPost(Array(id.rawValue.utf8)) else { return false }
        return try cameInByTag(stored, following, privacy)
    }

    /// `cameInByTag(_:_:_:)` for a post whose record the caller read.
    func cameInByTag(_ stored: PostReadings, _ following: TagFollowing?, _ privacy: Privacy<ReadView>) throws -> Bool {
        guard let following else { return false }
        return try mayComeInByTag(stored, following) && privacy.mayShow(post: stored, on: .hashtag)
    }

    /// The hashtags `user` follows, the latest followed first (paged by the follow's cursor).
    func followedTags(of user: UserID, _ request: PageRequest) throws -> Page<String> {
        try requireUser(user)
        return try pageDescending(models.hashtags.tagFollowList, in: user, request) { _, tag in tag }
    }
}
