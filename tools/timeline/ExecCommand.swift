import Foundation
import Timeline

/// `timeline exec`: the JSON-lines contract. One response line per request line, each written
/// only after its command is durably committed.
enum ExecCommand {
    static let help = """
    usage: timeline exec [--db PATH] < requests.jsonl

    Reads one JSON object per line (a command or a query) and writes one JSON result per line.
    Exits 0 unless the database cannot be opened.
    """

    static func run(_ args: Arguments) async throws -> Int32 {
        if args.has("help") {
            print(help)
            return 0
        }
        let service = try TimelineTool.open(args)
        let session = ExecSession(service: service)
        while let line = readLine(strippingNewline: true) {
            emit(await session.handle(line: line))
        }
        TimelineTool.close(service)
        return 0
    }
}
