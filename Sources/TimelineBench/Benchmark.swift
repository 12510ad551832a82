import Foundation
import LMDB
import Timeline

/// `timeline bench`: builds a synthetic network through the library API and measures, in one
/// run, each figure beside its baseline.
public struct Benchmark {
    /// How big a network to build.
    public var scale: Scale
    /// Where the benchmark's databases go.
    public var directory: String
    /// Told each step as it starts (the CLI prints it).
    public var progress: (String) -> Void
    /// Run only the named figure groups (append, latency, concurrency, reads, home, fanout, lists, rebuild).
    public var only: Set<String>?

    /// A benchmark of `scale` in `directory`, running `only` those groups (`nil`: all).
    public init(scale: Scale, directory: String, only: Set<String>? = nil, progress: @escaping (String) -> Void) {
        self.scale = scale
        self.directory = directory
        self.only = only
        self.progress = progress
    }

    private func wants(_ group: String) -> Bool { only?.contains(group) ?? true }

    /// Runs every measurement; returns the figures in order.
    public func run() async throws -> [Figure] {
        var (network, figures) = try await prepareNetwork()
        let dbPath = directory + "/timeline.db"

        var options = TimelineService.Options()
        options.passwordCost = .minimum
        options.passwordQueueLimit = 1 << 20  // the bench's many concurrent clients wait for the password threads, never refused
        let service = try TimelineService(path: dbPath, options: options)
        let events = try Double(service.lastSequence())
        figures.append(
            Figure(
                name: "database.bytes_per_event", value: Double(service.environment.usedBytes) / events, unit: "bytes"))
        // The photos' sealed bytes are most of it: the same figure without them (what the log
        // and the read models take, comparable with a database from before photos).
        let imageBytes = try service.environment.read { txn in
            let stats = try txn.statistics(try service.environment.database("images"))
            return stats.pages * stats.pageSize
        }
        figures.append(
            Figure(
                name: "database.bytes_per_event_without_photos",
                value: Double(service.environment.usedBytes - imageBytes) / events,
                unit: "bytes (the images table's pages left out)"))
        figures.append(Figure(name: "database.events", value: events, unit: "events"))
        // The process's own memory, sampled after each group (peak RSS also counts the pages of
        // the memory-mapped database that were touched).
        var anonymous = procStatus("RssAnon")
        if wants("append") {
            figures += try appendFigures()
            anonymous = max(anonymous, procStatus("RssAnon"))
        }
        // The SQLite peer, loaded with the same network before any figure changes it.
        var peer: SQLitePeer?
        if wants("latency") || wants("reads") || wants("fanout") || wants("home") {
            progress("loading the same network into the SQLite peer")
            let start = now()
            peer = try SQLitePeer(directory: try scratchDirectory("sqlite-peer"), loading: service)
            figures.append(Figure(name: "sqlite.load_seconds", value: now() - start, unit: "s"))
        }
        if wants("latency") {
            figures += try await latencyFigures(service, network, peer: peer)
            anonymous = max(anonymous, procStatus("RssAnon"))
        }
        if wants("concurrency") {
            figures += try await concurrencyFigures(service, network)
            anonymous = max(anonymous, procStatus("RssAnon"))
        }
        if wants("reads") {
            figures += try readFigures(service, network, peer: peer)
            anonymous = max(anonymous, procStatus("RssAnon"))
        }
        if wants("home") {
            figures += try await homeFigures(service, network, peer: peer)
            anonymous = max(anonymous, procStatus("RssAnon"))
        }
        if wants("fanout") {
            figures += try await fanoutFigures(service, &network, peer: peer)
            anonymous = max(anonymous, procStatus("RssAnon"))
        }
        if wants("lists") {
            figures += try await listFigures()
            anonymous = max(anonymous, procStatus("RssAnon"))
        }
        peer = nil
        try? FileManager.default.removeItem(atPath: directory + "/sqlite-peer")
        if wants("rebuild") {
            figures += try rebuildFigures(service)
            anonymous = max(anonymous, procStatus("RssAnon"))
        }
        figures.append(
            Figure(name: "process_memory", value: Double(anonymous) / 1_048_576, unit: "MiB (largest RssAnon seen)"))
        figures.append(Figure(name: "peak_rss", value: Double(peakRSS()) / 1_048_576, unit: "MiB"))
        service.close()
        return figures
    }

