import Foundation
import JSONModel
import Testing
@testable import Timeline

/// Moderation: one report per reporter and post, and the operator's report queue.
@Suite struct ModerationTests {
    @Test func oneReportPerReporterAndPost() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let post = try await service.addPost(by: alice.id, image: 1)
        #expect(
            try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: bob.id) == .changed(true))
        let before = try service.lastSequence()
        #expect(
            try await service.run(.reportPost(post: post.id.rawValue, reason: "still spam"), as: bob.id)
                == .changed(false))
        #expect(try service.lastSequence() == before)
        #expect(
            try service.reportQueue() == [
                ReportedPost(
                    post: post.id, reporters: [bob.id], reasons: ["spam"],
                    newestAt: try #require(service.events(from: before).first).timestamp, hidden: false)
            ])
        // Exec answers {changed}.
        let answer = try await service.execute(
            .reportPost(post: post.id.rawValue, reason: "again"), as: .user(bob.id.rawValue))
        #expect(answer == .changed(false))
    }

    @Test func theQueueIsNewestFirstAndForgetsDeletedPostsAndErasedReporters() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        let first = try await service.addPost(by: alice.id, image: 1),
            second = try await service.addPost(by: alice.id, image: 2)
        let gone = try await service.addPost(by: alice.id, image: 3)
        try await service.run(.reportPost(post: first.id.rawValue, reason: "spam"), as: bob.id)
        try await service.run(.reportPost(post: second.id.rawValue, reason: "rude"), as: bob.id)
        try await service.run(.reportPost(post: gone.id.rawValue, reason: "x"), as: bob.id)
        try await service.run(.reportPost(post: first.id.rawValue, reason: "nudity"), as: carol.id)
        try await service.run(.deletePost(post: gone.id.rawValue), as: alice.id)
        var queue = try service.reportQueue()
        #expect(queue.map(\.post) == [first.id, second.id])
        #expect(
            queue[0].reporters == [carol.id, bob.id] && queue[0].reasons == ["nudity", "spam"] && queue[0].count == 2)
        // An erased reporter's reports no longer stand; they may be made again by others.
        _ = try await service.execute(.eraseUser(user: bob.id.rawValue), as: .operator)
        queue = try service.reportQueue()
        #expect(queue.map(\.post) == [first.id] && queue[0].reporters == [carol.id])
    }

    @Test func theOperatorListsTheQueueThroughTheTool() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let post = try await service.addPost(by: alice.id, image: 1)
        try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: bob.id)
        service.close()
        let tool = try ToolProcess(["moderation", "list", "--db", path, "--json"])
        try tool.input.fileHandleForWriting.close()
        let data = tool.output.fileHandleForReading.readDataToEndOfFile()
        tool.process.waitUntilExit()
        #expect(tool.process.terminationStatus == 0)
        let items = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(
            items.count == 1 && items.first?["post"] as? String == post.id.rawValue
                && items.first?["count"] as? Int == 1)
        #expect(
            items.first?["reporters"] as? [String] == [bob.id.rawValue]
                && items.first?["reasons"] as? [String] == ["spam"])
        let text = try ToolProcess(["moderation", "list", "--db", path])
        try text.input.fileHandleForWriting.close()
        let output = String(decoding: text.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        text.process.waitUntilExit()
        #expect(output.contains(post.id.rawValue) && output.contains("spam"))
        // A mistyped path is refused, and leaves no empty database behind.
        let missing = temporaryPath() + "-typo"
        for words in [["moderation", "list"], ["query", "users"]] {
            let refused = try ToolProcess(words + ["--db", missing])
            try refused.input.fileHandleForWriting.close()
            _ = refused.output.fileHandleForReading.readDataToEndOfFile()
            refused.process.waitUntilExit()
            #expect(
                refused.process.terminationStatus == 1 && !FileManager.default.fileExists(atPath: missing), "\(words)")
        }
        // With --json, a decision answers the command's JSON, one line.
        let dismissal = try ToolProcess(["moderation", "dismiss", post.id.rawValue, "--json", "--db", path])
        try dismissal.input.fileHandleForWriting.close()
        let answer = String(decoding: dismissal.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        dismissal.process.waitUntilExit()
        #expect(answer == #"{"changed":true}"# + "\n", "\(answer)")
    }
}

