import COpenSSL

/// What an OpenSSL operation could not do (a malformed key or point, a failed primitive).
public struct CryptoError: Error, Equatable, CustomStringConvertible {
    /// Which operation failed.
    public let operation: String
    /// A failure of `operation` ("sign with P-256").
    public init(operation: String) { self.operation = operation }
    /// "OpenSSL could not" and the operation.
    public var description: String { "OpenSSL could not \(operation)" }
}

/// A P-256 key pair as raw bytes: the 32-byte private scalar and the 65-byte uncompressed public
/// point (Web Push's and JWS ES256's form).
public struct P256KeyPair: Sendable, Equatable {
    /// The 32-byte private scalar, big-endian.
    public let privateKey: [UInt8]
    /// The 65-byte uncompressed public point (`0x04 ‖ x ‖ y`).
    public let publicKey: [UInt8]

    /// A new random key pair.
    public static func generate() throws(CryptoError) -> P256KeyPair {
        var privateKey = [UInt8](repeating: 0, count: 32), publicKey = [UInt8](repeating: 0, count: 65)
        guard timeline_p256_generate(&privateKey, &publicKey) == 1 else {
            throw CryptoError(operation: "make a P-256 key pair")
        }
        return P256KeyPair(privateKey: privateKey, publicKey: publicKey)
    }

    /// A key pair from its bytes (checked when first used).
    public init(privateKey: [UInt8], publicKey: [UInt8]) {
        self.privateKey = privateKey
        self.publicKey = publicKey
    }

    /// The ECDH shared secret with `peer`'s public point (65 bytes).
    public func sharedSecret(with peer: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard privateKey.count == 32, publicKey.count == 65, peer.count == 65, peer.first == 0x04 else {
            throw CryptoError(operation: "agree a P-256 secret with a key that is not an uncompressed point")
        }
        var secret = [UInt8](repeating: 0, count: 32)
        guard timeline_p256_ecdh(privateKey, publicKey, peer, &secret) == 1 else {
            throw CryptoError(operation: "agree a P-256 secret")
        }
        return secret
    }

    /// ECDSA with SHA-256 of `message`, as JWS ES256 writes it: r ‖ s (64 bytes).
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard privateKey.count == 32, publicKey.count == 65 else {
            throw CryptoError(operation: "sign with a malformed P-256 key")
        }
        var signature = [UInt8](repeating: 0, count: 64)
        guard timeline_p256_sign(privateKey, publicKey, message, message.count, &signature) == 1 else {
            throw CryptoError(operation: "sign with P-256")
        }
        return signature
    }
}

/// HKDF with SHA-256 (RFC 5869).
public enum HKDF {
    /// `length` bytes (at most 255 × 32) derived from `key` with `salt` and `info`.
    public static func sha256(salt: [UInt8], key: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        guard length > 0, length <= 255 * 32,
            timeline_hkdf_sha256(salt, salt.count, key, key.count, info, info.count, &out, length) == 1
        else {
            throw CryptoError(operation: "derive a key with HKDF-SHA256")
        }
        return out
    }
}

/// AES-128-GCM.
public enum AES128GCM {
    /// `plaintext` sealed with a 16-byte `key` and 12-byte `nonce`: the ciphertext, then the
    /// 16-byte tag.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 16, nonce.count == 12 else {
            throw CryptoError(operation: "seal with a key or nonce of the wrong size")
        }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        guard timeline_aes128gcm_seal(key, nonce, plaintext, plaintext.count, &out) == 1 else {
            throw CryptoError(operation: "seal with AES-128-GCM")
        }
        return out
    }
}

/// Random bytes from OpenSSL's generator.
public enum SecureRandom {
    /// `count` cryptographically secure random bytes.
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&out, Int32(count)) == 1 else { throw CryptoError(operation: "make random bytes") }
        return out
    }
}