    /// Builds the synthetic network in `directory` (or reuses one an earlier run built there);
    /// returns it, with the build's rate when it was built now.
    func prepareNetwork() async throws -> (NetworkBuilder.Network, [Figure]) {
        var figures: [Figure] = []
        let dbPath = directory + "/timeline.db"
        progress("building the \(scale.name) network in \(dbPath)")
        var setupOptions = TimelineService.Options()
        setupOptions.durable = false
        setupOptions.passwordCost = .minimum  // 100k argon2id hashes at interactive cost would take hours
        setupOptions.passwordQueueLimit = 1 << 20  // the bench's many concurrent clients wait for the password threads, never refused
        let network: NetworkBuilder.Network
        let networkFile = directory + "/network.json"
        if let saved = NetworkBuilder.Network.load(networkFile) {
            progress("reusing the network already built in \(directory)")
            network = saved
        } else {
            let setupStart = now()
            let service = try TimelineService(path: dbPath, options: setupOptions)
            network = try await NetworkBuilder(service: service, scale: scale, progress: progress).build()
            try service.environment.sync()
            let events = try Double(service.lastSequence())
            service.close()
            figures.append(
                Figure(name: "setup.events_per_second", value: events / (now() - setupStart), unit: "events/s"))
            try network.save(networkFile)
        }
        return (network, figures)
    }

