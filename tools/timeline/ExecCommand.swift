import Foundation
import Timeline

/// `timeline exec`: the JSON-lines contract. One response line per request line, each written
/// only after its command is durably committed.
enum ExecCommand {
    static let help = """
        usage: timeline exec [--db PATH] < requests.jsonl

        Reads one JSON object per line (a command or a query) and writes one JSON result per line.
        A line longer than 16 MiB is not read further: it is answered with payload_too_large.
        Exits 0 unless the database cannot be opened.
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown([])
        if args.has("help") {
            print(help)
            return 0
        }
        let service = try TimelineTool.open(args)
        let session = ExecSession(service: service)
        // Videos uploaded (`uploadVideo`) are transcoded while the session runs; at its end the
        // one being transcoded is finished, and the rest wait for the next session or server.
        let videoWorker = VideoWorker(service: service)
        videoWorker.start()
        var reader = LineReader(fileDescriptor: STDIN_FILENO)
        while let line = reader.next() {
            emit(await session.handle(line))
        }
        await videoWorker.stop()
        TimelineTool.close(service)
        return 0
    }
}
