import Foundation
import JSONModel
import TimelineCluster
import Timeline
import TimelineHTTP

/// `timeline <subcommand>`: the command-line face of the library.
@main
struct TimelineTool {
    static let usage = """
        usage: timeline <command> [options]

        commands:
          demo      build a small lively network in ./timeline.db and show it
          serve     the HTTP API for the apps (default http://127.0.0.1:8080; --demo fills an empty database)
          exec      run JSON-lines commands and queries from stdin (one result line each)
          query     answer one query as JSON, e.g. `timeline query timeline --user @alice`
          rebuild   replay the log into fresh read models and switch (blue/green); --verify, --list
          audit     list / show / stats / tail / head / verify the event log
          anchor    `timeline anchor init --key PATH`: the key that signs checkpoints of the log
          backup    hot, consistent, compacted copy of the database
          restore   bring a backup back into a new database directory
          bench     measure against raw LMDB on a synthetic network (--scale small|medium|large)
          erase-user  erase a user (by id or @name) as the operator: right to erasure
          export-user a user's data as a zip archive: `timeline export-user --user @alice --out alice.zip`
          moderation  the operator's report queue: `timeline moderation list | remove POST --reason R | dismiss POST`
          instance  the instance's texts and rules: `timeline instance show | set FIELD TEXT | rules add TEXT`
          announcements  the operator's announcements: `timeline announcements list | add TEXT | remove ID`
          federation  the servers this one federates with: `timeline federation block HOST | unblock HOST | blocks | peers`
          import    import a Firebase export: `timeline import firebase EXPORT.json`
          media     `timeline media reprocess`: variants for posts from before the image pipeline
          password-reset  issue a one-time token to set a user's password (operator)
          openapi   print the HTTP API's OpenAPI 3.1 document (what `serve` answers at /v1/openapi.json;
                    --mastodon: the Mastodon API's, at /api/openapi.json)

        common options:
          --db PATH   the database directory (default ./timeline.db)
          --nats URLS a cluster node: the replicated log is on these NATS servers (comma-separated)
          --map-size SIZE  cap each of the database's maps (log, read models) at SIZE bytes
                      (K, M, G suffixes: 64M); writes past it fail with storage_full
          --anchor-key PATH  sign checkpoints of the log's head after commits (see `timeline anchor`);
                      --anchor-log FILE puts them somewhere else than PATH.checkpoints
          --accept-missing-keys
                      open a database whose keys/ (or key bucket) is missing: every sealed
                      personal field then reads as erased (otherwise such an open is refused)
          --hide-after-reports N
                      hide a post reported by N distinct users (whose reports the operator has
                      not dismissed) from everyone but its author (default 5); a report counts
                      only from an established account the author does not block, once per address
          --report-min-account-age HOURS
                      how old an account must have been when it reported, for the report to
                      count towards hiding (default 24; 0 counts every account)
          --report-min-activity N
                      how many posts and comments it must have made (default 1)
          --video-max-bytes SIZE  the largest video upload taken (K, M, G suffixes; default 100M)
          --video-max-seconds S   the longest video taken, in seconds (default 180)
          --help      help for a command
        """

