import Foundation
import NATS
import TimelineCluster
import Timeline

/// `timeline bench --cluster`: durable commands through two nodes of a three-server JetStream
/// cluster (started on loopback unless `urls` are given), beside raw R3 publishes with
/// `ExpectLastSeq`.
public struct ClusterBenchmark {
    /// Where the nodes' databases (and a local cluster's servers) go.
    public var directory: String
    /// The cluster's servers (`nil`: start a local three-server cluster).
    public var urls: [String]?
    /// Commands each client sends.
    public var commandsPerClient = 200
    /// Told each step as it starts.
    public var progress: (String) -> Void

    /// A cluster benchmark in `directory`, against `urls` or a local cluster.
    public init(directory: String, urls: [String]?, progress: @escaping (String) -> Void) {
        self.directory = directory
        self.urls = urls
        self.progress = progress
    }

    /// Runs it and returns its figures.
    public func run() async throws -> [Figure] {
        var local: LocalNATSCluster?
        if urls == nil {
            progress("starting a 3-server NATS cluster on loopback")
            local = try LocalNATSCluster(directory: directory + "/nats")
            try local!.waitUntilReady()
        }
        let urls = self.urls ?? local!.urls
        defer { withExtendedLifetime(local) {} }  // the local servers live until the end
        var options = TimelineService.Options()
        options.passwordCost = .minimum
        options.passwordQueueLimit = 1 << 20  // the bench's many concurrent clients wait for the password threads, never refused
        options.cluster = ClusterOptions(urls: urls)
        let nodes = try (0..<2).map { try TimelineService(path: directory + "/node\($0)", options: options) }
        progress("creating users and posts")
        var users: [String] = []
        for index in 0..<32 {
            guard
                case .user(let user) = try await nodes[index % 2].execute(
                    .createUser(
                        username: "bench\(index)\(Int.random(in: 0..<1_000_000))",
                        email: "b\(index)-\(UUID().uuidString.prefix(8))@bench.example",
                        password: "bench-password", bio: nil, url: nil))
            else { continue }
            users.append(user.id.rawValue)
        }
        let image = NetworkBuilder.gif(1).base64EncodedString()
        guard
            case .post(let post) = try await nodes[0].execute(
                .addPost(image: image, caption: "bench"), as: .user(users[0]))
        else { return [] }
        for node in nodes { try await node.waitForReplication(to: try nodes[0].replicationPosition()) }

        progress("16 clients over 2 nodes")
        let perClient = commandsPerClient
        let clients = users, postID = post.id.rawValue
        let start = now()
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for client in 0..<16 {
                group.addTask {
                    var samples: [Double] = []
                    let node = nodes[client % 2], user = clients[client % clients.count]
                    for index in 0..<perClient {
                        let begin = now()
                        _ = try await node.execute(
                            .addComment(post: postID, text: "c\(client)-\(index)"), as: .user(user))
                        samples.append(now() - begin)
                    }
                    return samples
                }
            }
            var all: [Double] = []
            for try await part in group { all += part }
            return all
        }
        let seconds = now() - start
        var samples = Samples()
        for value in latencies { samples.add(value) }
        for node in nodes { node.close() }

        progress("raw R3 publishes with ExpectLastSeq")
        let jetStream = try NATSConnection(urls: urls).jetStream()
        try jetStream.ensureStream(name: "RAWBENCH", subject: "rawbench", replicas: 3)
        var last = try jetStream.publish(
            subject: "rawbench", data: [0], messageID: UUID().uuidString, expectLastSequence: nil
        ).sequence
        var raw = Samples()
        let payload = [UInt8](repeating: 0x42, count: 300)
        for _ in 0..<1_000 {
            let begin = now()
            last = try jetStream.publish(
                subject: "rawbench", data: payload, messageID: UUID().uuidString, expectLastSequence: last
            ).sequence
            raw.add(now() - begin)
        }
        return [
            Figure(
                name: "cluster.command.p50", value: samples.percentile(0.5) * 1e6, unit: "µs",
                baseline: raw.percentile(0.5) * 1e6, baselineName: "raw R3 publish with ExpectLastSeq, p50"),
            Figure(
                name: "cluster.command.p99", value: samples.percentile(0.99) * 1e6, unit: "µs",
                baseline: raw.percentile(0.99) * 1e6, baselineName: "raw R3 publish with ExpectLastSeq, p99"),
            Figure(
                name: "cluster.throughput", value: Double(latencies.count) / seconds,
                unit: "commands/s (16 clients, 2 nodes)")
        ]
    }
}
