internal import CNATS
import Glibc

/// A connection to a NATS cluster (any of `urls`), reconnecting by itself. Thread-safe.
public final class NATSConnection: @unchecked Sendable {
    let handle: OpaquePointer

    /// Connects to the first reachable server of `urls` (`nats://host:port`).
    public init(urls: [String], timeoutMilliseconds: Int64 = 2_000) throws(NATSError) {
        var options: OpaquePointer?
        try check(natsOptions_Create(&options), "create options")
        defer { natsOptions_Destroy(options) }
        var cStrings = urls.map { strdup($0) }
        defer { for s in cStrings { free(s) } }
        let status = cStrings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                natsOptions_SetServers(options, $0, Int32(buffer.count))
            }
        }
        try check(status, "set servers")
        try check(natsOptions_SetTimeout(options, timeoutMilliseconds), "set timeout")
        try check(natsOptions_SetMaxReconnect(options, -1), "set max reconnect")
        try check(natsOptions_SetReconnectWait(options, 100), "set reconnect wait")
        var connection: OpaquePointer?
        try check(natsConnection_Connect(&connection, options), "connect to \(urls.joined(separator: ","))")
        handle = connection!
    }

    deinit { natsConnection_Destroy(handle) }

    /// A JetStream context on this connection; API calls wait up to `waitMilliseconds`.
    public func jetStream(waitMilliseconds: Int64 = 5_000) throws(NATSError) -> JetStream {
        var options = jsOptions()
        try check(jsOptions_Init(&options), "init JetStream options")
        options.Wait = waitMilliseconds
        var context: OpaquePointer?
        try check(natsConnection_JetStream(&context, handle, &options), "open JetStream")
        return JetStream(context!, connection: self)
    }
}
