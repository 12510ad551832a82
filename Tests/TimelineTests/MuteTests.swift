import Foundation
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
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"), carol = try await service.createUser("carol")
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
        #expect(try service.timeline(of: alice.id).items.map(\.id) == [later.id, alicesPost.id, carolsPost.id, bobsPost.id])
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

    @Test func aPulledAuthorIsMutedToo() async throws {
        let service = try openService { $0.fanoutThreshold = 2 }
        let star = try await service.createUser("star"), fan = try await service.createUser("fan"), other = try await service.createUser("other")
        for follower in [fan.id, other.id] { try await service.run(.follow(user: star.id.rawValue), as: follower) }
        let post = try await service.addPost(by: star.id, caption: "pulled")
        #expect(try service.timeline(of: fan.id).items.map(\.id) == [post.id])
        try await service.run(.mute(user: star.id.rawValue), as: fan.id)
        #expect(try service.timeline(of: fan.id).items.isEmpty)
        #expect(try service.timeline(of: other.id).items.map(\.id) == [post.id])
    }

    @Test func theListIsPrivateNewestFirstAndErasureEndsMutesBothWays() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"), carol = try await service.createUser("carol")
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
        await expectError(.invalidArgument, field: "user") { _ = try await service.run(.mute(user: alice.id.rawValue), as: alice.id) }
        await expectError(.notFound) { _ = try await service.run(.mute(user: "-NoSuchUser000000000"), as: alice.id) }
        for duration in [-1, MutePolicy.maxDurationSeconds + 1] {
            await expectError(.invalidArgument, field: "duration") { _ = try await service.run(.mute(user: bob.id.rawValue, duration: duration), as: alice.id) }
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
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"), carol = try await api.signUp("carol")
            for followee in [bob.id, carol.id] {
                #expect(try await api.send("PUT", "/v1/me/following/\(followee)", bearer: alice.token).status == 200)
            }
            let stream = try EventStreamReader(port: server.port, bearer: alice.token)
            #expect(await stream.open().hasPrefix("HTTP/1.1 200"))

            let muted = try await api.send("PUT", "/v1/me/mutes/\(bob.id)", json: ["duration": 0], bearer: alice.token)
            #expect(muted.status == 200 && muted.json["changed"] as? Bool == true, "\(muted)")
            let wrong = try await api.send("PUT", "/v1/me/mutes/\(bob.id)", json: ["duration": "soon"], bearer: alice.token)
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
            #expect(try await api.get("/v1/users/\(bob.id)", bearer: alice.token).json["mutedByViewer"] as? Bool == true)
            // bob learns nothing: his view of alice says nothing of her mute.
            let bobsView = try await api.get("/v1/users/\(alice.id)", bearer: bob.token)
            #expect(bobsView.json["mutedByViewer"] as? Bool == false && bobsView.json["mutedUntil"] == nil, "\(bobsView)")

            let unmuted = try await api.send("DELETE", "/v1/me/mutes/\(bob.id)", bearer: alice.token)
            #expect(unmuted.status == 200 && unmuted.json["changed"] as? Bool == true, "\(unmuted)")
            let again = try await api.get("/v1/timeline", bearer: alice.token)
            #expect((again.json["items"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == hidden })
        }
    }
}
