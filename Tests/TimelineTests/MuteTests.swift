import Foundation
import JSONModel
import Testing
@testable import Timeline
import TimelineDomain

/// Mutes: a muted user's posts leave the muter's timeline (pushed or pulled authors alike) and
/// their doings leave the muter's activity; the muted user is not told and sees nothing change;
/// a timed mute ends by itself; the list of mutes is the muter's alone.
@Suite struct MuteTests {
    @Test func aMutedUsersPostsAndDoingsLeaveTheMutersTimelineAndActivity() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        for followee in [bob.id, carol.id] { try await service.run(.follow(user: followee.rawValue), as: alice.id) }
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let bobsPost = try await service.addPost(by: bob.id, caption: "bob's")
        let carolsPost = try await service.addPost(by: carol.id, caption: "carol's")
        let alicesPost = try await service.addPost(by: alice.id, caption: "alice's")
        try await service.run(.like(post: alicesPost.id.rawValue), as: bob.id)
        #expect(try service.timeline(of: alice.id).items.map(\.id) == [alicesPost.id, carolsPost.id, bobsPost.id])
        #expect(try service.activity(of: alice.id).items.map(\.actor).contains(bob.id))

        #expect(try await service.run(.mute(user: bob.id.rawValue), as: alice.id) == .changed(true))
        #expect(try service.timeline(of: alice.id).items.map(\.id) == [alicesPost.id, carolsPost.id])
        #expect(try service.activity(of: alice.id).items.allSatisfy { $0.actor != bob.id })
        let later = try await service.addPost(by: bob.id, caption: "more from bob")
        #expect(try !service.timeline(of: alice.id).items.map(\.id).contains(later.id))
        // Nothing else changes: the follow stands, bob's timeline and view of alice are as before.
        #expect(try service.follows(alice.id, bob.id))
        #expect(try service.timeline(of: bob.id).items.map(\.id).contains(alicesPost.id))
        let seenByBob = try service.user(alice.id, viewer: bob.id)
        #expect(seenByBob.mutedByViewer == false && seenByBob.mutedUntil == nil)
        #expect(try service.user(bob.id, viewer: alice.id).mutedByViewer == true)
        // Muting again for good changes nothing; unmuting brings everything back.
        #expect(try await service.run(.mute(user: bob.id.rawValue), as: alice.id) == .changed(false))
        #expect(try await service.run(.unmute(user: bob.id.rawValue), as: alice.id) == .changed(true))
        #expect(try await service.run(.unmute(user: bob.id.rawValue), as: alice.id) == .changed(false))
        #expect(
            try service.timeline(of: alice.id).items.map(\.id) == [later.id, alicesPost.id, carolsPost.id, bobsPost.id])
        #expect(try service.activity(of: alice.id).items.map(\.actor).contains(bob.id))

        // A timed mute ends by itself.
        #expect(try await service.run(.mute(user: carol.id.rawValue, duration: 3600), as: alice.id) == .changed(true))
        #expect(try service.user(carol.id, viewer: alice.id).mutedUntil == clock.nowMilliseconds() + 3_600_000)
        #expect(try !service.timeline(of: alice.id).items.map(\.id).contains(carolsPost.id))
        #expect(try service.muted(by: alice.id).items.map(\.id) == [carol.id])
        clock.advance(3_600_000)
        #expect(try service.timeline(of: alice.id).items.map(\.id).contains(carolsPost.id))
        #expect(try service.muted(by: alice.id).items.isEmpty)
        #expect(try service.user(carol.id, viewer: alice.id).mutedByViewer == false)
        // An ended mute is no mute: unmuting it changes nothing, muting again records a new one.
        #expect(try await service.run(.unmute(user: carol.id.rawValue), as: alice.id) == .changed(false))
        #expect(try await service.run(.mute(user: carol.id.rawValue, duration: 60), as: alice.id) == .changed(true))
    }

    /// Nor do the muter's hashtag and nearby searches show the muted user's posts, nor post pages
    /// their comments; others see them as before.
    @Test func hashtagsPlacesAndCommentsLeaveThemOutToo() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        let here = Place(latitude: 60.17, longitude: 24.95)
        let bobs = try #require(
            try await service.run(.addPost(image: gifBase64(0), caption: "#sea by bob", location: here), as: bob.id)
                .post)
        let carols = try #require(
            try await service.run(.addPost(image: gifBase64(1), caption: "#sea by carol", location: here), as: carol.id)
                .post)
        _ = try await service.addComment(by: bob.id, on: carols.id, "bob was here")
        try await service.run(.mute(user: bob.id.rawValue), as: alice.id)
        #expect(try service.hashtag("sea", viewer: alice.id).items.map(\.id) == [carols.id])
        #expect(try service.hashtag("sea", viewer: carol.id).items.map(\.id) == [carols.id, bobs.id])
        #expect(
            try service.nearby(latitude: here.latitude, longitude: here.longitude, viewer: alice.id).items.map(\.id)
                == [carols.id])
        #expect(try service.comments(of: carols.id, viewer: alice.id).items.isEmpty)
        #expect(try service.comments(of: carols.id, viewer: carol.id).items.count == 1)
    }

    @Test func aPulledAuthorIsMutedToo() async throws {
        let service = try openService { $0.fanoutThreshold = 2 }
        let star = try await service.createUser("star"), fan = try await service.createUser("fan"),
            other = try await service.createUser("other")
        for follower in [fan.id, other.id] { try await service.run(.follow(user: star.id.rawValue), as: follower) }
        let post = try await service.addPost(by: star.id, caption: "pulled")
        #expect(try service.timeline(of: fan.id).items.map(\.id) == [post.id])
        try await service.run(.mute(user: star.id.rawValue), as: fan.id)
        #expect(try service.timeline(of: fan.id).items.isEmpty)
        #expect(try service.timeline(of: other.id).items.map(\.id) == [post.id])
    }

    @Test func theListIsPrivateNewestFirstAndErasureEndsMutesBothWays() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        try await service.run(.mute(user: bob.id.rawValue), as: alice.id)
        try await service.run(.mute(user: carol.id.rawValue, duration: 600), as: alice.id)
        try await service.run(.mute(user: alice.id.rawValue), as: carol.id)
        let list = try service.muted(by: alice.id)
        #expect(list.items.map(\.id) == [carol.id, bob.id])
        #expect(list.items[0].mutedUntil != nil && list.items[1].mutedUntil == nil)
        #expect(try ask(service, "muted", viewer: alice.id) == .users(list))
        await expectError(.unauthenticated) { _ = try ask(service, "muted") }
        // Refused: yourself, nobody, a duration out of range; none of it is recorded.
        let before = try service.lastSequence()
        await expectError(.invalidArgument, field: "user") {
            _ = try await service.run(.mute(user: alice.id.rawValue), as: alice.id)
        }
        await expectError(.notFound) { _ = try await service.run(.mute(user: "-NoSuchUser000000000"), as: alice.id) }
        for duration in [-1, MutePolicy.maxDurationSeconds + 1] {
            await expectError(.invalidArgument, field: "duration") {
                _ = try await service.run(.mute(user: bob.id.rawValue, duration: duration), as: alice.id)
            }
        }
        await expectError(.unauthenticated) { _ = try await service.execute(.mute(user: bob.id.rawValue)) }
        #expect(try service.lastSequence() == before)
        // Erasing carol ends her mute of alice and alice's of her.
        try await service.run(.eraseUser(user: carol.id.rawValue, password: "password-123"), as: carol.id)
        #expect(try service.muted(by: alice.id).items.map(\.id) == [bob.id])
        #expect(try service.lastSequence() > before)
        #expect(try service.events(from: before + 1).filter { $0.type == .unmuted }.count == 2)
    }

    /// Over HTTP: the routes, the profile's `mutedByViewer`, and the live stream, which drops the
    /// muted user's posts and doings while another followee's still arrive.
    @Test func overHTTPAndInTheLiveStream() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            for followee in [bob.id, carol.id] {
                #expect(try await api.send("PUT", "/v1/me/following/\(followee)", bearer: alice.token).status == 200)
            }
            let stream = try EventStreamReader(port: server.port, bearer: alice.token)
            #expect(await stream.open().hasPrefix("HTTP/1.1 200"))

            let muted = try await api.send("PUT", "/v1/me/mutes/\(bob.id)", json: ["duration": 0], bearer: alice.token)
            #expect(muted.status == 200 && muted.json["changed"] as? Bool == true, "\(muted)")
            let wrong = try await api.send(
                "PUT", "/v1/me/mutes/\(bob.id)", json: ["duration": "soon"], bearer: alice.token)
            #expect(wrong.status == 400 && wrong.errorField == "duration", "\(wrong)")
            #expect(try await api.send("PUT", "/v1/me/mutes/\(alice.id)", bearer: alice.token).status == 400)
            #expect(try await api.send("PUT", "/v1/me/mutes/\(bob.id)").status == 401)

            let hidden = try await api.addPost(bob.token, caption: "from a muted user")
            let shown = try await api.addPost(carol.token, caption: "from carol")
            let events = await stream.events { $0.contains { $0.json["id"] as? String == shown } }
            #expect(events.contains { $0.json["id"] as? String == shown })
            #expect(!events.contains { $0.json["id"] as? String == hidden }, "a muted user's post reached the stream")
            let timeline = try await api.get("/v1/timeline", bearer: alice.token)
            let ids = (timeline.json["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(ids.contains(shown) && !ids.contains(hidden), "\(ids)")

            let list = try await api.get("/v1/me/mutes", bearer: alice.token)
            #expect((list.json["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [bob.id], "\(list)")
            #expect(try await api.get("/v1/me/mutes").status == 401)
            #expect(
                try await api.get("/v1/users/\(bob.id)", bearer: alice.token).json["mutedByViewer"] as? Bool == true)
            // bob learns nothing: his view of alice says nothing of her mute.
            let bobsView = try await api.get("/v1/users/\(alice.id)", bearer: bob.token)
            #expect(
                bobsView.json["mutedByViewer"] as? Bool == false && bobsView.json["mutedUntil"] == nil, "\(bobsView)")

            let unmuted = try await api.send("DELETE", "/v1/me/mutes/\(bob.id)", bearer: alice.token)
            #expect(unmuted.status == 200 && unmuted.json["changed"] as? Bool == true, "\(unmuted)")
            let again = try await api.get("/v1/timeline", bearer: alice.token)
            #expect((again.json["items"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == hidden })
        }
    }
}

