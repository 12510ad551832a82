import Foundation
import NATS
import Testing
@testable import Timeline

/// A three-server NATS JetStream cluster on loopback, started and stopped by the tests.
final class NATSCluster: @unchecked Sendable {
    let clientPorts: [Int]
    private let clusterPorts: [Int]
    private let directory: String
    private var processes: [Process?]

    init(size: Int = 3) throws {
        let base = 21_000 + Int(getpid() % 400) * 20 + Int.random(in: 0..<10)
        clientPorts = (0..<size).map { base + $0 }
        clusterPorts = (0..<size).map { base + 10 + $0 }
        directory = temporaryPath("nats")
        processes = Array(repeating: nil, count: size)
        for index in 0..<size { try start(index) }
    }

    var urls: [String] { clientPorts.map { "nats://127.0.0.1:\($0)" } }

    func start(_ index: Int) throws {
        let routes = clusterPorts.enumerated().filter { $0.offset != index }.map { "\"nats-route://127.0.0.1:\($0.element)\"" }
        let config = """
        server_name: n\(index)
        listen: 127.0.0.1:\(clientPorts[index])
        jetstream { store_dir: "\(directory)/n\(index)", max_memory_store: 64MB, max_file_store: 1GB }
        cluster { name: timeline-test, listen: 127.0.0.1:\(clusterPorts[index]), routes: [\(routes.joined(separator: ", "))] }
        """
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = "\(directory)/n\(index).conf"
        try config.write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FileManager.default.fileExists(atPath: "/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : "/usr/bin/nats-server")
        process.arguments = ["-c", file]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes[index] = process
    }

    func kill(_ index: Int) {
        guard let process = processes[index] else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        processes[index] = nil
    }

    /// Waits until JetStream answers with a replicated stream (the meta leader is elected).
    func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                let js = try NATSConnection(urls: urls).jetStream(waitMilliseconds: 2_000)
                try js.ensureStream(name: "READY", subject: "ready.check", replicas: 3)
                return
            } catch {
                guard Date() < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
    }

    deinit { for index in processes.indices { kill(index) } }
}

/// Timeline nodes on a replicated log: convergence, uniqueness across nodes, surviving the
/// loss of a NATS server, and a node catching up after a restart.
@Suite(.serialized) struct ClusterTests {
    func node(_ cluster: NATSCluster, path: String = temporaryPath(), seed: UInt64) throws -> TimelineService {
        try openService(path: path, seed: seed) { $0.cluster = ClusterOptions(urls: cluster.urls) }
    }

    /// Waits until every node has applied everything any of them has, then checks they hold
    /// the same log, chain and read models.
    func expectConverged(_ nodes: [TimelineService], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await Task.sleep(for: .milliseconds(100))
        let target = try nodes.map { try $0.replicationPosition() }.max() ?? 0
        for node in nodes { try await node.waitForReplication(to: target) }
        let logs = try nodes.map { try $0.events(from: 1, limit: 1_000_000) }
        for log in logs.dropFirst() {
            #expect(log.map(\.id) == logs[0].map(\.id), "nodes hold different events", sourceLocation: sourceLocation)
            #expect(log.map(\.hash) == logs[0].map(\.hash), "nodes hold different hash chains", sourceLocation: sourceLocation)
        }
        for node in nodes {
            #expect(try node.verifyLog().isValid, sourceLocation: sourceLocation)
            #expect(try node.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty, sourceLocation: sourceLocation)
        }
    }

    @Test func twoNodesWritingConcurrentlyConverge() async throws {
        let cluster = try NATSCluster()
        try cluster.waitUntilReady()
        let a = try node(cluster, seed: 1), b = try node(cluster, seed: 2)
        // Both try to take the same username at once: exactly one wins, across nodes.
        async let first = try? a.execute(.createUser(username: "contested", email: "c1@example.com", password: "password-1", bio: nil, url: nil))
        async let second = try? b.execute(.createUser(username: "contested", email: "c2@example.com", password: "password-1", bio: nil, url: nil))
        let winners = [await first, await second].compactMap { $0 }
        #expect(winners.count == 1)
        // Concurrent writers on both nodes.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, node) in [a, b].enumerated() {
                group.addTask {
                    let me = try await node.createUser("writer\(index)").id
                    for step in 0..<15 {
                        let post = try await node.addPost(by: me, caption: "n\(index) s\(step) #cluster", image: index * 100 + step)
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
        // An image written through one node is readable on the other.
        let post = try #require(try b.posts(by: writer0).items.first)
        #expect(try b.image(post.image).mediaType == .gif)
        a.close(); b.close()
    }

    @Test func losingOneServerLosesNoAcknowledgedCommand() async throws {
        let cluster = try NATSCluster()
        try cluster.waitUntilReady()
        let a = try node(cluster, seed: 3), b = try node(cluster, seed: 4)
        let me = try await a.createUser("survivor").id
        var acknowledged: [PostID] = []
        for step in 0..<40 {
            if step == 10 { cluster.kill(0) }
            let node = step % 2 == 0 ? a : b
            if let post = try? await node.addPost(by: me, caption: "p\(step)", image: step) { acknowledged.append(post.id) }
        }
        #expect(acknowledged.count >= 30, "writes go on with two of three servers")
        try await expectConverged([a, b])
        for node in [a, b] {
            let posts = Set(try node.all(limit: 100) { try node.posts(by: me, $0) }.map(\.id))
            #expect(acknowledged.allSatisfy(posts.contains), "an acknowledged post is missing")
        }
        a.close(); b.close()
    }

    @Test func aRestartedNodeCatchesUp() async throws {
        let cluster = try NATSCluster()
        try cluster.waitUntilReady()
        let a = try node(cluster, seed: 5)
        let pathB = temporaryPath()
        var b: TimelineService? = try node(cluster, path: pathB, seed: 6)
        let me = try await a.createUser("steady").id
        _ = try await a.addPost(by: me, image: 1)
        try await expectConverged([a, b!])
        b!.close()
        b = nil
        for step in 0..<10 { _ = try await a.addPost(by: me, image: 10 + step) }
        // Erasure reaches the other node too: the key is gone from the shared bucket.
        let eve = try await a.createUser("eve").id
        _ = try await a.addPost(by: eve, caption: "private", image: 99)
        try await a.run(.eraseUser(user: eve.rawValue), as: eve)
        let restarted = try node(cluster, path: pathB, seed: 7)
        try await expectConverged([a, restarted])
        #expect(try restarted.posts(by: me, PageRequest(limit: 100)).items.count == 11)
        await expectError(.notFound) { _ = try restarted.user(eve) }
        #expect(try restarted.events(from: 1, limit: 10_000).contains { $0.erased })
        a.close(); restarted.close()
    }
}
