import Foundation
import Testing
@testable import Timeline

/// The home timeline against its definition in docs/spec.md, on seeded random histories:
/// `timeline(u, limit, before)` = the first `limit` posts, by id descending, of all
/// not-deleted posts whose author is u or someone u follows now, with id < before — less the
/// posts the operator removed, and those reports hide from u (at least
/// `hideAfterReports` standing reports, and u is not the author) — and the boosts: a post
/// neither u's nor of someone u follows enters by its first boost (by id) made by u or by someone
/// u follows whose boosts u did not hide, unless a block stands between u and its author; each
/// post once, at the id of the entry by which it came in. A direct post is there only for its
/// author and the users it addresses (its mentions when posted, with no block either way then):
/// as Mastodon's fan-out delivers it to the addressees who follow its author, never boosted.
/// And the posts of the hashtags u
/// follows (#41): a post of a followed tag that is for everyone (neither followers-only nor
/// direct), neither u's nor of someone u follows, with no block between u and its author, not
/// hidden by reports, comes in at its own id (before any boost of it) — whether the follow of
/// the tag wrote it into the timeline, it came after, or it is older and merged when reading
/// (the tag backfill varies with the seed), and however its tags were edited since.
@Suite struct TimelinePropertyTests {
    /// The reference model: the definition, computed directly.
    struct Model {
        var posts: [PostID: UserID] = [:]
        /// The direct posts' addressees.
        var addressees: [PostID: Set<UserID>] = [:]
        var follows: Set<[UserID]> = []
        /// Standing boosts: boost id → (post, booster).
        var boosts: [PostID: (post: PostID, booster: UserID)] = [:]
        /// [follower, followee]: the follower hid the followee's boosts.
        var hiddenBoosts: Set<[UserID]> = []
        var blocks: Set<[UserID]> = []
        /// Who reported each post since its reports were last dismissed.
        var standing: [PostID: Set<UserID>] = [:]
        /// Every (reporter, post) ever reported, dismissed or not: one report each.
        var reported: Set<[String]> = []
        /// Each post's hashtags.
        var tags: [PostID: Set<String>] = [:]
        /// The posts for their author's followers only.
        var followersOnly: Set<PostID> = []
        /// [user, tag]: the user follows the hashtag.
        var tagFollows: Set<[String]> = []
        /// [user, post]: the user likes the post; and bookmarked it.
        var likes: Set<[String]> = []
        var bookmarks: Set<[String]> = []
        static let hideAfterReports = 2

        /// Whether `post` may be liked, reported or boosted by anyone in these histories (a
        /// followers-only post's answers depend on the follow: left out).
        func isForEveryone(_ post: PostID) -> Bool { !followersOnly.contains(post) }

        func blockedEitherWay(_ a: UserID, _ b: UserID) -> Bool { blocks.contains([a, b]) || blocks.contains([b, a]) }

        func hidden(_ post: PostID, from user: UserID) -> Bool {
            guard posts[post] != user else { return false }
            if let addressed = addressees[post], !addressed.contains(user) { return true }
            return standing[post, default: []].count >= Self.hideAfterReports
        }

        /// A post leaves with its reports (deleted or removed).
        mutating func remove(_ post: PostID) {
            posts[post] = nil
            addressees[post] = nil
            tags[post] = nil
            followersOnly.remove(post)
            boosts = boosts.filter { $0.value.post != post }
            standing[post] = nil
            reported = reported.filter { $0[1] != post.rawValue }
        }

        func boost(by user: UserID, of post: PostID) -> PostID? {
            boosts.first { $0.value.post == post && $0.value.booster == user }?.key
        }

        /// A follow ends: so does the hiding of the followee's boosts.
        mutating func unfollow(_ follower: UserID, _ followee: UserID) {
            follows.remove([follower, followee])
            hiddenBoosts.remove([follower, followee])
        }

        /// The timeline's entries, newest first: (entry id, post id).
        func entries(of user: UserID) -> [[PostID]] {
            let own = posts.filter {
                ($0.value == user || follows.contains([user, $0.value])) && !hidden($0.key, from: user)
                    || (!followersOnly.contains($0.key) && addressees[$0.key] == nil && !hidden($0.key, from: user)
                        && !blockedEitherWay(user, $0.value)
                        && tags[$0.key, default: []].contains { tagFollows.contains([user.rawValue, $0]) })
            }
            var entries = own.keys.map { [$0, $0] }
            var firstBoost: [PostID: PostID] = [:]
            for (id, boost) in boosts {
                guard let author = posts[boost.post], own[boost.post] == nil, !hidden(boost.post, from: user),
                    !blockedEitherWay(user, author)
                else { continue }
                let comesIn =
                    boost.booster == user
                    || (follows.contains([user, boost.booster]) && !hiddenBoosts.contains([user, boost.booster]))
                guard comesIn else { continue }
                if let first = firstBoost[boost.post], first < id { continue }
                firstBoost[boost.post] = id
            }
            entries += firstBoost.map { [$0.value, $0.key] }
            return entries.sorted { $0[0] > $1[0] }
        }

