import FFmpeg
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `timeline bench --video`: transcoding a 30-second 1080p clip (made by the `ffmpeg` command
/// line in the run: a moving test pattern with a tone, H.264 and AAC) through the FFmpeg layer
/// (`VideoTranscoder`), beside the `ffmpeg` command line doing the same job on the same file in
/// the same run (libx264 veryfast CRF 23 High with a lookahead of 5 frames, AAC 128 kb/s 48 kHz
/// stereo, faststart, no metadata, two threads), with each one's peak memory.
public struct VideoBenchmark {
    /// Where the clip and the outputs go.
    public var directory: String
    /// Told each step as it starts.
    public var progress: (String) -> Void
    /// Transcodes measured each way (the best is kept: a noisy machine only slows a run).
    public var runs = 2

    /// A video benchmark in `directory`.
    public init(directory: String, progress: @escaping (String) -> Void) {
        self.directory = directory
        self.progress = progress
    }

    /// Runs it (installing `ffmpeg` if missing) and returns its figures.
    public func run() async throws -> [Figure] {
        try ExternalTools.ensure([("ffmpeg", "ffmpeg")], progress: progress)
        let clip = directory + "/clip-1080p-30s.mp4"
        if !FileManager.default.fileExists(atPath: clip) {
            progress("making a 30 s 1080p clip with the ffmpeg command line")
            let made = try ExternalTools.run([
                "ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc2=size=1920x1080:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t",
                "30", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p", "-c:a", "aac", clip
            ])
            guard made.status == 0 else {
                throw BenchError("ffmpeg could not make the clip: \(made.errors.suffix(300))")
            }
        }

        progress("transcoding it through the FFmpeg layer")
        var ours = Double.infinity, ourCPU = Double.infinity
        let reset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        for index in 0..<runs {
            let cpu = cpuSeconds(RUSAGE_SELF), start = now()
            _ = try VideoTranscoder.transcode(input: clip, output: directory + "/ours-\(index).mp4")
            ours = min(ours, now() - start)
            ourCPU = min(ourCPU, cpuSeconds(RUSAGE_SELF) - cpu)
        }
        let ourPeak = Double(peakRSS()) / 1_048_576

        progress("the same job by the ffmpeg command line")
        var theirs = Double.infinity, theirCPU = Double.infinity, theirPeak = 0.0
        for index in 0..<runs {
            let cpu = cpuSeconds(RUSAGE_CHILDREN), start = now()
            let result = try ExternalTools.run([
                "ffmpeg", "-hide_banner", "-benchmark", "-y", "-threads", "2", "-i", clip, "-map_metadata", "-1",
                "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-profile:v", "high", "-x264-params",
                "rc-lookahead=5", "-pix_fmt", "yuv420p",
                "-threads", "2", "-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2", "-movflags", "+faststart",
                directory + "/theirs-\(index).mp4"
            ])
            guard result.status == 0 else { throw BenchError("ffmpeg failed: \(result.errors.suffix(300))") }
            theirs = min(theirs, now() - start)
            theirCPU = min(theirCPU, cpuSeconds(RUSAGE_CHILDREN) - cpu)
            // `-benchmark` ends with "bench: maxrss=…kB".
            if let range = result.errors.range(of: "maxrss="),
                let kilobytes = Double(result.errors[range.upperBound...].prefix { $0.isNumber })
            {
                theirPeak = max(theirPeak, kilobytes / 1024)
            }
        }
        return [
            Figure(
                name: "video.1080p_30s.transcodes_per_minute", value: 60 / ours, unit: "transcodes/min",
                baseline: 60 / theirs, baselineName: "the ffmpeg command line, the same job",
                target: "≥ 0.77× (≤ 1.3× its time)"),
            Figure(
                name: "video.1080p_30s.seconds", value: ours, unit: "s", baseline: theirs,
                baselineName: "the ffmpeg command line: s"),
            Figure(
                name: "video.1080p_30s.cpu_seconds", value: ourCPU, unit: "CPU-s", baseline: theirCPU,
                baselineName: "the ffmpeg command line: CPU-s"),
            Figure(
                name: "video.1080p_30s.peak_rss", value: ourPeak,
                unit: reset ? "MiB (VmHWM of the transcodes)" : "MiB (VmHWM of the whole run)",
                baseline: theirPeak > 0 ? theirPeak : nil, baselineName: "the ffmpeg command line's maxrss, MiB",
                target: "≤ 300 MiB")
        ]
    }

    /// User plus system CPU time of `who` (this process, or its waited-for children), in seconds.
    private func cpuSeconds(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
