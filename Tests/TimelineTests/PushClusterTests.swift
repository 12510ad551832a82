import Foundation
import OpenSSL
import Synchronization
import Testing
import TimelineBench
import TimelineCluster
import TimelinePush
import WebPush
@testable import Timeline

/// On a cluster every node plans the same deliveries; JetStream claims make each one sent by
/// one node only (Tests/push/test_push.py's sink counts them). No test waits a fixed time for a
/// copy that must not come: each waits until every node has settled its deliveries with the
/// claims (`RecordedClaims`), then for a later push, the sentinel, on the sink's one output.
@Suite(.serialized) struct PushClusterTests {
    @Test(.timeLimit(.minutes(3))) func twoNodesPushEachNotificationOnce() async throws {
        let ca = try await makePushCA()
        let (sink, port) = try await startPushSink(ca: ca)
        defer { sink.signal(SIGKILL) }

        let cluster = try LocalNATSCluster(directory: temporaryPath("nats"))
        try cluster.waitUntilReady()
        let nodes = try [1, 2].map { seed in
            try openService(path: temporaryPath(), seed: UInt64(seed)) {
                $0.cluster = ClusterOptions(urls: cluster.urls)
                $0.privatePushEndpoints = true  // the sink listens on 127.0.0.1
            }
        }
        let vapid = VAPID(keys: try P256KeyPair.generate(), contact: "mailto:ops@example.com")
        var options = PushWorker.Options()
        options.caFile = ca + "/ca.pem"
        options.allowPrivate = true
        // Each node its own claims, recorded; a delivery another node holds is asked about again
        // once the lease lapses (5 s, not the minute of `timeline serve`, so that it settles soon).
        let claims = try nodes.map { _ in
            RecordedClaims(
                try JetStreamDeliveryClaims(
                    options: ClusterOptions(urls: cluster.urls),
                    leaseTime: .seconds(5)))
        }
        let workers = try nodes.indices.map { index in
            var options = options
            options.claims = claims[index]
            return try PushWorker(
                service: nodes[index], directory: temporaryPath("push"), vapid: vapid,
                options: options)
        }
        for worker in workers { worker.start() }
        defer { for worker in workers { worker.stop() } }

        let alice = try await nodes[0].createUser("alice"), bob = try await nodes[0].createUser("bob")
        guard
            case .session(let token, _) = try await nodes[0].execute(
                .signIn(email: "alice@example.com", password: "password-123"))
        else { throw TimelineError(.internal, "no session") }
        let receiver = try P256KeyPair.generate()
        _ = try await nodes[0].execute(
            .subscribePush(
                endpoint: "https://127.0.0.1:\(port)/push/alice", p256dh: Base64URL.encode(receiver.publicKey),
                auth: Base64URL.encode(try SecureRandom.bytes(16))), as: .session(token))
        let post = try await nodes[0].addPost(by: alice.id, caption: "harbour")
        for n in 0..<5 {
            try await nodes[1].run(.addComment(post: post.id.rawValue, text: "comment \(n)", replyTo: nil), as: bob.id)
        }
        let five = await sink.waitForOutput(within: .seconds(30)) {
            $0.components(separatedBy: "delivery ").count - 1 >= 5
        }
        #expect(five != nil, "\(sink.standardOutput)")
        // Instead of a wait for a second node's copy: both nodes settle all five (a node sends
        // only after its claim answered `mine`), then a sixth comment, pushed after any copy, is
        // the sentinel; what the sink printed before it is each of the five, once.
        try await RecordedClaims.waitUntilSettled(claims, count: 5)
        #expect(claims.map(\.sent).reduce(0, +) == 5, "\(claims.map(\.answers))")
        let known = claims[0].topics
        try await nodes[1].run(.addComment(post: post.id.rawValue, text: "the sentinel", replyTo: nil), as: bob.id)
        let sentinel = await sink.waitForOutput(within: .seconds(30)) { output in
            pushTopics(output).contains { !known.contains($0) }
        }
        #expect(sentinel != nil, "\(sink.standardOutput)")
        let topics = Array(pushTopics(sink.standardOutput).prefix { known.contains($0) })
        #expect(topics.count == 5 && Set(topics).count == 5, "\(topics)")
        // The nodes sign with one VAPID key pair, the cluster's: the first made is everyone's.
        let a = try P256KeyPair.generate(), b = try P256KeyPair.generate()
        let first = try JetStreamPushKeys.vapid(options: ClusterOptions(urls: cluster.urls)) {
            (a.privateKey, a.publicKey)
        }
        let second = try JetStreamPushKeys.vapid(options: ClusterOptions(urls: cluster.urls)) {
            (b.privateKey, b.publicKey)
        }
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
        guard
            case .session(let token, _) = try await node.execute(
                .signIn(email: "alice@example.com", password: "password-123"))
        else { throw TimelineError(.internal, "no session") }
        let receiver = try P256KeyPair.generate()
        _ = try await node.execute(
            .subscribePush(
                endpoint: "https://127.0.0.1:\(port)/push/alice", p256dh: Base64URL.encode(receiver.publicKey),
                auth: Base64URL.encode(try SecureRandom.bytes(16))), as: .session(token))
        let post = try await node.addPost(by: alice.id, caption: "harbour")
        // The surviving node's worker, made now (its outbox starts here) and started below.
        let lifetime = Duration.seconds(3)
        var options = PushWorker.Options()
        options.caFile = ca + "/ca.pem"
        options.allowPrivate = true
        let recorded = RecordedClaims(try JetStreamDeliveryClaims(options: clusterOptions, leaseTime: lifetime))
        options.claims = recorded
        let survivor = try PushWorker(
            service: node, directory: temporaryPath("push"),
            vapid: VAPID(keys: try P256KeyPair.generate(), contact: "mailto:ops@example.com"),
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
        // Instead of a wait for a second copy: the survivor settles the delivery, then a second
        // comment, pushed after it, is the sentinel; before it the sink printed the first once.
        try await RecordedClaims.waitUntilSettled([recorded], count: 1)
        #expect(recorded.sent == 1, "\(recorded.answers)")
        let known = recorded.topics
        _ = try await node.addComment(by: bob.id, on: post.id, "the sentinel")
        let sentinel = await sink.waitForOutput(within: .seconds(30)) { output in
            pushTopics(output).contains { !known.contains($0) }
        }
        #expect(sentinel != nil, "\(sink.standardOutput)")
        #expect(pushTopics(sink.standardOutput).prefix { known.contains($0) }.count == 1, "\(sink.standardOutput)")
    }
}

/// The topics of the deliveries the sink printed ("delivery <Topic>" lines), in order.
func pushTopics(_ output: String) -> [String] {
    output.split(separator: "\n").filter { $0.hasPrefix("delivery ") }.map { String($0.dropFirst("delivery ".count)) }
}

/// A node's delivery claims, recording what they answered: a node sends a delivery only after
/// its claim answered `mine`, and calls `finished` once the push service accepted it. When every
/// delivery a node asked about is `done` (another node finished it) or finished by it, the node
/// holds no copy left to send — what the tests wait for instead of a fixed time.
final class RecordedClaims: DeliveryClaims {
    private let inner: any DeliveryClaims
    /// Each delivery's last answer (`mine`, `taken`, `done`) or call (`finished`, `released`),
    /// and how many this node finished.
    private let record = Mutex<(last: [String: String], sent: Int)>(([:], 0))

