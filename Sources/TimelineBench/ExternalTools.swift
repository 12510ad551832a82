import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// The programs `timeline bench --http` drives: `wrk`, `nginx` (both from Debian, installed
/// when missing) and `python3` (for the 1,000 event streams).
enum ExternalTools {
    /// The path of `name` on `PATH` (or in /usr/sbin, where Debian puts nginx).
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/sbin", "/bin"] {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Installs the Debian packages of the programs that are missing (`apt-get update`, then
    /// `apt-get install -y`; through sudo unless root), as tools/install-deps does.
    static func ensure(_ programs: [(program: String, package: String)], progress: (String) -> Void) throws {
        let missing = programs.filter { find($0.program) == nil }.map(\.package)
        guard !missing.isEmpty else { return }
        progress("installing \(missing.joined(separator: " ")) (apt-get)")
        let prefix = getuid() == 0 ? [] : ["sudo"]
        var environment = ProcessInfo.processInfo.environment
        environment["DEBIAN_FRONTEND"] = "noninteractive"
        for arguments in [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq"] + missing] {
            let result = try run(prefix + arguments, environment: environment)
            guard result.status == 0 else {
                throw BenchError(
                    "\((prefix + arguments).joined(separator: " ")) failed (\(result.status)): \(result.errors.suffix(2000))"
                )
            }
        }
        for (program, package) in programs where find(program) == nil {
            throw BenchError("\(program) is still missing after installing \(package)")
        }
    }

    /// Runs a program to its end; returns its status, standard output and standard error.
    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> (
        status: Int32, output: String, errors: String
    ) {
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: arguments[0].hasPrefix("/") ? arguments[0] : (find(arguments[0]) ?? arguments[0]))
        process.arguments = Array(arguments.dropFirst())
        if let environment { process.environment = environment }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read standard error on its own thread so that neither pipe fills up.
        let errorBytes = Locked(Data())
        let reader = Thread { errorBytes.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.001) }
        return (
            process.terminationStatus, String(decoding: out, as: UTF8.self),
            String(decoding: errorBytes.get(), as: UTF8.self)
        )
    }

    /// A loopback TCP port that is free now.
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw BenchError("could not bind a loopback port") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// A value shared between threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}

/// Runs blocking work (a child process, a pipe read) on a thread of its own, not on one of
/// the cooperative pool's few threads.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// A failure of the benchmark's own machinery.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What `wrk --latency` reports.
struct WrkResult {
    var requestsPerSecond: Double
    var requests: Int
    var seconds: Double
    /// Latency percentiles in seconds (50, 75, 90, 99).
    var p50: Double
    var p99: Double
    var non2xx: Int
    var socketErrors: String?

    /// Runs `wrk` against `url` with 64 keep-alive connections on 2 threads.
    static func run(
        _ url: String, seconds: Int, connections: Int = 64, threads: Int = 2,
        headers: [String] = [], script: String? = nil
    ) throws -> WrkResult {
        var arguments = ["wrk", "-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency", "--timeout", "5s"]
        for header in headers { arguments += ["-H", header] }
        if let script { arguments += ["-s", script] }
        arguments.append(url)
        let result = try ExternalTools.run(arguments)
        guard result.status == 0, let parsed = parse(result.output) else {
            throw BenchError(
                "wrk failed (\(result.status)): \(result.output.suffix(1000)) \(result.errors.suffix(1000))")
        }
        return parsed
    }

    static func parse(_ text: String) -> WrkResult? {
        var result = WrkResult(requestsPerSecond: 0, requests: 0, seconds: 0, p50: 0, p99: 0, non2xx: 0)
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            if line.hasPrefix("Requests/sec:"), words.count >= 2 { result.requestsPerSecond = Double(words[1]) ?? 0 }
            if line.hasPrefix("50%"), words.count >= 2 { result.p50 = duration(words[1]) ?? 0 }
            if line.hasPrefix("99%"), words.count >= 2 { result.p99 = duration(words[1]) ?? 0 }
            if line.contains(" requests in "), words.count >= 4 {
                result.requests = Int(words[0]) ?? 0
                result.seconds = duration(words[3].trimmingCharacters(in: CharacterSet(charactersIn: ","))) ?? 0
            }
            if line.hasPrefix("Non-2xx or 3xx responses:"), let count = words.last.flatMap({ Int($0) }) {
                result.non2xx = count
            }
            if line.hasPrefix("Socket errors:") { result.socketErrors = line }
        }
        return result.requestsPerSecond > 0 && result.seconds > 0 ? result : nil
    }

    /// wrk's durations: `635.91us`, `1.06ms`, `10.00s`, `2.00m`.
    static func duration(_ text: String) -> Double? {
        for (suffix, scale) in [("us", 1e-6), ("ms", 1e-3), ("s", 1.0), ("m", 60.0), ("h", 3600.0)]
        where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return Double(text)
    }
}

/// nginx (Debian) serving static files from a temporary prefix: two workers, no access log,
/// keep-alive, on a free loopback port, in the foreground as a child process.
final class Nginx {
    let port: UInt16
    private let process: Process
    let prefix: String

    /// Starts nginx serving `files` (name → bytes) at `/name`, from a new directory under the
    /// system's temporary directory (its workers run as `nobody`, so the files must be readable
    /// by anyone, whatever `--dir` allows).
    init(files: [String: [UInt8]]) throws {
        guard let nginx = ExternalTools.find("nginx") else { throw BenchError("nginx is not installed") }
        prefix =
            FileManager.default.temporaryDirectory.appendingPathComponent("timeline-bench-nginx-\(UUID().uuidString)")
            .path
        let root = prefix + "/www"
        if FileManager.default.fileExists(atPath: prefix) { try FileManager.default.removeItem(atPath: prefix) }
        for sub in ["/www", "/logs", "/tmp"] {
            try FileManager.default.createDirectory(
                atPath: prefix + sub, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
        }
        for (name, bytes) in files {
            FileManager.default.createFile(
                atPath: root + "/" + name, contents: Data(bytes), attributes: [.posixPermissions: 0o644])
        }
        port = try ExternalTools.freePort()
        let config = """
            worker_processes 2;
            daemon off;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/logs/error.log warn;
            events { worker_connections 4096; }
            http {
                access_log off;
                sendfile on;
                tcp_nopush on;
                keepalive_timeout 65;
                keepalive_requests 10000000;
                client_body_temp_path \(prefix)/tmp/body;
                proxy_temp_path \(prefix)/tmp/proxy;
                fastcgi_temp_path \(prefix)/tmp/fastcgi;
                uwsgi_temp_path \(prefix)/tmp/uwsgi;
                scgi_temp_path \(prefix)/tmp/scgi;
                types { application/json json; image/gif gif; image/jpeg jpg; image/png png; image/webp webp; }
                default_type application/octet-stream;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root);
                }
            }
            """
        try config.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", prefix, "-c", prefix + "/nginx.conf", "-e", prefix + "/logs/error.log"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.standardError
        try process.run()
        let deadline = Date(timeIntervalSinceNow: 10)
        while !ExternalTools.accepts(port) {
            guard process.isRunning, Date() < deadline else {
                stop()
                let log = (try? String(contentsOfFile: prefix + "/logs/error.log", encoding: .utf8)) ?? ""
                throw BenchError("nginx did not start on 127.0.0.1:\(port): \(log.suffix(1000))")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Stops nginx (SIGTERM: a fast shutdown of the master and its workers) and waits for it.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: prefix)
    }

    deinit { stop() }
}
