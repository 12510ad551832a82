import Foundation
import Testing

/// The origin answers are written with comes from configuration, never from what a client
/// names (`Host`, `X-Forwarded-*`); the HTTP server's own refusals answer each API's shape.
@Suite struct PublicOriginTests {
    /// Sends one GET over a raw connection with these header lines; the whole answer
    /// (the server closes it: `Connection: close`).
    static func get(_ server: ServerProcess, _ path: String, _ headers: [String]) async throws -> String {
        let client = try server.connect()
        client.send("GET \(path) HTTP/1.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "Connection: close\r\n\r\n")
        return await client.read { _ in false }
    }

    @Test func anotherHostIsMisdirectedAndAHostIsNeverEchoed() async throws {
        try await withServer { server in
            let local = "Host: 127.0.0.1:\(server.port)"
            let instance = try await Self.get(server, "/api/v1/instance", [local])
            #expect(
                instance.hasPrefix("HTTP/1.1 200") && instance.contains("\"ws://127.0.0.1:\(server.port)\""),
                "\(instance)")
            #expect(
                try await Self.get(server, "/api/v1/instance", ["Host: localhost:\(server.port)"]).hasPrefix(
                    "HTTP/1.1 200"))
            #expect(try await Self.get(server, "/healthz", ["Host: [::1]:\(server.port)"]).hasPrefix("HTTP/1.1 200"))
            // A name the server was not given, or one made to break out of a Link header.
            for host in ["evil.example", "x>; rel=\"prev\", <https://evil.example/", "127.0.0.1:80@evil.example"] {
                let answer = try await Self.get(server, "/api/v1/instance", ["Host: \(host)"])
                #expect(answer.hasPrefix("HTTP/1.1 421") && answer.contains("{\"error\":"), "\(answer)")
                #expect(!answer.contains("evil.example/"), "\(answer)")
                let v1 = try await Self.get(server, "/v1/users", ["Host: \(host)"])
                #expect(v1.hasPrefix("HTTP/1.1 421") && v1.contains("\"code\":\"invalid_argument\""), "\(v1)")
            }
            // X-Forwarded-Proto from a client that is no trusted proxy changes nothing.
            let forwarded = try await Self.get(server, "/api/v1/instance", [local, "X-Forwarded-Proto: https"])
            #expect(
                forwarded.contains("\"ws://127.0.0.1:\(server.port)\"") && !forwarded.contains("wss://"), "\(forwarded)"
            )
        }
    }

    /// A `Host` port is written into URLs: only 1–65535, without a leading zero, is local.
    @Test func aHostPortOutOfRangeIsMisdirected() async throws {
        try await withServer { server in
            for host in ["127.0.0.1:99999", "127.0.0.1:09", "[::1]:65536", "localhost:0", "127.0.0.1:+80"] {
                let answer = try await Self.get(server, "/api/v1/instance", ["Host: \(host)"])
                #expect(answer.hasPrefix("HTTP/1.1 421") && !answer.contains(host), "\(host): \(answer)")
            }
            #expect(try await Self.get(server, "/api/v1/instance", ["Host: 127.0.0.1:65535"]).hasPrefix("HTTP/1.1 200"))
        }
    }

    /// Whether `::1` can be bound here (a container may have no IPv6 loopback).
    static let ipv6LoopbackExists: Bool = {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        let size = socklen_t(MemoryLayout<sockaddr_in6>.size)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        } == 0
    }()

    /// `--listen [::1]:PORT` listens on IPv6 (it once failed: "could not listen") and says so
    /// with a URL a client can use.
    @Test(.enabled(if: ipv6LoopbackExists, "::1 is not configured on this machine"))
    func servesOnAnIPv6Address() async throws {
        let child = try ChildProcess(["serve", "--db", temporaryPath(), "--listen", "[::1]:0"])
        defer { child.signal(SIGKILL) }
        let line = await child.waitForOutput(within: .seconds(180)) { $0.contains("\n") }
        let port = line?.split(separator: "\n").first?.split(separator: ":").last.flatMap { UInt16($0) }
        try #require(line?.hasPrefix("listening on http://[::1]:") == true, "\(line ?? "") \(child.standardError)")
        let client = try RawHTTPClient(port: try #require(port), host: "::1")
        client.send("GET /api/v1/instance HTTP/1.1\r\nHost: [::1]:\(port!)\r\nConnection: close\r\n\r\n")
        let answer = await client.read { _ in false }
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("\"ws://[::1]:\(port!)\""), "\(answer)")
    }

    @Test func thePublicURLIsTheOrigin() async throws {
        try await withServer(arguments: ["--public-url", "https://Photos.Example/"]) { server in
            let instance = try await Self.get(server, "/api/v2/instance", ["Host: photos.example"])
            #expect(instance.hasPrefix("HTTP/1.1 200") && instance.contains("\"wss://photos.example\""), "\(instance)")
            #expect(instance.contains("\"domain\":\"photos.example\""), "\(instance)")
            #expect(
                try await Self.get(server, "/api/v2/instance", ["Host: photos.example:443"]).hasPrefix("HTTP/1.1 200"))
            #expect(
                try await Self.get(server, "/api/v2/instance", ["Host: 127.0.0.1:\(server.port)"]).hasPrefix(
                    "HTTP/1.1 421"))
        }
    }

    /// Behind `--trusted-proxy`, the per-address limits count the client `X-Forwarded-For`
    /// names; from anyone else the header is ignored.
    @Test func aTrustedProxyNamesTheClient() async throws {
        try await withServer(arguments: ["--rate-limit", "2", "--trusted-proxy", "127.0.0.1"]) { server in
            let local = "Host: 127.0.0.1:\(server.port)"
            for _ in 0..<2 {
                let answer = try await Self.get(
                    server, "/api/v1/instance", [local, "X-Forwarded-For: 198.51.100.1, 203.0.113.7"])
                #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            }
            let third = try await Self.get(
                server, "/api/v1/instance", [local, "X-Forwarded-For: 198.51.100.1, 203.0.113.7"])
            #expect(third.hasPrefix("HTTP/1.1 429"), "\(third)")
            // Another client behind the same proxy has its own window; so has the proxy itself.
            #expect(
                try await Self.get(server, "/api/v1/instance", [local, "X-Forwarded-For: 203.0.113.8"]).hasPrefix(
                    "HTTP/1.1 200"))
            #expect(try await Self.get(server, "/api/v1/instance", [local]).hasPrefix("HTTP/1.1 200"))
            let https = try await Self.get(
                server, "/api/v1/instance", [local, "X-Forwarded-For: 203.0.113.8", "X-Forwarded-Proto: https"])
            #expect(https.contains("\"wss://127.0.0.1:\(server.port)\""), "\(https)")
        }
        try await withServer(arguments: ["--rate-limit", "2"]) { server in
            let local = "Host: 127.0.0.1:\(server.port)"
            for n in 0..<2 {
                #expect(
                    try await Self.get(server, "/api/v1/instance", [local, "X-Forwarded-For: 203.0.113.\(n)"])
                        .hasPrefix("HTTP/1.1 200"))
            }
            let third = try await Self.get(server, "/api/v1/instance", [local, "X-Forwarded-For: 203.0.113.9"])
            #expect(third.hasPrefix("HTTP/1.1 429"), "an untrusted X-Forwarded-For is ignored: \(third)")
        }
    }

    /// The server layer's own refusals (a path that is not UTF-8, a body too large, both
    /// framings) answer in the shape of the API whose path was asked for.
    @Test func theServersOwnRefusalsSpeakEachAPIsShape() async throws {
        try await withServer { server in
            let local = "Host: 127.0.0.1:\(server.port)"
            let mastodon = try await Self.get(server, "/api/v1/accounts/%FF%FE", [local])
            #expect(
                mastodon.hasPrefix("HTTP/1.1 400") && mastodon.contains("{\"error\":\"the path is not valid UTF-8\"}"),
                "\(mastodon)")
            let oauth = try await Self.get(server, "/oauth/%C3", [local])
            #expect(oauth.hasPrefix("HTTP/1.1 400") && oauth.contains("{\"error\":\""), "\(oauth)")
            let v1 = try await Self.get(server, "/v1/users/%FF", [local])
            #expect(v1.hasPrefix("HTTP/1.1 400") && v1.contains("\"code\":\"invalid_argument\""), "\(v1)")
            let large = try await Self.get(
                server, "/api/v1/statuses", [local, "Content-Length: 99999999", "Content-Type: application/json"])
            #expect(large.hasPrefix("HTTP/1.1 413") && large.contains("{\"error\":\"the body is larger"), "\(large)")
            let smuggled = try await Self.get(
                server, "/api/v1/statuses", [local, "Content-Length: 2", "Transfer-Encoding: chunked"])
            #expect(smuggled.hasPrefix("HTTP/1.1 400") && smuggled.contains("{\"error\":\""), "\(smuggled)")
            let method = try await Self.get(server, "/api/v1/apps", [local])
            #expect(method.hasPrefix("HTTP/1.1 405") && method.contains("{\"error\":\""), "\(method)")
            // Every refusal of an API's path tells its request limit and counts against it, as
            // its other answers do: the window of this client's address went down by one each.
            let counted = [mastodon, oauth, v1, large, smuggled, method].map { answer in
                answer.split(separator: "\r\n").first { $0.hasPrefix("X-RateLimit-Remaining: ") }
                    .flatMap { Int($0.dropFirst("X-RateLimit-Remaining: ".count)) }
            }
            #expect(counted.allSatisfy { $0 != nil }, "\([mastodon, oauth, v1, large, smuggled, method])")
            let remaining = counted.compactMap { $0 }
            #expect(remaining == remaining.sorted(by: >) && Set(remaining).count == remaining.count, "\(remaining)")
        }
    }
}