/// Moderation: the operator removes a post or dismisses its reports, and enough
/// reports hide a post from everyone but its author.
@Suite struct ModerationDecisionTests {
    /// Alice's post (with a hashtag), followed by bob, bookmarked by bob, liked and commented
    /// on by carol.
    func network(_ service: TimelineService) async throws -> (alice: Profile, bob: Profile, carol: Profile, post: Post)
    {
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let post = try await service.addPost(by: alice.id, caption: "sunset #sea", image: 1)
        try await service.run(.bookmark(post: post.id.rawValue), as: bob.id)
        try await service.run(.like(post: post.id.rawValue), as: carol.id)
        _ = try await service.addComment(by: carol.id, on: post.id, "wow")
        return (alice, bob, carol, post)
    }

    @Test func removingAPostTakesItEverywhereAndTellsItsAuthorWhy() async throws {
        let service = try openService()
        let (alice, bob, carol, post) = try await network(service)
        try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: bob.id)
        let before = try service.lastSequence()
        #expect(
            try await service.execute(.removePost(post: post.id.rawValue, reason: "breaks rule 3"), as: .operator)
                == .done)
        let events = try service.events(from: before + 1)
        let removal = try #require(events.first)
        #expect(
            events.count == 1 && removal.type == .postRemoved && removal.actor == "system"
                && removal.stream == "post-\(post.id)")
        #expect(
            removal.event == .postRemoved(PostRemoved(postId: post.id, authorId: alice.id, reason: "breaks rule 3")))
        #expect(removal.event.summary { "@\($0)" }.contains("breaks rule 3"))
        // Gone from every list, and not served to anyone (its author included), like a deleted post.
        #expect(try service.timeline(of: bob.id).items.isEmpty && service.timeline(of: alice.id).items.isEmpty)
        #expect(try service.hashtag("sea").items.isEmpty && service.bookmarks(of: bob.id).items.isEmpty)
        #expect(
            try service.posts(by: alice.id, viewer: alice.id).items.isEmpty && service.user(alice.id).postCount == 0)
        for viewer in [alice.id, bob.id, nil] {
            #expect(throws: TimelineError.self) { try service.post(post.id, viewer: viewer) }
        }
        #expect(try service.reportQueue().isEmpty)
        // The author's activity says why (carol's like and comment left with the post).
        let activity = try service.activity(of: alice.id).items
        #expect(activity.map(\.kind) == [.removed, .follow])
        #expect(
            activity.first?.reason == "breaks rule 3" && activity.first?.actor == nil && activity.first?.post == post.id
        )
        let json = JSONOutput.activity(try #require(activity.first))
        #expect(json["kind"] == "removed" && json["reason"] == "breaks rule 3" && json["actor"] == nil)
        #expect(try service.activity(of: carol.id).items.isEmpty)
        // Live: the author sees it leave and why; a follower sees it leave.
        #expect(try service.liveUpdates(for: removal, viewer: alice.id) == [.removed(post.id), .activity(activity[0])])
        #expect(try service.liveUpdates(for: removal, viewer: bob.id) == [.removed(post.id)])
        #expect(try service.liveUpdates(for: removal, viewer: carol.id).isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func onlyTheOperatorDecidesAndOnlyOnPostsThatExist() async throws {
        let service = try openService()
        let (alice, bob, _, post) = try await network(service)
        let other = try await service.addPost(by: alice.id, image: 2)
        try await service.run(.deletePost(post: other.id.rawValue), as: alice.id)
        let before = try service.lastSequence()
        for user in [alice.id, bob.id] {
            await expectError(.forbidden) {
                _ = try await service.run(.removePost(post: post.id.rawValue, reason: "x"), as: user)
            }
            await expectError(.forbidden) {
                _ = try await service.run(.dismissReports(post: post.id.rawValue), as: user)
            }
        }
        await expectError(.unauthenticated) { _ = try await service.execute(.dismissReports(post: post.id.rawValue)) }
        for missing in ["nosuchpost", other.id.rawValue] {  // unknown, and deleted
            await expectError(.notFound) {
                _ = try await service.execute(.removePost(post: missing, reason: "x"), as: .operator)
            }
            await expectError(.notFound) {
                _ = try await service.execute(.dismissReports(post: missing), as: .operator)
            }
        }
        await expectError(.invalidArgument, field: "reason") {
            _ = try await service.execute(.removePost(post: post.id.rawValue, reason: ""), as: .operator)
        }
        await expectError(.invalidArgument, field: "post") {
            _ = try await service.execute(.removePost(post: "", reason: "x"), as: .operator)
        }
        // Nothing to dismiss: changed false, no event.
        #expect(try await service.execute(.dismissReports(post: post.id.rawValue), as: .operator) == .changed(false))
        #expect(try service.lastSequence() == before)
        // Removed once, it is gone: a second removal is not_found too.
        _ = try await service.execute(.removePost(post: post.id.rawValue, reason: "x"), as: .operator)
        let after = try service.lastSequence()
        await expectError(.notFound) {
            _ = try await service.execute(.removePost(post: post.id.rawValue, reason: "x"), as: .operator)
        }
        #expect(try service.lastSequence() == after)
    }

    @Test func enoughReportsHideAPostFromAllButItsAuthorUntilDismissed() async throws {
        let service = try openService { $0.hideAfterReports = 2 }
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        let dave = try await service.createUser("dave"), erin = try await service.createUser("erin")
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        // Posts around it, so a page must fill past the hidden one.
        let older = try await service.addPost(by: alice.id, caption: "#sea older", image: 2)
        let post = try await service.addPost(by: alice.id, caption: "sunset #sea", image: 1)
        let newer = try await service.addPost(by: alice.id, caption: "#sea newer", image: 3)
        for user in [bob, carol] { try await service.run(.bookmark(post: post.id.rawValue), as: user.id) }
        try await service.run(.like(post: post.id.rawValue), as: carol.id)
        try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: carol.id)
        #expect(try service.timeline(of: bob.id).items.map(\.id).contains(post.id))  // one report: still shown
        let report = try await service.execute(
            .reportPost(post: post.id.rawValue, reason: "rude"), as: .user(dave.id.rawValue))
        #expect(report == .changed(true))
        let hiding = try #require(try service.events(from: try service.lastSequence()).first)
        // Hidden from everyone else, everywhere; pages stay full.
        let page = try service.timeline(of: bob.id, PageRequest(limit: 2))
        #expect(page.items.map(\.id) == [newer.id, older.id] && page.next == nil)
        #expect(try service.all(limit: 1) { try service.timeline(of: bob.id, $0) }.map(\.id) == [newer.id, older.id])
        #expect(
            try service.all(limit: 1) { try service.posts(by: alice.id, $0, viewer: bob.id) }.map(\.id) == [
                newer.id, older.id
            ])
        #expect(try service.all(limit: 1) { try service.posts(by: alice.id, $0) }.map(\.id) == [newer.id, older.id])
        #expect(
            try service.all(limit: 1) { try service.hashtag("sea", $0, viewer: bob.id) }.map(\.id) == [
                newer.id, older.id
            ])
        #expect(try service.bookmarks(of: bob.id).items.isEmpty && service.bookmarks(of: carol.id).items.isEmpty)
        for viewer in [bob.id, carol.id, nil] {
            #expect(throws: TimelineError.notFound("post", post.id.rawValue)) {
                try service.post(post.id, viewer: viewer)
            }
            #expect(throws: TimelineError.self) { try service.comments(of: post.id, viewer: viewer) }
            #expect(throws: TimelineError.self) { try service.likes(of: post.id, viewer: viewer) }
        }
        // Nobody else can act on it (a like can still be taken back); its author sees it all.
        await expectError(.notFound) { _ = try await service.run(.like(post: post.id.rawValue), as: erin.id) }
        await expectError(.notFound) {
            _ = try await service.run(.addComment(post: post.id.rawValue, text: "hi"), as: erin.id)
        }
        await expectError(.notFound) { _ = try await service.run(.bookmark(post: post.id.rawValue), as: erin.id) }
        await expectError(.notFound) {
            _ = try await service.run(.reportPost(post: post.id.rawValue, reason: "x"), as: erin.id)
        }
        #expect(try await service.run(.unlike(post: post.id.rawValue), as: carol.id) == .changed(true))
        #expect(try service.post(post.id, viewer: alice.id).post.id == post.id)
        #expect(try service.timeline(of: alice.id).items.map(\.id) == [newer.id, post.id, older.id])
        _ = try await service.addComment(by: alice.id, on: post.id, "it is fine")
        // Live: the report that hides it takes it out of a follower's stream, not the author's.
        #expect(try service.liveUpdates(for: hiding, viewer: bob.id) == [.removed(post.id)])
        #expect(try service.liveUpdates(for: hiding, viewer: alice.id).isEmpty)
        // The queue says it is hidden.
        var queue = try service.reportQueue()
        #expect(queue.map(\.post) == [post.id] && queue[0].hidden && queue[0].count == 2)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)

        // Dismissed: shown again, out of the queue; those reporters cannot report it again.
        #expect(try await service.execute(.dismissReports(post: post.id.rawValue), as: .operator) == .changed(true))
        let dismissal = try #require(try service.events(from: try service.lastSequence()).first)
        #expect(
            dismissal.type == .reportsDismissed && dismissal.actor == "system" && dismissal.stream == "post-\(post.id)")
        #expect(
            try service.liveUpdates(for: dismissal, viewer: bob.id) == [
                .post(try service.post(post.id, viewer: bob.id).post)
            ])
        #expect(try service.timeline(of: bob.id).items.map(\.id) == [newer.id, post.id, older.id])
        #expect(try service.post(post.id, viewer: bob.id).post.id == post.id)
        #expect(try service.reportQueue().isEmpty)
        #expect(
            try await service.run(.reportPost(post: post.id.rawValue, reason: "again"), as: dave.id) == .changed(false))
        #expect(try service.reportQueue().isEmpty)
        // A new reporter starts a new count: one is not enough, two hide it again.
        #expect(
            try await service.run(.reportPost(post: post.id.rawValue, reason: "meh"), as: erin.id) == .changed(true))
        queue = try service.reportQueue()
        #expect(queue.map(\.reporters) == [[erin.id]] && !queue[0].hidden)
        #expect(try service.timeline(of: bob.id).items.count == 3)
        try await service.run(.reportPost(post: post.id.rawValue, reason: "bad"), as: bob.id)
        #expect(try service.timeline(of: bob.id).items.map(\.id) == [newer.id, older.id])
        #expect(try service.reportQueue().first?.hidden == true)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func theThresholdIsASettingNotPartOfTheReadModels() async throws {
        let path = temporaryPath()
        var service = try openService(path: path) { $0.hideAfterReports = 1 }
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let post = try await service.addPost(by: alice.id, image: 1)
        try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: bob.id)
        #expect(try service.posts(by: alice.id, viewer: bob.id).items.isEmpty)
        service.close()
        service = try openService(path: path)  // the default, 5
        #expect(try service.posts(by: alice.id, viewer: bob.id).items.map(\.id) == [post.id])
        #expect(try service.reportQueue().first?.hidden == false)
        service.close()
        #expect(throws: TimelineError.self) { try openService(path: path) { $0.hideAfterReports = 0 } }
    }

    @Test func erasingTheAuthorLeavesNothingOfTheRemoval() async throws {
        let service = try openService()
        let (alice, _, _, post) = try await network(service)
        _ = try await service.execute(
            .removePost(post: post.id.rawValue, reason: "about @alice's caption"), as: .operator)
        _ = try await service.execute(.eraseUser(user: alice.id.rawValue), as: .operator)
        let removal = try #require(try service.events(from: 1, limit: 10_000).first { $0.type == .postRemoved })
        #expect(
            removal.erased
                && removal.event == .postRemoved(PostRemoved(postId: post.id, authorId: alice.id, reason: "")))
        #expect(removal.jsonObject().erased == true && removal.jsonObject().payload["reason"] == nil)
        #expect(throws: TimelineError.self) { try service.activity(of: alice.id) }
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func theOperatorRemovesAndDismissesThroughTheTool() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let first = try await service.addPost(by: alice.id, image: 1),
            second = try await service.addPost(by: alice.id, image: 2)
        for post in [first, second] {
            try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: bob.id)
        }
        service.close()
        func tool(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let child = try ToolProcess(arguments)
            try child.input.fileHandleForWriting.close()
            let output = String(decoding: child.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.process.waitUntilExit()
            return (child.process.terminationStatus, output)
        }
        let listed = try tool([
            "moderation", "list", "--db", path, "--hide-after-reports", "1", "--report-min-account-age", "0",
            "--report-min-activity", "0", "--json"
        ])
        let items = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(listed.status == 0 && items.map { $0["hidden"] as? Bool } == [true, true])
        #expect(
            try tool([
                "moderation", "list", "--db", path, "--hide-after-reports", "1", "--report-min-account-age", "0",
                "--report-min-activity", "0"
            ]).output.contains("(hidden)"))
        #expect(
            try tool(["moderation", "remove", first.id.rawValue, "--reason", "spam ring", "--db", path]).status == 0)
        #expect(try tool(["moderation", "dismiss", second.id.rawValue, "--db", path]).status == 0)
        #expect(try tool(["moderation", "dismiss", "nosuchpost", "--db", path]).status != 0)
        #expect(try tool(["moderation", "remove", first.id.rawValue, "--db", path]).status == 2)  // no --reason
        let reopened = try openService(path: path)
        defer { reopened.close() }
        #expect(try reopened.reportQueue().isEmpty)
        #expect(try reopened.posts(by: alice.id).items.map(\.id) == [second.id])
        #expect(try reopened.activity(of: alice.id).items.first?.reason == "spam ring")
        let actors = try reopened.events(from: 1, limit: 1_000).filter {
            [.postRemoved, .reportsDismissed].contains($0.type)
        }.map(\.actor)
        #expect(actors == ["system", "system"])
    }
}

