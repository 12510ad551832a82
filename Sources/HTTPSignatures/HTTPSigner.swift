import Foundation
import OpenSSL

/// Signs requests as ActivityPub servers check them: draft-cavage-http-signatures (what
/// Mastodon, Pixelfed and GoToSocial send and take) and RFC 9421 (HTTP Message Signatures), both
/// with RSASSA-PKCS1-v1_5 SHA-256 and the signer's actor key's id as `keyId`.
public enum HTTPSigner {
    /// Adds `Host`, `Date`, for a body `Digest`, and `Signature` (draft-cavage, `rsa-sha256`)
    /// covering `(request-target) host date` and `digest` when there is a body.
    public static func signCavage(_ message: inout SignedMessage, keyId: String, key: RSAKey, at date: Date)
        throws(CryptoError)
    {
        let covered = prepare(
            &message, date: date, covering: ["(request-target)", "host", "date"], digest: ("Digest", BodyDigest.digest))
        guard let base = try? SignatureBase.cavage(message, covered: covered, created: nil, expires: nil) else {
            throw CryptoError(operation: "make the signing string of a request it signs")
        }
        let signature = Data(try key.signSHA256(Array(base.utf8))).base64EncodedString()
        let value =
            "keyId=\"\(keyId)\",algorithm=\"rsa-sha256\",headers=\"\(covered.joined(separator: " "))\","
            + "signature=\"\(signature)\""
        message.headers.append(("Signature", value))
    }

    /// Adds `Host`, `Date`, for a body `Content-Digest`, and `Signature-Input` and `Signature`
    /// (RFC 9421, label `sig1`, `alg="rsa-v1_5-sha256"`) covering `@method`, `@target-uri`,
    /// `date` and `content-digest` when there is a body, with `created` and `keyid`.
    public static func signRFC9421(_ message: inout SignedMessage, keyId: String, key: RSAKey, at date: Date)
        throws(CryptoError)
    {
        let covered = prepare(
            &message, date: date, covering: ["@method", "@target-uri", "date"],
            digest: ("Content-Digest", BodyDigest.contentDigest))
        let parameters: [(key: String, value: StructuredFields.Item)] = [
            ("created", .integer(Int64(date.timeIntervalSince1970))), ("keyid", .string(keyId)),
            ("alg", .string("rsa-v1_5-sha256"))
        ]
        let input = StructuredFields.serialise(innerList: covered.map { .string($0) }, parameters: parameters)
        let base = try? SignatureBase.rfc9421(message, covered: covered, input: input)
        guard let base else { throw CryptoError(operation: "make the signature base of a request it signs") }
        let signature = try key.signSHA256(Array(base.utf8))
        message.headers.append(("Signature-Input", "sig1=" + input))
        message.headers.append(("Signature", "sig1=" + StructuredFields.serialise(.bytes(signature))))
    }

    /// Adds `Host` and `Date` when the message has none and, for a body (or any POST), the
    /// `digest` header of it; the parts covered: `covering`, and the digest's header.
    private static func prepare(
        _ message: inout SignedMessage, date: Date, covering: [String],
        digest: (header: String, of: ([UInt8]) -> String)
    ) -> [String] {
        if message.header("Host") == nil { message.headers.append(("Host", message.authority)) }
        if message.header("Date") == nil { message.headers.append(("Date", HTTPDate.string(date))) }
        guard !message.body.isEmpty || message.method == "POST" else { return covering }
        message.headers.append((digest.header, digest.of(message.body)))
        return covering + [digest.header.lowercased()]
    }
}
