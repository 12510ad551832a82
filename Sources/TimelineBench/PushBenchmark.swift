import Foundation
import MicroHTTPD
import OpenSSL
import Synchronization
import Timeline
import TimelinePush
import WebPush

/// `timeline bench --push`: Web Push deliveries to a local sink — an HTTPS server on loopback
/// (libmicrohttpd with a certificate made by `openssl` in the run) that answers 201 — from
/// one post by an account whose `subscribers` followers each asked to be notified of its posts
/// (`follow` with `notify`) and subscribed with the `status` alert. Measured: the post's own
/// latency (its activity fan-out to every follower is in the command); deliveries per second
/// and the time until the last one arrives, counted from the worker's start with the post
/// already in the log (so the figure is the push path's, not the command's); peak memory; and a
/// command's latency (p50) with the outbox busy beside it, over the same command with the
/// worker idle (ratio).
public struct PushBenchmark {
    /// Where the database goes.
    public var directory: String
    /// How many followers subscribed to push the post reaches.
    public var subscribers: Int
    /// Told each step as it starts.
    public var progress: (String) -> Void

    /// A push benchmark in `directory` with `subscribers` subscribers.
    public init(directory: String, subscribers: Int = 10_000, progress: @escaping (String) -> Void) {
        self.directory = directory
        self.subscribers = subscribers
        self.progress = progress
    }

    /// Runs it (installing `openssl` if missing) and returns its figures.
    public func run() async throws -> [Figure] {
        try ExternalTools.ensure([("openssl", "openssl")], progress: progress)
        let sink = try LoopbackSink(
            directory: directory, name: "push-sink", subject: "127.0.0.1", subjectAltName: "IP:127.0.0.1", status: 201)
        defer { sink.stop() }

        let path = directory + "/push.db"
        try? FileManager.default.removeItem(atPath: path)
        var options = TimelineService.Options()
        options.passwordCost = .minimum
        options.passwordQueueLimit = 1_024  // the bench's 64 concurrent sign-ups and sign-ins wait, not fail
        options.privatePushEndpoints = true  // the sink listens on 127.0.0.1
        let service = try TimelineService(path: path, options: options)
        defer {
            service.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        let builder = NetworkBuilder(service: service, scale: .small, progress: progress)
        let receiver = try P256KeyPair.generate()
        let p256dh = Base64URL.encode(receiver.publicKey), endpoint = "https://127.0.0.1:\(sink.port)/push/"
        let users = await builder.run(
            "subscribers: sign-ups", count: subscribers,
            keep: { result -> UserID? in
                if case .user(let profile) = result { return profile.id }
                return nil
            }
        ) { index in
            (
                .createUser(
                    username: "sub\(index)", email: "sub\(index)@bench.example", password: "bench-password", bio: nil,
                    url: nil), .anonymous
            )
        }
        let tokens = await builder.run(
            "subscribers: sign-ins", count: subscribers,
            keep: { result -> String? in
                if case .session(let token, _) = result { return token }
                return nil
            }
        ) { index in (.signIn(email: "sub\(index)@bench.example", password: "bench-password"), .anonymous) }
        let auth = Base64URL.encode(try SecureRandom.bytes(16))
        _ = await builder.run("subscribers: push subscriptions", count: subscribers, keep: { _ in true }) { index in
            (
                .subscribePush(endpoint: endpoint + "\(index)", p256dh: p256dh, auth: auth, alerts: ["status"]),
                .session(tokens[index] ?? "")
            )
        }
        guard
            case .user(let celebrity) = try await service.execute(
                .createUser(
                    username: "celebrity", email: "celebrity@bench.example",
                    password: "bench-password", bio: nil, url: nil)),
            case .user(let other) = try await service.execute(
                .createUser(
                    username: "other", email: "other@bench.example",
                    password: "bench-password", bio: nil, url: nil)),
            case .user(let liker) = try await service.execute(
                .createUser(
                    username: "liker", email: "liker@bench.example",
                    password: "bench-password", bio: nil, url: nil))
        else { throw BenchError("no users") }
        guard
            case .post(let post) = try await service.execute(
                .addPost(image: NetworkBuilder.gif(3).base64EncodedString(), caption: "liked"),
                as: .user(other.id.rawValue))
        else { throw BenchError("no post") }

        let vapid = VAPID(keys: try P256KeyPair.generate(), contact: "mailto:bench@example.com")
        var pushOptions = PushWorker.Options()
        pushOptions.caFile = sink.certificate
        pushOptions.allowPrivate = true
        let worker = try PushWorker(
            service: service, directory: directory + "/push-outbox-\(UUID().uuidString)", vapid: vapid,
            options: pushOptions)
        defer { worker.stop() }

        // A command's latency with nothing to push.
        func likeLatency(_ count: Int) async throws -> Double {
            var samples = Samples()
            for index in 0..<count {
                let start = now()
                _ = try await service.execute(
                    index % 2 == 0 ? .like(post: post.id.rawValue) : .unlike(post: post.id.rawValue),
                    as: .user(liker.id.rawValue))
                samples.add(now() - start)
            }
            return samples.percentile(0.5)
        }
        progress("command latency, the outbox idle")
        let idle = try await likeLatency(400)

        // Every subscriber follows the celebrity, asking to be notified of its posts; then one
        // post, in the log before the worker starts: the push path alone.
        let valid = users.compactMap { $0 }
        _ = await builder.run("subscribers: follow with notify", count: valid.count, keep: { _ in true }) { index in
            (.follow(user: celebrity.id.rawValue, notify: true), .user(valid[index].rawValue))
        }
        let posting = now()
        guard
            case .post = try await service.execute(
                .addPost(image: NetworkBuilder.gif(4).base64EncodedString(), caption: "to everyone"),
                as: .user(celebrity.id.rawValue))
        else { throw BenchError("no post") }
        let postLatency = now() - posting
        progress("pushing one post to \(valid.count) followers")
        let started = now()
        worker.start()
        let busy = try await likeLatency(400)  // measured while the outbox delivers
        while sink.counts.count < valid.count, now() - started < 120 {
            try await Task.sleep(for: .milliseconds(20))
        }
        let (count, _, last) = sink.counts
        guard count >= valid.count else {
            let counts = worker.counts
            throw BenchError(
                "only \(count) of \(valid.count) pushes arrived in 2 minutes (sent \(counts.sent), retried \(counts.retried), "
                    + "failed \(counts.failed), dropped \(counts.dropped), lag \(counts.lag))")
        }
        let elapsed = last - started

        var figures = [
            Figure(
                name: "push.deliveries_per_second", value: Double(count) / elapsed,
                unit: "/s (\(count) subscribers, aes128gcm + VAPID, HTTPS)"),
            Figure(name: "push.time_to_last", value: elapsed, unit: "s"),
            Figure(name: "push.peak_rss", value: Double(peakRSS()) / 1_048_576, unit: "MiB (the whole bench process)"),
            Figure(
                name: "push.post_command", value: postLatency * 1e3,
                unit: "ms (the post, its activity item for each of \(valid.count) followers)")
        ]
        var latency = Figure(name: "push.command_p50_busy_outbox", value: busy * 1e6, unit: "µs (like/unlike)")
        latency.baseline = idle * 1e6
        latency.baselineName = "same command, outbox idle"
        figures.append(latency)
        return figures
    }
}
