import Foundation
import NATS
import TimelineCluster
import TimelineBench
import Testing
@testable import Timeline

/// Timeline nodes on a replicated log: convergence, uniqueness across nodes, surviving the
/// loss of a NATS server, and a node catching up after a restart.
@Suite(.serialized) struct ClusterTests {
    func node(_ cluster: LocalNATSCluster, path: String = temporaryPath(), seed: UInt64) throws -> TimelineService {
        try openService(path: path, seed: seed) { $0.cluster = ClusterOptions(urls: cluster.urls) }
    }

    /// Waits until every node has applied everything any of them has, then checks they hold
    /// the same log, chain and read models.
    func expectConverged(_ nodes: [TimelineService], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        // Until no node has a batch of the replicated log left to apply (a command that failed
        // may still have been published), with a bound.
        let deadline = ContinuousClock.now + .seconds(30)
        while try nodes.contains(where: { try $0.replication?.isBehind($0.environment) ?? false }) {
            try #require(
                ContinuousClock.now < deadline, "the nodes did not catch up with the replicated log",
                sourceLocation: sourceLocation)
            try await Task.sleep(for: .milliseconds(5))
        }
        let target = try nodes.map { try $0.replicationPosition() }.max() ?? 0
        for node in nodes { try await node.waitForReplication(to: target) }
        let logs = try nodes.map { try $0.events(from: 1, limit: 1_000_000) }
        for log in logs.dropFirst() {
            #expect(log.map(\.id) == logs[0].map(\.id), "nodes hold different events", sourceLocation: sourceLocation)
            #expect(
                log.map(\.hash) == logs[0].map(\.hash), "nodes hold different hash chains",
                sourceLocation: sourceLocation)
        }
        for node in nodes {
            #expect(try node.verifyLog().isValid, sourceLocation: sourceLocation)
            #expect(
                try node.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty, sourceLocation: sourceLocation)
        }
    }

    @Test func twoNodesWritingConcurrentlyConverge() async throws {
        let cluster = try LocalNATSCluster(directory: temporaryPath("nats"))
        try cluster.waitUntilReady()
        let a = try node(cluster, seed: 1), b = try node(cluster, seed: 2)
        // Both try to take the same username at once: exactly one wins, across nodes.
        async let first = try? a.execute(
            .createUser(username: "contested", email: "c1@example.com", password: "password-1", bio: nil, url: nil))
        async let second = try? b.execute(
            .createUser(username: "contested", email: "c2@example.com", password: "password-1", bio: nil, url: nil))
        let winners = [await first, await second].compactMap { $0 }
        #expect(winners.count == 1)
        // Concurrent writers on both nodes.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, node) in [a, b].enumerated() {
                group.addTask {
                    let me = try await node.createUser("writer\(index)").id
                    for step in 0..<15 {
                        let post = try await node.addPost(
                            by: me, caption: "n\(index) s\(step) #cluster", image: index * 100 + step)
                        try await node.run(.like(post: post.id.rawValue), as: me)
                    }
                }
            }
            try await group.waitForAll()
        }
        try await expectConverged([a, b])
        // Reads on one node see writes made through the other (read-your-writes by position).
        let writer0 = try a.user(named: "writer0").id
        try await b.waitForReplication(to: try a.replicationPosition())
        #expect(try b.posts(by: writer0, PageRequest(limit: 100)).items.count == 15)
        #expect(try a.timeline(of: writer0) == (try b.timeline(of: writer0)))
        // Mastodon's ids are numbers of the log: the second node gives every object the same one.
        let numbered: [NumberedObject] =
            try a.posts(by: writer0, PageRequest(limit: 100)).items.map { .post($0.id) } + [.account(writer0)]
        let ids = try a.numericIDs(of: numbered)
        let onB = try b.numericIDs(of: numbered)
        #expect(ids.count == 16 && ids == onB)
        // An image written through one node is readable on the other.
        let post = try #require(try b.posts(by: writer0).items.first)
        #expect(try b.image(post.image).mediaType == .jpeg)  // an opaque GIF, re-encoded
        // Every variant of it too (not only the full image), and the variant query answers alike
        // on both nodes (these tiny GIFs can share a full image across posts: not `variants.thumb`).
        let variants = try #require(post.variants)
        for id in variants.all { #expect(try b.image(id).mediaType == .jpeg) }
        #expect(try b.image(post.image, variant: .thumb) == (try a.image(post.image, variant: .thumb)))
        a.close()
        b.close()
        withExtendedLifetime(cluster) {}  // the servers live until here
    }

    @Test func losingOneServerLosesNoAcknowledgedCommand() async throws {
        let cluster = try LocalNATSCluster(directory: temporaryPath("nats"))
        try cluster.waitUntilReady()
        let a = try node(cluster, seed: 3), b = try node(cluster, seed: 4)
        let me = try await a.createUser("survivor").id
        var acknowledged: [PostID] = []
        for step in 0..<40 {
            if step == 10 { cluster.kill(0) }
            let node = step % 2 == 0 ? a : b
            if let post = try? await node.addPost(by: me, caption: "p\(step)", image: step) {
                acknowledged.append(post.id)
            }
        }
        #expect(acknowledged.count >= 30, "writes go on with two of three servers")
        try await expectConverged([a, b])
        for node in [a, b] {
            let posts = Set(try node.all(limit: 100) { try node.posts(by: me, $0) }.map(\.id))
            #expect(acknowledged.allSatisfy(posts.contains), "an acknowledged post is missing")
        }
        a.close()
        b.close()
        withExtendedLifetime(cluster) {}
    }

    /// Node B is the real `timeline exec --nats …`, killed with SIGKILL, then restarted.
    @Test func aKilledNodeRestartsAndCatchesUp() async throws {
        signal(SIGPIPE, SIG_IGN)
        let cluster = try LocalNATSCluster(directory: temporaryPath("nats"))
        try cluster.waitUntilReady()
        let a = try node(cluster, seed: 5)
        let me = try await a.createUser("steady").id
        _ = try await a.addPost(by: me, image: 1)
        let pathB = temporaryPath()
        let tool = try ToolProcess(["exec", "--db", pathB, "--nats", cluster.urls.joined(separator: ",")])
        let lines = (0..<5).map {
            #"{"command":"addPost","as":"\#(me)","image":"\#(gifBase64(200 + $0))","caption":"via b \#($0)"}"#
        }
        try tool.input.fileHandleForWriting.write(contentsOf: Data((lines.joined(separator: "\n") + "\n").utf8))
        var answered = 0
        var seen = Data()
        while answered < 5 {
            let chunk = tool.output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
            answered = String(decoding: seen, as: UTF8.self).split(separator: "\n").count
        }
        #expect(String(decoding: seen, as: UTF8.self).split(separator: "\n").allSatisfy { $0.contains(#""ok":true"#) })
        tool.kill()
        // Meanwhile the cluster moves on without B; an erasure happens too.
        for step in 0..<10 { _ = try await a.addPost(by: me, image: 10 + step) }
        let eve = try await a.createUser("eve").id
        _ = try await a.addPost(by: eve, caption: "private", image: 99)
        try await a.run(.eraseUser(user: eve.rawValue, password: "password-123"), as: eve)
        let restarted = try node(cluster, path: pathB, seed: 7)
        try await expectConverged([a, restarted])
        #expect(try restarted.posts(by: me, PageRequest(limit: 100)).items.count == 16)
        await expectError(.notFound) { _ = try restarted.user(eve) }
        #expect(
            try restarted.events(from: 1, limit: 10_000).contains { $0.erased },
            "the key is gone from the shared bucket")
        a.close()
        restarted.close()
        withExtendedLifetime(cluster) {}
    }
}