/// Notifications that work: activity filtered by kind, and a read marker that only moves
/// forward, with the unread count (muted and blocked actors left out, as the feed leaves them
/// out) in the user's own profile.
@Suite struct ActivityReadTests {
    @Test func theMarkerMovesForwardAndTheOwnProfileCountsWhatIsUnread() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        let post = try await service.addPost(by: alice.id)
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        try await service.run(.like(post: post.id.rawValue), as: bob.id)
        _ = try await service.addComment(by: carol.id, on: post.id)
        #expect(try service.user(alice.id, viewer: alice.id).unreadActivity == 3)
        #expect(try service.user(alice.id, viewer: bob.id).unreadActivity == nil, "only the user sees their count")
        #expect(try service.user(alice.id).unreadActivity == nil)

        let items = try service.activity(of: alice.id).items
        #expect(Set(items.map(\.kind)) == [.follow, .like, .comment])
        #expect(try service.activity(of: alice.id, kinds: [.like]).items.map(\.kind) == [.like])
        #expect(try service.activity(of: alice.id, kinds: [.comment, .follow]).items.count == 2)
        // Read up to the like: the comment after it stays unread.
        let like = try #require(items.first { $0.kind == .like })
        #expect(try await service.run(.markActivityRead(upTo: like.id), as: alice.id) == .changed(true))
        #expect(try service.user(alice.id, viewer: alice.id).unreadActivity == items.firstIndex { $0.id == like.id })
        // Never backwards.
        let oldest = try #require(items.last)
        #expect(
            try await service.run(.markActivityRead(upTo: oldest.id), as: alice.id) == .changed(oldest.id > like.id))
        #expect(try await service.run(.markActivityRead(upTo: items[0].id), as: alice.id) == .changed(true))
        #expect(try service.user(alice.id, viewer: alice.id).unreadActivity == 0)
        // A muted actor's new doings are neither shown nor counted.
        try await service.run(.mute(user: carol.id.rawValue), as: alice.id)
        _ = try await service.addComment(by: carol.id, on: post.id, "again")
        #expect(try service.user(alice.id, viewer: alice.id).unreadActivity == 0)
        try await service.run(.unlike(post: post.id.rawValue), as: bob.id)
        try await service.run(.like(post: post.id.rawValue), as: bob.id)
        #expect(try service.user(alice.id, viewer: alice.id).unreadActivity == 1)
        await expectError(.invalidArgument, field: "upTo") {
            _ = try await service.run(.markActivityRead(upTo: "not an id!"), as: alice.id)
        }
        await expectError(.invalidArgument, field: "types") {
            _ = try ask(service, "activity", ["user": .string(alice.id.rawValue), "types": ["likes"]])
        }
    }

    @Test func overHTTP() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let post = try await api.addPost(alice.token, caption: "mine")
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: bob.token).status == 200)
            #expect(try await api.get("/v1/me", bearer: alice.token).json["unreadActivity"] as? Int == 2)
            let likes = try await api.get("/v1/activity?types=like", bearer: alice.token)
            let items = try #require(likes.json["items"] as? [[String: Any]], "\(likes)")
            #expect(items.map { $0["kind"] as? String } == ["like"])
            #expect(try await api.get("/v1/activity?types=likes", bearer: alice.token).errorField == "types")
            let newest = try #require(
                (try await api.get("/v1/activity", bearer: alice.token).json["items"] as? [[String: Any]])?.first?["id"]
                    as? String)
            let read = try await api.send("POST", "/v1/activity/read", json: ["upTo": newest], bearer: alice.token)
            #expect(read.status == 200 && read.json["changed"] as? Bool == true, "\(read)")
            #expect(try await api.get("/v1/me", bearer: alice.token).json["unreadActivity"] as? Int == 0)
            #expect(try await api.get("/v1/users/\(alice.id)", bearer: bob.token).json["unreadActivity"] == nil)
            #expect(try await api.send("POST", "/v1/activity/read", json: ["upTo": newest]).status == 401)
        }
    }
}
