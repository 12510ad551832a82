import LMDB
import TimelineDomain

/// Reads of the profile extras (`ProfileExtrasProjection`): pinned posts, endorsements, notes,
/// muted conversations and familiar followers, each through the one privacy policy.
extension ReadView {
    /// `user`'s pinned posts that `viewer` may see on a profile, the latest pinned first (none
    /// across a block either way: `Privacy` hides the posts on the `profile` surface).
    func pinnedPosts(of user: UserID, viewer: UserID?) throws -> [Post] {
        try requireUser(user)
        let present = Presenter(try privacy(for: viewer))
        return try models.profileExtras.pinned(by: user, txn).compactMap { try present.listedPost($0, on: .profile) }
    }

    /// The accounts `user` endorses that `viewer` may see, the latest endorsed first: nothing
    /// when `user` is out of `viewer`'s sight (a block either way, a suspension).
    func endorsements(of user: UserID, viewer: UserID?) throws -> [Profile] {
        try requireUser(user)
        if user != viewer, try hidden(user, from: viewer) { return [] }
        return try models.profileExtras.endorsed(by: user, txn).compactMap { try listed($0, viewer: viewer) }
    }

    /// The accounts `viewer` follows who follow `user`, that `viewer` may see (none when `user`
    /// is out of their sight), the newest follow of `viewer`'s first.
    func familiarFollowers(of user: UserID, viewer: UserID) throws -> [Profile] {
        try requireUser(user)
        guard user != viewer, try !hidden(user, from: viewer) else { return [] }
        var familiar: [UserID] = []
        try models.follows.followingInOrder.forEachDescending(in: viewer, txn) { _, followee in
            if followee != user, try models.follows.follows(followee, user, txn) { familiar.append(followee) }
            return true
        }
        return try familiar.compactMap { try listed($0, viewer: viewer) }
    }

    /// The hashtags `user` features, in the order featured, each with how many of `user`'s posts
    /// that `viewer` may see carry it and when the newest was posted: none when `user` is out
    /// of `viewer`'s sight.
    func featuredTags(of user: UserID, viewer: UserID?) throws -> [FeaturedTagSummary] {
        try requireUser(user)
        if user != viewer, try hidden(user, from: viewer) { return [] }
        let tags = try models.profileExtras.featured(by: user, txn)
        guard !tags.isEmpty else { return [] }
        var counts: [String: (count: Int, last: Int64?)] = [:]
        let present = Presenter(try privacy(for: viewer))
        for post in try models.posts.postsByUser.members(of: user, txn) {
            let carried = Set(try models.hashtags.postTags.get(post, txn) ?? []).intersection(tags)
            guard !carried.isEmpty, let shown = try present.listedPost(post, on: .profile) else { continue }
            for tag in carried {
                let before = counts[tag] ?? (0, nil)
                counts[tag] = (before.count + 1, max(before.last ?? shown.createdAt, shown.createdAt))
            }
        }
        return tags.map { FeaturedTagSummary(tag: $0, postCount: counts[$0]?.count ?? 0, lastPostAt: counts[$0]?.last) }
    }

    /// The hashtags of `user`'s own posts they do not feature yet, the most used first (then by
    /// name), at most `HashtagSet.featured.limit`.
    func featuredTagSuggestions(for user: UserID) throws -> [String] {
        try requireUser(user)
        let featured = Set(try models.profileExtras.featured(by: user, txn))
        var counts: [String: Int] = [:]
        for post in try models.posts.postsByUser.members(of: user, txn) {
            for tag in try models.hashtags.postTags.get(post, txn) ?? [] where !featured.contains(tag) {
                counts[tag, default: 0] += 1
            }
        }
        let ranked = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        return ranked.prefix(HashtagSet.featured.limit).map(\.key)
    }
}