    static func main() async {
        var words = Array(CommandLine.arguments.dropFirst())
        guard !words.isEmpty else {
            print(usage)
            exit(2)
        }
        let name = words.removeFirst()
        do {
            let args = try Arguments(words)
            let code: Int32
            switch name {
            case "exec": code = try await ExecCommand.run(args)
            case "serve": code = try await ServeCommand.run(args)
            case "query": code = try await QueryCommand.run(args)
            case "demo": code = try await DemoCommand.run(args)
            case "rebuild": code = try await RebuildCommand.run(args)
            case "audit": code = try await AuditCommand.run(args)
            case "anchor": code = try AnchorCommand.run(args)
            case "backup": code = try await BackupCommand.backup(args)
            case "restore": code = try await BackupCommand.restore(args)
            case "bench": code = try await BenchCommand.run(args)
            case "erase-user": code = try await eraseUser(args)
            case "export-user": code = try await ExportCommand.run(args)
            case "moderation": code = try await ModerationCommand.run(args)
            case "instance": code = try await InstanceCommand.run(args)
            case "federation": code = try await FederationCommand.run(args)
            case "announcements": code = try await AnnouncementsCommand.run(args)
            case "import": code = try await ImportCommand.run(args)
            case "media": code = try await MediaCommand.run(args)
            case "password-reset": code = try await ImportCommand.passwordReset(args)
            case "openapi": code = try printOpenAPI(args)
            case "help", "--help", "-h":
                print(usage)
                code = 0
            default: throw UsageError("unknown command \(name)")
            }
            exit(code)
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("timeline: \(error)\n\n\(usage)\n".utf8))
            exit(2)
        } catch {
            FileHandle.standardError.write(Data("timeline: \(error)\n".utf8))
            exit(1)
        }
    }

    /// The options `open` reads (every other option of `timeline query` is a query parameter).
    static let openOptions: Set<String> = [
        "db", "nats", "map-size", "anchor-key", "anchor-log", "hide-after-reports",
        "report-min-account-age", "report-min-activity", "video-max-bytes", "video-max-seconds"
    ]

    /// Opens the service for a tool on the database at `--db`, creating it unless `existing`
    /// (the operator's tools and queries work on a database that is there: a mistyped path
    /// must not leave an empty one behind). `TIMELINE_PASSWORD_COST=minimum` lowers the
    /// argon2id cost, for test databases only. `--anchor-key` signs checkpoints unless
    /// `anchored` is false (audit must open a log that no longer extends its anchor, to say so).
    static func open(_ args: Arguments, anchored: Bool = true, existing: Bool = false) throws -> TimelineService {
        if existing, args.value("nats") == nil, !FileManager.default.fileExists(atPath: args.db) {
            throw TimelineError(.notFound, "there is no database at \(args.db) (give --db PATH)")
        }
        var options = TimelineService.Options()
        if ProcessInfo.processInfo.environment["TIMELINE_PASSWORD_COST"] == "minimum" {
            options.passwordCost = .minimum
        }
        // For test servers only: how far ahead a post may be scheduled (Mastodon's 5 minutes otherwise).
        if let lead = ProcessInfo.processInfo.environment["TIMELINE_SCHEDULE_MIN_LEAD_MS"].flatMap(Int64.init) {
            options.scheduleMinimumLead = lead
        }
        // For test servers only: a clock running ahead (a restart "later", without waiting).
        if let offset = ProcessInfo.processInfo.environment["TIMELINE_CLOCK_OFFSET_MS"].flatMap(Int64.init) {
            options.clock = SystemClock(offset: offset)
        }
        if let urls = args.value("nats") {
            options.cluster = ClusterOptions(urls: urls.split(separator: ",").map(String.init))
        }
        if let cap = try args.mapSize { options.maxMapSize = cap }
        if anchored, let key = args.value("anchor-key") {
            options.anchor = AnchorOptions(keyPath: key, checkpointsPath: args.value("anchor-log"))
        }
        options.acceptMissingKeys = args.has("accept-missing-keys")
        // `serve`'s: endpoints at IP addresses are accepted only when the worker may reach them.
        options.privatePushEndpoints = args.has("push-allow-private")
        if let text = args.value("hide-after-reports") {
            guard let count = Int(text), count >= 1 else {
                throw UsageError("--hide-after-reports takes a number of users, at least 1 (got \(text))")
            }
            options.hideAfterReports = count
        }
        if let text = args.value("report-min-account-age") {
            guard let hours = Double(text), hours >= 0, hours < 1e6 else {
                throw UsageError("--report-min-account-age takes hours, 0 or more (got \(text))")
            }
            options.reportMinimumAccountAge = Int64(hours * 3600 * 1000)
        }
        if let text = args.value("report-min-activity") {
            guard let count = Int(text), count >= 0 else {
                throw UsageError("--report-min-activity takes a number, 0 or more (got \(text))")
            }
            options.reportMinimumActivity = count
        }
        if let text = args.value("video-max-bytes") {
            guard let bytes = Arguments.size(text), bytes > 0, bytes <= 4 << 30 else {
                throw UsageError("--video-max-bytes takes a size up to 4G, such as 100M (got \(text))")
            }
            options.maxVideoBytes = bytes
        }
        if let text = args.value("video-max-seconds") {
            guard let seconds = Double(text), seconds > 0, seconds <= 36_000 else {
                throw UsageError("--video-max-seconds takes seconds, more than 0 (got \(text))")
            }
            options.maxVideoSeconds = seconds
        }
        return try TimelineService(path: args.db, options: options)
    }

    /// Closes `service`, saying on stderr if the last anchor checkpoint could not be written.
    static func close(_ service: TimelineService) {
        service.close()
        if let failure = service.anchorStatus?.failure {
            FileHandle.standardError.write(
                Data("timeline: warning: the last anchor checkpoint was not written: \(failure)\n".utf8))
        }
    }
}

/// `timeline erase-user ID|@name`: the operator's right-to-erasure command.
func eraseUser(_ args: Arguments) async throws -> Int32 {
    try args.refuseUnknown([])
    guard let target = args.positional.first, !args.has("help") else {
        print("usage: timeline erase-user [--db PATH] USER_ID|@username")
        return args.has("help") ? 0 : 2
    }
    let service = try TimelineTool.open(args)
    defer { TimelineTool.close(service) }
    let id = target.hasPrefix("@") ? try service.user(named: String(target.dropFirst())).id.rawValue : target
    _ = try await service.execute(.eraseUser(user: id), as: .operator)
    print("erased \(id): posts, comments, likes and follows removed; personal data sealed with a destroyed key")
    return 0
}

/// `timeline openapi`: the HTTP API's OpenAPI document, generated from the route table.
func printOpenAPI(_ args: Arguments) throws -> Int32 {
    try args.refuseUnknown(["mastodon"])
    guard args.positional.isEmpty, !args.has("help") else {
        print(
            "usage: timeline openapi [--mastodon]   (prints the OpenAPI 3.1 document of `timeline serve`'s HTTP API, or of its Mastodon API)"
        )
        return args.has("help") ? 0 : 2
    }
    FileHandle.standardOutput.write(Data(try args.has("mastodon") ? MastodonOpenAPI.bytes() : OpenAPI.bytes()))
    return 0
}

/// Writes `value` as one compact JSON line (keys sorted).
func emitJSON(_ value: some Encodable) throws {
    emit(String(decoding: try JSONValueEncoder.bytes(value), as: UTF8.self))
}

/// Writes one line to stdout and flushes it at once.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
