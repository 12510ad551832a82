import MicroHTTPD
import Synchronization
import Zlib

/// gzip for the answers a client asks to have compressed (`Accept-Encoding: gzip`): the web
/// app's files, the OpenAPI documents and JSON. Text only, 1 KB and more: images are compressed
/// already, a tiny body gains nothing, and streams (Server-Sent Events, WebSockets) are sent
/// as they are written. Every answer that could be compressed says `Vary: Accept-Encoding`,
/// compressed or not, so that no cache hands one client's encoding to another; a compressed
/// answer's `ETag` becomes weak (`W/"…"`: the same content, other bytes), as nginx does.
enum Compression {
    /// The smallest body worth compressing.
    static let minimumSize = 1024

    /// Whether a body of `contentType` and `size` bytes is sent gzipped when asked (and so
    /// varies by `Accept-Encoding`).
    static func applies(to contentType: String?, size: Int) -> Bool {
        guard size >= minimumSize, let contentType else { return false }
        let type = contentType.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased()
        return type.hasPrefix("text/") && type != "text/event-stream" || type == "application/json"
            || type.hasSuffix("+json") || type == "application/javascript" || type == "image/svg+xml"
    }

    /// Whether `header` (an `Accept-Encoding`) accepts gzip: `gzip`, `x-gzip` or `*`, with a
    /// q-value above 0 (RFC 9110 §12.5.3).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var star = false
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, !coding.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if coding == "gzip" || coding == "x-gzip" { return quality > 0 }
            if coding == "*" { star = quality > 0 }
        }
        return star
    }

    /// `response` compressed for `request` when it applies and is asked for; with `Vary` either way.
    static func apply(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        guard case .bytes(let body) = response.body, response.status != 206,
            !response.headers.contains(where: { $0.name.lowercased() == "content-encoding" }),
            applies(to: header(response, "Content-Type"), size: body.count)
        else { return response }
        var response = response
        if !response.headers.contains(where: { $0.name == "Vary" && $0.value.contains("Accept-Encoding") }) {
            response.headers.append(("Vary", "Accept-Encoding"))
        }
        guard acceptsGzip(request.header("Accept-Encoding")) else { return response }
        let tag = header(response, "ETag")
        guard let compressed = tag.map({ cached(body, tag: $0) }) ?? Gzip.compress(body) else { return response }
        response.body = .bytes(compressed)
        response.headers.append(("Content-Encoding", "gzip"))
        if let tag, !tag.hasPrefix("W/"), let index = response.headers.firstIndex(where: { $0.name == "ETag" }) {
            response.headers[index].value = "W/" + tag
        }
        return response
    }

    private static func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The compressed bodies of answers with an `ETag` (the web app's files, the documents: few,
    /// and the same on every load), by tag; forgotten all at once past 256.
    private static let compressedByTag = Mutex<[String: [UInt8]]>([:])

    private static func cached(_ body: [UInt8], tag: String) -> [UInt8]? {
        if let found = compressedByTag.withLock({ $0[tag] }) { return found }
        guard let compressed = Gzip.compress(body, level: 9) else { return nil }
        compressedByTag.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[tag] = compressed
        }
        return compressed
    }
}

/// Conditional requests for the answers that carry an `ETag` (the web app's files, the
/// OpenAPI documents): `If-None-Match` is compared weakly (RFC 9110 §13.1.2), so the weak tag
/// of a compressed answer matches too.
enum Revalidation {
    /// Whether `request`'s `If-None-Match` names `tag` (or is `*`).
    static func matches(_ request: HTTPRequest, tag: String) -> Bool {
        guard let wanted = request.header("If-None-Match") else { return false }
        let strong = tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
        return wanted.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == strong || trimmed == "W/" + strong
        }
    }

    /// A fixed document (`bytes` of `contentType`, tagged `tag`), revalidated on every use
    /// (`Cache-Control: no-cache`): 304 with no body when `If-None-Match` names it.
    static func answer(
        _ bytes: [UInt8], tag: String, contentType: String, request: HTTPRequest,
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        var caching: [(name: String, value: String)] = [("Cache-Control", "no-cache"), ("ETag", tag)]
        // The 304 says what the 200 would (RFC 9110 §15.4.5): the same Vary.
        if Compression.applies(to: contentType, size: bytes.count) { caching.append(("Vary", "Accept-Encoding")) }
        if matches(request, tag: tag) { return HTTPResponse(status: 304, headers: caching) }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", contentType)] + caching + headers, body: .bytes(bytes))
    }

    /// A strong tag for `bytes`: FNV-1a, 64 bits, in hex, and the length.
    static func tag(of bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return "\"" + String(hash, radix: 16) + "-" + String(bytes.count, radix: 16) + "\""
    }
}
