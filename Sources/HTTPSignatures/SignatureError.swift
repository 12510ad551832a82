/// Why a request's HTTP Signature was refused: each a plain statement a peer's operator can act on.
public enum SignatureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No `Signature` header (draft-cavage) nor `Signature-Input` and `Signature` (RFC 9421).
    case missing
    /// A header that does not parse: which one and why.
    case malformed(String)
    /// An algorithm not taken (only RSASSA-PKCS1-v1_5 with SHA-256).
    case unsupportedAlgorithm(String)
    /// A part the signature must cover and does not (`date`, `digest`, the target, the host).
    case uncovered(String)
    /// A covered header the request does not carry.
    case absentHeader(String)
    /// The body's digest is not the one the signed header states.
    case digestMismatch
    /// The signature's time (`Date` or `created`) is not within the allowed skew of now.
    case stale
    /// The signature does not verify with the signer's key.
    case invalidSignature

    /// The refusal in words.
    public var description: String {
        switch self {
        case .missing: "the request carries no HTTP Signature"
        case .malformed(let why): "the HTTP Signature does not parse: \(why)"
        case .unsupportedAlgorithm(let name): "the signature algorithm \(name) is not accepted (rsa-sha256 only)"
        case .uncovered(let part): "the signature does not cover \(part)"
        case .absentHeader(let name): "the signature covers the header \(name), which the request lacks"
        case .digestMismatch: "the body's digest is not the one signed"
        case .stale: "the signature's time is not within 12 hours of now"
        case .invalidSignature: "the signature does not verify with the signer's key"
        }
    }
}
