import Foundation
import OpenSSL
import Testing
import TimelineBench
import TimelineCluster
import TimelinePush
import WebPush
@testable import Timeline

/// On a cluster every node plans the same deliveries; JetStream claims make each one sent by
/// one node only (Tests/push/test_push.py's sink counts them).
@Suite(.serialized) struct PushClusterTests {
    @Test(.timeLimit(.minutes(3))) func twoNodesPushEachNotificationOnce() async throws {
        let ca = try await makePushCA()
        let (sink, port) = try await startPushSink(ca: ca)
        defer { sink.signal(SIGKILL) }

        let cluster = try LocalNATSCluster(directory: temporaryPath("nats"))
        try cluster.waitUntilReady()
        let nodes = try [1, 2].map { seed in try openService(path: temporaryPath(), seed: UInt64(seed)) {
            $0.cluster = ClusterOptions(urls: cluster.urls)
            $0.privatePushEndpoints = true  // the sink listens on 127.0.0.1
        } }
        let vapid = VAPID(keys: try P256KeyPair.generate(), contact: "mailto:ops@example.com")
        var options = PushWorker.Options()
        options.caFile = ca + "/ca.pem"
        options.allowPrivate = true
        options.claims = try JetStreamDeliveryClaims(options: ClusterOptions(urls: cluster.urls))
        let workers = try nodes.map { try PushWorker(service: $0, directory: temporaryPath("push"), vapid: vapid, options: options) }
        for worker in workers { worker.start() }
        defer { for worker in workers { worker.stop() } }

        let alice = try await nodes[0].createUser("alice"), bob = try await nodes[0].createUser("bob")
        guard case .session(let token, _) = try await nodes[0].execute(.signIn(email: "alice@example.com", password: "password-123"))
        else { throw TimelineError(.internal, "no session") }
        let receiver = try P256KeyPair.generate()
        _ = try await nodes[0].execute(.subscribePush(endpoint: "https://127.0.0.1:\(port)/push/alice", p256dh: Base64URL.encode(receiver.publicKey),
                                                      auth: Base64URL.encode(try SecureRandom.bytes(16))), as: .session(token))
        let post = try await nodes[0].addPost(by: alice.id, caption: "harbour")
        for n in 0..<5 {
            try await nodes[1].run(.addComment(post: post.id.rawValue, text: "comment \(n)", replyTo: nil), as: bob.id)
        }
        let five = await sink.waitForOutput(within: .seconds(30)) { $0.components(separatedBy: "delivery ").count - 1 >= 5 }
        #expect(five != nil, "\(sink.standardOutput)")
        try await Task.sleep(for: .seconds(2))  // time for a second node's copy to arrive, if it were sent
        let topics = sink.standardOutput.split(separator: "\n").filter { $0.hasPrefix("delivery ") }
        #expect(topics.count == 5 && Set(topics).count == 5, "\(topics)")
        #expect(workers.map(\.counts.sent).reduce(0, +) == 5)
        // The nodes sign with one VAPID key pair, the cluster's: the first made is everyone's.
        let a = try P256KeyPair.generate(), b = try P256KeyPair.generate()
        let first = try JetStreamPushKeys.vapid(options: ClusterOptions(urls: cluster.urls)) { (a.privateKey, a.publicKey) }
        let second = try JetStreamPushKeys.vapid(options: ClusterOptions(urls: cluster.urls)) { (b.privateKey, b.publicKey) }
        #expect(first.publicKey == a.publicKey && second.publicKey == a.publicKey && second.privateKey == a.privateKey)
    }

    /// A node that claimed a delivery and died (its claim made, nothing sent, nothing finished)
    /// leaves it to the others: once the claim lapses another node sends it, once.
    @Test(.timeLimit(.minutes(3))) func aNodeThatDiesMidDeliveryLeavesItToTheOthers() async throws {
        let ca = try await makePushCA()
        let (sink, port) = try await startPushSink(ca: ca)
        defer { sink.signal(SIGKILL) }

        let cluster = try LocalNATSCluster(directory: temporaryPath("nats"))
        try cluster.waitUntilReady()
        let clusterOptions = ClusterOptions(urls: cluster.urls)
        let node = try openService(path: temporaryPath(), seed: 1) {
            $0.cluster = clusterOptions
            $0.privatePushEndpoints = true  // the sink listens on 127.0.0.1
        }
        let alice = try await node.createUser("alice"), bob = try await node.createUser("bob")
        guard case .session(let token, _) = try await node.execute(.signIn(email: "alice@example.com", password: "password-123"))
        else { throw TimelineError(.internal, "no session") }
        let receiver = try P256KeyPair.generate()
        _ = try await node.execute(.subscribePush(endpoint: "https://127.0.0.1:\(port)/push/alice", p256dh: Base64URL.encode(receiver.publicKey),
                                                  auth: Base64URL.encode(try SecureRandom.bytes(16))), as: .session(token))
        let post = try await node.addPost(by: alice.id, caption: "harbour")
        // The surviving node's worker, made now (its outbox starts here) and started below.
        let lifetime = Duration.seconds(3)
        var options = PushWorker.Options()
        options.caFile = ca + "/ca.pem"
        options.allowPrivate = true
        options.claims = try JetStreamDeliveryClaims(options: clusterOptions, leaseTime: lifetime)
        let survivor = try PushWorker(service: node, directory: temporaryPath("push"), vapid: VAPID(keys: try P256KeyPair.generate(), contact: "mailto:ops@example.com"),
                                      options: options)
        let comment = try await node.addComment(by: bob.id, on: post.id, "lovely")

        // The node that died: it claimed the comment's delivery, then nothing.
        let subscription = try #require(try node.pushSubscriptions(of: alice.id).first)
        let dead = try JetStreamDeliveryClaims(options: clusterOptions, leaseTime: lifetime)
        #expect(try dead.claim("\(comment.id.rawValue).\(subscription.sessionHash.prefix(16))") == .mine)
        let claimed = Date()

        survivor.start()
        defer { survivor.stop() }
        let arrived = await sink.waitForOutput(within: .seconds(60)) { $0.contains("delivery ") }
        let waited = Date().timeIntervalSince(claimed)
        #expect(arrived != nil, "\(sink.standardOutput)")
        #expect(waited >= 2.5, "sent after \(waited) s, before the dead node's claim lapsed")
        try await Task.sleep(for: .seconds(2))
        #expect(sink.standardOutput.components(separatedBy: "delivery ").count - 1 == 1, "\(sink.standardOutput)")
        #expect(survivor.counts.sent == 1)
    }
}
