import Foundation

/// IP addresses as text, read by the C library's `inet_pton`.
public enum IPAddress {
    /// Whether `text` is an IPv4 address in dotted-quad form or an IPv6 address (without brackets).
    public static func isValid(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// The key one client's requests are counted under: the address itself, or for IPv6 its
    /// /64 network (one subscriber's whole allocation, which a single machine may spread its
    /// requests over).
    public static func clientKey(_ text: String) -> String {
        var v6 = in6_addr()
        guard text.contains(":"), inet_pton(AF_INET6, text, &v6) == 1 else { return text }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        // An IPv4 client on a dual-stack socket (`::ffff:a.b.c.d`) is its IPv4 address.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":") + "::/64"
    }
}
