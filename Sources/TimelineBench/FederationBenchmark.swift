import Curl
import Foundation
import MicroHTTPD
import OpenSSL
import Synchronization
import Timeline
import TimelineFederation
import TimelineHTTP

/// `timeline bench --federation` (#43): ActivityPub deliveries to a local sink — one HTTPS
/// server on loopback (libmicrohttpd, a certificate made by `openssl` in the run for
/// `*.bench.example`) standing for `hosts` servers, reached through curl's `--connect-to` — from
/// one post by an account with `followers` remote followers spread over those servers (one
/// delivery per server: their shared inboxes). Measured: deliveries per second and the time until
/// the last one arrives, from the worker's start with the post in the log; peak memory; and, as
/// the floor, the same signed bodies POSTed to the same inboxes by libcurl alone, eight at a
/// time (what the worker does less planning, journal and signing). The gap is split by two more:
/// the same POSTs each on a new handle (a new TLS connection, as the worker makes them), and the
/// time one delivery's signature takes. Then the other way: the time
/// a remote post takes from its arrival (`receiveRemotePost`, photo uploaded) to its place in
/// `localFollowers` local followers' home timelines, against a local post of an account with
/// as many followers (`addPost` of the same uploaded photo) in the same run.
public struct FederationBenchmark {
    /// Where the database goes.
    public var directory: String
    /// The posting account's remote followers.
    public var followers: Int
    /// The servers they are on.
    public var hosts: Int
    /// The remote account's local followers (the inbound figure).
    public var localFollowers: Int
    /// Told each step as it starts.
    public var progress: (String) -> Void

    /// A federation benchmark in `directory`.
    public init(
        directory: String, followers: Int = 10_000, hosts: Int = 100, localFollowers: Int = 1_000,
        progress: @escaping (String) -> Void
    ) {
        self.directory = directory
        self.followers = followers
        self.hosts = hosts
        self.localFollowers = localFollowers
        self.progress = progress
    }

