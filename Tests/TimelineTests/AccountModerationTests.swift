import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Account moderation: the operator makes moderators; anyone reports an account (with some of
/// its posts); moderators work the queue, remove posts and suspend accounts, whose owner cannot
/// sign in and whose profile and posts are gone for everyone else until unsuspended.
@Suite struct AccountModerationTests {
    @Test func moderatorsWorkTheQueueAndSuspendAccounts() async throws {
        let service = try openService()
        let mod = try await service.createUser("mod"), alice = try await service.createUser("alice")
        let spammer = try await service.createUser("spammer"), fan = try await service.createUser("fan")
        try await service.run(.follow(user: spammer.id.rawValue), as: fan.id)
        let spam = try await service.addPost(by: spammer.id, caption: "buy #now")
        let other = try await service.addPost(by: spammer.id, caption: "more #now")

        // Only the operator grants the role; only a moderator reads the queue.
        await expectError(.forbidden) { _ = try await service.run(.grantRole(user: mod.id.rawValue), as: alice.id) }
        #expect(try await service.execute(.grantRole(user: mod.id.rawValue), as: .operator) == .changed(true))
        #expect(try service.user(mod.id, viewer: mod.id).moderator == true)
        #expect(try service.user(mod.id, viewer: alice.id).moderator == nil, "the role is the user's own business")
        await expectError(.forbidden) { _ = try service.moderationQueue(for: alice.id) }

        // Reports: with posts of the account's own, once per reporter.
        #expect(
            try await service.run(
                .reportUser(user: spammer.id.rawValue, reason: "spam", posts: [spam.id.rawValue]), as: alice.id)
                == .changed(true))
        #expect(
            try await service.run(.reportUser(user: spammer.id.rawValue, reason: "again"), as: alice.id)
                == .changed(false))
        try await service.run(.reportPost(post: other.id.rawValue, reason: "ads"), as: fan.id)
        let before = try service.lastSequence()
        let alicesPost = try await service.addPost(by: alice.id)
        let afterPost = try service.lastSequence()
        await expectError(.invalidArgument, field: "posts") {
            _ = try await service.run(
                .reportUser(user: spammer.id.rawValue, reason: "r", posts: [alicesPost.id.rawValue]), as: fan.id)
        }
        await expectError(.invalidArgument, field: "user") {
            _ = try await service.run(.reportUser(user: fan.id.rawValue, reason: "r"), as: fan.id)
        }
        await expectError(.invalidArgument, field: "reason") {
            _ = try await service.run(.reportUser(user: spammer.id.rawValue, reason: ""), as: fan.id)
        }
        #expect(try service.lastSequence() == afterPost && afterPost == before + 1)

        let queue = try service.moderationQueue(for: mod.id)
        #expect(
            queue.accounts.map(\.user) == [spammer.id] && queue.accounts[0].reasons == ["spam"]
                && queue.accounts[0].posts == [spam.id])
        #expect(queue.posts.map(\.report.post) == [other.id] && queue.posts[0].post?.caption == "more #now")
        #expect(try ask(service, "moderationQueue", viewer: mod.id) == .moderation(queue))

        // A moderator removes a post and suspends the account, as themself.
        try await service.run(.removePost(post: other.id.rawValue, reason: "ads"), as: mod.id)
        await expectError(.forbidden) {
            _ = try await service.run(.removePost(post: spam.id.rawValue, reason: "x"), as: alice.id)
        }
        await expectError(.forbidden) {
            _ = try await service.run(.suspendUser(user: spammer.id.rawValue), as: alice.id)
        }
        #expect(try await service.run(.suspendUser(user: spammer.id.rawValue), as: mod.id) == .changed(true))
        #expect(try await service.run(.suspendUser(user: spammer.id.rawValue), as: mod.id) == .changed(false))

        // Gone for everyone else: profile, posts, hashtag, timeline, search; no new follow.
        await expectError(.notFound) { _ = try service.user(spammer.id, viewer: alice.id) }
        await expectError(.notFound) { _ = try service.post(spam.id, viewer: fan.id) }
        #expect(try service.hashtag("now", viewer: fan.id).items.isEmpty)
        #expect(try service.timeline(of: fan.id).items.isEmpty)
        #expect(try service.searchUsers(prefix: "spam", viewer: alice.id).items.isEmpty)
        await expectError(.notFound) { _ = try await service.run(.follow(user: spammer.id.rawValue), as: alice.id) }
        await expectError(.notFound) { _ = try await service.run(.like(post: spam.id.rawValue), as: fan.id) }
        // They cannot sign in.
        await expectError(.forbidden) {
            _ = try await service.execute(.signIn(email: "spammer@example.com", password: "password-123"))
        }
        // A moderator cannot suspend another moderator; the operator can.
        let other2 = try await service.createUser("mod2")
        _ = try await service.execute(.grantRole(user: other2.id.rawValue), as: .operator)
        await expectError(.forbidden) { _ = try await service.run(.suspendUser(user: other2.id.rawValue), as: mod.id) }

        // Unsuspended, everything is back.
        #expect(try await service.run(.unsuspendUser(user: spammer.id.rawValue), as: mod.id) == .changed(true))
        #expect(try service.user(spammer.id, viewer: alice.id).username == "spammer")
        #expect(try service.timeline(of: fan.id).items.map(\.id) == [spam.id])
        _ = try await service.execute(.signIn(email: "spammer@example.com", password: "password-123"))
        #expect(try await service.run(.dismissUserReports(user: spammer.id.rawValue), as: mod.id) == .changed(true))
        #expect(try service.accountReportQueue().isEmpty)
    }

    @Test func aSuspensionEndsTheSessionsAndOverHTTP() async throws {
        let database = temporaryPath()
        try await withServer(database: database) { server in
            let api = server.api
            let mod = try await api.signUp("mod"), alice = try await api.signUp("alice"),
                spammer = try await api.signUp("spammer")
            let post = try await api.addPost(spammer.token, caption: "spam")
            #expect(try await api.get("/v1/admin/reports", bearer: mod.token).status == 403)
            // The operator's command, beside the running server.
            let grant = try ToolProcess(["moderation", "--db", database, "grant", "@mod"])
            grant.process.waitUntilExit()
            try #require(grant.process.terminationStatus == 0)
            let report = try await api.send(
                "POST", "/v1/users/\(spammer.id)/report", json: ["reason": "spam", "posts": [post]], bearer: alice.token
            )
            #expect(report.status == 200 && report.json["changed"] as? Bool == true, "\(report)")
            let queue = try await api.get("/v1/admin/reports", bearer: mod.token)
            #expect(queue.status == 200, "\(queue)")
            let accounts = queue.json["accounts"] as? [[String: Any]] ?? []
            #expect(
                accounts.first?["username"] as? String == "spammer" && accounts.first?["posts"] as? [String] == [post],
                "\(queue)")
            #expect(try await api.get("/v1/admin/reports", bearer: alice.token).status == 403)

            let suspended = try await api.send("PUT", "/v1/admin/suspensions/\(spammer.id)", bearer: mod.token)
            #expect(suspended.status == 200 && suspended.json["changed"] as? Bool == true, "\(suspended)")
            #expect(
                try await api.get("/v1/me", bearer: spammer.token).status == 401, "the suspended user's session ended")
            let signIn = try await api.send(
                "POST", "/v1/sessions", json: ["email": "spammer@example.com", "password": "password-123"])
            #expect(signIn.status == 403, "\(signIn)")
            #expect(try await api.get("/v1/users/\(spammer.id)", bearer: alice.token).status == 404)
            #expect(try await api.get("/v1/posts/\(post)").status == 404)
            let removed = try await api.send(
                "DELETE", "/v1/admin/posts/\(post)", json: ["reason": "spam"], bearer: mod.token)
            #expect(removed.status == 204, "\(removed)")
            #expect(
                try await api.send("DELETE", "/v1/admin/suspensions/\(spammer.id)", bearer: mod.token).json["changed"]
                    as? Bool == true)
            #expect(try await api.get("/v1/users/\(spammer.id)", bearer: alice.token).status == 200)
            #expect(
                try await api.send("POST", "/v1/admin/users/\(spammer.id)/dismiss", bearer: mod.token).json["changed"]
                    as? Bool == true)
        }
    }
}
