import CCurl
import Foundation

/// Mail sent by SMTP through libcurl: one connection per message, STARTTLS whenever the server
/// offers it (`CURLUSESSL_TRY`; `smtps://` is TLS from the start), the system's authorities and
/// an optional `caFile` trusted.
public struct SMTPClient: Sendable {
    /// The server (`smtp://HOST:PORT` or `smtps://HOST:PORT`).
    public let url: String
    /// The envelope sender and `From:` address.
    public let from: String
    /// A certificate authority to trust besides the system's.
    public let caFile: String?

    /// A client for the server at `url`, sending as `from`.
    public init(url: String, from: String, caFile: String? = nil) {
        _ = HTTPSClient.initialiseCurl
        self.url = url
        self.from = from
        self.caFile = caFile
    }

    /// Sends `message` (RFC 5322: headers, a blank line, the body; CRLF line ends) to
    /// `recipient`; throws libcurl's error when the server did not take it.
    public func send(to recipient: String, message: [UInt8], timeout: Duration) throws(DeliveryError) {
        var reply = 0
        let milliseconds = Int(timeout.components.seconds * 1000)
        let code = message.withUnsafeBufferPointer { bytes in
            caFile.withOptionalCString { ca in
                timeline_curl_smtp_send(
                    url, ca, "<\(from)>", "<\(recipient)>", bytes.baseAddress, bytes.count, milliseconds, &reply)
            }
        }
        guard code == 0 else { throw DeliveryError(code: Int(code)) }
    }
}

private extension Optional where Wrapped == String {
    func withOptionalCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .some(let string): string.withCString { body($0) }
        case .none: body(nil)
        }
    }
}
