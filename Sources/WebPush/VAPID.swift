import Foundation
import OpenSSL

/// Voluntary Application Server Identification (RFC 8292): the server signs, for each push
/// service, a short-lived JWT (ES256) naming the service's origin and a contact, and sends it
/// with its public key as `Authorization: vapid t=…, k=…`.
public struct VAPID: Sendable {
    /// The server's key pair (its public key is the `applicationServerKey` subscribers use).
    public let keys: P256KeyPair
    /// Who runs this server (`mailto:` or `https:`), the JWT's `sub`.
    public let contact: String

    /// VAPID signing with these keys, naming `contact`.
    public init(keys: P256KeyPair, contact: String) {
        self.keys = keys
        self.contact = contact
    }

    /// The public key as subscribers and Mastodon's `server_key` take it: base64url.
    public var publicKey: String { Base64URL.encode(keys.publicKey) }

    /// The `Authorization` header for a push to `endpoint`, valid `lifetime` seconds (at most a day).
    public func authorization(for endpoint: URL, now: Date = Date(), lifetime: TimeInterval = 12 * 3600)
        throws(CryptoError) -> String
    {
        guard let scheme = endpoint.scheme, let host = endpoint.host else {
            throw CryptoError(operation: "sign for an endpoint without an origin")
        }
        let origin = "\(scheme)://\(host)" + (endpoint.port.map { ":\($0)" } ?? "")
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = Claims(aud: origin, exp: Int(now.timeIntervalSince1970 + min(lifetime, 24 * 3600)), sub: contact)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let body = try? encoder.encode(claims) else {
            throw CryptoError(operation: "write the VAPID claims")
        }
        let signingInput = header + "." + Base64URL.encode(Array(body))
        let signature = try keys.sign(Array(signingInput.utf8))
        return "vapid t=\(signingInput).\(Base64URL.encode(signature)), k=\(publicKey)"
    }
}

/// The claims of a VAPID JWT (RFC 8292 §2): the push service's origin, the expiry in seconds
/// since 1970, and the sender's contact.
private struct Claims: Encodable {
    var aud: String
    var exp: Int
    var sub: String
}

/// Base64url without padding (RFC 4648 §5), as Web Push writes keys and JWTs.
public enum Base64URL {
    /// The base64url form of `bytes`, without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of `text` (padded or not; standard base64's `+`/`/` accepted too), or nil.
    public static func decode(_ text: String) -> [UInt8]? {
        var normal = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normal.count % 4 != 0 { normal += "=" }
        return Data(base64Encoded: normal).map(Array.init)
    }
}