    /// Runs it (installing `openssl` if missing) and returns its figures.
    public func run() async throws -> [Figure] {
        try ExternalTools.ensure([("openssl", "openssl")], progress: progress)
        let sink = try LoopbackSink(
            directory: directory, name: "federation-sink", subject: "bench.example",
            subjectAltName: "DNS:*.bench.example", status: 202)
        defer { sink.stop() }

        let path = directory + "/federation.db"
        try? FileManager.default.removeItem(atPath: path)
        var options = TimelineService.Options()
        options.passwordCost = .minimum
        options.passwordQueueLimit = 1_024
        let service = try TimelineService(path: path, options: options)
        defer {
            service.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        let builder = NetworkBuilder(service: service, scale: .small, progress: progress)
        guard
            case .user(let author) = try await service.execute(
                .createUser(
                    username: "author", email: "author@bench.example", password: "bench-password", bio: nil, url: nil)),
            case .user(let twin) = try await service.execute(
                .createUser(
                    username: "twin", email: "twin@bench.example", password: "bench-password", bio: nil, url: nil))
        else { throw BenchError("no author") }

        // The remote followers: accounts of `hosts` servers, each following the author.
        let publicKey = "-----BEGIN PUBLIC KEY-----\nbench\n-----END PUBLIC KEY-----\n", hosts = self.hosts
        let remotes = await builder.run(
            "remote followers: recorded", count: followers,
            keep: { result -> UserID? in
                if case .user(let profile) = result { return profile.id }
                return nil
            }
        ) { index in
            let host = "https://h\(index % hosts).bench.example"
            return (
                .recordRemoteAccount(
                    actor: "\(host)/users/u\(index)", username: "u\(index)", inbox: "\(host)/users/u\(index)/inbox",
                    sharedInbox: "\(host)/inbox", keyId: "\(host)/users/u\(index)#main-key", publicKey: publicKey,
                    locked: false), .operator
            )
        }
        let remoteIDs = remotes.compactMap { $0 }
        _ = await builder.run("remote followers: follow", count: remoteIDs.count, keep: { _ in true }) { index in
            (.follow(user: author.id.rawValue), .user(remoteIDs[index].rawValue))
        }

        // The worker starts at the log's head: the post is its only work.
        let api = TimelineAPI(service: service)
        defer { api.stop() }
        var clientOptions = FederationClient.Options()
        (clientOptions.caFile, clientOptions.allowPrivate) = (sink.certificate, true)
        clientOptions.connectTo = ["::127.0.0.1:\(sink.port)"]  // every host and port: the sink
        let client = FederationClient(options: clientOptions)
        let worker = try DeliveryWorker(
            api: api, client: client, directory: directory + "/federation-outbox-\(UUID().uuidString)",
            origin: "https://timeline.bench.example")
        guard
            case .post = try await service.execute(
                .addPost(image: NetworkBuilder.gif(5).base64EncodedString(), caption: "to the fediverse"),
                as: .user(author.id.rawValue))
        else { throw BenchError("no post") }
        progress("delivering one post to \(remoteIDs.count) followers on \(hosts) servers")
        let started = now()
        worker.start()
        while sink.counts.count < hosts, now() - started < 120 {
            try await Task.sleep(for: .milliseconds(5))
        }
        await worker.stop()
        let (count, first, last) = sink.counts
        guard count >= hosts else { throw BenchError("only \(count) of \(hosts) deliveries arrived in 2 minutes") }
        let elapsed = last - started

        // The floor: libcurl alone, the same number of POSTs of a body that size, eight at a time.
        progress("floor: \(hosts) POSTs by libcurl alone")
        let body = Array(repeating: UInt8(ascii: "x"), count: 2_048)
        let floorStart = now()
        let (caFile, connectTo) = (sink.certificate, clientOptions.connectTo)
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    guard let http = HTTPSClient(caFile: caFile, allowPrivate: true, connectTo: connectTo) else {
                        return
                    }
                    for index in stride(from: lane, to: hosts, by: 8) {
                        _ = try? http.post(
                            "https://h\(index).bench.example/inbox",
                            headers: ["Content-Type: application/activity+json"],
                            body: body, timeout: .seconds(10))
                    }
                }
            }
        }
        let floor = now() - floorStart

        // The gap, split: the same POSTs each on a new handle (a new TLS connection), as the worker
        // makes them; and the signing of one delivery (RSA 2048, draft-cavage), as it signs each.
        progress("the same POSTs, each on a new connection; signing")
        let freshStart = now()
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for index in stride(from: lane, to: hosts, by: 8) {
                        _ = try? HTTPSClient(caFile: caFile, allowPrivate: true, connectTo: connectTo)?.post(
                            "https://h\(index).bench.example/inbox",
                            headers: ["Content-Type: application/activity+json"],
                            body: body, timeout: .seconds(10))
                    }
                }
            }
        }
        let fresh = now() - freshStart
        let key = try RSAKey.generate()
        var signing = Samples()
        for index in 0..<100 {
            let signingStart = now()
            _ = try FederationClient.signedHeaders(
                body, to: "https://h\(index).bench.example/inbox",
                keyId: "https://timeline.bench.example/users/a#main-key",
                key: key)
            signing.add(now() - signingStart)
        }

        // Inbound: a remote account with `localFollowers` local followers posts; a local account
        // with the same followers (`twin`) posts the same photo.
        let locals = await builder.run(
            "local followers: sign-ups", count: localFollowers,
            keep: { result -> UserID? in
                if case .user(let profile) = result { return profile.id }
                return nil
            }
        ) { index in
            (
                .createUser(
                    username: "local\(index)", email: "local\(index)@bench.example", password: "bench-password",
                    bio: nil, url: nil), .anonymous
            )
        }
        let localIDs = locals.compactMap { $0 }
        let remote = remoteIDs[0]
        _ = await builder.run("local followers: follow both", count: localIDs.count, keep: { _ in true }) { index in
            (.follow(user: remote.rawValue), .user(localIDs[index].rawValue))
        }
        _ = await builder.run("local followers: the remote server accepts", count: localIDs.count, keep: { _ in true })
        {
            index in (.approveFollowRequest(user: localIDs[index].rawValue), .user(remote.rawValue))
        }
        _ = await builder.run("local followers: follow the twin", count: localIDs.count, keep: { _ in true }) {
            index in (.follow(user: twin.id.rawValue), .user(localIDs[index].rawValue))
        }
        var remoteTimes = Samples(), localTimes = Samples()
        for round in 0..<20 {
            let image = NetworkBuilder.gif(100 + round).base64EncodedString()
            guard
                case .media(let remoteMedia) = try await service.execute(
                    .uploadMedia(image: image), as: .user(remote.rawValue)),
                case .media(let localMedia) = try await service.execute(
                    .uploadMedia(image: image), as: .user(twin.id.rawValue))
            else { throw BenchError("no media") }
            let arriving = now()
            _ = try await service.execute(
                .receiveRemotePost(
                    author: remote.rawValue, object: "https://h0.bench.example/users/u0/statuses/\(round)",
                    caption: "from afar", media: [remoteMedia.id], visibility: .public), as: .operator)
            remoteTimes.add(now() - arriving)
            let posting = now()
            _ = try await service.execute(
                .addPost(media: [localMedia.id], caption: "from here"), as: .user(twin.id.rawValue))
            localTimes.add(now() - posting)
        }

        var delivered = Figure(
            name: "federation.deliveries_per_second", value: Double(count) / elapsed,
            unit: "/s (\(remoteIDs.count) remote followers on \(hosts) servers: one signed delivery each, HTTPS)")
        delivered.baseline = Double(hosts) / floor
        delivered.baselineName = "libcurl alone, the same POSTs eight at a time"
        var inbound = Figure(
            name: "federation.remote_post_to_home_timelines", value: remoteTimes.percentile(0.5) * 1e3,
            unit: "ms p50 (receiveRemotePost into \(localIDs.count) local followers' home timelines)")
        inbound.baseline = localTimes.percentile(0.5) * 1e3
        inbound.baselineName = "a local post to as many followers"
        // The whole run split at its first delivery: before it, planning (the author's 10,000
        // follow edges read into 100 inboxes) and the journal's sync; after it, sending alone.
        var sending = Figure(
            name: "federation.sending_per_second", value: Double(count - 1) / max(last - first, 1e-9),
            unit: "/s (the deliveries after the first: the activity made, signed and POSTed)")
        sending.baseline = Double(hosts) / floor
        sending.baselineName = "libcurl alone, the same POSTs eight at a time"
        var freshFloor = Figure(
            name: "federation.floor_new_connection_per_post", value: Double(hosts) / fresh,
            unit: "/s (libcurl alone, each POST on a new handle and TLS connection, eight at a time)")
        freshFloor.baseline = Double(hosts) / floor
        freshFloor.baselineName = "libcurl alone, keeping eight connections"
        return [
            delivered, sending,
            Figure(
                name: "federation.time_to_first", value: (first - started) * 1e3,
                unit: "ms (the worker's start to the first delivery: planning, the journal, one POST)"),
            freshFloor,
            Figure(
                name: "federation.signing", value: signing.percentile(0.5) * 1e3,
                unit: "ms p50 (one delivery's draft-cavage signature, RSA 2048)"),
            Figure(name: "federation.time_to_last", value: elapsed * 1e3, unit: "ms"),
            Figure(
                name: "federation.peak_rss", value: Double(peakRSS()) / 1_048_576, unit: "MiB (the whole bench process)"
            ),
            inbound
        ]
    }
}
