import Glibc

extension Array where Element == UInt8 {
    /// Whether these bytes begin with `prefix` (one `memcmp`: cursor walks test every key they
    /// visit against their group's prefix, and the generic `starts(with:)` iterates byte by byte).
    @inlinable public func hasPrefix(_ prefix: [UInt8]) -> Bool {
        guard count >= prefix.count else { return false }
        return withUnsafeBytes { bytes in
            prefix.withUnsafeBytes { start in
                start.isEmpty || memcmp(bytes.baseAddress!, start.baseAddress!, start.count) == 0
            }
        }
    }
}
