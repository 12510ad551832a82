import CCurl
import Foundation

/// What a delivery could not do: libcurl's error (no connection, a bad certificate, a timeout,
/// a private address refused).
public struct DeliveryError: Error, Equatable, CustomStringConvertible {
    /// libcurl's code.
    public let code: Int
    /// libcurl's own words for the code (`curl_easy_strerror`).
    public var description: String { String(cString: curl_easy_strerror(CURLcode(UInt32(code)))) }
}

/// An answer to a GET: its status and body.
public struct HTTPSAnswer: Sendable {
    /// The HTTP status.
    public let status: Int
    /// The body's bytes.
    public let body: [UInt8]
}

/// HTTPS GETs and POSTs through libcurl: one handle, so connections (and their HTTP/2 sessions) are
/// reused between requests; https only, no redirects; addresses that are not on the public
/// Internet (loopback, private, link-local, multicast, reserved, and IPv6's spellings of such an
/// IPv4 address: see `isPrivate(address:)`) are refused at connect time — after DNS, whatever
/// the URL spelt — unless `allowPrivate`. Not for use by two threads
/// at once (give each worker its own).
public final class HTTPSClient {
    private let handle: UnsafeMutableRawPointer
    private let caFile: [CChar]?
    private var connectTo: UnsafeMutablePointer<curl_slist>?

    /// A client trusting the system's authorities and, if given, those of `caFile`; `connectTo`
    /// sends the requests for a host and port to another address (curl's `--connect-to`
    /// `HOST:PORT:ADDR:PORT` lines: tests run several servers on loopback under their own names).
    public init?(caFile: String? = nil, allowPrivate: Bool = false, connectTo: [String] = []) {
        _ = Self.initialised
        self.caFile = caFile.map { Array($0.utf8CString) }
        guard let made = self.caFile.withOptionalCString({ timeline_curl_new($0, allowPrivate ? 1 : 0) }) else {
            return nil
        }
        handle = made
        if !connectTo.isEmpty {
            self.connectTo = withCStrings(connectTo) { lines in
                timeline_curl_connect_to(handle, lines.baseAddress, Int32(lines.count))
            }
        }
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(connectTo)
    }

    /// GETs `url` with `headers`, keeping at most `limit` bytes of its body (a longer one is
    /// `DeliveryError` 23, libcurl's write error).
    public func get(_ url: String, headers: [String], limit: Int, timeout: Duration) throws(DeliveryError)
        -> HTTPSAnswer
    {
        var answer = timeline_curl_answer(bytes: nil, length: 0, capacity: 0, limit: limit, too_long: 0, fd: -1)
        defer { free(answer.bytes) }
        let status = try get(url, headers: headers, timeout: timeout, into: &answer)
        let body = answer.bytes.map { Array(UnsafeBufferPointer(start: $0, count: answer.length)) } ?? []
        return HTTPSAnswer(status: status, body: body)
    }

    /// GETs `url` with `headers`, writing at most `limit` bytes of its body to a new file at
    /// `path` (mode 0600; a longer body is `DeliveryError` 23, and a file that cannot be
    /// written 23 too); answers the status. What was written stays for the caller to remove.
    public func download(_ url: String, headers: [String], to path: String, limit: Int, timeout: Duration)
        throws(DeliveryError) -> Int
    {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DeliveryError(code: Int(CURLE_WRITE_ERROR.rawValue)) }
        defer { close(fd) }
        var answer = timeline_curl_answer(bytes: nil, length: 0, capacity: 0, limit: limit, too_long: 0, fd: fd)
        return try get(url, headers: headers, timeout: timeout, into: &answer)
    }

    private func get(_ url: String, headers: [String], timeout: Duration, into answer: inout timeline_curl_answer)
        throws(DeliveryError) -> Int
    {
        var status = 0
        let code: Int32 = withCStrings(headers) { lines in
            timeline_curl_get(
                handle, url, lines.baseAddress, Int32(lines.count), milliseconds(timeout), &status, &answer)
        }
        guard code == 0 else { throw DeliveryError(code: Int(code)) }
        return status
    }

    private func milliseconds(_ timeout: Duration) -> Int {
        Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    }

    /// POSTs `body` to `url` with `headers` (`Name: value` lines); answers the status.
    public func post(_ url: String, headers: [String], body: [UInt8], timeout: Duration) throws(DeliveryError) -> Int {
        var status = 0
        let code: Int32 = withCStrings(headers) { lines in
            body.withUnsafeBufferPointer { bytes in
                timeline_curl_post(
                    handle, url, lines.baseAddress, Int32(lines.count), bytes.baseAddress, bytes.count,
                    milliseconds(timeout), &status)
            }
        }
        guard code == 0 else { throw DeliveryError(code: Int(code)) }
        return status
    }

    /// Whether `address` (an IPv4 dotted quad, or IPv6 without brackets) is one that pushes are
    /// refused to at connect time — loopback, private, link-local, multicast, reserved, or an IPv6
    /// spelling of such an IPv4 address; nil when `address` is not an address.
    public static func isPrivate(address: String) -> Bool? {
        switch timeline_address_text_is_private(address) {
        case 1: true
        case 0: false
        default: nil
        }
    }

    private static let initialised: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()
    /// libcurl's global initialisation, done once (for the SMTP client too).
    static var initialiseCurl: Void { initialised }
}

/// Runs `body` with `strings` as C strings (valid only inside it).
private func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer(body)
}

private extension Optional where Wrapped == [CChar] {
    func withOptionalCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .some(let chars): chars.withUnsafeBufferPointer { body($0.baseAddress) }
        case .none: body(nil)
        }
    }
}
