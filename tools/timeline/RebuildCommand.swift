import Foundation
import JSONModel
import Synchronization
import Timeline

/// `timeline rebuild`: replays the log into fresh read models, then switches (blue/green).
enum RebuildCommand {
    static let help = """
        usage: timeline rebuild [--db PATH] [--projection NAME]... [--verify] [--json]
               timeline rebuild [--db PATH] --list [--json]

        Replays the log into new read models while the live ones keep serving, catches up, then
        switches atomically and drops the old ones. Progress goes to stderr on a terminal.
          --projection NAME  rebuild only NAME (and what it depends on); repeatable
          --verify           build without switching; print every difference from the live
                             read models and exit 1 if there is any
          --list             the projections with their generation, checkpoint and entries
          --chunk-size N     events per write transaction (default 5000)
        projections: \(ProjectionName.allCases.map(\.rawValue).joined(separator: " "))
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(["json", "list", "verify", "chunk-size", "projection", "stall-after-chunks"])
        if args.has("help") {
            print(help)
            return 0
        }
        let (status, switched) = try rebuild(args)
        // The old generation's pages are free now; with the database closed, and nobody else
        // having it open, rewrite the read models' file without them.
        if switched, let (before, after) = try TimelineService.compactReadModels(path: args.db), !args.has("json") {
            print(
                String(
                    format: "compacted the read models: %.1f MiB -> %.1f MiB", Double(before) / 1_048_576,
                    Double(after) / 1_048_576))
        }
        return status
    }

    /// Runs the rebuild (or `--list`); returns the exit status and whether it switched.
    private static func rebuild(_ args: Arguments) throws -> (Int32, switched: Bool) {
        let service = try TimelineTool.open(args, existing: true)
        defer { service.close() }
        if args.has("list") { return (try list(service, json: args.has("json")), false) }
        var options = RebuildOptions(verifyOnly: args.has("verify"))
        if let raw = args.value("chunk-size") {
            guard let size = Int(raw), size > 0 else { throw UsageError("--chunk-size takes a positive number") }
            options.chunkSize = size
        }
        if let names = args.options["projection"] {
            options.projections = try names.flatMap { $0.split(separator: ",") }.map { raw in
                guard let name = ProjectionName(rawValue: String(raw)) else {
                    throw UsageError("unknown projection \(raw)")
                }
                return name
            }
        }
        // Test hook (undocumented): stop making progress after N chunks, so a test can kill
        // the process at a known point in the middle of a rebuild.
        let stallAfter = args.value("stall-after-chunks").flatMap(Int.init)
        if let stallAfter {
            let chunks = Mutex(0)
            options.progress = { _ in
                if chunks.withLock({
                    $0 += 1
                    return $0
                }) >= stallAfter {
                    emit("stalled")
                    while true { sleep(60) }
                }
            }
        } else if isatty(2) == 1 {
            options.progress = { p in
                let rate = p.elapsed > 0 ? Double(p.applied) / p.elapsed : 0
                let eta = rate > 0 ? Double(p.head - min(p.head, p.applied)) / rate : 0
                FileHandle.standardError.write(
                    Data(
                        String(
                            format: "\r  %@ / %@ events  %@ events/s  ETA %.0fs   ",
                            "\(p.applied)", "\(p.head)", "\(Int(rate))", eta
                        ).utf8))
            }
        }
        let report = try service.rebuild(options)
        if isatty(2) == 1 { FileHandle.standardError.write(Data("\n".utf8)) }
        if args.has("json") {
            try emitJSON(
                RebuildJSON(
                    events: report.events, seconds: report.seconds, switched: report.switched,
                    eventsPerSecond: report.seconds > 0 ? Double(report.events) / report.seconds : 0,
                    projections: report.projections.map {
                        ProjectionJSON(
                            name: $0.name.rawValue, events: $0.events, seconds: $0.seconds,
                            eventsPerSecond: $0.eventsPerSecond)
                    },
                    differences: report.differences.map { $0.description }))
        } else {
            for difference in report.differences { print("DIFF \(difference)") }
            print(
                String(
                    format: "%@ %llu events in %.2fs (%.0f events/s)",
                    report.switched ? "rebuilt and switched:" : "built (not switched):",
                    report.events, report.seconds, report.seconds > 0 ? Double(report.events) / report.seconds : 0))
            print(pad("projection", 12) + pad("events", 12) + pad("apply s", 10) + "events/s")
            for p in report.projections {
                print(
                    pad(p.name.rawValue, 12) + pad("\(p.events)", 12) + pad(String(format: "%.3f", p.seconds), 10)
                        + String(format: "%.0f", p.eventsPerSecond))
            }
            if options.verifyOnly {
                print(
                    report.differences.isEmpty
                        ? "verify: rebuilt read models equal the live ones"
                        : "verify: \(report.differences.count) differences")
            }
        }
        return (report.differences.isEmpty ? 0 : 1, report.switched)
    }

    static func list(_ service: TimelineService, json: Bool) throws -> Int32 {
        let status = try service.projectionStatus()
        if json {
            for s in status {
                try emitJSON(
                    [
                        "name": .string(s.name.rawValue), "generation": .integer(s.generation),
                        "checkpoint": .integer(s.checkpoint), "entries": .integer(s.entries)
                    ] as JSONValue)
            }
        } else {
            print(pad("projection", 12) + pad("generation", 12) + pad("checkpoint", 12) + "entries")
            for s in status {
                print(
                    pad(s.name.rawValue, 12) + pad("\(s.generation)", 12) + pad("\(s.checkpoint)", 12) + "\(s.entries)")
            }
        }
        return 0
    }
}

/// Left-aligns `text` in a column of `width`.
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

/// `rebuild --json`'s line: the replay's size and speed, per projection too, and what
/// `--verify` found different.
struct RebuildJSON: Encodable {
    let events: UInt64
    let seconds: Double
    let switched: Bool
    let eventsPerSecond: Double
    let projections: [ProjectionJSON]
    let differences: [String]
}

/// One projection's replay.
struct ProjectionJSON: Encodable {
    let name: String
    let events: UInt64
    let seconds: Double
    let eventsPerSecond: Double
}
