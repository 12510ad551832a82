import Foundation
import Timeline
import TimelineBench

/// `timeline bench`: see `TimelineBench.Benchmark`.
enum BenchCommand {
    static let help = """
        usage: timeline bench [--scale small|medium|large] [--dir PATH] [--only GROUPS] [--json]
               timeline bench --http [--scale small|medium|large] [--dir PATH] [--seconds N] [--json]
               timeline bench --cluster [--nats URLS] [--json]
               timeline bench --photos [--dir PATH] [--json]
               timeline bench --video [--dir PATH] [--json]
               timeline bench --push [--subscribers N] [--dir PATH] [--json]
               timeline bench --federation [--dir PATH] [--json]

        Builds a synthetic network (power-law follower counts) through the library API in a
        temporary directory (or --dir), then measures append, command latency, concurrent
        commands, timeline reads, post fan-out, follow, rebuild, peak RSS and size per event,
        each beside its baseline. Progress goes to stderr. With --dir, a network built there by an
        earlier run is reused; --only runs some groups: append,latency,concurrency,reads,fanout,lists,rebuild.
        --cluster measures commands through two nodes of a 3-server JetStream cluster (started on
        loopback unless --nats names one) beside raw R3 publishes with ExpectLastSeq.
        --photos measures photo uploads (a 12 MP JPEG and a 12 MP HEIC made with libvips in the run)
        through the image pipeline beside Debian's vipsthumbnail making the same variants of the
        same files, per CPU-second, and the peak memory of a burst of 32 concurrent uploads.
        --video measures transcoding a 30 s 1080p clip (made by the ffmpeg command line in the run)
        to H.264 + AAC MP4 beside the ffmpeg command line doing the same job: time, CPU, peak memory.
        --push measures Web Push: one post by an account with N (default 10,000) subscribed followers
        who asked to be notified of its posts, pushed to an HTTPS sink on loopback (deliveries per
        second, time until the last, peak memory, the post's own latency), and a command's latency
        with the outbox busy beside it over the same with it idle.
        --federation measures ActivityPub: one post by an account with 10,000 remote followers on
        100 servers (one HTTPS sink on loopback standing for them all), delivered signed once per
        server (deliveries per second, time until the last, peak memory, beside libcurl alone
        POSTing to the same inboxes), and a remote post's arrival into 1,000 local followers' home
        timelines beside a local post to as many followers.
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(
            [
                "scale", "dir", "only", "json", "http", "seconds", "cluster", "photos", "video", "nats", "push",
                "federation",
                "subscribers"
            ],
            opening: [])  // its own databases
        if args.has("help") {
            print(help)
            return 0
        }
        guard let scale = Scale.named(args.value("scale") ?? "small") else {
            throw UsageError("--scale is small, medium or large")
        }
        let directory =
            args.value("dir")
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("timeline-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let progress: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
        let title: String
        let figures: [Figure]
        if args.has("http") {
            title = "timeline bench --http --scale \(scale.name)"
            var bench = HTTPBenchmark(scale: scale, directory: directory, progress: progress)
            if let text = args.value("seconds") {
                guard let seconds = Int(text), seconds > 0 else {
                    throw UsageError("--seconds takes a whole number of seconds")
                }
                bench.seconds = seconds
            }
            figures = try await bench.run()
        } else if args.has("cluster") {
            let urls = args.value("nats").map { $0.split(separator: ",").map(String.init) }
            title = "timeline bench --cluster"
            figures = try await ClusterBenchmark(directory: directory, urls: urls, progress: progress).run()
        } else if args.has("push") {
            title = "timeline bench --push"
            let subscribers =
                try args.value("subscribers").map { text in
                    guard let number = Int(text), number > 0 else {
                        throw UsageError("--subscribers takes a positive number")
                    }
                    return number
                } ?? 10_000
            figures = try await PushBenchmark(directory: directory, subscribers: subscribers, progress: progress).run()
        } else if args.has("federation") {
            title = "timeline bench --federation"
            figures = try await FederationBenchmark(directory: directory, progress: progress).run()
        } else if args.has("video") {
            title = "timeline bench --video"
            figures = try await VideoBenchmark(directory: directory, progress: progress).run()
        } else if args.has("photos") {
            title = "timeline bench --photos"
            figures = try await PhotoBenchmark(directory: directory, progress: progress).run()
        } else {
            let only = args.value("only").map { Set($0.split(separator: ",").map(String.init)) }
            title = "timeline bench --scale \(scale.name)"
            figures = try await Benchmark(scale: scale, directory: directory, only: only, progress: progress).run()
        }
        if args.value("dir") == nil { try? FileManager.default.removeItem(atPath: directory) }
        if args.has("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            let data = try encoder.encode(Benchmark.json(figures, scale: scale))
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("\(title) on \(Benchmark.machine())\n")
            print(Benchmark.table(figures))
        }
        return 0
    }
}