        func timeline(of user: UserID) -> [PostID] { entries(of: user).map { $0[0] } }
    }

    /// Walks every page of `user`'s timeline with page size `limit` and checks it against the model.
    func checkTimeline(
        _ service: TimelineService, _ model: Model, _ user: UserID, limit: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let expected = model.entries(of: user)
        var seen: [[PostID]] = []
        var request = PageRequest(limit: limit)
        while true {
            let page = try service.timeline(of: user, request)
            #expect(page.items.count <= limit, sourceLocation: sourceLocation)
            #expect(
                !page.items.isEmpty || request.before == nil, "a next cursor must not lead to an empty page",
                sourceLocation: sourceLocation)
            seen += page.items.map { [$0.entryId, $0.id] }
            for post in page.items {
                let key = [user.rawValue, post.id.rawValue]
                #expect(post.likedByViewer == model.likes.contains(key), sourceLocation: sourceLocation)
                #expect(post.bookmarkedByViewer == model.bookmarks.contains(key), sourceLocation: sourceLocation)
            }
            guard let next = page.next else { break }
            #expect(page.items.count == limit, "a page before the end must be full", sourceLocation: sourceLocation)
            request.before = next
        }
        #expect(seen == expected, "timeline of \(user) differs from its definition", sourceLocation: sourceLocation)
    }

    /// Seeds, with fan-out thresholds from "pull almost everyone" to "push everything", so
    /// both halves of the hybrid fan-out and the switch between them are exercised.
    @Test(
        arguments: [(1, 1_000_000), (2, 1_000_000), (3, 1), (4, 2), (5, 3), (6, 4), (7, 2), (8, 1_000_000)]
            as [(UInt64, UInt64)])
    func randomHistoriesMatchTheDefinition(seed: UInt64, threshold: UInt64) async throws {
        var rng = SeededRandom(seed: seed)
        let clock = TestClock()
        let service = try openService(clock: clock, seed: seed) {
            $0.fanoutThreshold = threshold
            // From "merge every older post of a followed tag" to "write its three newest".
            $0.tagBackfill = seed % 4
            $0.hideAfterReports = Model.hideAfterReports
        }
        var users: [UserID] = []
        for index in 0..<7 { users.append(try await service.createUser("u\(index)").id) }
        var model = Model()
        for step in 0..<400 {
            clock.advance(Int64.random(in: 0...2, using: &rng))
            let actor = users.randomElement(using: &rng)!
            let other = users.randomElement(using: &rng)!
            switch Int.random(in: 0..<23, using: &rng) {
            case 0...3:
                // Some posts carry hashtags (one or two), some are for followers only.
                let caption = [nil, "#t0", "#t1 #t2", "#T0 and #t1"].randomElement(using: &rng)!
                let visibility: PostVisibility = Int.random(in: 0..<4, using: &rng) == 0 ? .followers : .public
                guard
                    case .post(let post) = try await service.run(
                        .addPost(image: gifBase64(step), caption: caption, visibility: visibility), as: actor)
                else { break }
                model.posts[post.id] = actor
                model.tags[post.id] = Set(post.hashtags)
                if visibility == .followers { model.followersOnly.insert(post.id) }
            case 19:
                let tag = ["t0", "t1", "t2"].randomElement(using: &rng)!
                let fresh = !model.tagFollows.contains([actor.rawValue, tag])
                #expect(try await service.run(.followTag(tag: tag), as: actor) == .changed(fresh))
                model.tagFollows.insert([actor.rawValue, tag])
            case 20:
                let tag = ["t0", "t1", "t2"].randomElement(using: &rng)!
                let followed = model.tagFollows.contains([actor.rawValue, tag])
                #expect(try await service.run(.unfollowTag(tag: "#" + tag), as: actor) == .changed(followed))
                model.tagFollows.remove([actor.rawValue, tag])
            case 22:
                // An edit of one of the actor's posts changes its hashtags.
                if let post = model.posts.filter({ $0.value == actor && model.addressees[$0.key] == nil }).keys
                    .randomElement(using: &rng)
                {
                    let caption = [nil, "#t0", "#t1 #t2", "#T0 and #t1", "#t2"].randomElement(using: &rng)!
                    let edited = try #require(
                        try await service.run(.editPost(post: post.rawValue, caption: .some(caption)), as: actor).post)
                    model.tags[post] = Set(edited.hashtags)
                }
            case 4...5 where actor != other && model.blockedEitherWay(actor, other):
                await expectError(.forbidden) { _ = try await service.run(.follow(user: other.rawValue), as: actor) }
            case 4...5 where actor != other:
                try await service.run(.follow(user: other.rawValue), as: actor)
                model.follows.insert([actor, other])
            case 21:
                // A direct message to `other` (addressed unless it is the actor or a block stands between).
                let name = "u\(users.firstIndex(of: other)!)"
                let dm = try #require(try await service.run(.addDirectPost(caption: "@\(name) hi"), as: actor).post)
                model.posts[dm.id] = actor
                let addressed = actor != other && !model.blockedEitherWay(actor, other)
                model.addressees[dm.id] = addressed ? [other] : []
                #expect(Set(dm.addressees) == model.addressees[dm.id])
            case 10 where actor != other:
                // A block ends the follows both ways: the posts leave both timelines.
                try await service.run(.block(user: other.rawValue), as: actor)
                model.blocks.insert([actor, other])
                model.unfollow(actor, other)
                model.unfollow(other, actor)
                // ... and the boosts of either's posts by the other.
                model.boosts = model.boosts.filter {
                    !(($0.value.booster == actor && model.posts[$0.value.post] == other)
                        || ($0.value.booster == other && model.posts[$0.value.post] == actor))
                }
            case 11 where actor != other:
                try await service.run(.unblock(user: other.rawValue), as: actor)
                model.blocks.remove([actor, other])
            case 6 where actor != other:
                try await service.run(.unfollow(user: other.rawValue), as: actor)
                model.unfollow(actor, other)
            case 15, 16:
                // A boost of one of the newest posts (so that some are boosted twice): again, the same boost.
                if let post = model.posts.keys.filter(model.isForEveryone).sorted().suffix(6).randomElement(using: &rng)
                {
                    let author = model.posts[post]!
                    let reblog = Command.reblog(post: post.rawValue)
                    if model.hidden(post, from: actor) || model.blocks.contains([author, actor]) {
                        await expectError(.notFound) { _ = try await service.run(reblog, as: actor) }
                    } else if model.blocks.contains([actor, author]) || model.addressees[post] != nil {
                        // A block, or a direct post: never boosted.
                        await expectError(.forbidden) { _ = try await service.run(reblog, as: actor) }
                    } else {
                        let result = try await service.run(reblog, as: actor)
                        guard case .created(let id) = result else {
                            Issue.record("reblog answered \(result)")
                            break
                        }
                        if let existing = model.boost(by: actor, of: post) {
                            #expect(existing.rawValue == id, "boosting again answers the same boost")
                        } else {
                            model.boosts[PostID(id)] = (post, actor)
                        }
                    }
                }
            case 17:
                if let (id, boost) = model.boosts.filter({ $0.value.booster == actor }).randomElement(using: &rng) {
                    #expect(try await service.run(.unreblog(post: boost.post.rawValue), as: actor) == .changed(true))
                    model.boosts[id] = nil
                }
            case 18 where actor != other && model.follows.contains([actor, other]):
                // Hide or show a followee's boosts (follow's reblogs).
                let show = Bool.random(using: &rng)
                try await service.run(.follow(user: other.rawValue, reblogs: show), as: actor)
                if show { model.hiddenBoosts.remove([actor, other]) } else { model.hiddenBoosts.insert([actor, other]) }
            case 7:
                if let (post, author) = model.posts.randomElement(using: &rng) {
                    try await service.run(.deletePost(post: post.rawValue), as: author)
                    model.remove(post)
                }
            case 12:
                // The operator removes a post: it leaves every timeline as a deleted one does.
                if let (post, _) = model.posts.randomElement(using: &rng) {
                    _ = try await service.execute(
                        .removePost(post: post.rawValue, reason: "step \(step)"), as: .operator)
                    model.remove(post)
                }
            case 13:
                // A report (of one of the newest posts, so that some gather enough): enough of
                // them hide the post from all but its author.
                if let post = model.posts.keys.filter(model.isForEveryone).sorted().suffix(4).randomElement(using: &rng)
                {
                    let report = Command.reportPost(post: post.rawValue, reason: "r")
                    if model.hidden(post, from: actor) {
                        await expectError(.notFound) { _ = try await service.run(report, as: actor) }
                    } else if let author = model.posts[post], model.blocks.contains([author, actor]) {
                        // The author blocks the actor: the post is out of their sight.
                        await expectError(.notFound) { _ = try await service.run(report, as: actor) }
                    } else {
                        let fresh = !model.reported.contains([actor.rawValue, post.rawValue])
                        #expect(try await service.run(report, as: actor) == .changed(fresh))
                        model.reported.insert([actor.rawValue, post.rawValue])
                        if fresh { model.standing[post, default: []].insert(actor) }
                    }
                }
            case 14:
                // The operator dismisses a post's reports: it is shown again.
                if let (post, _) = model.posts.randomElement(using: &rng) {
                    let standing = !model.standing[post, default: []].isEmpty
                    #expect(
                        try await service.execute(.dismissReports(post: post.rawValue), as: .operator)
                            == .changed(standing))
                    model.standing[post] = nil
                }
            default:
                if let (post, author) = model.posts.filter({ model.isForEveryone($0.key) }).randomElement(using: &rng) {
                    if model.hidden(post, from: actor) {
                        await expectError(.notFound) {
                            _ = try await service.run(.like(post: post.rawValue), as: actor)
                        }
                    } else if model.blocks.contains([author, actor]) {
                        // The author blocks the actor: out of their sight, as unknown as none.
                        let like = Command.like(post: post.rawValue)
                        await expectError(.notFound) { _ = try await service.run(like, as: actor) }
                    } else if model.blocks.contains([actor, author]) {
                        await expectError(.forbidden) {
                            _ = try await service.run(.like(post: post.rawValue), as: actor)
                        }
                    } else {
                        try await service.run(.like(post: post.rawValue), as: actor)
                        model.likes.insert([actor.rawValue, post.rawValue])
                        // Some are bookmarked too: each timeline entry carries its viewer's marks.
                        if Bool.random(using: &rng) {
                            try await service.run(.bookmark(post: post.rawValue), as: actor)
                            model.bookmarks.insert([actor.rawValue, post.rawValue])
                        }
                    }
                }
            }
            if step % 100 == 99 {
                for user in users { try checkTimeline(service, model, user, limit: Int.random(in: 1...9, using: &rng)) }
            }
        }
        for user in users {
            for limit in [1, 3, 20, 100] { try checkTimeline(service, model, user, limit: limit) }
            // An arbitrary cursor: exactly the posts below it.
            let expected = model.timeline(of: user)
            if let cursor = expected.randomElement(using: &rng) {
                let page = try service.timeline(of: user, PageRequest(limit: 5, before: cursor.rawValue))
                #expect(page.items.map(\.entryId) == Array(expected.filter { $0 < cursor }.prefix(5)))
            }
            // Counts agree with the model too.
            let profile = try service.user(user)
            #expect(profile.followingCount == model.follows.filter { $0[0] == user }.count)
            #expect(profile.followerCount == model.follows.filter { $0[1] == user }.count)
            #expect(profile.postCount == model.posts.values.filter { $0 == user }.count)
        }
        #expect(try service.verifyLog().isValid)
        // The hybrid state rebuilds to exactly the same read models.
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func pulledAuthorsAreMergedAtReadTime() async throws {
        let service = try openService { $0.fanoutThreshold = 3 }
        let star = try await service.createUser("star").id
        var fans: [UserID] = []
        for index in 0..<5 { fans.append(try await service.createUser("fan\(index)").id) }
        let early = try await service.addPost(by: star, image: 1).id
        for fan in fans { try await service.run(.follow(user: star.rawValue), as: fan) }
        let entriesBefore = try service.projectionStatus().first { $0.name == .timeline }!.entries
        let late = try await service.addPost(by: star, image: 2).id
        // Pulled: the new post is one timeline entry (the author's own), not one per fan.
        let entriesAfter = try service.projectionStatus().first { $0.name == .timeline }!.entries
        #expect(entriesAfter == entriesBefore + 1)
        for fan in fans { #expect(try service.timeline(of: fan).items.map(\.id) == [late, early]) }
        try await service.run(.unfollow(user: star.rawValue), as: fans[0])
        #expect(try service.timeline(of: fans[0]).items.isEmpty)
        try await service.run(.deletePost(post: late.rawValue), as: star)
        #expect(try service.timeline(of: fans[1]).items.map(\.id) == [early])
    }

    @Test func followMergesTheBacklogAndUnfollowRemovesIt() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id
        var bobs: [PostID] = []
        for index in 0..<30 { bobs.append(try await service.addPost(by: bob, image: index).id) }
        let own = try await service.addPost(by: alice, image: 99).id
        #expect(try service.timeline(of: alice).items.map(\.id) == [own])
        try await service.run(.follow(user: bob.rawValue), as: alice)
        let all = try service.all { try service.timeline(of: alice, $0) }.map(\.id)
        #expect(all == ([own] + bobs).sorted(by: >))
        try await service.run(.unfollow(user: bob.rawValue), as: alice)
        #expect(try service.all { try service.timeline(of: alice, $0) }.map(\.id) == [own])
    }
}
