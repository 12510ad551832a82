import Dispatch
import Foundation
import MicroHTTPD
import Timeline
import TimelineHTTP

/// `timeline serve`: the HTTP API (SPEC.md) on libmicrohttpd.
enum ServeCommand {
    static let help = """
    usage: timeline serve [--db PATH] [--listen HOST:PORT] [--nats URL,…] [--cors-origin ORIGIN]… [--demo]

    Serves the HTTP API on HOST:PORT (default 127.0.0.1:8080; port 0 picks a free one, printed
    on the first line of standard output). --demo first fills an empty database with the demo
    network. --cors-origin allows a browser origin (repeatable). SIGTERM or SIGINT: stop
    accepting, answer what is in flight, end the streams, close the database, exit 0.
    One JSON access-log line per request goes to standard error.
    """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(["listen", "cors-origin", "demo"])
        if args.has("help") {
            print(help)
            return 0
        }
        var serverOptions = HTTPServer.Options()
        let listen = args.value("listen") ?? "127.0.0.1:8080"
        guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]) else {
            throw UsageError("--listen takes HOST:PORT, e.g. 127.0.0.1:8080")
        }
        serverOptions.host = String(listen[..<colon])
        serverOptions.port = port
        var apiOptions = TimelineAPI.Options()
        apiOptions.corsOrigins = Set(args.options["cors-origin"] ?? [])

        let service = try TimelineTool.open(args)
        if args.has("demo"), try service.lastSequence() == 0 { try await DemoCommand.fill(service) }
        let api = TimelineAPI(service: service, options: apiOptions)
        let server = try HTTPServer(options: serverOptions, handler: api.answer)
        let host = serverOptions.host.contains(":") ? "[\(serverOptions.host)]" : serverOptions.host
        emit("listening on http://\(host):\(server.port)")

        await waitForTermination()
        FileHandle.standardError.write(Data("timeline serve: stopping\n".utf8))
        api.stop()
        server.stop()
        TimelineTool.close(service)
        return 0
    }

    /// Returns at the first SIGTERM or SIGINT.
    static func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = NSLock()
            var resumed = false
            var sources: [DispatchSourceSignal] = []
            for signalNumber in [SIGTERM, SIGINT] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler {
                    once.lock()
                    defer { once.unlock() }
                    guard !resumed else { return }
                    resumed = true
                    for source in sources { source.cancel() }
                    continuation.resume()
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
