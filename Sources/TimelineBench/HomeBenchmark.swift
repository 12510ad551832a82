import Foundation
import Timeline
import TimelineDomain

/// `timeline bench --only home`: the home page of readers who follow hashtags (#41), read the
/// way Timeline reads it (the materialised timeline, the pulled authors' posts and boosts, and
/// each followed tag's post list merged at read time, each post once), beside the same readers'
/// page before they followed the tags, the raw floor and the SQLite peer's home page (its feed
/// table, into which the same follows bring the tags' posts).
extension Benchmark {
    /// How many hashtags each measured reader follows.
    static let followedTagsPerReader = 3

    func homeFigures(_ service: TimelineService, _ network: NetworkBuilder.Network, peer: SQLitePeer?) async throws
        -> [Figure]
    {
        progress("home pages with followed hashtags")
        var rng = SplitMix(state: 23)
        var readers: [UserID] = []
        var seen: Set<UserID> = []
        // Readers who follow no tag in the network (its tag followers keep theirs).
        while readers.count < min(200, network.users.count) {
            let user = network.users[Int.random(in: 0..<network.users.count, using: &rng)]
            if seen.insert(user).inserted, try service.followedTags(of: user).items.isEmpty { readers.append(user) }
        }
        // Three of the network's ten tags for each reader, each tag on about a fifth of its
        // posts: readers' first pages differ as their tags do (with the same three tags for
        // all, every reader's page was the same 20 posts, and the floor read them warm).
        let readerTags = readers.map { _ in
            Array(NetworkBuilder.tags.shuffled(using: &rng).prefix(Self.followedTagsPerReader))
        }
        let tables = service.timelinePageTables
        func reader() -> UserID { readers[Int.random(in: 0..<readers.count, using: &rng)] }
        // Each page beside its own floor and SQLite's page, before the tags and after: the
        // readers' first pages are not the same posts then (after, the newest of their tags).
        var plain = Samples(), plainRaw = Samples(), plainPeer = Samples()
        for _ in 0..<scale.samples {
            let user = reader(), other = reader()
            plain.add(try time { _ = try service.timeline(of: user, PageRequest(limit: 20)) })
            plainRaw.add(
                try RawBaselines.timelinePage(service.environment, tables, user: other.rawValue, before: nil, limit: 20)
            )
            if let peer { plainPeer.add(try peer.timelinePage(user: user.rawValue, before: nil, limit: 20)) }
        }
        for (user, tags) in zip(readers, readerTags) {
            for tag in tags { _ = try await service.execute(.followTag(tag: tag), as: .user(user.rawValue)) }
            try peer?.followTags(tags, user: user.rawValue)
        }
        var tagged = Samples(), raw = Samples(), peerSamples = Samples()
        for _ in 0..<scale.samples {
            let user = reader(), other = reader()
            tagged.add(try time { _ = try service.timeline(of: user, PageRequest(limit: 20)) })
            raw.add(
                try RawBaselines.timelinePage(service.environment, tables, user: other.rawValue, before: nil, limit: 20)
            )
            if let peer { peerSamples.add(try peer.timelinePage(user: user.rawValue, before: nil, limit: 20)) }
        }
        // Back as they were: a second run on the same `--dir` measures the same network.
        for (user, tags) in zip(readers, readerTags) {
            for tag in tags { _ = try await service.execute(.unfollowTag(tag: tag), as: .user(user.rawValue)) }
            try peer?.unfollowTags(tags, user: user.rawValue)
        }
        let rawName = RawBaselines.timelinePageName
        func figure(_ name: String, _ samples: Samples, _ raw: Samples, _ peerSamples: Samples, _ p: Double)
            -> Figure
        {
            var figure = Figure(
                name: name, value: samples.percentile(p) * 1e6, unit: "µs", baseline: raw.percentile(p) * 1e6,
                baselineName: rawName)
            if peer != nil { figure.sqlite = peerSamples.percentile(p) * 1e6 }
            return figure
        }
        return [
            figure("home_read.followed_tags.first_page.p50", tagged, raw, peerSamples, 0.5),
            figure("home_read.followed_tags.first_page.p99", tagged, raw, peerSamples, 0.99),
            figure("home_read.no_followed_tags.first_page.p50", plain, plainRaw, plainPeer, 0.5),
            figure("home_read.no_followed_tags.first_page.p99", plain, plainRaw, plainPeer, 0.99)
        ]
    }
}
