import COpenSSL

/// Message digests through OpenSSL's EVP interface: the only place the project calls
/// libcrypto's digests (libsodium has no SHA-1, which the WebSocket handshake names).
public enum Digest {
    /// SHA-1 of `bytes`: only for protocols that name it (RFC 6455's `Sec-WebSocket-Accept`),
    /// never for security.
    public static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha1(), nil)
            }
        }
        precondition(ok == 1, "OpenSSL's SHA-1 failed")
        return Array(out.prefix(Int(length)))
    }
}
