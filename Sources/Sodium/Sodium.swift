private import CSodium

/// The few libsodium primitives Timeline needs: argon2id password hashing, BLAKE2b hashing,
/// secure randomness and constant-time comparison.
public enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    /// Fails only if libsodium cannot initialise (no entropy source).
    public static func ensureInitialised() -> Bool { initialised }

    /// `count` bytes from the operating system's secure random generator.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        _ = initialised
        var out = [UInt8](repeating: 0, count: max(count, 1))
        out.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return Array(out.prefix(count))
    }

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

    /// Constant-time equality of two byte strings of equal length.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in sodium_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 } }
    }

    /// Cost parameters of argon2id.
    public struct PasswordCost: Sendable, Equatable {
        public var operations: UInt64
        public var memory: Int
        public init(operations: UInt64, memory: Int) {
            self.operations = operations
            self.memory = memory
        }
        /// libsodium's interactive limits: the production default.
        public static let interactive = PasswordCost(operations: UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
                                                     memory: Int(crypto_pwhash_MEMLIMIT_INTERACTIVE))
        /// The smallest cost libsodium allows: for tests only.
        public static let minimum = PasswordCost(operations: UInt64(crypto_pwhash_OPSLIMIT_MIN),
                                                 memory: Int(crypto_pwhash_MEMLIMIT_MIN))
    }

    /// An argon2id hash in libsodium's self-describing string form (`$argon2id$v=19$…`),
    /// or `nil` if hashing ran out of memory.
    public static func hashPassword(_ password: String, cost: PasswordCost) -> String? {
        _ = initialised
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        let utf8 = Array(password.utf8CString)
        let rc = utf8.withUnsafeBufferPointer { pw in
            crypto_pwhash_str_alg(&out, pw.baseAddress!, UInt64(pw.count - 1), cost.operations, cost.memory,
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
