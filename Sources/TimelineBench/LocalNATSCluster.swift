import Foundation
import NATS
import Synchronization

/// A three-server NATS JetStream cluster on loopback (Debian's `nats-server`), started by the
/// cluster tests and `timeline bench --cluster`, killed when released.
public final class LocalNATSCluster: Sendable {
    /// Each server's client port, by index.
    public let clientPorts: [Int]
    private let clusterPorts: [Int]
    private let directory: String
    /// The running server of each index (`nil` once killed); only touched under its lock.
    private let processes: Mutex<[Process?]>

    /// Starts `size` servers on free loopback ports, storing in `directory`.
    public init(directory: String, size: Int = 3) throws {
        let ports = try Self.freePorts(2 * size)
        clientPorts = Array(ports[..<size])
        clusterPorts = Array(ports[size...])
        self.directory = directory
        processes = Mutex(Array(repeating: nil, count: size))
        for index in 0..<size { try start(index) }
    }

    /// The servers' client URLs.
    public var urls: [String] { clientPorts.map { "nats://127.0.0.1:\($0)" } }

    /// Starts server `index` (again, after `kill`), with its ports and store as before.
    public func start(_ index: Int) throws {
        let routes = clusterPorts.enumerated().filter { $0.offset != index }.map {
            "\"nats-route://127.0.0.1:\($0.element)\""
        }
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
        process.executableURL = URL(
            fileURLWithPath: FileManager.default.fileExists(atPath: "/usr/sbin/nats-server")
                ? "/usr/sbin/nats-server" : "/usr/bin/nats-server")
        process.arguments = ["-c", file]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let replaced = processes.withLock { processes in
            defer { processes[index] = process }
            return processes[index]
        }
        replaced.map(Self.stop)
    }

    /// `count` distinct loopback TCP ports that are free now: the kernel picks each (a bind to
    /// port 0), and every socket stays bound until all are picked, so none repeats and none
    /// is in use by another test.
    static func freePorts(_ count: Int) throws(PortAllocationError) -> [Int] {
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw PortAllocationError(errno: errno) }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard bound else { throw PortAllocationError(errno: errno) }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// SIGKILLs server `index` (if running) and waits for it to exit.
    public func kill(_ index: Int) {
        // Taken out under the lock, so of concurrent kills exactly one stops it.
        let process = processes.withLock { processes in
            defer { processes[index] = nil }
            return processes[index]
        }
        process.map(Self.stop)
    }

    private static func stop(_ process: Process) {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// How many servers are running.
    public var runningCount: Int { processes.withLock { $0.count { $0 != nil } } }

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

    deinit { for index in clientPorts.indices { kill(index) } }
}

/// The kernel gave no free loopback port.
public struct PortAllocationError: Error, CustomStringConvertible {
    /// The failed call's `errno`.
    public let errno: Int32
    /// "no free loopback port" and the system's reason.
    public var description: String { "no free loopback port: \(String(cString: strerror(errno)))" }
}