    /// Records the answers of `inner`.
    init(_ inner: any DeliveryClaims) { self.inner = inner }

    /// The wrapped claims' lifetime.
    var claimLifetime: TimeInterval { inner.claimLifetime }

    /// Claims `id`, recording the answer.
    func claim(_ id: String) throws -> DeliveryClaim {
        let answer = try inner.claim(id)
        record.withLock { $0.last[id] = "\(answer)" }
        return answer
    }

    /// Marks `id` finished, and counts it sent by this node.
    func finished(_ id: String) throws {
        try inner.finished(id)
        record.withLock {
            $0.last[id] = "finished"
            $0.sent += 1
        }
    }

    /// Gives up the claim on `id`.
    func release(_ id: String) throws {
        try inner.release(id)
        record.withLock { $0.last[id] = "released" }
    }

    /// Each delivery's last answer or call.
    var answers: [String: String] { record.withLock { $0.last } }
    /// How many deliveries this node finished (the push service accepted them: the sink answers 201).
    var sent: Int { record.withLock { $0.sent } }
    /// The `Topic` of each delivery asked about: its notification's id (a delivery id is
    /// `<item>.<subscription>`), at most 32 characters.
    var topics: Set<String> {
        Set(answers.keys.map { id in String(id[..<(id.lastIndex(of: ".") ?? id.endIndex)].prefix(32)) })
    }

    /// Whether this node asked about `count` deliveries and settled each: `done`, or finished.
    func settled(count: Int) -> Bool {
        record.withLock { $0.last.count == count && $0.last.values.allSatisfy { $0 == "done" || $0 == "finished" } }
    }

    /// Waits until every one of `claims` has settled `count` deliveries (polling; the bound is for
    /// a loaded machine, not a timing).
    static func waitUntilSettled(
        _ claims: [RecordedClaims], count: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(90)
        while !claims.allSatisfy({ $0.settled(count: count) }) {
            try #require(
                ContinuousClock.now < deadline, "not settled: \(claims.map(\.answers))",
                sourceLocation: sourceLocation)
            try await Task.sleep(for: .milliseconds(20))  // a polling interval
        }
    }
}
