import Foundation
import JSONModel
import Timeline

/// `timeline audit`: list, filter, show, count, follow and verify the event log.
enum AuditCommand {
    static let help = """
        usage: timeline audit [--db PATH] list [filters] [--limit N] [--reverse] [--follow] [--json]
               timeline audit [--db PATH] show SEQ|EVENT_ID
               timeline audit [--db PATH] stats [--json]
               timeline audit [--db PATH] tail [filters] [--json]
               timeline audit [--db PATH] head [--json]
               timeline audit [--db PATH] verify [--anchor FILE|SEQ:HASH [--anchor-public-key HEX|FILE]] [--json]

        filters: --type T[,T…]  --actor ID|@name  --stream S  --user ID|@name  --post ID
                 --since/--until (ISO 8601, or relative: 30s 15m 2h 7d)  --from/--to SEQ
        verify exits 1 and names the first bad sequence number when the log was tampered with.
        head prints the log's head as SEQ:HASH: record it outside the machine, and later
        `verify --anchor SEQ:HASH` fails unless the log still extends it. `verify --anchor FILE`
        checks every signed checkpoint of an anchor file (see `timeline anchor`) the same way.
        Without an anchor, verify cannot tell a log rewritten from some event on (every later hash
        recomputed) or cut short from a genuine one.
        Password hashes are always redacted.
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(
            [
                "json", "follow", "reverse", "limit", "type", "actor", "stream", "user", "post", "since", "until",
                "from", "to", "anchor", "anchor-public-key"
            ],
            // It opens the log unanchored (to say when it no longer extends its anchor); it checks one with --anchor.
            opening: Arguments.opening.subtracting(["anchor-key", "anchor-log"]))
        guard !args.has("help"), let verb = args.positional.first else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        let service = try TimelineTool.open(args, anchored: false, existing: true)
        defer { service.close() }
        let json = args.has("json")
        switch verb {
        case "list":
            let filter = try self.filter(args, service)
            var printer = EventPrinter(service: service, json: json)
            var remaining =
                try args.value("limit").map { raw -> Int in
                    guard let n = Int(raw), n > 0 else { throw UsageError("--limit takes a positive number") }
                    return n
                } ?? Int.max
            var last: UInt64 = 0
            try service.auditEvents(filter, reverse: args.has("reverse")) { envelope in
                printer.print(envelope)
                last = max(last, envelope.sequence)
                remaining -= 1
                return remaining > 0
            }
            if args.has("follow") {
                try await follow(service, filter, from: max(last, try service.lastSequence()) + 1, printer: &printer)
            }
            return 0
        case "tail":
            var printer = EventPrinter(service: service, json: json)
            try await follow(
                service, try filter(args, service), from: try service.lastSequence() + 1, printer: &printer)
            return 0
        case "show":
            guard args.positional.count == 2 else { throw UsageError("show takes a sequence number or event id") }
            let envelope = try service.event(args.positional[1])
            if json {
                print(envelope.jsonLine())  // one JSON line, as every --json output
                return 0
            }
            let pretty = JSONOutput.pretty(try JSONValueEncoder.encode(envelope.jsonObject()))
            print(String(decoding: pretty, as: UTF8.self), terminator: "")
            return 0
        case "stats": return try stats(service, json: json)
        case "head":
            let head = try service.head()
            if json {
                try emitJSON(["sequence": .integer(head.sequence), "hash": .string(head.hashHex)] as JSONValue)
            } else {
                print(head)
            }
            return 0
        case "verify":
            let anchor = try self.anchor(args)
            let report = try service.verifyLog()
            let anchorReport = try anchor.map { anchor throws(TimelineError) in try service.verifyAnchor(anchor) }
            let valid = report.isValid && anchorReport?.isValid != false
            if json {
                try emitJSON(
                    VerifyJSON(
                        valid: valid, eventsChecked: report.eventsChecked, firstBadSequence: report.firstBadSequence,
                        problem: report.firstBadSequence.map { _ in report.problem ?? "" },
                        indexedBefore: report.indexedBefore, anchor: anchorReport.map(AnchorJSON.init)))
                return valid ? 0 : 1
            }
            if let bad = report.firstBadSequence {
                print("TAMPERED: first bad sequence number \(bad): \(report.problem ?? "")")
            } else if let behind = report.indexedBefore {
                print(
                    "ok: \(report.eventsChecked) events; hash chain and sequence verified, the stream and event-id indexes up to event "
                        + "\(behind - 1): the later ones are not indexed yet (the next writer to open the database catches them up)"
                )
            } else {
                print(
                    "ok: \(report.eventsChecked) events; hash chain, sequence, stream index and event-id index verified"
                )
            }
            if let anchorReport {
                if !anchorReport.unreadableLines.isEmpty {
                    print(
                        "note: skipped \(anchorReport.unreadableLines.count) unreadable line(s) of the anchor file: \(anchorReport.unreadableLines.prefix(10).map(String.init).joined(separator: ", "))"
                    )
                }
                if let problem = anchorReport.problem {
                    print("TAMPERED: \(problem)")
                } else {
                    print(
                        "ok: the log extends the anchor (\(anchorReport.headsChecked) anchored head(s), latest \(anchorReport.latest.map(String.init(describing:)) ?? "-"))"
                    )
                }
            }
            return valid ? 0 : 1
        default:
            throw UsageError("unknown audit command \(verb)")
        }
    }

    /// `--anchor SEQ:HASH`, or `--anchor FILE` with `--anchor-public-key HEX|FILE`.
    static func anchor(_ args: Arguments) throws -> Anchor? {
        guard let raw = args.value("anchor") else { return nil }
        if let head = LogHead(raw) { return .head(head) }
        guard FileManager.default.fileExists(atPath: raw) else {
            throw UsageError(
                "--anchor takes SEQ:HASH (from `timeline audit head`) or an anchor file; \(raw) is neither")
        }
        guard let key = args.value("anchor-public-key") else {
            throw UsageError(
                "--anchor FILE needs --anchor-public-key HEX|FILE (printed by `timeline anchor init`) to check its signatures"
            )
        }
        return .file(path: raw, publicKey: try AnchorKey.publicKey(key))
    }

    /// `audit verify --json`'s line.
    struct VerifyJSON: Encodable {
        let valid: Bool
        let eventsChecked: UInt64
        let firstBadSequence: UInt64?
        let problem: String?
        let indexedBefore: UInt64?
        let anchor: AnchorJSON?
    }

    /// What `audit verify --json` says of the anchor's checkpoints.
    struct AnchorJSON: Encodable {
        let valid: Bool
        let headsChecked: Int
        let unreadableLines: [Int]
        let latest: String?
        let divergesAt: UInt64?
        let problem: String?

        init(_ report: AnchorReport) {
            valid = report.isValid
            headsChecked = report.headsChecked
            unreadableLines = report.unreadableLines
            latest = report.latest?.description
            divergesAt = report.divergesAt
            problem = report.problem
        }
    }

    /// `audit stats --json`'s line.
    struct StatsJSON: Encodable {
        let events: UInt64
        let logBytes: Int
        let databaseBytes: Int
        let byType: [String: Int]
        let byDay: [String: Int]
        let first: String
        let last: String
        let lag: [String: UInt64]
    }

    /// Prints events committed from `sequence` on, as they come, until interrupted.
    static func follow(
        _ service: TimelineService, _ filter: AuditFilter, from sequence: UInt64, printer: inout EventPrinter
    ) async throws {
        for try await envelope in service.subscribe(from: sequence, interval: .milliseconds(100))
        where filter.matches(envelope) {
            printer.print(envelope)
        }
    }

    static func filter(_ args: Arguments, _ service: TimelineService) throws -> AuditFilter {
        var filter = AuditFilter()
        func user(_ raw: String) throws -> String {
            guard raw.hasPrefix("@") else { return raw }
            return try service.user(named: String(raw.dropFirst())).id.rawValue
        }
        if let types = args.value("type") {
            filter.types = Set(
                try types.split(separator: ",").map { raw in
                    guard let type = EventType(rawValue: String(raw)) else {
                        throw UsageError("unknown event type \(raw)")
                    }
                    return type
                })
        }
        filter.actor = try args.value("actor").map(user)
        filter.stream = args.value("stream")
        filter.user = try args.value("user").map(user).map(UserID.init)
        filter.post = args.value("post").map(PostID.init)
        filter.since = try args.value("since").map(parseTime)
        filter.until = try args.value("until").map(parseTime)
        filter.from = try args.value("from").map(sequence)
        filter.to = try args.value("to").map(sequence)
        return filter
    }

    static func sequence(_ raw: String) throws -> UInt64 {
        guard let value = UInt64(raw) else { throw UsageError("\(raw) is not a sequence number") }
        return value
    }

    /// ISO 8601 (date, or date and time) or a relative age such as `2h`, in ms since 1970.
    static func parseTime(_ raw: String) throws -> Int64 {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]
        if let unit = raw.last, let scale = units[unit], let amount = Double(raw.dropLast()) {
            return Int64((Date().timeIntervalSince1970 - amount * scale) * 1000)
        }
        let full = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        guard let date = full.date(from: raw) ?? fractional.date(from: raw) ?? day.date(from: raw) else {
            throw UsageError("\(raw) is neither ISO 8601 nor a relative time like 2h")
        }
        return Int64(date.timeIntervalSince1970 * 1000)
    }

    static func stats(_ service: TimelineService, json: Bool) throws -> Int32 {
        let stats = try service.logStatistics()
        let iso = ISO8601DateFormatter()
        func time(_ e: EventEnvelope?) -> String {
            e.map { iso.string(from: Date(timeIntervalSince1970: Double($0.timestamp) / 1000)) } ?? "-"
        }
        if json {
            try emitJSON(
                StatsJSON(
                    events: stats.events, logBytes: stats.logBytes, databaseBytes: stats.databaseBytes,
                    byType: Dictionary(uniqueKeysWithValues: stats.byType.map { ($0.key.rawValue, $0.value) }),
                    byDay: stats.byDay, first: time(stats.first), last: time(stats.last),
                    lag: Dictionary(uniqueKeysWithValues: stats.lag.map { ($0.key.rawValue, $0.value) })))
            return 0
        }
        print("events      \(stats.events)  (first \(time(stats.first)), last \(time(stats.last)))")
        print("log size    \(stats.logBytes) bytes; database \(stats.databaseBytes) bytes")
        print("\nby type")
        for (type, count) in stats.byType.sorted(by: { $0.value > $1.value }) {
            print("  " + pad(type.rawValue, 16) + "\(count)")
        }
        print("\nby day (UTC)")
        for (day, count) in stats.byDay.sorted(by: { $0.key < $1.key }) { print("  " + pad(day, 16) + "\(count)") }
        print("\nprojection lag (events behind the log)")
        for name in ProjectionName.allCases { print("  " + pad(name.rawValue, 16) + "\(stats.lag[name] ?? 0)") }
        return 0
    }
}

/// Prints events as an aligned table (users as `@username`) or as JSON lines.
struct EventPrinter {
    let service: TimelineService
    let json: Bool
    private var names: [UserID: String] = [:]
    private var headerShown = false
    private let iso = ISO8601DateFormatter()

    init(service: TimelineService, json: Bool) {
        self.service = service
        self.json = json
    }

    private mutating func name(_ id: UserID) -> String {
        if let known = names[id] { return known }
        let name = (try? service.user(id)).map { "@" + $0.username } ?? id.rawValue
        names[id] = name
        return name
    }

    mutating func print(_ e: EventEnvelope) {
        if json {
            emit(e.jsonLine())
            return
        }
        if !headerShown {
            emit(pad("SEQ", 8) + pad("TIME (UTC)", 22) + pad("ACTOR", 18) + pad("TYPE", 16) + "SUMMARY")
            headerShown = true
        }
        for id in e.event.users where names[id] == nil { _ = name(id) }
        let actor = e.actor == EventEnvelope.systemActor ? "system" : name(UserID(e.actor))
        let time = iso.string(from: Date(timeIntervalSince1970: Double(e.timestamp) / 1000))
        let known = names
        let summary = e.event.summary { known[$0] ?? $0.rawValue }
        emit(pad("\(e.sequence)", 8) + pad(time, 22) + pad(actor, 18) + pad(e.type.rawValue, 16) + summary)
    }
}