    /// An empty directory for one measurement's own database (emptied again on a rerun).
    private func scratchDirectory(_ name: String) throws -> String {
        let path = directory + "/" + name
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// The store's batch append beside raw `MDB_APPEND` puts of the same sizes and batches.
    func appendFigures() throws -> [Figure] {
        progress("append: store vs raw LMDB")
        let count = min(200_000, scale.posts)
        var ids = PushIDGenerator(random: { UInt64.random(in: 0...UInt64.max) })
        var rng = SplitMix(state: 99)
        let users = (0..<1000).map { _ in UserID(ids.next(at: 1_700_000_000_000)) }
        let events: [PendingEvent] = (0..<count).map { index in
            let user = users[Int.random(in: 0..<users.count, using: &rng)]
            let event: Event =
                switch index % 3 {
                case 0: .likeAdded(Like(postId: PostID(ids.next(at: 1_700_000_000_000)), userId: user))
                case 1: .followed(Follow(followerId: user, followeeId: users[index % users.count]))
                default:
                    .postAdded(
                        PostAdded(
                            postId: PostID(ids.next(at: 1_700_000_000_000)), authorId: user,
                            imageId: ImageID(String(repeating: "ab", count: 32)), caption: "A caption #sea",
                            hashtags: ["sea"]))
                }
            return PendingEvent(
                id: EventID(ids.next(at: 1_700_000_000_000)), event: event, timestamp: 1_700_000_000_000,
                actor: user.rawValue)
        }
        var figures: [Figure] = []
        for batch in [1_000, 10_000] {
            let (seconds, sizes) = try storeAppend(
                events, users: users, batch: batch, directory: try scratchDirectory("append-store-\(batch)"))
            let raw = try RawBaselines.appends(
                sizes: sizes, batch: batch, directory: try scratchDirectory("append-raw-\(batch)"))
            // Their unsynced derived pages would otherwise be written back while later groups run.
            try discardScratchDirectories("append-store-\(batch)", "append-raw-\(batch)")
            figures.append(
                Figure(
                    name: "append.batch_\(batch)", value: Double(events.count) / seconds, unit: "events/s",
                    baseline: raw, baselineName: "raw MDB_APPEND puts, same sizes and batches"))
        }
        return figures
    }

    /// Appends `events` through the store in batches of `batch` into a new database in
    /// `directory`; returns the seconds taken and the stored records' sizes (for the raw baseline).
    private func storeAppend(_ events: [PendingEvent], users: [UserID], batch: Int, directory: String) throws -> (
        seconds: Double, sizes: [Int]
    ) {
        var layout = Environment.Options()
        layout.derivedData = true  // as the service opens it: the log's indexes are derived data
        let env = try Environment(path: directory, options: layout)
        let log = try EventLog(environment: env)
        // Users' keys exist from sign-up on; creating them is not part of appending.
        for user in users { _ = try log.keys.ensureKey(for: user) }
        let seconds = try time {
            var start = 0
            while start < events.count {
                let end = min(start + batch, events.count)
                _ = try env.write { txn in try log.append(Array(events[start..<end]), txn) }
                start = end
            }
        }
        var sizes: [Int] = []
        let logDB = try env.database("log")
        try env.read { txn in
            try txn.withCursor(logDB) { cursor in
                var entry = try cursor.first()
                while let (_, value) = entry {
                    sizes.append(value.count)
                    entry = try cursor.next()
                }
            }
        }
        return (seconds, sizes)
    }

    private func discardScratchDirectories(_ names: String...) throws {
        for name in names { try FileManager.default.removeItem(atPath: directory + "/" + name) }
    }

    /// One durable command at a time, beside one raw fsynced put.
    func latencyFigures(_ service: TimelineService, _ network: NetworkBuilder.Network, peer: SQLitePeer?) async throws
        -> [Figure]
    {
        progress("command latency")
        var samples = Samples()
        var rng = SplitMix(state: 7)
        var user = network.users[0], post = network.posts[0]
        var mix: [(UserID, PostID)] = []
        for index in 0..<min(scale.samples, 2_000) {
            // Like, comment, unlike: each appends an event, however often the bench is rerun.
            if index % 3 == 0 {
                user = network.users[Int.random(in: 0..<network.users.count, using: &rng)]
                post = network.posts[Int.random(in: 0..<network.posts.count, using: &rng)]
            }
            mix.append((user, post))
            let command: Command =
                switch index % 3 {
                case 0: .like(post: post.rawValue)
                case 1: .addComment(post: post.rawValue, text: "latency \(index)")
                default: .unlike(post: post.rawValue)
                }
            let start = now()
            _ = try await service.execute(command, as: .user(user.rawValue))
            samples.add(now() - start)
        }
        let raw = try RawBaselines.fsyncedPuts(
            count: min(scale.samples, 2_000), directory: try scratchDirectory("fsync-raw"))
        try discardScratchDirectories("fsync-raw")
        // The same puts into this database's own (large) file: LMDB copies every page it
        // changes to a free page somewhere in the file, and on this disk scattered pages cost
        // more to flush than the neighbouring pages of a small file.
        let rawHere = try RawBaselines.fsyncedPuts(count: min(scale.samples, 2_000), environment: service.environment)
        // The same commands on the same users and posts, the SQLite way.
        var peerSamples = Samples()
        if let peer {
            for (index, (user, post)) in mix.enumerated() {
                let command: SQLitePeer.Command =
                    switch index % 3 {
                    case 0: .like
                    case 1: .comment(id: "peer-\(UInt64.random(in: 0...UInt64.max))", text: "latency \(index)")
                    default: .unlike
                    }
                peerSamples.add(try time { try peer.execute(command, user: user.rawValue, post: post.rawValue) })
            }
        }
        var p50 = Figure(
            name: "command_latency.p50", value: samples.percentile(0.5) * 1e6, unit: "µs",
            baseline: raw.percentile(0.5) * 1e6, baselineName: "raw fsynced 200-byte put, p50")
        var p99 = Figure(
            name: "command_latency.p99", value: samples.percentile(0.99) * 1e6, unit: "µs",
            baseline: raw.percentile(0.99) * 1e6, baselineName: "raw fsynced 200-byte put, p99")
        if peer != nil {
            (p50.sqlite, p99.sqlite) = (peerSamples.percentile(0.5) * 1e6, peerSamples.percentile(0.99) * 1e6)
        }
        let hereName = "raw fsynced 200-byte put in this database's file"
        var hereP50 = Figure(
            name: "raw_put_in_this_database.p50", value: rawHere.percentile(0.5) * 1e6, unit: "µs",
            baseline: raw.percentile(0.5) * 1e6, baselineName: "raw fsynced 200-byte put, p50 (a new small file)")
        var hereP99 = Figure(
            name: "raw_put_in_this_database.p99", value: rawHere.percentile(0.99) * 1e6, unit: "µs",
            baseline: raw.percentile(0.99) * 1e6, baselineName: "raw fsynced 200-byte put, p99 (a new small file)")
        if peer != nil { (hereP50.sqlite, hereP99.sqlite) = (p50.sqlite, p99.sqlite) }
        let commandHere = [
            Figure(
                name: "command_latency.vs_raw_put_here.p50", value: p50.value, unit: "µs",
                baseline: hereP50.value, baselineName: hereName + ", p50"),
            Figure(
                name: "command_latency.vs_raw_put_here.p99", value: p99.value, unit: "µs",
                baseline: hereP99.value, baselineName: hereName + ", p99")
        ]
        return [p50, p99, hereP50, hereP99] + commandHere
    }

    /// Durable commands per second with 1, 4 and 16 concurrent clients (group commit).
    func concurrencyFigures(_ service: TimelineService, _ network: NetworkBuilder.Network) async throws -> [Figure] {
        var figures: [Figure] = []
        let users = network.users.map(\.rawValue), posts = network.posts.map(\.rawValue)
        for clients in [1, 4, 16] {
            progress("concurrent commands: \(clients) clients")
            let perClient = max(200, scale.samples * 2 / clients)
            let start = now()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var rng = SplitMix(state: UInt64(client + 1) * 31)
                        // Like then unlike the same post: every command appends an event.
                        for _ in 0..<perClient / 2 {
                            let user = users[Int.random(in: 0..<users.count, using: &rng)]
                            let post = posts[Int.random(in: 0..<posts.count, using: &rng)]
                            _ = try await service.execute(.like(post: post), as: .user(user))
                            _ = try await service.execute(.unlike(post: post), as: .user(user))
                        }
                    }
                }
                try await group.waitForAll()
            }
            figures.append(
                Figure(
                    name: "concurrent_commands.clients_\(clients)",
                    value: Double(clients * (perClient / 2 * 2)) / (now() - start), unit: "commands/s"))
        }
        return figures
    }

    /// 20-post pages of random users' timelines: the first page and a deep one, each sample
    /// taken beside the raw-LMDB floor's and the SQLite peer's (interleaved, so the noise of a
    /// shared machine falls on all three alike).
    func readFigures(_ service: TimelineService, _ network: NetworkBuilder.Network, peer: SQLitePeer?) throws
        -> [Figure]
    {
        progress("timeline reads")
        var rng = SplitMix(state: 11)
        // Deep pages: the sixth page (posts 101–120) of users whose timelines are that long.
        var deepStarts: [(UserID, String)] = []
        var tries = 0
        while deepStarts.count < min(scale.samples, 2_000) && tries < scale.samples * 20 {
            tries += 1
            let user = network.users[Int.random(in: 0..<network.users.count, using: &rng)]
            var request = PageRequest(limit: 20)
            var depth = 0
            while depth < 5, let next = try service.timeline(of: user, request).next {
                request.before = next
                depth += 1
            }
            if depth == 5, let cursor = request.before { deepStarts.append((user, cursor)) }
        }
        let tables = service.timelinePageTables
        var first = Samples(), rawFirst = Samples(), peerFirst = Samples()
        var deep = Samples(), rawDeep = Samples(), peerDeep = Samples()
        func randomUser() -> UserID { network.users[Int.random(in: 0..<network.users.count, using: &rng)] }
        for _ in 0..<scale.samples {
            // The floor reads another random user's page (no cache left warm by this one's): the
            // cost LMDB alone has for a page built on the same tables.
            let user = randomUser(), other = randomUser()
            first.add(try time { _ = try service.timeline(of: user, PageRequest(limit: 20)) })
            rawFirst.add(
                try RawBaselines.timelinePage(service.environment, tables, user: other.rawValue, before: nil, limit: 20)
            )
            if let peer { peerFirst.add(try peer.timelinePage(user: user.rawValue, before: nil, limit: 20)) }
            guard !deepStarts.isEmpty else { continue }
            let (deepUser, cursor) = deepStarts[Int.random(in: 0..<deepStarts.count, using: &rng)]
            let (otherUser, otherCursor) = deepStarts[Int.random(in: 0..<deepStarts.count, using: &rng)]
            deep.add(try time { _ = try service.timeline(of: deepUser, PageRequest(limit: 20, before: cursor)) })
            rawDeep.add(
                try RawBaselines.timelinePage(
                    service.environment, tables, user: otherUser.rawValue, before: otherCursor, limit: 20))
            if let peer { peerDeep.add(try peer.timelinePage(user: deepUser.rawValue, before: cursor, limit: 20)) }
        }
        let rawName = RawBaselines.timelinePageName
        func figure(_ name: String, _ samples: Samples, _ raw: Samples, _ peerSamples: Samples, _ p: Double) -> Figure {
            var figure = Figure(
                name: name, value: samples.percentile(p) * 1e6, unit: "µs", baseline: raw.percentile(p) * 1e6,
                baselineName: rawName)
            if peer != nil { figure.sqlite = peerSamples.percentile(p) * 1e6 }
            return figure
        }
        return [
            figure("timeline_read.first_page.p50", first, rawFirst, peerFirst, 0.5),
            figure("timeline_read.first_page.p99", first, rawFirst, peerFirst, 0.99),
            figure("timeline_read.deep_page.p50", deep, rawDeep, peerDeep, 0.5),
            figure("timeline_read.deep_page.p99", deep, rawDeep, peerDeep, 0.99)
        ]
    }

    /// addPost by the most-followed and by a median account, its photo already through the
    /// image pipeline (the write and the fan-out; `--photos` measures the pipeline on real
    /// photos), and once whole for the bench's small image; following a long backlog.
    func fanoutFigures(_ service: TimelineService, _ network: inout NetworkBuilder.Network, peer: SQLitePeer?)
        async throws -> [Figure]
    {
        progress("post fan-out and follow")
        var figures: [Figure] = []
        let image = NetworkBuilder.gif(7).base64EncodedString()
        let processed = try ImagePipeline.post(try ImageUpload(base64: image))
        for (label, author) in [("most_followed", network.mostFollowed), ("median", network.medianFollowed)] {
            var samples = Samples()
            for index in 0..<100 {
                let start = now()
                _ = try await service.execute(
                    .addPost(image: image, caption: "fan-out \(index) #sea"), as: .user(author.rawValue),
                    processedImage: processed)
                samples.add(now() - start)
            }
            let followers = try service.user(author).followerCount
            var p50 = Figure(
                name: "post_fanout.\(label).p50", value: samples.percentile(0.5) * 1e3,
                unit: "ms (\(followers) followers)")
            var p99 = Figure(
                name: "post_fanout.\(label).p99", value: samples.percentile(0.99) * 1e3,
                unit: "ms (\(followers) followers)")
            if let peer, label == "most_followed" {
                // The same post the SQLite way: one feed row per follower.
                var peerSamples = Samples()
                for index in 0..<20 {
                    peerSamples.add(
                        try time {
                            try peer.addPost(
                                id: "peer-post-\(index)-\(UInt64.random(in: 0...UInt64.max))", author: author.rawValue,
                                caption: "fan-out \(index) #sea", image: String(repeating: "ab", count: 32))
                        })
                }
                (p50.sqlite, p99.sqlite) = (peerSamples.percentile(0.5) * 1e3, peerSamples.percentile(0.99) * 1e3)
            }
            figures += [p50, p99]
        }
        figures += try await boostFigures(service, network, image: image, processed: processed)
        var whole = Samples()
        for index in 0..<20 {
            let start = now()
            _ = try await service.execute(
                .addPost(image: image, caption: "whole \(index)"), as: .user(network.medianFollowed.rawValue))
            whole.add(now() - start)
        }
        figures.append(
            Figure(
                name: "add_post.with_pipeline.p50", value: whole.percentile(0.5) * 1e3,
                unit: "ms (a 2×1 GIF: decode, three variants)"))
        // An account with a long backlog, then ordinary users following it.
        let backlog = scale.name == "small" ? 1_000 : 5_000
        let tag = UInt32.random(in: 0..<1_000_000_000)
        guard
            case .user(let prolific) = try await service.execute(
                .createUser(
                    username: "prolific\(tag)", email: "prolific\(tag)@bench.example",
                    password: "bench-password", bio: nil, url: nil))
        else { return figures }
        let builder = NetworkBuilder(service: service, scale: scale, progress: { _ in })
        let _: [Never?] = await builder.run(
            "backlog", count: backlog, keep: { _ in nil }, processed: { _ in processed }
        ) { index in
            (.addPost(image: image, caption: "backlog \(index)"), .user(prolific.id.rawValue))
        }
        var samples = Samples()
        for index in 0..<100 {
            let follower = network.users[(index * 97) % network.users.count]
            let start = now()
            _ = try await service.execute(.follow(user: prolific.id.rawValue), as: .user(follower.rawValue))
            samples.add(now() - start)
        }
        figures.append(
            Figure(name: "follow.backlog.p50", value: samples.percentile(0.5) * 1e3, unit: "ms (\(backlog) posts)"))
        figures.append(
            Figure(name: "follow.backlog.p99", value: samples.percentile(0.99) * 1e3, unit: "ms (\(backlog) posts)"))
        return figures
    }

    /// A boost by the most followed account, beside a post by it (`post_fanout.most_followed`):
    /// a boost enters its followers' timelines as a post does, so it should cost what a post costs.
    func boostFigures(
        _ service: TimelineService, _ network: NetworkBuilder.Network, image: String, processed: ProcessedImage
    ) async throws -> [Figure] {
        var posts: [PostID] = []
        for index in 0..<100 {
            if case .post(let post) = try await service.execute(
                .addPost(image: image, caption: "to boost \(index)"), as: .user(network.medianFollowed.rawValue),
                processedImage: processed)
            {
                posts.append(post.id)
            }
        }
        var samples = Samples()
        for post in posts {
            let start = now()
            _ = try await service.execute(.reblog(post: post.rawValue), as: .user(network.mostFollowed.rawValue))
            samples.add(now() - start)
        }
        let followers = try service.user(network.mostFollowed).followerCount
        return [
            Figure(
                name: "boost_fanout.most_followed.p50", value: samples.percentile(0.5) * 1e3,
                unit: "ms (\(followers) followers; compare post_fanout.most_followed)"),
            Figure(
                name: "boost_fanout.most_followed.p99", value: samples.percentile(0.99) * 1e3,
                unit: "ms (\(followers) followers)")
        ]
    }

    /// A full rebuild of every projection beside a raw cursor scan of the log.
    func rebuildFigures(_ service: TimelineService) throws -> [Figure] {
        progress("rebuild")
        let raw = try RawBaselines.scan(service.environment, database: "log")
        var options = RebuildOptions()
        options.chunkSize = 50_000
        let report = try service.rebuild(options)
        return [
            Figure(
                name: "rebuild", value: Double(report.events) / report.seconds, unit: "events/s",
                baseline: raw.perSecond, baselineName: "raw cursor scan of the log")
        ]
    }

    /// The machine the figures come from.
    public static func machine() -> String {
        let cpu =
            (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let memory = ProcessInfo.processInfo.physicalMemory / 1_073_741_824
        return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) GiB"
    }

    /// The figures as JSON: `{scale, machine, figures}`.
    public static func json(_ figures: [Figure], scale: Scale) -> Report {
        Report(scale: scale.name, machine: machine(), figures: figures)
    }

    /// A run's figures with what they were measured on, as `timeline bench --json` prints them.
    public struct Report: Encodable {
        /// The scale's name.
        public var scale: String
        /// The machine (`machine()`).
        public var machine: String
        /// The figures, in the order measured.
        public var figures: [Figure]
    }

    /// The figures as an aligned table (with a target column when some figure has a target).
    public static func table(_ figures: [Figure]) -> String {
        let targets = figures.contains { $0.target != nil }
        func pad(_ text: String, _ width: Int) -> String {
            text.padding(toLength: max(width, text.count + 2), withPad: " ", startingAt: 0)
        }
        var lines = [
            pad("figure", 34) + pad("value", 34)
                + (targets ? pad("baseline (ratio)", 58) + "target" : "baseline (ratio)")
        ]
        for f in figures {
            var line = pad(f.name, 34) + pad(String(format: "%.1f %@", f.value, f.unit), 34)
            var baseline = ""
            if let value = f.baseline, let ratio = f.ratio {
                baseline = String(format: "%.1f (%.2f×)  %@", value, ratio, f.baselineName ?? "")
            }
            line += targets ? pad(baseline, 58) + (f.target ?? "") : baseline
            if let sqlite = f.sqlite, let ratio = f.vsSQLite {
                line += String(format: "  SQLite %.1f (%.2f×)", sqlite, ratio)
            }
            lines.append(line.trimmingCharacters(in: .whitespaces))
        }
        return lines.joined(separator: "\n")
    }
}
