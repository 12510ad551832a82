import Foundation
import Timeline
#if canImport(Glibc)
    import Glibc
#endif

/// `timeline bench --photos`: photo uploads through the image pipeline (a 12 MP JPEG and a
/// 12 MP HEIC, generated in the run with libvips: smooth colour fields with grain, not a flat
/// colour), beside Debian's `vipsthumbnail` making the same variants of the same files in the
/// same run, and the process's peak memory during a burst of concurrent uploads.
public struct PhotoBenchmark {
    /// Where the generated photos and the database go.
    public var directory: String
    /// Told each step as it starts.
    public var progress: (String) -> Void
    /// Sequential uploads measured per format.
    public var uploads = 12
    /// Concurrent uploads in the memory burst.
    public var burst = 32

    /// A photo benchmark in `directory`.
    public init(directory: String, progress: @escaping (String) -> Void) {
        self.directory = directory
        self.progress = progress
    }

    /// Runs it (installing `libvips-tools` if missing) and returns its figures.
    public func run() async throws -> [Figure] {
        try ExternalTools.ensure([("vips", "libvips-tools"), ("vipsthumbnail", "libvips-tools")], progress: progress)
        let images = directory + "/photos"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        let jpeg = try photo(images, "photo.jpg[Q=90]", "photo.jpg")
        let heic = try photo(images, "photo.heic[Q=50]", "photo.heic")

        let path = directory + "/photos.db"
        try? FileManager.default.removeItem(atPath: path)
        var options = TimelineService.Options()
        options.passwordCost = .minimum
        let service = try TimelineService(path: path, options: options)
        defer {
            service.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        guard
            case .user(let user) = try await service.execute(
                .createUser(
                    username: "photographer", email: "photos@bench.example",
                    password: "bench-password", bio: nil, url: nil))
        else {
            throw BenchError("no user")
        }
        var figures: [Figure] = []
        for (label, file) in [("jpeg_12mp", jpeg), ("heic_12mp", heic)] {
            figures += try await uploadFigures(label, file: file, service: service, as: user.id)
        }
        figures.append(try await burstFigure(jpeg, service: service, as: user.id))
        return figures
    }

    /// A 4032×3024 photo-like image (three Perlin colour fields and Gaussian grain) saved as
    /// `target` (libvips' save options in brackets); reused when an earlier run made it.
    private func photo(_ dir: String, _ target: String, _ name: String) throws -> String {
        let path = dir + "/" + name
        if FileManager.default.fileExists(atPath: path) { return path }
        progress("generating a 4032×3024 \(name) with libvips")
        func at(_ name: String) -> String { dir + "/" + name }
        var steps: [[String]] = [["copy", at("photo.v"), at(target)]]
        if !FileManager.default.fileExists(atPath: at("photo.v")) {
            steps =
                [
                    ["perlin", at("r.v"), "4032", "3024", "--cell-size", "320", "--uchar", "--seed", "1"],
                    ["perlin", at("g.v"), "4032", "3024", "--cell-size", "500", "--uchar", "--seed", "2"],
                    ["perlin", at("b.v"), "4032", "3024", "--cell-size", "700", "--uchar", "--seed", "3"],
                    ["bandjoin", "\(at("r.v")) \(at("g.v")) \(at("b.v"))", at("rgb.v")],
                    ["gaussnoise", at("n.v"), "4032", "3024", "--mean", "0", "--sigma", "6"],
                    ["add", at("rgb.v"), at("n.v"), at("sum.v")],
                    ["cast", at("sum.v"), at("photo.v"), "uchar"]
                ] + steps
        }
        for step in steps {
            let result = try ExternalTools.run(["vips"] + step)
            guard result.status == 0 else {
                throw BenchError("vips \(step.joined(separator: " ")) failed: \(result.errors.suffix(500))")
            }
        }
        return path
    }

    /// Sequential uploads of `file` (one core's work at a time: the pipeline gives each image one
    /// libvips thread) beside `vipsthumbnail` making full (1080), feed (640) and thumb (320,
    /// centre crop) from the same file with one libvips thread; both counted per CPU-second.
    private func uploadFigures(_ label: String, file: String, service: TimelineService, as user: UserID) async throws
        -> [Figure]
    {
        progress("\(label): \(uploads) uploads, then vipsthumbnail on the same file")
        let base64 = try Data(contentsOf: URL(fileURLWithPath: file)).base64EncodedString()
        var samples = Samples()
        let cpuStart = cpuSeconds(RUSAGE_SELF), start = now()
        for index in 0..<uploads {
            let began = now()
            _ = try await service.execute(.addPost(image: base64, caption: "bench \(index)"), as: .user(user.rawValue))
            samples.add(now() - began)
        }
        let wall = now() - start, cpu = cpuSeconds(RUSAGE_SELF) - cpuStart

        // vipsthumbnail in batch mode: one process per variant over `uploads` copies of the file.
        let out = directory + "/photos/thumbs"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let copies = (0..<uploads).map {
            "\(out)/\(label)-\($0)\((file as NSString).pathExtension == "heic" ? ".heic" : ".jpg")"
        }
        for copy in copies where !FileManager.default.fileExists(atPath: copy) {
            try FileManager.default.copyItem(atPath: file, toPath: copy)
        }
        let save = "[Q=82,interlace,optimize_coding,strip]"
        var environment = ProcessInfo.processInfo.environment
        environment["VIPS_CONCURRENCY"] = "1"
        // It decodes each file once per variant; the first run (full alone, one decode) is the
        // stricter baseline.
        let childStart = cpuSeconds(RUSAGE_CHILDREN), toolStart = now()
        var fullCPU = 0.0
        for arguments in [
            ["-s", "1080", "-o", "%s-full.jpg" + save], ["-s", "640", "-o", "%s-feed.jpg" + save],
            ["-s", "320", "--smartcrop", "centre", "-o", "%s-thumb.jpg" + save]
        ] {
            let result = try ExternalTools.run(["vipsthumbnail"] + arguments + copies, environment: environment)
            guard result.status == 0 else { throw BenchError("vipsthumbnail failed: \(result.errors.suffix(500))") }
            if fullCPU == 0 { fullCPU = cpuSeconds(RUSAGE_CHILDREN) - childStart }
        }
        let toolWall = now() - toolStart, toolCPU = cpuSeconds(RUSAGE_CHILDREN) - childStart
        let perCore = Double(uploads) / cpu, toolPerCore = Double(uploads) / toolCPU
        return [
            Figure(
                name: "photos.\(label).uploads_per_s", value: Double(uploads) / wall, unit: "uploads/s (one at a time)",
                baseline: Double(uploads) / toolWall, baselineName: "vipsthumbnail, 1 thread, 3 variants: files/s"),
            Figure(
                name: "photos.\(label).per_cpu_second", value: perCore, unit: "uploads per CPU-second",
                baseline: toolPerCore, baselineName: "vipsthumbnail: files per CPU-second", target: "≥ 0.8×"),
            Figure(
                name: "photos.\(label).per_cpu_second_vs_full_only", value: perCore, unit: "uploads per CPU-second",
                baseline: Double(uploads) / fullCPU,
                baselineName: "vipsthumbnail, full (1080) only: files per CPU-second"),
            Figure(name: "photos.\(label).addPost.p50", value: samples.percentile(0.5) * 1e3, unit: "ms"),
            Figure(name: "photos.\(label).addPost.p99", value: samples.percentile(0.99) * 1e3, unit: "ms")
        ]
    }

    /// `burst` uploads of the JPEG at once; the process's peak resident memory meanwhile
    /// (VmHWM, reset just before through /proc/self/clear_refs).
    private func burstFigure(_ file: String, service: TimelineService, as user: UserID) async throws -> Figure {
        progress("a burst of \(burst) concurrent uploads")
        let base64 = try Data(contentsOf: URL(fileURLWithPath: file)).base64EncodedString()
        let reset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        let before = peakRSS()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<burst {
                group.addTask {
                    _ = try await service.execute(
                        .addPost(image: base64, caption: "burst \(index)"), as: .user(user.rawValue))
                }
            }
            try await group.waitForAll()
        }
        let peak = peakRSS()
        return Figure(
            name: "photos.burst_\(burst).peak_rss", value: Double(peak) / 1_048_576,
            unit: reset
                ? "MiB (VmHWM during the burst)" : "MiB (VmHWM of the run; \(before / 1_048_576) before the burst)",
            target: "≤ 512 MiB")
    }

    /// User plus system CPU time of `who` (this process, or its waited-for children), in seconds.
    private func cpuSeconds(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
