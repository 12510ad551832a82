import Foundation
import OpenSSL

/// A request's HTTP Signature as received: parsed and checked against the request (what it
/// covers, the body's digest, its time) before the signer's key is known; `verify(with:)` then
/// checks it with the key its `keyId` names. draft-cavage (`Signature`) and RFC 9421
/// (`Signature-Input` with `Signature`) are both taken, with RSASSA-PKCS1-v1_5 SHA-256 only.
public struct ReceivedSignature: Sendable {
    /// Which specification the signature follows.
    public enum Scheme: String, Sendable {
        /// draft-cavage-http-signatures (12), as Mastodon signs.
        case cavage
        /// RFC 9421, HTTP Message Signatures.
        case rfc9421
    }

    /// The signer's key id: in ActivityPub, the URL of the actor's key (`…#main-key`).
    public let keyId: String
    /// The specification it follows.
    public let scheme: Scheme
    /// The covered components, in order.
    public let covered: [String]
    /// The time it was made (`created`, else the `Date` header).
    public let time: Date
    private let base: [UInt8]
    private let signature: [UInt8]

    /// The signature's own bytes: what a replay of the request repeats.
    public var bytes: [UInt8] { signature }

    /// The most a signature may be off the receiver's clock, either way (Mastodon's window).
    public static let maxSkew: TimeInterval = 12 * 3600

    /// The signature `message` carries, checked for everything but the key: it covers the
    /// request's target and host (or authority), its time (`Date` or `created`) and, with a
    /// body, its digest, which must match; its time is within `maxSkew` of `now`.
    public static func parse(_ message: SignedMessage, now: Date) throws(SignatureError) -> ReceivedSignature {
        let received: ReceivedSignature
        if let input = message.header("Signature-Input") {
            received = try rfc9421(message, input: input)
        } else if let header = message.header("Signature") {
            received = try cavage(message, header: header)
        } else {
            throw .missing
        }
        guard abs(received.time.timeIntervalSince(now)) <= maxSkew else { throw .stale }
        return received
    }

    /// Checks the signature with the signer's public key.
    public func verify(with key: RSAKey) throws(SignatureError) {
        guard key.verifySHA256(signature, of: base) else { throw .invalidSignature }
    }

    private init(keyId: String, scheme: Scheme, covered: [String], time: Date, base: String, signature: [UInt8]) {
        self.keyId = keyId
        self.scheme = scheme
        self.covered = covered
        self.time = time
        self.base = Array(base.utf8)
        self.signature = signature
    }

    // MARK: draft-cavage

    private static func cavage(_ message: SignedMessage, header: String) throws(SignatureError) -> ReceivedSignature {
        let fields = try cavageParameters(header)
        guard let keyId = fields["keyId"], !keyId.isEmpty else { throw .malformed("no keyId") }
        let algorithm = fields["algorithm"]?.lowercased() ?? "hs2019"
        // hs2019 says "as the key says": an actor's key is RSA, so it is rsa-sha256 here.
        guard algorithm == "rsa-sha256" || algorithm == "hs2019" else { throw .unsupportedAlgorithm(algorithm) }
        guard let encoded = fields["signature"], let signature = Data(base64Encoded: encoded) else {
            throw .malformed("no base64 signature")
        }
        let covered = (fields["headers"] ?? "date").lowercased().split(separator: " ").map(String.init)
        guard covered.contains("(request-target)") else { throw .uncovered("(request-target)") }
        guard covered.contains("host") else { throw .uncovered("host") }
        try requireDigest(message, covered: covered.contains("digest"), header: "Digest") {
            (digest) throws(SignatureError) in try BodyDigest.digestMatches(digest, message.body)
        }
        let time: Date
        if covered.contains("(created)") {
            guard let created = fields["created"].flatMap(Int64.init) else { throw .malformed("no created parameter") }
            time = Date(timeIntervalSince1970: TimeInterval(created))
        } else {
            guard covered.contains("date") else { throw .uncovered("date") }
            guard let date = message.header("Date").flatMap(HTTPDate.parse) else {
                throw .malformed("the Date header is not an HTTP date")
            }
            time = date
        }
        let base = try SignatureBase.cavage(
            message, covered: covered, created: fields["created"], expires: fields["expires"])
        return ReceivedSignature(
            keyId: keyId, scheme: .cavage, covered: covered, time: time, base: base, signature: Array(signature))
    }

