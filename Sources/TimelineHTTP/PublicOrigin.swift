import Foundation
import MicroHTTPD
import Timeline

/// A request for a host this server is not (answered 421 Misdirected Request).
struct Misdirected: Error {
    /// This server's origin.
    let origin: String
}

extension TimelineAPI {
    /// The request as its client sent it: behind a trusted proxy, the client's address is the
    /// last one of `X-Forwarded-For` (the one the proxy added); from anyone else the header is
    /// ignored, so nobody can pose as another address to the per-address limits.
    func forwarded(_ request: HTTPRequest) -> HTTPRequest {
        guard options.trustedProxies.contains(request.clientAddress),
            let last = request.header("X-Forwarded-For")?.split(separator: ",").last
        else { return request }
        let client = last.trimmingCharacters(in: .whitespaces)
        guard IPAddress.isValid(client) else { return request }
        return HTTPRequest(
            method: request.method, path: request.path, query: request.query, headers: request.headers,
            body: request.body, formParts: request.formParts, clientAddress: client)
    }

    /// This server's origin for `request`: the configured public URL, whose host the request's
    /// `Host` must name; without one, `http://` and the `Host` (`https://` when a trusted proxy
    /// says so), which must be `localhost` or an IP address. Any other host is `Misdirected`:
    /// a name a client sends is never written into an entity's URL, a `Link` or the streaming URL.
    func publicOrigin(of request: HTTPRequest) throws(Misdirected) -> String {
        let host = request.header("Host")?.lowercased()
        if let configured = options.publicURL {
            let authority =
                configured.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first
                .map { $0.lowercased() } ?? ""
            guard host == nil || host == authority || host == Self.withoutDefaultPort(authority, configured) else {
                throw Misdirected(origin: configured)
            }
            return configured
        }
        guard let host else { return "http://localhost" }
        guard Self.isLocalAuthority(host) else { throw Misdirected(origin: "http://localhost") }
        let https =
            options.trustedProxies.contains(request.clientAddress)
            && request.header("X-Forwarded-Proto")?.lowercased() == "https"
        return (https ? "https://" : "http://") + host
    }

    /// `authority` with its port, when the URL's scheme's default port is written out
    /// (`example.org` for `https://example.org:443`), so clients may send either.
    private static func withoutDefaultPort(_ authority: String, _ url: String) -> String {
        for (scheme, port) in [("https:", ":443"), ("http:", ":80")] where url.hasPrefix(scheme) {
            if authority.hasSuffix(port) { return String(authority.dropLast(port.count)) }
            return authority + port
        }
        return authority
    }

    /// Whether `host` (a `Host` header's value) is `localhost` or an IP address, with an optional port.
    static func isLocalAuthority(_ host: String) -> Bool {
        var name = Substring(host)
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            guard rest.isEmpty || isPort(rest) else { return false }
            return IPAddress.isValid(String(name[name.index(after: name.startIndex)..<close]))
        }
        if let colon = name.lastIndex(of: ":") {
            guard isPort(name[colon...]) else { return false }
            name = name[..<colon]
        }
        return name == "localhost" || IPAddress.isValid(String(name))
    }

    /// `:` and a port, 1–65535 without a leading zero: the authority is written into URLs, so
    /// `:99999` or `:09` (which names another port to some readers) is refused.
    private static func isPort(_ text: Substring) -> Bool {
        let digits = text.dropFirst()
        guard text.first == ":", (1...5).contains(digits.count), digits.first != "0",
            digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        return Int(digits).map { $0 <= 65535 } ?? false
    }

}
