import Foundation
import OpenSSL

/// Message encryption for Web Push (RFC 8291) in the `aes128gcm` content coding (RFC 8188): a
/// push message only its subscriber can read, made with a fresh ephemeral key pair and salt.
public enum WebPushEncryption {
    /// The record size announced in the header: every message here fits one record.
    static let recordSize: UInt32 = 4096
    /// The most plaintext one message carries (the record, less its padding delimiter and tag).
    public static let maxPlaintext = Int(recordSize) - 17

    /// `plaintext` for the subscriber whose public key is `p256dh` (65 bytes) and whose secret
    /// is `auth` (16 bytes): the body to send with `Content-Encoding: aes128gcm`.
    public static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], ephemeral: P256KeyPair? = nil,
        salt: [UInt8]? = nil
    ) throws(CryptoError) -> [UInt8] {
        guard p256dh.count == 65, auth.count == 16 else {
            throw CryptoError(operation: "encrypt for a subscription with malformed keys")
        }
        guard plaintext.count <= maxPlaintext else { throw CryptoError(operation: "encrypt more than one record") }
        let server: P256KeyPair
        if let ephemeral { server = ephemeral } else { server = try P256KeyPair.generate() }
        var salt = salt ?? []
        if salt.isEmpty { salt = try SecureRandom.bytes(16) }
        // RFC 8291 §3.3–3.4: the input keying material from ECDH and the subscription's secret.
        let shared = try server.sharedSecret(with: p256dh)
        let keyInfo = Array("WebPush: info".utf8) + [0] + p256dh + server.publicKey
        let ikm = try HKDF.sha256(salt: auth, key: shared, info: keyInfo, length: 32)
        // RFC 8188 §2.2–2.3: the content encryption key and nonce.
        let key = try HKDF.sha256(
            salt: salt, key: ikm, info: Array("Content-Encoding: aes128gcm".utf8) + [0], length: 16)
        let nonce = try HKDF.sha256(salt: salt, key: ikm, info: Array("Content-Encoding: nonce".utf8) + [0], length: 12)
        // One record, the last: the plaintext then the delimiter 2 (no padding).
        let sealed = try AES128GCM.seal(plaintext + [2], key: key, nonce: nonce)
        let size = withUnsafeBytes(of: recordSize.bigEndian, Array.init)
        return salt + size + [UInt8(server.publicKey.count)] + server.publicKey + sealed
    }

    /// `plaintext` in the legacy `aesgcm` coding (draft-ietf-webpush-encryption-04), for
    /// subscriptions made before RFC 8291 (Mastodon's `standard: false`): the body, and the
    /// `Encryption` and `Crypto-Key` headers that carry the salt and the ephemeral key.
    public static func encryptLegacy(_ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8]) throws(CryptoError) -> (
        body: [UInt8], headers: [String]
    ) {
        guard p256dh.count == 65, auth.count == 16 else {
            throw CryptoError(operation: "encrypt for a subscription with malformed keys")
        }
        guard plaintext.count <= maxPlaintext else { throw CryptoError(operation: "encrypt more than one record") }
        let server = try P256KeyPair.generate(), salt = try SecureRandom.bytes(16)
        let shared = try server.sharedSecret(with: p256dh)
        let ikm = try HKDF.sha256(salt: auth, key: shared, info: Array("Content-Encoding: auth".utf8) + [0], length: 32)
        let context = Array("P-256".utf8) + [0, 0, 65] + p256dh + [0, 65] + server.publicKey
        let key = try HKDF.sha256(
            salt: salt, key: ikm, info: Array("Content-Encoding: aesgcm".utf8) + [0] + context, length: 16)
        let nonce = try HKDF.sha256(
            salt: salt, key: ikm, info: Array("Content-Encoding: nonce".utf8) + [0] + context, length: 12)
        // One record: a two-byte padding length (none), then the plaintext.
        let body = try AES128GCM.seal([0, 0] + plaintext, key: key, nonce: nonce)
        return (
            body, ["Encryption: salt=\(Base64URL.encode(salt))", "Crypto-Key: dh=\(Base64URL.encode(server.publicKey))"]
        )
    }
}
