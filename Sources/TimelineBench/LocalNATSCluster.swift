import Foundation
import NATS

/// A three-server NATS JetStream cluster on loopback (Debian's `nats-server`), started by the
/// cluster tests and `timeline bench --cluster`, killed when released.
public final class LocalNATSCluster: @unchecked Sendable {
    public let clientPorts: [Int]
    private let clusterPorts: [Int]
    private let directory: String
    private var processes: [Process?]

    public init(directory: String, size: Int = 3) throws {
        let base = 21_000 + Int(getpid() % 400) * 20 + Int.random(in: 0..<10)
        clientPorts = (0..<size).map { base + $0 }
        clusterPorts = (0..<size).map { base + 10 + $0 }
        self.directory = directory
        processes = Array(repeating: nil, count: size)
        for index in 0..<size { try start(index) }
    }

    public var urls: [String] { clientPorts.map { "nats://127.0.0.1:\($0)" } }

    public func start(_ index: Int) throws {
        let routes = clusterPorts.enumerated().filter { $0.offset != index }.map { "\"nats-route://127.0.0.1:\($0.element)\"" }
        let config = """
        server_name: n\(index)
        listen: 127.0.0.1:\(clientPorts[index])
        jetstream { store_dir: "\(directory)/n\(index)", max_memory_store: 64MB, max_file_store: 1GB }
        cluster { name: timeline-test, listen: 127.0.0.1:\(clusterPorts[index]), routes: [\(routes.joined(separator: ", "))] }
        """
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = "\(directory)/n\(index).conf"
        try config.write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FileManager.default.fileExists(atPath: "/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : "/usr/bin/nats-server")
        process.arguments = ["-c", file]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes[index] = process
    }

    public func kill(_ index: Int) {
        guard let process = processes[index] else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        processes[index] = nil
    }

    /// Waits until JetStream answers with a replicated stream (the meta leader is elected).
    public func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                let js = try NATSConnection(urls: urls).jetStream(waitMilliseconds: 2_000)
                try js.ensureStream(name: "READY", subject: "ready.check", replicas: 3)
                return
            } catch {
                guard Date() < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
    }

    deinit { for index in processes.indices { kill(index) } }
}

