import Foundation
import JSONModel
import Testing
@testable import Timeline
import TimelineDomain

/// Private accounts: following a locked account asks its owner, who approves or rejects; a
/// followers-only post reaches its author's approved followers and nobody else, everywhere a
/// post can surface (to anyone else it does not exist: `not_found`).
@Suite struct PrivateAccountTests {
    @Test func followingALockedAccountAsksAndTheOwnerAnswers() async throws {
        let service = try openService()
        let owner = try await service.createUser("owner"), ann = try await service.createUser("ann"),
            ben = try await service.createUser("ben")
        let early = try await service.addPost(by: owner.id, caption: "before the lock")
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: owner.id)
        #expect(try service.user(owner.id).locked)
        #expect(try service.user(owner.id, viewer: owner.id).locked)

        // Asking is a request, not a follow; asking again changes nothing.
        #expect(try await service.run(.follow(user: owner.id.rawValue), as: ann.id) == .changed(true))
        #expect(try await service.run(.follow(user: owner.id.rawValue), as: ann.id) == .changed(false))
        #expect(try !service.follows(ann.id, owner.id))
        #expect(try service.user(owner.id, viewer: ann.id).requestedByViewer == true)
        #expect(try service.user(owner.id, viewer: ben.id).requestedByViewer == false)
        #expect(try service.user(owner.id).followerCount == 0)
        #expect(try service.timeline(of: ann.id).items.isEmpty)
        try await service.run(.follow(user: owner.id.rawValue), as: ben.id)
        #expect(try service.followRequests(to: owner.id).items.map(\.id) == [ben.id, ann.id])
        let activity = try service.activity(of: owner.id, kinds: [.followRequest]).items
        #expect(Set(activity.compactMap(\.actor)) == [ann.id, ben.id])

        // Approval makes the follow, with the backlog merged as any follow's.
        #expect(try await service.run(.approveFollowRequest(user: ann.id.rawValue), as: owner.id) == .changed(true))
        #expect(try service.follows(ann.id, owner.id))
        #expect(try service.user(owner.id, viewer: ann.id).requestedByViewer == false)
        #expect(try service.timeline(of: ann.id).items.map(\.id) == [early.id])
        // Rejection ends the request, and both items leave the owner's activity: the approved
        // one gives way to a follow.
        #expect(try await service.run(.rejectFollowRequest(user: ben.id.rawValue), as: owner.id) == .changed(true))
        #expect(try !service.follows(ben.id, owner.id))
        #expect(try service.followRequests(to: owner.id).items.isEmpty)
        #expect(try service.activity(of: owner.id, kinds: [.followRequest]).items.isEmpty)
        #expect(try service.activity(of: owner.id, kinds: [.follow]).items.map(\.actor) == [ann.id])

