import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// The privacy policy (docs/security.md, "Who sees what") against every read surface, on seeded
/// random networks built through the library on real LMDB files: follows (to locked accounts
/// too, approved or not), blocks, mutes, followers-only posts, suspensions, reports, comments,
/// mentions and removals. For every viewer (and nobody), the home timeline, profile posts, a
/// hashtag, public posts, user search, liked and saved posts, post details with their comments,
/// the activity feed and the live stream's new posts must show exactly what the rules, computed
/// here directly, allow.
@Suite struct PrivacyPolicyTests {
    /// Where a check reads (a subset of `Surface`, named as the docs' table names them).
    enum Where { case home, stream, profile, hashtag, search, favourites, bookmarks, post, notifications }

    /// The network as the library holds it: posts, comments and reports as made; follows,
    /// blocks and mutes read back from the library (a locked account's follow waits for an
    /// answer, a block ends follows), suspensions as the operator's commands succeeded.
    struct Network {
        var users: [UserID] = []
        var posts: [PostID: (author: UserID, followersOnly: Bool, tagged: Bool)] = [:]
        var comments: [(id: CommentID, post: PostID, author: UserID)] = []
        var reports: [PostID: Set<UserID>] = [:]
        /// Who liked and who saved which post (a removed post's go with it).
        var likes: Set<[String]> = []
        var bookmarks: Set<[String]> = []
        var suspended: Set<UserID> = []
        /// The locked (private) accounts now: all their posts are for their followers.
        var locked: Set<UserID> = []
        var follows: Set<[UserID]> = []
        var blocks: Set<[UserID]> = []
        var mutes: Set<[UserID]> = []
        static let hideAfterReports = 2

        /// Reads follows, blocks and mutes back from the library.
        mutating func refresh(_ service: TimelineService) throws {
            (follows, blocks, mutes) = ([], [], [])
            for a in users {
                for b in users where a != b {
                    if try service.follows(a, b) { follows.insert([a, b]) }
                }
                for b in try service.all(limit: 100, { try service.blocked(by: a, $0) }) { blocks.insert([a, b.id]) }
                for b in try service.all(limit: 100, { try service.muted(by: a, $0) }) { mutes.insert([a, b.id]) }
            }
        }

        func follows(_ viewer: UserID?, _ user: UserID) -> Bool { viewer.map { follows.contains([$0, user]) } ?? false }
        func mutes(_ viewer: UserID?, _ user: UserID) -> Bool { viewer.map { mutes.contains([$0, user]) } ?? false }
        func blockedEitherWay(_ viewer: UserID?, _ user: UserID) -> Bool {
            guard let viewer else { return false }
            return blocks.contains([viewer, user]) || blocks.contains([user, viewer])
        }

        /// The rules of docs/security.md for a post, written out again (not asked of `Privacy`).
        func sees(_ viewer: UserID?, post id: PostID, on place: Where) -> Bool {
            guard let post = posts[id] else { return false }
            let author = post.author
            if author == viewer { return true }
            let mutesHide: Set<Where> = [.home, .stream, .hashtag, .search, .favourites, .notifications]
            if mutesHide.contains(place), mutes(viewer, author) { return false }
            if suspended.contains(author) { return false }
            if place == .stream, !follows(viewer, author) { return false }
            let forFollowers = post.followersOnly || locked.contains(author)
            if place != .home, forFollowers, !follows(viewer, author) { return false }
            if reports[id, default: []].count >= Self.hideAfterReports { return false }
            let blocksHide: Set<Where> = [.profile, .hashtag, .search, .favourites, .bookmarks, .post, .notifications]
            if blocksHide.contains(place), blockedEitherWay(viewer, author) { return false }
            return true
        }

        /// The rule for an account in search and lists.
        func sees(_ viewer: UserID?, account user: UserID) -> Bool {
            user == viewer || (!suspended.contains(user) && !blockedEitherWay(viewer, user))
        }

