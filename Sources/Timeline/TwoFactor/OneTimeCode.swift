import OpenSSL
import Sodium

/// RFC 6238 time-based one-time codes, as authenticator apps make them: HMAC-SHA-1 (RFC 4226's
/// HOTP) of the count of 30-second steps since 1970, truncated to six digits.
enum OneTimeCode {
    /// Seconds a code lasts (RFC 6238's default, what every authenticator uses).
    static let period: Int64 = 30
    /// Digits of a code.
    static let digits = 6
    /// Steps either side of now a code is accepted from: a phone's clock may be off by one.
    static let drift: Int64 = 1

    /// The time step of `milliseconds` since 1970.
    static func step(at milliseconds: Int64) -> Int64 { milliseconds / 1000 / period }

    /// The code of `step` under `secret` (RFC 4226 §5.3: dynamic truncation).
    static func code(_ secret: [UInt8], step: Int64) -> String {
        let counter = (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(step) >> ($0 * 8)) }
        let mac = HMAC.sha1(key: secret, message: counter)
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            UInt32(mac[offset] & 0x7f) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8
            | UInt32(mac[offset + 3])
        let value = String(binary % 1_000_000)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The step within `drift` of `milliseconds` whose code `given` is (the latest, if two
    /// were: they never are in practice), or `nil`. Spaces in `given` are ignored.
    static func matchingStep(_ given: String, _ secret: [UInt8], at milliseconds: Int64) -> Int64? {
        let digitsOnly = given.filter { $0 != " " }
        guard digitsOnly.count == digits, digitsOnly.allSatisfy(\.isASCII), digitsOnly.allSatisfy(\.isNumber) else {
            return nil
        }
        let now = step(at: milliseconds)
        // Every step is computed and compared, matched or not: the time taken tells nothing.
        var matched: Int64?
        for candidate in (now - drift)...(now + drift) {
            let code = code(secret, step: candidate)
            if Sodium.constantTimeEqual(Array(code.utf8), Array(digitsOnly.utf8)) { matched = candidate }
        }
        return matched
    }
}
