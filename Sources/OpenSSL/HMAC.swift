import COpenSSL

/// Keyed message authentication (RFC 2104) through OpenSSL's one-shot `HMAC`.
public enum HMAC {
    /// HMAC-SHA-1 of `message` under `key` (20 bytes): what RFC 6238's one-time codes are made
    /// of, as every authenticator app computes them.
    public static func sha1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let made = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { input in
                out.withUnsafeMutableBufferPointer { output in
                    COpenSSL.HMAC(
                        EVP_sha1(), keyBytes.baseAddress, Int32(keyBytes.count), input.baseAddress, input.count,
                        output.baseAddress, &length)
                }
            }
        }
        precondition(made != nil, "OpenSSL's HMAC-SHA-1 failed")
        return Array(out.prefix(Int(length)))
    }
}
