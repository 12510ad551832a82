private import CSodium
import Synchronization

/// The few libsodium primitives Timeline needs: argon2id password hashing, BLAKE2b hashing,
/// XChaCha20-Poly1305 sealing, Ed25519 signatures, secure randomness, constant-time
/// comparison and base64url.
public enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    /// Fails only if libsodium cannot initialise (no entropy source).
    public static func ensureInitialised() -> Bool { initialised }

    /// `bytes` in base64url without padding (RFC 4648 §5), as tokens and PKCE's `S256` are written.
    public static func base64URL(_ bytes: [UInt8]) -> String {
        _ = initialised
        let variant = Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)
        let length = sodium_base64_encoded_len(bytes.count, variant)  // with the terminating NUL
        var out = [CChar](repeating: 0, count: length)
        out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { i in
                _ = sodium_bin2base64(o.baseAddress!, length, i.baseAddress, i.count, variant)
            }
        }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A new secret token: `count` secure random bytes, base64url.
    public static func randomToken(_ count: Int) -> String { base64URL(randomBytes(count)) }

    /// `count` bytes from the operating system's secure random generator.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        _ = initialised
        var out = [UInt8](repeating: 0, count: max(count, 1))
        out.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return Array(out.prefix(count))
    }

    /// A random 64-bit word from the operating system's secure generator, drawn 64 words per
    /// system call (identifiers take two words per new millisecond; one call each cost ~6% of
    /// a command).
    public static func randomWord() -> UInt64 {
        _ = initialised
        return wordPool.withLock { pool in
            if pool.next == pool.words.count {
                pool.words = [UInt64](repeating: 0, count: 64)
                pool.words.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
                pool.next = 0
            }
            defer { pool.next += 1 }
            return pool.words[pool.next]
        }
    }

    private static let wordPool = Mutex<(words: [UInt64], next: Int)>(([], 0))

    /// A uniformly random integer in `0..<upperBound`.
    public static func random(below upperBound: UInt32) -> UInt32 {
        _ = initialised
        return randombytes_uniform(upperBound)
    }

    /// BLAKE2b digest of `parts` concatenated (32 bytes by default).
    public static func hash(_ parts: [UInt8]..., length: Int = 32) -> [UInt8] {
        _ = initialised
        let input = parts.count == 1 ? parts[0] : parts.flatMap { $0 }
        var out = [UInt8](repeating: 0, count: length)
        out.withUnsafeMutableBufferPointer { o in
            input.withUnsafeBufferPointer { i in
                _ = crypto_generichash(o.baseAddress!, length, i.baseAddress, UInt64(i.count), nil, 0)
            }
        }
        return out
    }

    /// Keyed BLAKE2b of `message` under `key` (16 to 64 bytes), `length` bytes long (16 to 64):
    /// a secret derived from another, for one purpose.
    public static func keyedHash(key: [UInt8], _ message: [UInt8], length: Int = 32) -> [UInt8] {
        _ = initialised
        precondition(
            (Int(crypto_generichash_KEYBYTES_MIN)...Int(crypto_generichash_KEYBYTES_MAX)).contains(key.count)
                && (Int(crypto_generichash_BYTES_MIN)...Int(crypto_generichash_BYTES_MAX)).contains(length),
            "BLAKE2b's key or output length is out of range")
        var out = [UInt8](repeating: 0, count: length)
        out.withUnsafeMutableBufferPointer { o in
            message.withUnsafeBufferPointer { m in
                key.withUnsafeBufferPointer { k in
                    _ = crypto_generichash(
                        o.baseAddress!, length, m.baseAddress, UInt64(m.count), k.baseAddress, k.count)
                }
            }
        }
        return out
    }

    /// SHA-256 digest of `bytes` (what OAuth's PKCE `S256` names).
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        _ = initialised
        var out = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { i in _ = crypto_hash_sha256(o.baseAddress!, i.baseAddress, UInt64(i.count))
            }
        }
        return out
    }

    /// Constant-time equality of two byte strings of equal length.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in sodium_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
        }
    }

    /// Cost parameters of argon2id.
    public struct PasswordCost: Sendable, Equatable {
        /// Passes over memory (`opslimit`).
        public var operations: UInt64
        /// Memory to use, in bytes (`memlimit`).
        public var memory: Int
        /// A cost of `operations` passes over `memory` bytes.
        public init(operations: UInt64, memory: Int) {
            self.operations = operations
            self.memory = memory
        }
        /// libsodium's interactive limits: the production default.
        public static let interactive = PasswordCost(
            operations: UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
            memory: Int(crypto_pwhash_MEMLIMIT_INTERACTIVE))
        /// The smallest cost libsodium allows: for tests only.
        public static let minimum = PasswordCost(
            operations: UInt64(crypto_pwhash_OPSLIMIT_MIN),
            memory: Int(crypto_pwhash_MEMLIMIT_MIN))
    }

    /// An argon2id hash in libsodium's self-describing string form (`$argon2id$v=19$…`),
    /// or `nil` if hashing ran out of memory.
    public static func hashPassword(_ password: String, cost: PasswordCost) -> String? {
        _ = initialised
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        let utf8 = Array(password.utf8CString)
        let rc = utf8.withUnsafeBufferPointer { pw in
            crypto_pwhash_str_alg(
                &out, pw.baseAddress!, UInt64(pw.count - 1), cost.operations, cost.memory,
                crypto_pwhash_ALG_ARGON2ID13)
        }
        guard rc == 0 else { return nil }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches the stored argon2id `hash` (constant time in libsodium).
    public static func verifyPassword(_ password: String, hash: String) -> Bool {
        _ = initialised
        var stored = Array(hash.utf8CString)
        guard stored.count <= Int(crypto_pwhash_STRBYTES) else { return false }
        let utf8 = Array(password.utf8CString)
        return utf8.withUnsafeBufferPointer { pw in
            crypto_pwhash_str_verify(&stored, pw.baseAddress!, UInt64(pw.count - 1)) == 0
        }
    }
}

