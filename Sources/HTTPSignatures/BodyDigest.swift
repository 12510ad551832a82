import Foundation
import Sodium

/// The body digests HTTP Signatures cover: draft-cavage's `Digest` (RFC 3230) and RFC 9530's
/// `Content-Digest`, both SHA-256 (the only algorithm either side here makes or takes).
public enum BodyDigest {
    /// `Digest: SHA-256=<base64>` of `body`.
    public static func digest(_ body: [UInt8]) -> String { "SHA-256=" + base64(body) }

    /// `Content-Digest: sha-256=:<base64>:` of `body`.
    public static func contentDigest(_ body: [UInt8]) -> String { "sha-256=:" + base64(body) + ":" }

    /// Whether a `Digest` header's value names `body`'s SHA-256 (other algorithms listed beside
    /// it are ignored; without a SHA-256 one it is refused).
    static func digestMatches(_ header: String, _ body: [UInt8]) throws(SignatureError) -> Bool {
        for part in header.split(separator: ",") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "="),
                trimmed[..<equals].caseInsensitiveCompare("SHA-256") == .orderedSame
            else { continue }
            return trimmed[trimmed.index(after: equals)...] == base64(body)
        }
        throw .malformed("the Digest header holds no SHA-256 digest")
    }

    /// Whether a `Content-Digest` header's value names `body`'s SHA-256.
    static func contentDigestMatches(_ header: String, _ body: [UInt8]) throws(SignatureError) -> Bool {
        let dictionary = try StructuredFields.dictionary(header)
        guard let member = dictionary.first(where: { $0.key == "sha-256" }),
            case .item(.bytes(let bytes)) = member.value
        else { throw .malformed("the Content-Digest header holds no sha-256 digest") }
        return bytes == Sodium.sha256(body)
    }

    private static func base64(_ body: [UInt8]) -> String { Data(Sodium.sha256(body)).base64EncodedString() }
}
