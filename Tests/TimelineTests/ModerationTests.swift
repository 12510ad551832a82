import Foundation
import Testing
@testable import Timeline

/// Moderation (issue 17): one report per reporter and post, and the operator's report queue.
@Suite struct ModerationTests {
    @Test func oneReportPerReporterAndPost() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let post = try await service.addPost(by: alice.id, image: 1)
        #expect(try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: bob.id) == .changed(true))
        let before = try service.lastSequence()
        #expect(try await service.run(.reportPost(post: post.id.rawValue, reason: "still spam"), as: bob.id) == .changed(false))
        #expect(try service.lastSequence() == before)
        #expect(try service.reportQueue() == [ReportedPost(post: post.id, reporters: [bob.id], reasons: ["spam"], newestAt: try #require(service.events(from: before).first).timestamp)])
        // Exec answers {changed}.
        let answer = try await service.execute(.reportPost(post: post.id.rawValue, reason: "again"), as: .user(bob.id.rawValue))
        #expect(answer == .changed(false))
    }

    @Test func theQueueIsNewestFirstAndForgetsDeletedPostsAndErasedReporters() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"), carol = try await service.createUser("carol")
        let first = try await service.addPost(by: alice.id, image: 1), second = try await service.addPost(by: alice.id, image: 2)
        let gone = try await service.addPost(by: alice.id, image: 3)
        try await service.run(.reportPost(post: first.id.rawValue, reason: "spam"), as: bob.id)
        try await service.run(.reportPost(post: second.id.rawValue, reason: "rude"), as: bob.id)
        try await service.run(.reportPost(post: gone.id.rawValue, reason: "x"), as: bob.id)
        try await service.run(.reportPost(post: first.id.rawValue, reason: "nudity"), as: carol.id)
        try await service.run(.deletePost(post: gone.id.rawValue), as: alice.id)
        var queue = try service.reportQueue()
        #expect(queue.map(\.post) == [first.id, second.id])
        #expect(queue[0].reporters == [carol.id, bob.id] && queue[0].reasons == ["nudity", "spam"] && queue[0].count == 2)
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
        #expect(items.count == 1 && items.first?["post"] as? String == post.id.rawValue && items.first?["count"] as? Int == 1)
        let reports = try #require(items.first?["reports"] as? [[String: String]])
        #expect(reports == [["reporter": bob.id.rawValue, "reason": "spam"]])
        let text = try ToolProcess(["moderation", "list", "--db", path])
        try text.input.fileHandleForWriting.close()
        let output = String(decoding: text.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        text.process.waitUntilExit()
        #expect(output.contains(post.id.rawValue) && output.contains("spam"))
    }
}
