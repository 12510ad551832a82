import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Mastodon's bell: `follow` with `notify` asks to be told of each of the followee's posts (an
/// activity item of kind `post`); it ends with the follow or the request, and never tells of a
/// post the follower may not see or whose author they mute.
@Suite struct PostNotificationTests {
    @Test func aFollowerWhoAskedIsToldOfEachPost() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let carol = try await service.createUser("carol"), dan = try await service.createUser("dan")
        try await service.run(.follow(user: alice.id.rawValue, notify: true), as: bob.id)
        try await service.run(.follow(user: alice.id.rawValue), as: carol.id)
        #expect(try service.user(alice.id, viewer: bob.id).notifiesViewer == true)
        #expect(try service.user(alice.id, viewer: carol.id).notifiesViewer == false)
        #expect(try service.user(alice.id).notifiesViewer == nil)

        let first = try await service.addPost(by: alice.id, caption: "first light")
        let told = try service.activity(of: bob.id).items
        #expect(told.map(\.kind) == [.post] && told.first?.post == first.id && told.first?.actor == alice.id)
        #expect(try service.activity(of: carol.id).items.isEmpty, "a follower who did not ask is not told")
        #expect(ActivityItem.Kind.post.mastodonType == "status")

        // Mentioned in the post too: told once, of the mention.
        _ = try await service.addPost(by: alice.id, caption: "with @bob", image: 1)
        #expect(try service.activity(of: bob.id).items.map(\.kind) == [.mention, .post])

        // The same notify again changes nothing and records nothing; false ends it.
        let before = try service.lastSequence()
        #expect(try await service.run(.follow(user: alice.id.rawValue, notify: true), as: bob.id) == .changed(false))
        #expect(try service.lastSequence() == before)
        try await service.run(.follow(user: alice.id.rawValue, notify: false), as: bob.id)
        _ = try await service.addPost(by: alice.id, caption: "third", image: 2)
        #expect(try service.activity(of: bob.id).items.count == 2)

        // A deleted post's item goes with it; unfollowing ends the bell too.
        try await service.run(.follow(user: alice.id.rawValue, notify: true), as: carol.id)
        let fourth = try await service.addPost(by: alice.id, caption: "fourth", image: 3)
        #expect(try service.activity(of: carol.id).items.map(\.post) == [fourth.id])
        try await service.run(.deletePost(post: fourth.id.rawValue), as: alice.id)
        #expect(try service.activity(of: carol.id).items.isEmpty)
        try await service.run(.unfollow(user: alice.id.rawValue), as: carol.id)
        #expect(try service.user(alice.id, viewer: carol.id).notifiesViewer == false)
        try await service.run(.follow(user: alice.id.rawValue), as: carol.id)
        _ = try await service.addPost(by: alice.id, caption: "fifth", image: 4)
        #expect(try service.activity(of: carol.id).items.isEmpty, "a new follow starts without the bell")

        // Muted: kept, but not shown. A user who is not followed cannot be asked about.
        try await service.run(.follow(user: alice.id.rawValue, notify: true), as: dan.id)
        try await service.run(.mute(user: alice.id.rawValue), as: dan.id)
        _ = try await service.addPost(by: alice.id, caption: "sixth", image: 5)
        #expect(try service.activity(of: dan.id).items.isEmpty)
    }

    @Test func aLockedAccountsFollowersOnlyPostsReachOnlyApprovedFollowers() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: alice.id)
        // Asked with the request: kept while it waits, told once approved.
        try await service.run(.follow(user: alice.id.rawValue, notify: true), as: bob.id)
        #expect(try service.user(alice.id, viewer: bob.id).notifiesViewer == true)
        _ = try await service.addPost(by: alice.id, caption: "for followers")
        #expect(try service.activity(of: bob.id).items.isEmpty, "a request is not a follow")
        try await service.run(.approveFollowRequest(user: bob.id.rawValue), as: alice.id)
        let post = try await service.addPost(by: alice.id, caption: "now you see it", image: 1)
        #expect(try service.activity(of: bob.id).items.map(\.post) == [post.id])
        // A rejected request ends the bell with it.
        let carol = try await service.createUser("carol")
        try await service.run(.follow(user: alice.id.rawValue, notify: true), as: carol.id)
        try await service.run(.rejectFollowRequest(user: carol.id.rawValue), as: alice.id)
        #expect(try service.user(alice.id, viewer: carol.id).notifiesViewer == false)
    }

    @Test func overHTTP() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let follow = try await api.send(
                "PUT", "/v1/me/following/\(alice.id)", json: ["notify": true], bearer: bob.token)
            #expect(follow.status == 200 && follow.json["changed"] as? Bool == true, "\(follow)")
            let profile = try await api.get("/v1/users/\(alice.id)", bearer: bob.token)
            #expect(profile.json["notifiesViewer"] as? Bool == true, "\(profile)")
            let post = try await api.addPost(alice.token, caption: "hello")
            let activity = try await api.get("/v1/activity?types=post", bearer: bob.token)
            let items = activity.json["items"] as? [[String: Any]]
            #expect(
                items?.map { $0["kind"] as? String } == ["post"] && items?.first?["post"] as? String == post,
                "\(activity)")
            let bad = try await api.send(
                "PUT", "/v1/me/following/\(alice.id)", json: ["notify": "yes"], bearer: bob.token)
            #expect(bad.status == 400, "\(bad)")
        }
    }
}
