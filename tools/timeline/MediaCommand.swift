import Foundation
import JSONModel
import Timeline

/// `timeline media reprocess`: variants for the posts written before the image pipeline.
enum MediaCommand {
    static let help = """
        usage: timeline media reprocess [--db PATH] [--json]

        Sends the images of posts written before the image pipeline (stored as they were uploaded)
        through it: each gets its full, feed and thumb variants and its width and height, recorded
        in the log as a PostImageProcessed event (so a rebuild never decodes an image again). The
        image a post was made from stays stored under its id. Prints a line per post (processed, or
        skipped with the reason, e.g. an image that does not decode) and a summary; --json prints
        one JSON object a line instead. Stop it at any time: the next run carries on with the posts
        still without variants, and a run with nothing left to do changes nothing and says so.
        Exit code 0 when the run finished (skipped images included), 1 on a failure.
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(["json"])
        guard !args.has("help"), args.positional == ["reprocess"] else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        let service = try TimelineTool.open(args, existing: true)
        defer { TimelineTool.close(service) }
        let json = args.has("json")
        let report = try service.reprocessMedia { item in
            switch item.outcome {
            case .success(let e):
                if json {
                    try? emitJSON(
                        [
                            "post": .string(item.post.rawValue),
                            "processed": [
                                "width": .integer(e.width), "height": .integer(e.height),
                                "variants": [
                                    "full": .string(e.variants.full.rawValue),
                                    "feed": .string(e.variants.feed.rawValue),
                                    "thumb": .string(e.variants.thumb.rawValue)
                                ]
                            ]
                        ] as JSONValue)
                } else {
                    emit("processed \(item.post) \(e.width)×\(e.height)")
                }
            case .failure(let error):
                if json {
                    try? emitJSON(["post": .string(item.post.rawValue), "error": JSONOutput.error(error)] as JSONValue)
                } else {
                    emit("skipped   \(item.post) \(error.code.rawValue): \(error.message)")
                }
            }
        }
        if json {
            try emitJSON(
                [
                    "summary": [
                        "processed": .integer(report.processed), "failed": .integer(report.failed),
                        "alreadyProcessed": .integer(report.alreadyProcessed)
                    ]
                ] as JSONValue)
        } else if report.changedNothing && report.failed == 0 {
            emit("nothing to do: every post has its variants (\(report.alreadyProcessed))")
        } else {
            emit(
                "processed \(report.processed), skipped \(report.failed) (not decodable), already processed \(report.alreadyProcessed)"
                    + (report.changedNothing ? ": nothing changed" : ""))
        }
        return 0
    }
}
