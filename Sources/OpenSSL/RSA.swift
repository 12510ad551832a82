import COpenSSL

/// An RSA key held by OpenSSL: a key pair (`generate`, `init(privatePEM:)`) or a public key
/// alone (`init(publicPEM:)`), for ActivityPub's HTTP Signatures (RSASSA-PKCS1-v1_5 with
/// SHA-256: draft-cavage's `rsa-sha256`, RFC 9421's `rsa-v1_5-sha256`). Parsed once: signing
/// and checking reuse it.
public final class RSAKey: @unchecked Sendable {
    // Immutable once made; OpenSSL's keys may be used from several threads at once.
    private let key: OpaquePointer

    /// The longest PEM text read (an RSA 8192 key is about 6.5 kB): anything longer is refused
    /// before OpenSSL parses it.
    public static let maxPEMBytes = 16 * 1024
    /// The smallest and largest key sizes accepted from others, in bits.
    public static let acceptedBits = 2048...8192

    private init(_ key: OpaquePointer) { self.key = key }
    deinit { EVP_PKEY_free(key) }

    /// A new random key pair of `bits` (2048 by default, what Mastodon makes).
    public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAKey {
        guard acceptedBits.contains(bits), let key = timeline_rsa_generate(UInt32(bits)) else {
            throw CryptoError(operation: "make an RSA key of \(bits) bits")
        }
        return RSAKey(key)
    }

    /// The key pair of a PKCS#8 (or PKCS#1) PEM private key.
    public convenience init(privatePEM pem: String) throws(CryptoError) {
        try self.init(pem: pem, isPrivate: true)
    }

    /// The public key of a SubjectPublicKeyInfo (or PKCS#1) PEM text, as actor documents
    /// publish it; refused unless RSA of `acceptedBits`.
    public convenience init(publicPEM pem: String) throws(CryptoError) {
        try self.init(pem: pem, isPrivate: false)
    }

    private convenience init(pem: String, isPrivate: Bool) throws(CryptoError) {
        let what = isPrivate ? "private" : "public"
        let bytes = Array(pem.utf8)
        guard bytes.count <= Self.maxPEMBytes, !bytes.contains(0),
            let key = timeline_pem_read(bytes.map { CChar(bitPattern: $0) }, bytes.count, isPrivate ? 1 : 0)
        else { throw CryptoError(operation: "read an RSA \(what) key from PEM") }
        guard Self.acceptedBits.contains(Int(timeline_rsa_bits(key))) else {
            EVP_PKEY_free(key)
            throw CryptoError(operation: "accept a \(what) key that is not RSA of 2048 to 8192 bits")
        }
        self.init(key)
    }

    /// The key's size in bits.
    public var bits: Int { Int(timeline_rsa_bits(key)) }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public func publicPEM() throws(CryptoError) -> String { try pem(isPrivate: false) }

    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), unencrypted: the caller
    /// seals it before it is stored.
    public func privatePEM() throws(CryptoError) -> String { try pem(isPrivate: true) }

    private func pem(isPrivate: Bool) throws(CryptoError) -> String {
        var length = 0
        guard let text = timeline_pem_write(key, isPrivate ? 1 : 0, &length) else {
            throw CryptoError(operation: "write an RSA key as PEM")
        }
        defer { CRYPTO_free(text, #fileID, #line) }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 of `message` (a key pair only).
    public func signSHA256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 512)
        var length = 0
        guard timeline_rsa_sha256_sign(key, message, message.count, &signature, &length) == 1 else {
            throw CryptoError(operation: "sign with RSA")
        }
        return Array(signature.prefix(length))
    }

    /// Whether `signature` is this key's RSASSA-PKCS1-v1_5 SHA-256 signature of `message`.
    public func verifySHA256(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard signature.count <= 1024 else { return false }
        return timeline_rsa_sha256_verify(key, message, message.count, signature, signature.count) == 1
    }
}
