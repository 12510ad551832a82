import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Private means private (#44): once an account is locked, every post of it, earlier public ones
/// too, reaches only its followers and itself, on every surface; unlocking shows its public
/// posts again and leaves its followers-only ones for followers.
@Suite struct PrivateMeansPrivateTests {
    @Test func aLockedAccountsEarlierPublicPostReachesOnlyItsFollowers() async throws {
        let service = try openService()
        let owner = try await service.createUser("owner"), fan = try await service.createUser("fan"),
            stranger = try await service.createUser("stranger")
        let here = Place(latitude: 48.85, longitude: 2.35)
        try await service.run(.follow(user: owner.id.rawValue), as: fan.id)
        let early = try #require(
            try await service.run(
                .addPost(image: gifBase64(0xFF), caption: "#early for all, @stranger", location: here), as: owner.id
            ).post)
        let friends = try #require(
            try await service.run(
                .addPost(image: gifBase64(0xFF00), caption: "#early friends", visibility: .followers), as: owner.id
            ).post)
        #expect(early.visibility == .public)
        #expect(try service.posts(by: owner.id, viewer: stranger.id).items.map(\.id) == [early.id])
        // The stranger was told of the mention (what a push tells is what the activity shows).
        #expect(try service.activity(of: stranger.id).items.count == 1)
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: owner.id)

        for viewer in [stranger.id, nil] {
            await expectError(.notFound) { _ = try service.post(early.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.image(early.image, viewer: viewer) }
            await expectError(.notFound) { _ = try service.comments(of: early.id, viewer: viewer) }
            #expect(try service.posts(by: owner.id, viewer: viewer).items.isEmpty)
            #expect(try service.hashtag("early", viewer: viewer).items.isEmpty)
            #expect(try service.publicPosts(viewer: viewer).items.isEmpty)
            #expect(
                try service.nearby(latitude: here.latitude, longitude: here.longitude, viewer: viewer).items.isEmpty)
            // The profile itself, with its counts, still shows (the app says "This account is private").
            let profile = try service.user(owner.id, viewer: viewer)
            #expect(profile.locked && profile.postCount == 2)
        }
        // The mention's activity item (and so its push) no longer reaches them.
        #expect(try service.activity(of: stranger.id).items.isEmpty)
        // Acting on it is as on a post that does not exist.
        await expectError(.notFound) { _ = try await service.run(.like(post: early.id.rawValue), as: stranger.id) }
        for viewer in [owner.id, fan.id] {
            #expect(try service.post(early.id, viewer: viewer).post.id == early.id)
            #expect(try service.posts(by: owner.id, viewer: viewer).items.map(\.id) == [friends.id, early.id])
            #expect(try service.hashtag("early", viewer: viewer).items.map(\.id) == [friends.id, early.id])
            #expect(try service.publicPosts(viewer: viewer).items.map(\.id) == [early.id])
            #expect(
                try service.nearby(latitude: here.latitude, longitude: here.longitude, viewer: viewer).items.map(\.id)
                    == [early.id])
            // Its photo is answered private to caches, as a followers-only post's.
            #expect(try service.image(early.image, viewer: viewer).restricted)
        }

        // Unlocking: the public post is public again; the followers-only one stays so.
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: false), as: owner.id)
        for viewer in [stranger.id, nil] {
            #expect(try service.post(early.id, viewer: viewer).post.id == early.id)
            #expect(try !service.image(early.image, viewer: viewer).restricted)
            #expect(try service.posts(by: owner.id, viewer: viewer).items.map(\.id) == [early.id])
            #expect(try service.hashtag("early", viewer: viewer).items.map(\.id) == [early.id])
            #expect(try service.publicPosts(viewer: viewer).items.map(\.id) == [early.id])
            await expectError(.notFound) { _ = try service.post(friends.id, viewer: viewer) }
            await expectError(.notFound) { _ = try service.image(friends.image, viewer: viewer) }
        }
        #expect(try service.post(friends.id, viewer: fan.id).post.visibility == .followers)
    }

    /// Over HTTP: a locked account's earlier public post and its photo are 404 to a stranger and
    /// to nobody signed in (as an unknown id), 200 to a follower; Mastodon's status too.
    @Test func overHTTP() async throws {
        try await withServer { server in
            let api = server.api
            let owner = try await api.signUp("owner"), fan = try await api.signUp("fan"),
                stranger = try await api.signUp("stranger")
            #expect(try await api.send("PUT", "/v1/me/following/\(owner.id)", bearer: fan.token).status == 200)
            let created = try await api.send(
                "POST", "/v1/posts", json: ["image": gifBase64(0xFF), "caption": "#before the lock"],
                bearer: owner.token)
            #expect(created.status == 201 && created.json["visibility"] as? String == "public", "\(created)")
            let post = try #require(created.json["id"] as? String),
                image = try #require(created.json["image"] as? String)
            let status = try await server.mastodonID("post", post)
            #expect(try await api.get("/v1/posts/\(post)").status == 200)
            #expect(try await api.get("/api/v1/statuses/\(status)", bearer: stranger.token).status == 200)

            let locked = try await api.send("PATCH", "/v1/me", json: ["locked": true], bearer: owner.token)
            #expect(locked.status == 200, "\(locked)")
            let unknown = try await api.get("/v1/posts/p_unknown")
            for bearer in [stranger.token, nil] {
                let answer = try await api.get("/v1/posts/\(post)", bearer: bearer)
                #expect(answer.status == 404 && answer.status == unknown.status, "\(answer)")
                #expect(try await api.get("/v1/images/\(image)", bearer: bearer).status == 404)
                #expect(try await api.get("/v1/users/\(owner.id)/posts", bearer: bearer).ids.isEmpty)
                #expect(try await api.get("/v1/hashtags/before/posts", bearer: bearer).ids.isEmpty)
                let profile = try await api.get("/v1/users/\(owner.id)", bearer: bearer)
                #expect(profile.status == 200 && profile.json["postCount"] as? Int == 1, "\(profile)")
            }
            #expect(try await api.get("/api/v1/statuses/\(status)", bearer: stranger.token).status == 404)
            #expect(try await api.get("/api/v1/statuses/\(status)").status == 404)
            // Mastodon's timelines: the account's statuses, the tag's and the public one.
            let account = try await server.mastodonID("account", owner.id)
            let timelines = [
                "/api/v1/accounts/\(account)/statuses", "/api/v1/timelines/tag/before", "/api/v1/timelines/public"
            ]
            for path in timelines {
                let shown = try await api.get(path, bearer: fan.token)
                #expect(shown.status == 200 && shown.text.contains(status), "\(path): \(shown)")
                let hidden = try await api.get(path, bearer: stranger.token)
                #expect(hidden.status == 200 && !hidden.text.contains(status), "\(path): \(hidden)")
            }
            #expect(try await api.get("/v1/posts/\(post)", bearer: fan.token).status == 200)
            #expect(try await api.get("/v1/images/\(image)", bearer: fan.token).status == 200)
            #expect(try await api.get("/api/v1/statuses/\(status)", bearer: fan.token).status == 200)
        }
    }
}
