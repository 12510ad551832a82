import Foundation
import JSONModel
import Timeline

/// `timeline moderation`: the operator's report queue, and what the operator decides.
enum ModerationCommand {
    static let help = """
        usage: timeline moderation [--db PATH] [--hide-after-reports N] list [--json]
               timeline moderation [--db PATH] remove POST --reason REASON [--json]
               timeline moderation [--db PATH] dismiss POST [--json]
               timeline moderation [--db PATH] grant|revoke|suspend|unsuspend USER_ID|@username [--json]

        list     the reported posts, the most recently reported first: post, count of distinct
                 reporters, whether the reports hide it (N or more, default 5), reporters and
                 their reasons (--json: one JSON array)
        remove   take the post down (a PostRemoved event by the operator): it leaves every list
                 like a deleted post, and its author's activity shows REASON
        dismiss  dismiss the post's standing reports (a ReportsDismissed event): it leaves the
                 queue and is shown again; its reporters cannot report it again, others can
                 (--json: the command's answer, {changed}; remove's is {})
        grant    give the user the moderator role: they work the queue over HTTP
                 (GET /v1/admin/reports, remove, dismiss, suspend); revoke takes it back
        suspend  suspend the account: it cannot sign in, its sessions end, its profile and
                 posts are gone for everyone else; unsuspend lifts it
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(["json", "reason"])
        guard !args.has("help"), let verb = args.positional.first else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        switch verb {
        case "list":
            let service = try TimelineTool.open(args, existing: true)
            defer { TimelineTool.close(service) }
            let queue = try service.reportQueue()
            if args.has("json") {
                // The issue's names: post, reporters, reasons (in the same order), count.
                let items = queue.map { entry in
                    QueueEntryJSON(
                        post: entry.post.rawValue, count: entry.count, newestAt: entry.newestAt, hidden: entry.hidden,
                        reporters: entry.reporters.map(\.rawValue), reasons: entry.reasons)
                }
                print(String(decoding: try JSONValueEncoder.bytes(items), as: UTF8.self))
            } else {
                if queue.isEmpty { print("no reported posts") }
                for entry in queue {
                    print(
                        "\(entry.post.rawValue)  \(entry.count) report\(entry.count == 1 ? "" : "s")\(entry.hidden ? "  (hidden)" : "")"
                    )
                    for (reporter, reason) in zip(entry.reporters, entry.reasons) {
                        print("  \(reporter.rawValue): \(reason)")
                    }
                }
            }
            return 0
        case "remove":
            guard args.positional.count == 2, let reason = args.value("reason") else {
                throw UsageError("usage: timeline moderation remove POST --reason REASON")
            }
            let service = try TimelineTool.open(args, existing: true)
            defer { TimelineTool.close(service) }
            let result = try await service.execute(.removePost(post: args.positional[1], reason: reason), as: .operator)
            if args.has("json") {
                emit(JSONOutput.line(JSONOutput.result(result)))
            } else {
                print("removed \(args.positional[1]): it left every list; its author's activity says why")
            }
            return 0
        case "dismiss":
            guard args.positional.count == 2 else { throw UsageError("usage: timeline moderation dismiss POST") }
            let service = try TimelineTool.open(args, existing: true)
            defer { TimelineTool.close(service) }
            let result = try await service.execute(.dismissReports(post: args.positional[1]), as: .operator)
            if args.has("json") {
                emit(JSONOutput.line(JSONOutput.result(result)))
            } else {
                print(
                    result == .changed(true)
                        ? "dismissed the reports against \(args.positional[1])"
                        : "no standing reports against \(args.positional[1]): nothing to dismiss")
            }
            return 0
        case "grant", "revoke", "suspend", "unsuspend":
            guard args.positional.count == 2 else {
                throw UsageError("usage: timeline moderation \(verb) USER_ID|@username")
            }
            let service = try TimelineTool.open(args, existing: true)
            defer { TimelineTool.close(service) }
            let target = args.positional[1]
            let user = target.hasPrefix("@") ? try service.userID(named: String(target.dropFirst())).rawValue : target
            let command: Command =
                switch verb {
                case "grant": .grantRole(user: user)
                case "revoke": .revokeRole(user: user)
                case "suspend": .suspendUser(user: user)
                default: .unsuspendUser(user: user)
                }
            let result = try await service.execute(command, as: .operator)
            if args.has("json") {
                emit(JSONOutput.line(JSONOutput.result(result)))
            } else {
                print(
                    result == .changed(true)
                        ? "\(verb): done for \(target)" : "\(verb): nothing to change for \(target)")
            }
            return 0
        default:
            throw UsageError("unknown moderation command \(verb)")
        }
    }
}

/// One reported post of `moderation list --json`.
struct QueueEntryJSON: Encodable {
    let post: String
    let count: Int
    let newestAt: Int64
    let hidden: Bool
    let reporters: [String]
    let reasons: [String]
}