        // Nothing to answer: not_found, and nothing appended.
        let before = try service.lastSequence()
        await expectError(.notFound) {
            _ = try await service.run(.approveFollowRequest(user: ben.id.rawValue), as: owner.id)
        }
        await expectError(.notFound) {
            _ = try await service.run(.rejectFollowRequest(user: ann.id.rawValue), as: owner.id)
        }
        await expectError(.invalidArgument, field: "user") {
            _ = try await service.run(.approveFollowRequest(user: "no such id"), as: owner.id)
        }
        await expectError(.unauthenticated) {
            _ = try await service.execute(.approveFollowRequest(user: ben.id.rawValue))
        }
        #expect(try service.lastSequence() == before)
        #expect(try ask(service, "followRequests", viewer: owner.id) == .users(Page(items: [], next: nil)))
        await expectError(.unauthenticated) { _ = try ask(service, "followRequests") }
    }

    @Test func unfollowWithdrawsABlockEndsAndUnlockingApprovesWhatIsPending() async throws {
        let service = try openService()
        let owner = try await service.createUser("owner"), ann = try await service.createUser("ann")
        let ben = try await service.createUser("ben"), cal = try await service.createUser("cal")
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: owner.id)
        for asker in [ann.id, ben.id, cal.id] { try await service.run(.follow(user: owner.id.rawValue), as: asker) }

        #expect(try await service.run(.unfollow(user: owner.id.rawValue), as: ann.id) == .changed(true))
        #expect(try await service.run(.unfollow(user: owner.id.rawValue), as: ann.id) == .changed(false))
        try await service.run(.block(user: ben.id.rawValue), as: owner.id)
        #expect(try service.followRequests(to: owner.id).items.map(\.id) == [cal.id])
        #expect(try service.activity(of: owner.id, kinds: [.followRequest]).items.map(\.actor) == [cal.id])

        // Unlocking lets in whoever still waits.
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: false), as: owner.id)
        #expect(try service.follows(cal.id, owner.id))
        #expect(try !service.follows(ann.id, owner.id) && !service.follows(ben.id, owner.id))
        #expect(try service.followRequests(to: owner.id).items.isEmpty)
        // An unlocked account is followed at once.
        try await service.run(.follow(user: owner.id.rawValue), as: ann.id)
        #expect(try service.follows(ann.id, owner.id))
    }

    @Test func erasureEndsRequestsBothWays() async throws {
        let service = try openService()
        let owner = try await service.createUser("owner"), ann = try await service.createUser("ann")
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: owner.id)
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: ann.id)
        try await service.run(.follow(user: owner.id.rawValue), as: ann.id)
        try await service.run(.follow(user: ann.id.rawValue), as: owner.id)
        let before = try service.lastSequence()
        try await service.run(.eraseUser(user: ann.id.rawValue, password: "password-123"), as: ann.id)
        #expect(try service.followRequests(to: owner.id).items.isEmpty)
        #expect(try service.user(owner.id).followerCount == 0)
        #expect(try service.events(from: before + 1).filter { $0.type == .followRequestWithdrawn }.count == 2)
    }

    /// A followers-only post, and everything of it, exists for its author and approved
    /// followers only: detail, comments, likes, history, the author's page, hashtag, nearby,
    /// images, activity; acting on it is `not_found` too.
    @Test func aFollowersOnlyPostReachesApprovedFollowersOnly() async throws {
        let service = try openService()
        let owner = try await service.createUser("owner"), fan = try await service.createUser("fan"),
            stranger = try await service.createUser("stranger")
        // The same photo posted for followers only, then for all (before the lock): the public
        // post shows it. (Photos of distinct colours: the pipeline's JPEGs of two close ones are
        // the same bytes.)
        let again = try #require(
            try await service.run(
                .addPost(image: gifBase64(0xFF0000), caption: "again", visibility: .followers), as: owner.id
            ).post)
        let repost = try #require(
            try await service.run(
                .addPost(image: gifBase64(0xFF0000), caption: "for all now", visibility: .public), as: owner.id
            ).post)
        #expect(again.image == repost.image)
        #expect(try !service.image(again.image, viewer: nil).restricted)
        try await service.run(.deletePost(post: repost.id.rawValue), as: owner.id)
        await expectError(.notFound) { _ = try service.image(again.image, viewer: stranger.id) }
        try await service.run(.deletePost(post: again.id.rawValue), as: owner.id)
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: owner.id)
        try await service.run(.follow(user: owner.id.rawValue), as: fan.id)
        try await service.run(.approveFollowRequest(user: fan.id.rawValue), as: owner.id)
        let here = Place(latitude: 48.85, longitude: 2.35)
        // A locked account's posts are for followers unless it says otherwise.
        let hidden = try #require(
            try await service.run(
                .addPost(image: gifBase64(0xFF), caption: "#quiet for friends, @stranger", location: here),
                as: owner.id
            ).post)
        #expect(hidden.visibility == .followers)
        let open = try #require(
            try await service.run(
                .addPost(
                    image: gifBase64(0xFF00), caption: "#quiet for all", location: here,
                    visibility: .public), as: owner.id
            ).post)
        _ = try await service.addComment(by: fan.id, on: hidden.id, "a friend's comment")
        try await service.run(.like(post: hidden.id.rawValue), as: fan.id)

        for viewer in [owner.id, fan.id] {
            #expect(try service.post(hidden.id, viewer: viewer).post.id == hidden.id)
            #expect(try service.posts(by: owner.id, viewer: viewer).items.map(\.id) == [open.id, hidden.id])
            #expect(try service.hashtag("quiet", viewer: viewer).items.map(\.id) == [open.id, hidden.id])
            #expect(
                try service.nearby(latitude: here.latitude, longitude: here.longitude, viewer: viewer).items.count == 2)
            #expect(try service.comments(of: hidden.id, viewer: viewer).items.count == 1)
            #expect(try service.image(hidden.image, viewer: viewer).restricted)
        }
        #expect(try service.timeline(of: fan.id).items.map(\.id) == [open.id, hidden.id])
        for viewer in [stranger.id, nil] {
            await expectError(.notFound) { _ = try service.post(hidden.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.comments(of: hidden.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.likes(of: hidden.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.history(of: hidden.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.image(hidden.image, viewer: viewer) }
            await expectError(.notFound) { _ = try service.image(hidden.image, variant: .thumb, viewer: viewer) }
            // A locked account's public post is for its followers too (private means private).
            #expect(try service.posts(by: owner.id, viewer: viewer).items.isEmpty)
            #expect(try service.hashtag("quiet", viewer: viewer).items.isEmpty)
            #expect(
                try service.nearby(latitude: here.latitude, longitude: here.longitude, viewer: viewer).items.isEmpty)
            await expectError(.notFound) { _ = try service.image(open.image, viewer: viewer) }
        }
        // The stranger was mentioned, but may not see the post: no item reaches them.
        #expect(try service.activity(of: stranger.id).items.isEmpty)
        // Acting on it is as on a post that does not exist, and appends nothing.
        let before = try service.lastSequence()
        await expectError(.notFound) { _ = try await service.run(.like(post: hidden.id.rawValue), as: stranger.id) }
        await expectError(.notFound) { _ = try await service.addComment(by: stranger.id, on: hidden.id) }
        await expectError(.notFound) { _ = try await service.run(.bookmark(post: hidden.id.rawValue), as: stranger.id) }
        await expectError(.notFound) {
            _ = try await service.run(.reportPost(post: hidden.id.rawValue, reason: "r"), as: stranger.id)
        }
        #expect(try service.lastSequence() == before)
        await expectError(.invalidArgument, field: "visibility") {
            _ = try Catalogue.command(
                named: "addPost", JSONInput(object: ["image": .string(gifBase64(2)), "visibility": "friends"]))
        }

        // Unfollowing ends it: the post leaves the ex-follower's timeline and answers not_found.
        try await service.run(.unfollow(user: owner.id.rawValue), as: fan.id)
        await expectError(.notFound) { _ = try service.post(hidden.id, viewer: fan.id) }
        #expect(try service.timeline(of: fan.id).items.isEmpty)
    }

    /// Over HTTP: the lock in PATCH /v1/me, the request routes, a followers-only post answered
    /// 404 to others (its photo too, and private to caches), and the live stream.
    @Test func overHTTP() async throws {
        try await withServer { server in
            let api = server.api
            let owner = try await api.signUp("owner"), fan = try await api.signUp("fan"),
                stranger = try await api.signUp("stranger")
            let locked = try await api.send("PATCH", "/v1/me", json: ["locked": true], bearer: owner.token)
            #expect(locked.status == 200 && locked.json["locked"] as? Bool == true, "\(locked)")
            #expect(
                try await api.send("PATCH", "/v1/me", json: ["locked": "yes"], bearer: owner.token).errorField
                    == "locked")

            let asked = try await api.send("PUT", "/v1/me/following/\(owner.id)", bearer: fan.token)
            #expect(asked.status == 200 && asked.json["changed"] as? Bool == true, "\(asked)")
            #expect(
                try await api.get("/v1/users/\(owner.id)", bearer: fan.token).json["requestedByViewer"] as? Bool == true
            )
            #expect(try await api.get("/v1/me/follow-requests", bearer: owner.token).ids == [fan.id])
            #expect(try await api.get("/v1/me/follow-requests").status == 401)
            let activity = try await api.get("/v1/activity?types=follow_request", bearer: owner.token)
            #expect(activity.items.map { $0["kind"] as? String } == ["follow_request"], "\(activity)")
            let approved = try await api.send("PUT", "/v1/me/follow-requests/\(fan.id)", bearer: owner.token)
            #expect(approved.status == 200 && approved.json["changed"] as? Bool == true, "\(approved)")
            #expect(try await api.send("PUT", "/v1/me/follow-requests/\(fan.id)", bearer: owner.token).status == 404)
            #expect(try await api.send("PUT", "/v1/me/following/\(owner.id)", bearer: stranger.token).status == 200)
            #expect(
                try await api.send("DELETE", "/v1/me/follow-requests/\(stranger.id)", bearer: owner.token).status == 200
            )
            #expect(try await api.get("/v1/me/follow-requests", bearer: owner.token).ids.isEmpty)

            let stream = try EventStreamReader(port: server.port, bearer: fan.token)
            #expect(await stream.open().hasPrefix("HTTP/1.1 200"))
            let created = try await api.send(
                "POST", "/v1/posts", json: ["image": gifBase64(0xFF), "caption": "#inner circle"], bearer: owner.token)
            #expect(created.status == 201 && created.json["visibility"] as? String == "followers", "\(created)")
            let post = try #require(created.json["id"] as? String),
                image = try #require(created.json["image"] as? String)
            let events = await stream.events { $0.contains { $0.json["id"] as? String == post } }
            #expect(events.contains { $0.json["id"] as? String == post }, "an approved follower's stream gets it")
            #expect(
                try await api.send(
                    "POST", "/v1/posts", json: ["image": gifBase64(1), "visibility": "friends"],
                    bearer: owner.token
                ).errorField == "visibility")

            let seen = try await api.get("/v1/posts/\(post)", bearer: fan.token)
            #expect(seen.status == 200 && seen.json["visibility"] as? String == "followers", "\(seen)")
            let photo = try await api.get("/v1/images/\(image)", bearer: fan.token)
            #expect(photo.status == 200 && photo.header("Cache-Control")?.hasPrefix("private") == true, "\(photo)")
            for bearer in [stranger.token, nil] {
                #expect(try await api.get("/v1/posts/\(post)", bearer: bearer).status == 404)
                #expect(try await api.get("/v1/posts/\(post)/comments", bearer: bearer).status == 404)
                #expect(try await api.get("/v1/images/\(image)", bearer: bearer).status == 404)
                #expect(try await api.get("/v1/images/\(image)?variant=thumb", bearer: bearer).status == 404)
                #expect(try await api.get("/v1/users/\(owner.id)/posts", bearer: bearer).ids.isEmpty)
                #expect(try await api.get("/v1/hashtags/inner/posts", bearer: bearer).ids.isEmpty)
            }
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: stranger.token).status == 404)
            #expect(try await api.get("/v1/hashtags/inner/posts", bearer: fan.token).ids == [post])
        }
    }
}
