import Foundation
import QRCode
import Sodium
import TimelineDomain
import Vips

/// A user's authenticator secret (20 bytes, RFC 4226's recommended length). It is stored
/// nowhere: it is derived from the account's own key — the key that seals its personal fields —
/// and its enrolment's nonce (`TwoFactorEnrolled`), whenever a code is checked. Erasing the
/// account destroys the key, and with it every way to make the secret again.
struct TwoFactorSecret {
    /// The secret's bytes.
    let bytes: [UInt8]

    /// The secret of `user`'s enrolment `nonce`, or `nil` when the user has no key (erased).
    init?(user: UserID, nonce: String, keys: any PayloadKeys) throws {
        guard let key = try keys.key(for: user) else { return nil }
        bytes = Sodium.keyedHash(key: key, Array("timeline-two-factor\u{0}".utf8) + Array(nonce.utf8), length: 20)
    }

    /// The secret as an authenticator app is told it by hand: base32.
    var base32: String { Base32.encode(bytes) }

    /// The `otpauth://totp/` URI of the secret for `account` at `issuer` (Google
    /// Authenticator's Key Uri Format, which every authenticator app reads from a QR code).
    func uri(account: String, issuer: String) -> String {
        let label = Self.escaped(issuer) + ":" + Self.escaped(account)
        return "otpauth://totp/\(label)?secret=\(base32)&issuer=\(Self.escaped(issuer))&algorithm=SHA1"
            + "&digits=\(OneTimeCode.digits)&period=\(OneTimeCode.period)"
    }

    /// `text` percent-encoded for a URI's path or query (unreserved characters only left).
    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? ""
    }

    /// A QR code of `text` as a PNG: 8 pixels a module, black on white, with the four-module
    /// quiet zone readers need.
    static func qrCodePNG(_ text: String) throws -> [UInt8] {
        let symbol = try QRCode(encoding: text)
        let scale = 8, quiet = 4
        let side = (symbol.size + 2 * quiet) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for row in 0..<symbol.size {
            for column in 0..<symbol.size where symbol.isDark(row: row, column: column) {
                let top = (row + quiet) * scale, left = (column + quiet) * scale
                for y in top..<top + scale {
                    for x in left..<left + scale { pixels[y * side + x] = 0 }
                }
            }
        }
        return try Vips.gray(pixels, width: side, height: side).png()
    }
}

/// Two-factor sign-in's recovery codes: ten, each 80 random bits written as 16 base32 letters
/// and digits in groups of four (`abcd-efgh-ijkl-mnop`). Each is recorded only as the hash of
/// its normal form (`TwoFactorPolicy.normalizedRecoveryCode`), and spent when used.
enum RecoveryCodes {
    /// Ten new codes.
    static func make() -> [String] {
        (0..<TwoFactorPolicy.recoveryCodeCount).map { _ in
            let letters = Array(Base32.encode(Sodium.randomBytes(10)).lowercased())
            return stride(from: 0, to: letters.count, by: 4).map { String(letters[$0..<$0 + 4]) }.joined(separator: "-")
        }
    }
}
