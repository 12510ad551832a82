import Foundation
import Testing
import TimelineCluster
import TimelineFederation
import TimelineHTTP
@testable import Timeline
@testable import TimelineBench

/// On a cluster every node plans the same ActivityPub deliveries from the same log; JetStream
/// claims (`JetStreamDeliveryClaims`, outbox `FEDERATION`) make each one sent by one node only.
/// An HTTPS sink on loopback stands for the remote follower's server and counts what it is sent.
/// No fixed wait for a copy that must not come: the test waits until both nodes have settled
/// every delivery with the claims (`RecordedClaims`), after which no node holds one to send.
@Suite(.serialized) struct FederationClusterTests {
    @Test(.timeLimit(.minutes(3))) func twoNodesDeliverEachActivityOnce() async throws {
        let directory = temporaryPath("sink")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let sink = try LoopbackSink(
            directory: directory, name: "sink", subject: "remote.example", subjectAltName: "DNS:remote.example",
            status: 202)
        defer { sink.stop() }
        let cluster = try LocalNATSCluster(directory: temporaryPath("nats"))
        try cluster.waitUntilReady()
        let nodes = try [1, 2].map { seed in
            try openService(path: temporaryPath(), seed: UInt64(seed)) {
                $0.cluster = ClusterOptions(urls: cluster.urls)
            }
        }
        // Alice, followed by an account of remote.example (whose inbox is the sink).
        let alice = try await nodes[0].createUser("alice")
        guard
            case .user(let remote) = try await nodes[0].execute(
                .recordRemoteAccount(
                    actor: "https://remote.example/users/bob", username: "bob",
                    inbox: "https://remote.example/users/bob/inbox", sharedInbox: "https://remote.example/inbox",
                    keyId: "https://remote.example/users/bob#main-key",
                    publicKey: "-----BEGIN PUBLIC KEY-----\nunused\n-----END PUBLIC KEY-----\n", locked: false),
                as: .operator)
        else { throw TimelineError(.internal, "no remote account") }
        try await nodes[0].run(.follow(user: alice.id.rawValue), as: remote.id)
        // Both nodes start from the same place in the log (the follow's Accept is history).
        let head = try nodes[0].appliedSequence()
        let deadline = ContinuousClock.now + .seconds(60)
        while try nodes[1].appliedSequence() < head {
            try #require(ContinuousClock.now < deadline, "the second node did not catch up")
            try await Task.sleep(for: .milliseconds(20))  // a polling interval
        }
        var clientOptions = FederationClient.Options()
        (clientOptions.caFile, clientOptions.allowPrivate) = (sink.certificate, true)
        clientOptions.connectTo = ["::127.0.0.1:\(sink.port)"]
        let claims = try nodes.map { _ in
            // A claim another node holds is asked about again after 5 s (a minute in `timeline serve`).
            RecordedClaims(
                try JetStreamDeliveryClaims(
                    options: ClusterOptions(urls: cluster.urls), outbox: "FEDERATION", leaseTime: .seconds(5)))
        }
        let apis = nodes.map { TimelineAPI(service: $0) }
        defer { for api in apis { api.stop() } }
        let workers = try nodes.indices.map { index in
            var options = DeliveryWorker.Options()
            options.claims = claims[index]
            return try DeliveryWorker(
                api: apis[index], client: FederationClient(options: clientOptions),
                directory: temporaryPath("outbox"), origin: "https://one.example", options: options)
        }
        for worker in workers { worker.start() }

        // Five posts, on either node: each Create goes to the remote server once.
        for n in 0..<5 { _ = try await nodes[n % 2].addPost(by: alice.id, caption: "harbour \(n)", image: n) }
        try await RecordedClaims.waitUntilSettled(claims, count: 5)
        for worker in workers { await worker.stop() }
        #expect(claims.map(\.sent).reduce(0, +) == 5, "\(claims.map(\.answers))")
        #expect(sink.counts.count == 5, "the sink was sent \(sink.counts.count)")
        #expect(
            claims.flatMap { $0.answers.keys }.allSatisfy { $0.hasSuffix("/create/https://remote.example/inbox") },
            "\(claims.map(\.answers))")
        for node in nodes { node.close() }
    }
}