    /// `name="value"` (or `name=number`) pairs separated by commas.
    private static func cavageParameters(_ header: String) throws(SignatureError) -> [String: String] {
        guard header.utf8.count <= StructuredFields.maxLength else { throw .malformed("a Signature header too long") }
        var fields: [String: String] = [:]
        var rest = Substring(header)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard !rest.isEmpty else { break }
            guard let equals = rest.firstIndex(of: "=") else { throw .malformed("a Signature parameter with no value") }
            let name = String(rest[..<equals]).trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                rest = rest.dropFirst()
                guard let close = rest.firstIndex(of: "\"") else { throw .malformed("a Signature value not closed") }
                value = rest[..<close]
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end]
                rest = rest[end...]
            }
            guard fields[name] == nil else { throw .malformed("the parameter \(name) given twice") }
            fields[name] = String(value)
        }
        return fields
    }

    // MARK: RFC 9421

    private static func rfc9421(_ message: SignedMessage, input: String) throws(SignatureError) -> ReceivedSignature {
        let inputs = try StructuredFields.dictionary(input)
        let signatures = try StructuredFields.dictionary(message.header("Signature") ?? "")
        // The first signature whose label both headers carry (a proxy may add its own later).
        guard let chosen = inputs.first(where: { member in signatures.contains { $0.key == member.key } }),
            case .innerList(let items) = chosen.value,
            case .item(.bytes(let signature)) = signatures.first(where: { $0.key == chosen.key })?.value
        else { throw .malformed("no signature labelled in both Signature-Input and Signature") }
        var covered: [String] = []
        for item in items {
            guard case .string(let name) = item else { throw .malformed("a covered component that is not a string") }
            covered.append(name)
        }
        func parameter(_ key: String) -> StructuredFields.Item? { chosen.parameters.first { $0.key == key }?.value }
        guard case .string(let keyId)? = parameter("keyid"), !keyId.isEmpty else { throw .malformed("no keyid") }
        if let alg = parameter("alg") {
            guard case .string(let name) = alg, name == "rsa-v1_5-sha256" else {
                throw .unsupportedAlgorithm(StructuredFields.serialise(alg))
            }
        }
        guard covered.contains("@method") else { throw .uncovered("@method") }
        guard covered.contains("@target-uri") || (covered.contains("@authority") && covered.contains("@path"))
        else { throw .uncovered("@target-uri") }
        try requireDigest(message, covered: covered.contains("content-digest"), header: "Content-Digest") {
            (digest) throws(SignatureError) in try BodyDigest.contentDigestMatches(digest, message.body)
        }
        let time: Date
        if case .integer(let created)? = parameter("created") {
            time = Date(timeIntervalSince1970: TimeInterval(created))
        } else {
            guard covered.contains("date"), let date = message.header("Date").flatMap(HTTPDate.parse) else {
                throw .uncovered("its time (created, or date)")
            }
            time = date
        }
        if case .integer(let expires)? = parameter("expires"), TimeInterval(expires) < time.timeIntervalSince1970 {
            throw .stale
        }
        // The input exactly as the signer serialised it: the text after `label=`.
        let serialised = StructuredFields.serialise(
            innerList: items, parameters: chosen.parameters)
        let base = try SignatureBase.rfc9421(message, covered: covered, input: serialised)
        return ReceivedSignature(
            keyId: keyId, scheme: .rfc9421, covered: covered, time: time, base: base, signature: signature)
    }

    // MARK: Both

    /// A request with a body must cover its digest, which must name the body.
    private static func requireDigest(
        _ message: SignedMessage, covered: Bool, header: String, matches: (String) throws(SignatureError) -> Bool
    ) throws(SignatureError) {
        guard !message.body.isEmpty || message.method == "POST" else { return }
        guard covered else { throw .uncovered(header.lowercased()) }
        guard let value = message.header(header) else { throw .absentHeader(header.lowercased()) }
        guard try matches(value) else { throw .digestMismatch }
    }
}
