import Foundation
import LMDB
import TimelineDomain

/// Trends, computed when read from the last week's posts (newest first, as post ids sort), so
/// nothing is kept but the moderators' hidden list (`InstanceProjection.hiddenTrends`):
///
/// - A hashtag trends when at least `trendingTagAccounts` accounts used it in public posts over
///   the last `trendWindowDays` days, ranked by how many accounts did, then by uses, then by name.
/// - A post trends when it is public, from the last week, and has at least
///   `trendingPostInteractions` likes and comments; it is ranked by them over its age in hours
///   plus two, raised to 1.5 (older posts need more to stay up).
///
/// Only posts for everyone count (`Surface.trends`: never a followers-only post or a locked
/// account's, whoever reads), without suspended authors or posts hidden by reports. What a
/// viewer gets leaves out what they may not see (blocks either way, mutes). At most
/// `trendPostsRead` posts are read, the newest.
extension ReadView {
    /// The days a trend looks back over (a tag's `history` is seven days).
    static let trendWindowDays: Int64 = 2
    /// How many accounts must use a hashtag in the window for it to trend.
    static let trendingTagAccounts = 2
    /// How many likes and comments a post needs to trend.
    static let trendingPostInteractions = 2
    /// How many of the newest posts trends read, at most.
    static let trendPostsRead = 20_000
    /// A day, in milliseconds.
    static let dayMs: Int64 = 86_400_000

    /// The public posts of the last seven days that may count (newest first), with `body`
    /// called on each; nothing older, and at most `trendPostsRead` of them. With `tag`, only
    /// that hashtag's posts, read from its own list (a search's `Tag.history` reads no others).
    private func forEachRecentPublicPost(tagged tag: String? = nil, _ body: (PostRecord) throws -> Void) throws {
        let counting = Privacy(viewer: nil, mutes: [], reportThreshold: reports.hideAfter, state: self)
        let since = now - 7 * Self.dayMs
        var read = 0
        func visit(_ record: PostRecord) throws -> Bool {
            guard record.createdAt >= since else { return false }
            if try counting.mayShow(post: record, on: .trends) { try body(record) }
            read += 1
            return read < Self.trendPostsRead
        }
        if let tag {
            try models.hashtags.hashtags.forEachDescending(in: tag, txn) { post, _ in
                guard let record = try self.post(post) else { return true }
                return try visit(record)
            }
        } else {
            try txn.scanDescending(models.posts.posts.database, prefix: [], before: nil) { _, value in
                try visit(try PostRecords.decode(value).record)
            }
        }
    }

    /// The trending hashtags, `limit` of them from `offset`, each with its last seven days.
    func trendingTags(offset: Int, limit: Int) throws -> [TrendingTag] {
        let windowStart = now - Self.trendWindowDays * Self.dayMs
        var usage: [String: TagUsage] = [:]
        try forEachRecentPublicPost { post in
            for tag in Set(post.hashtags) {
                usage[tag, default: TagUsage()].count(post, windowStart: windowStart)
            }
        }
        let ranked = try usage.filter { $0.value.windowAccounts.count >= Self.trendingTagAccounts }
            .filter { try !trendHidden(.tag, $0.key) }
            .sorted { a, b in
                (a.value.windowAccounts.count, a.value.windowUses, b.key)
                    > (b.value.windowAccounts.count, b.value.windowUses, a.key)
            }
        return ranked.dropFirst(offset).prefix(limit).map { TrendingTag(name: $0.key, history: history($0.value)) }
    }

    /// A hashtag's uses over the last seven days (today first), in public posts.
    func tagHistory(_ tag: String) throws -> [TagDay] {
        var usage = TagUsage()
        try forEachRecentPublicPost(tagged: tag) { post in usage.count(post, windowStart: now) }
        return history(usage)
    }

    /// The trending posts as `viewer` may see them, `limit` of them from `offset`.
    func trendingPosts(offset: Int, limit: Int, viewer: UserID?) throws -> [Post] {
        var scored: [(post: PostID, score: Double)] = []
        try forEachRecentPublicPost { post in
            let interactions = post.likeCount + post.commentCount
            guard interactions >= Self.trendingPostInteractions, try !trendHidden(.post, post.id.rawValue) else {
                return
            }
            let hours = Double(max(now - post.createdAt, 0)) / 3_600_000
            scored.append((post.id, Double(interactions) / pow(hours + 2, 1.5)))
        }
        scored.sort { ($0.score, $0.post.rawValue) > ($1.score, $1.post.rawValue) }
        let present = Presenter(try privacy(for: viewer))
        var shown: [Post] = []
        var position = 0
        for (id, _) in scored {
            guard let post = try present.listedPost(id, on: .trends) else { continue }
            defer { position += 1 }
            guard position >= offset else { continue }
            shown.append(post)
            if shown.count == limit { break }
        }
        return shown
    }

    /// The seven days (today first) of `usage`.
    private func history(_ usage: TagUsage) -> [TagDay] {
        let today = now - ((now % Self.dayMs) + Self.dayMs) % Self.dayMs
        return (0..<7).map { back in
            let day = today - Int64(back) * Self.dayMs
            return TagDay(day: day, uses: usage.uses[day] ?? 0, accounts: usage.accounts[day]?.count ?? 0)
        }
    }
}

/// How one hashtag was used: per day (by the day's start, ms) and over the trend window.
private struct TagUsage {
    var uses: [Int64: Int] = [:]
    var accounts: [Int64: Set<UserID>] = [:]
    var windowUses = 0
    var windowAccounts: Set<UserID> = []

    mutating func count(_ post: PostRecord, windowStart: Int64) {
        let day = post.createdAt - ((post.createdAt % ReadView.dayMs) + ReadView.dayMs) % ReadView.dayMs
        uses[day, default: 0] += 1
        accounts[day, default: []].insert(post.author)
        if post.createdAt >= windowStart {
            windowUses += 1
            windowAccounts.insert(post.author)
        }
    }
}