        /// The rule for what a user does (a comment in a thread, an activity item's actor).
        func sees(_ viewer: UserID?, doingsOf user: UserID) -> Bool {
            user == viewer || (!mutes(viewer, user) && sees(viewer, account: user))
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func everyReadSurfaceShowsExactlyWhatThePolicyAllows(seed: UInt64) async throws {
        var rng = SeededRandom(seed: seed)
        let clock = TestClock()
        let service = try openService(clock: clock, seed: seed) { $0.hideAfterReports = Network.hideAfterReports }
        var net = Network()
        for index in 0..<6 { net.users.append(try await service.createUser("u\(index)").id) }
        var liveChecks = 0
        for step in 0..<300 {
            clock.advance(1)
            let actor = net.users.randomElement(using: &rng)!
            let other = net.users.randomElement(using: &rng)!
            let post = net.posts.keys.sorted().suffix(6).randomElement(using: &rng)
            do {
                switch Int.random(in: 0..<23, using: &rng) {
                case 0...2:
                    let visibility: PostVisibility? = [nil, .public, .followers].randomElement(using: &rng)!
                    let tagged = Bool.random(using: &rng)
                    let mention = "hi @u\(Int.random(in: 0..<6, using: &rng))"
                    let caption = (tagged ? "#t " : "") + (Bool.random(using: &rng) ? mention : "")
                    let made = try #require(
                        try await service.run(
                            .addPost(image: gifBase64(step), caption: caption, visibility: visibility), as: actor
                        ).post)
                    net.posts[made.id] = (actor, made.visibility == .followers, tagged)
                    try net.refresh(service)
                    try checkLive(service, net, made.id)
                    liveChecks += 1
                case 3...6 where actor != other:
                    try await service.run(.follow(user: other.rawValue, notify: Bool.random(using: &rng)), as: actor)
                case 7...8 where actor != other:
                    try await service.run(.approveFollowRequest(user: other.rawValue), as: actor)
                case 9 where actor != other:
                    try await service.run(.unfollow(user: other.rawValue), as: actor)
                case 10 where actor != other && Bool.random(using: &rng):
                    try await service.run(.block(user: other.rawValue), as: actor)
                case 11 where actor != other:
                    try await service.run(.unblock(user: other.rawValue), as: actor)
                case 12 where actor != other:
                    try await service.run(.mute(user: other.rawValue), as: actor)
                case 13 where actor != other:
                    try await service.run(.unmute(user: other.rawValue), as: actor)
                case 14:
                    let locked = Bool.random(using: &rng)
                    try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: locked), as: actor)
                    if locked { net.locked.insert(actor) } else { net.locked.remove(actor) }
                case 15...16:
                    if let post {
                        let text = Bool.random(using: &rng) ? "@u\(Int.random(in: 0..<6, using: &rng)) look" : "nice"
                        let comment = try await service.addComment(by: actor, on: post, text)
                        net.comments.append((comment.id, post, actor))
                    }
                case 17...18:
                    let report = post.map { Command.reportPost(post: $0.rawValue, reason: "r") }
                    if let post, let report, try await service.run(report, as: actor) == .changed(true) {
                        net.reports[post, default: []].insert(actor)
                    }
                case 19:
                    if Int.random(in: 0..<3, using: &rng) == 0 {
                        _ = try await service.execute(.unsuspendUser(user: other.rawValue), as: .operator)
                        net.suspended.remove(other)
                    } else if Int.random(in: 0..<2, using: &rng) == 0 {
                        _ = try await service.execute(.suspendUser(user: other.rawValue), as: .operator)
                        net.suspended.insert(other)
                    }
                case 20:
                    if let post, Int.random(in: 0..<3, using: &rng) == 0 {
                        let removal = Command.removePost(post: post.rawValue, reason: "step \(step)")
                        _ = try await service.execute(removal, as: .operator)
                        net.posts[post] = nil
                        net.reports[post] = nil
                        net.comments.removeAll { $0.post == post }
                        net.likes = net.likes.filter { $0[1] != post.rawValue }
                        net.bookmarks = net.bookmarks.filter { $0[1] != post.rawValue }
                    }
                case 21:
                    if let post {
                        try await service.run(.bookmark(post: post.rawValue), as: actor)
                        net.bookmarks.insert([actor.rawValue, post.rawValue])
                    }
                default:
                    if let post {
                        try await service.run(.like(post: post.rawValue), as: actor)
                        net.likes.insert([actor.rawValue, post.rawValue])
                    }
                }
            } catch is TimelineError {
                // Refused (blocked, hidden, suspended, not allowed): the network is unchanged.
            }
            if step % 50 == 49 {
                try net.refresh(service)
                try checkReads(service, net)
            }
        }
        try net.refresh(service)
        try checkReads(service, net)
        #expect(liveChecks > 0)
    }

    /// The live stream's update for a new post, for every viewer: the post comes exactly to
    /// those the `stream` rules allow.
    func checkLive(_ service: TimelineService, _ net: Network, _ post: PostID) throws {
        let last = try service.lastSequence()
        let envelope = try #require(try service.events(from: last, limit: 1).first)
        for viewer in net.users {
            let updates = try service.liveUpdates(for: envelope, viewer: viewer)
            let shown = updates.contains { if case .post(let p) = $0 { p.id == post } else { false } }
            #expect(shown == net.sees(viewer, post: post, on: .stream), "stream of \(viewer) for \(post)")
        }
    }

    func checkReads(_ service: TimelineService, _ net: Network) throws {
        let newestFirst = net.posts.keys.sorted(by: >)
        let viewers: [UserID?] = net.users + [nil]
        for viewer in viewers {
            let who = viewer?.rawValue ?? "nobody"
            if let viewer {
                let home = try service.all { try service.timeline(of: viewer, $0) }.map(\.id)
                let expected = newestFirst.filter { id in
                    let author = net.posts[id]!.author
                    return (author == viewer || net.follows(viewer, author)) && net.sees(viewer, post: id, on: .home)
                }
                #expect(home == expected, "home of \(who)")
                let liked = try service.all { try service.liked(by: viewer, $0) }.map(\.id)
                let likedShown = newestFirst.filter {
                    net.likes.contains([viewer.rawValue, $0.rawValue]) && net.sees(viewer, post: $0, on: .favourites)
                }
                #expect(liked == likedShown, "likes of \(who)")
                let saved = Set(try service.all { try service.bookmarks(of: viewer, $0) }.map(\.id))
                let savedShown = newestFirst.filter {
                    net.bookmarks.contains([viewer.rawValue, $0.rawValue]) && net.sees(viewer, post: $0, on: .bookmarks)
                }
                #expect(saved == Set(savedShown), "bookmarks of \(who)")
                try checkActivity(service, net, viewer)
            }
            for author in net.users {
                let posts = try service.all { try service.posts(by: author, $0, viewer: viewer) }.map(\.id)
                let expected = newestFirst.filter {
                    net.posts[$0]!.author == author && net.sees(viewer, post: $0, on: .profile)
                }
                #expect(posts == expected, "posts of \(author) for \(who)")
            }
            let tagged = try service.all { try service.hashtag("t", $0, viewer: viewer) }.map(\.id)
            let taggedShown = newestFirst.filter { net.posts[$0]!.tagged && net.sees(viewer, post: $0, on: .hashtag) }
            #expect(tagged == taggedShown, "#t for \(who)")
            let public_ = try service.all { try service.publicPosts($0, viewer: viewer) }.map(\.id)
            let publicShown = newestFirst.filter {
                !net.posts[$0]!.followersOnly && net.sees(viewer, post: $0, on: .search)
            }
            #expect(public_ == publicShown, "public posts for \(who)")
            let found = Set(try service.all { try service.searchUsers(prefix: "u", $0, viewer: viewer) }.map(\.id))
            #expect(found == Set(net.users.filter { net.sees(viewer, account: $0) }), "user search for \(who)")
            for id in newestFirst {
                let allowed = net.sees(viewer, post: id, on: .post)
                do {
                    _ = try service.post(id, viewer: viewer)
                    #expect(allowed, "\(id) shown to \(who)")
                    let comments = Set(try service.all { try service.comments(of: id, $0, viewer: viewer) }.map(\.id))
                    let expected = net.comments.filter { $0.post == id && net.sees(viewer, doingsOf: $0.author) }
                        .map(\.id)
                    #expect(comments == Set(expected), "comments of \(id) for \(who)")
                } catch let error as TimelineError {
                    #expect(error.code == .notFound && !allowed, "\(id) hidden from \(who): \(error)")
                }
            }
        }
    }

    /// The activity feed: exactly the stored items whose actor the viewer may see doing things
    /// and, for one about a post (a mention, a reply, a post they asked to be told of), whose
    /// post may reach them in their notifications.
    func checkActivity(_ service: TimelineService, _ net: Network, _ viewer: UserID) throws {
        let stored: [(id: String, record: ActivityRecord)] = try service.read { view in
            var items: [(id: String, record: ActivityRecord)] = []
            try view.models.activity.activity.forEach(in: viewer, view.txn) { id, record in
                items.append((id, record))
                return true
            }
            return items
        }
        let expected = stored.filter { item in
            if let actor = item.record.actor, !net.sees(viewer, doingsOf: actor) { return false }
            guard [.mention, .reply, .post].contains(item.record.kind), let post = item.record.post else { return true }
            return net.sees(viewer, post: post, on: .notifications)
        }.map(\.id)
        let shown = try service.all { try service.activity(of: viewer, $0) }.map(\.id)
        #expect(Set(shown) == Set(expected), "activity of \(viewer)")
        #expect(shown.count == expected.count)
    }

    /// The table of docs/security.md ("Who sees what") is the rules `Surface` applies: each
    /// ✔ is a rule the surface applies, each – or · one it does not check (a blank cell: the
    /// surface shows no such thing).
    @Test func theDocumentedTableIsTheRulesTheSurfacesApply() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../..").standardized
        let text = try String(contentsOf: root.appending(path: "docs/security.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Who sees what").dropFirst().first)
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| ") }
            .map {
                $0.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
            }
        let header = try #require(rows.first)
        let columns: [String: [Surface]] = [
            "home": [.home], "boosted": [.boosted], "stream": [.stream], "list": [.list], "profile": [.profile],
            "hashtag": [.hashtag],
            "search": [.search],
            "favourites": [.favourites], "bookmarks": [.bookmarks], "post": [.post], "comments": [.comments],
            "notifications, push": [.notifications, .push], "export": [.export], "trends": [.trends],
            "collections": [.collections], "command": [.command], "conversations": [.conversations],
            "stories": [.stories]
        ]
        let rules: [(prefix: String, applies: (Surface) -> Bool)] = [
            ("a mute hides the muted user's posts", \.mutesHidePosts),
            ("a mute hides what they do", \.mutesHideDoings),
            ("a block (either way) hides the other's posts", \.blocksHidePosts),
            ("a block (either way) hides the other's account", \.blocksHideAccounts),
            ("a followers-only post needs", \.checksFollowersOnly),
            ("only followed authors' posts show", \.needsFollow),
            ("a suspended user's", { _ in true }),
            ("enough counted reports hide a post", { _ in true }),
            ("a direct post reaches only its author", { _ in true })
        ]
        var covered = Set<Surface>()
        for (prefix, applies) in rules {
            let row = try #require(rows.first { $0.first?.hasPrefix(prefix) == true }, "no row for \(prefix)")
            for (name, cell) in zip(header.dropFirst(), row.dropFirst()) where !cell.isEmpty {
                let surfaces = try #require(columns[name], "unknown column \(name)")
                covered.formUnion(surfaces)
                for surface in surfaces {
                    #expect(applies(surface) == (cell == "✔"), "\(prefix) on \(surface): the table says \(cell)")
                }
            }
        }
        #expect(covered == Set(Surface.allCases))
    }
}