/// Moderation over HTTP: what reports hide answers 404 to everyone but the author.
@Suite struct ModerationHTTPTests {
    @Test func aHiddenPostIsNotFoundToOthersOverHTTP() async throws {
        try await withServer(arguments: [
            "--hide-after-reports", "1", "--report-min-account-age", "0", "--report-min-activity", "0"
        ]) { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            #expect(try await api.send("PUT", "/v1/me/following/@alice", bearer: bob.token).status == 200)
            let post = try await api.addPost(alice.token, caption: "#sea")
            #expect(try await api.get("/v1/posts/\(post)").status == 200)
            let report = try await api.send(
                "POST", "/v1/posts/\(post)/reports", json: ["reason": "spam"], bearer: bob.token)
            #expect(report.status == 204, "\(report)")
            for bearer in [bob.token, nil] {
                let answer = try await api.get("/v1/posts/\(post)", bearer: bearer)
                #expect(answer.status == 404 && answer.errorCode == "not_found", "\(answer)")
                #expect(try await api.get("/v1/posts/\(post)/comments", bearer: bearer).status == 404)
            }
            #expect(try await api.get("/v1/timeline", bearer: bob.token).ids.isEmpty)
            #expect(try await api.get("/v1/users/@alice/posts", bearer: bob.token).ids.isEmpty)
            #expect(try await api.get("/v1/hashtags/sea/posts").ids.isEmpty)
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: bob.token).status == 404)
            #expect(try await api.get("/v1/posts/\(post)", bearer: alice.token).status == 200)
            #expect(try await api.get("/v1/timeline", bearer: alice.token).ids == [post])
        }
    }
}