extension Sodium {
    /// Length of a secret key for `seal`.
    public static let secretKeyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    private static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    private static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// Encrypts and authenticates `plaintext` with XChaCha20-Poly1305 under `key`, binding
    /// `context` (not stored); returns `nonce ‖ ciphertext ‖ tag`.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], context: [UInt8] = []) -> [UInt8] {
        precondition(key.count == secretKeyLength, "seal needs a \(secretKeyLength)-byte key")
        let nonce = randomBytes(nonceLength)
        var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var outLength: UInt64 = 0
        out.withUnsafeMutableBufferPointer { o in
            plaintext.withUnsafeBufferPointer { p in
                context.withUnsafeBufferPointer { c in
                    _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                        o.baseAddress!, &outLength, p.baseAddress, UInt64(p.count),
                        c.baseAddress, UInt64(c.count), nil, nonce, key)
                }
            }
        }
        return nonce + out.prefix(Int(outLength))
    }

    /// Opens what `seal` produced; `nil` if the key, context or bytes are wrong.
    public static func open(_ sealed: [UInt8], key: [UInt8], context: [UInt8] = []) -> [UInt8]? {
        guard key.count == secretKeyLength, sealed.count >= nonceLength + tagLength else { return nil }
        let nonce = Array(sealed.prefix(nonceLength))
        let body = Array(sealed.dropFirst(nonceLength))
        var out = [UInt8](repeating: 0, count: max(body.count - tagLength, 1))
        var outLength: UInt64 = 0
        let rc = out.withUnsafeMutableBufferPointer { o in
            body.withUnsafeBufferPointer { b in
                context.withUnsafeBufferPointer { c in
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        o.baseAddress!, &outLength, nil, b.baseAddress!, UInt64(b.count),
                        c.baseAddress, UInt64(c.count), nonce, key)
                }
            }
        }
        return rc == 0 ? Array(out.prefix(Int(outLength))) : nil
    }

    /// Overwrites `bytes` with zeros in a way the optimiser keeps.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { sodium_memzero(base, $0.count) } }
    }
}

extension Sodium {
    /// Length of an Ed25519 public key.
    public static let signingPublicKeyLength = Int(crypto_sign_PUBLICKEYBYTES)
    /// Length of an Ed25519 secret key (libsodium's form: seed ‖ public key).
    public static let signingSecretKeyLength = Int(crypto_sign_SECRETKEYBYTES)
    /// Length of an Ed25519 signature.
    public static let signatureLength = Int(crypto_sign_BYTES)

    /// A new Ed25519 key pair from the operating system's secure generator.
    public static func signingKeyPair() -> (publicKey: [UInt8], secretKey: [UInt8]) {
        _ = initialised
        var publicKey = [UInt8](repeating: 0, count: signingPublicKeyLength)
        var secretKey = [UInt8](repeating: 0, count: signingSecretKeyLength)
        _ = crypto_sign_keypair(&publicKey, &secretKey)
        return (publicKey, secretKey)
    }

    /// The public half of an Ed25519 secret key; `nil` if `secretKey` has the wrong length.
    public static func signingPublicKey(of secretKey: [UInt8]) -> [UInt8]? {
        guard secretKey.count == signingSecretKeyLength else { return nil }
        var publicKey = [UInt8](repeating: 0, count: signingPublicKeyLength)
        _ = crypto_sign_ed25519_sk_to_pk(&publicKey, secretKey)
        return publicKey
    }

    /// The detached Ed25519 signature of `message`; `nil` if `secretKey` has the wrong length.
    public static func sign(_ message: [UInt8], secretKey: [UInt8]) -> [UInt8]? {
        _ = initialised
        guard secretKey.count == signingSecretKeyLength else { return nil }
        var signature = [UInt8](repeating: 0, count: signatureLength)
        let rc = message.withUnsafeBufferPointer { m in
            crypto_sign_detached(&signature, nil, m.baseAddress, UInt64(m.count), secretKey)
        }
        return rc == 0 ? signature : nil
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` by `publicKey`.
    public static func verifySignature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        _ = initialised
        guard signature.count == signatureLength, publicKey.count == signingPublicKeyLength else { return false }
        return message.withUnsafeBufferPointer { m in
            crypto_sign_verify_detached(signature, m.baseAddress, UInt64(m.count), publicKey) == 0
        }
    }
}
