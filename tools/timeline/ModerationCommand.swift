import Foundation
import Timeline

/// `timeline moderation`: the operator's report queue.
enum ModerationCommand {
    static let help = """
    usage: timeline moderation [--db PATH] list [--json]

    list   the reported posts, the most recently reported first: post, count of distinct
           reporters, reporters and their reasons (--json: one JSON array)
    """

    static func run(_ args: Arguments) async throws -> Int32 {
        guard !args.has("help"), let verb = args.positional.first else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        switch verb {
        case "list":
            let service = try TimelineTool.open(args)
            defer { TimelineTool.close(service) }
            let queue = try service.reportQueue()
            if args.has("json") {
                let items: [[String: Any]] = queue.map { entry in
                    ["post": entry.post.rawValue, "count": entry.count, "newestAt": entry.newestAt,
                     "reports": zip(entry.reporters, entry.reasons).map { ["reporter": $0.rawValue, "reason": $1] }]
                }
                let data = try JSONSerialization.data(withJSONObject: items, options: [.sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
            } else {
                if queue.isEmpty { print("no reported posts") }
                for entry in queue {
                    print("\(entry.post.rawValue)  \(entry.count) report\(entry.count == 1 ? "" : "s")")
                    for (reporter, reason) in zip(entry.reporters, entry.reasons) { print("  \(reporter.rawValue): \(reason)") }
                }
            }
            return 0
        default:
            throw UsageError("unknown moderation command \(verb)")
        }
    }
}
