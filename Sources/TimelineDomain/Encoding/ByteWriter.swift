/// Appends the compact binary encoding used for events and read-model records:
/// LEB128 varints, length-prefixed UTF-8 strings, presence-flagged optionals.
package struct ByteWriter {
    @usableFromInline package internal(set) var bytes: [UInt8] = []

    @inlinable package init(capacity: Int = 128) { bytes.reserveCapacity(capacity) }

    @inlinable package mutating func u8(_ value: UInt8) { bytes.append(value) }

    @inlinable package mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    @inlinable package mutating func int(_ value: Int) { varint(UInt64(bitPattern: Int64(value))) }
    @inlinable package mutating func int64(_ value: Int64) { varint(UInt64(bitPattern: value)) }
    /// An IEEE 754 double, its 8 bytes big-endian.
    @inlinable package mutating func double(_ value: Double) { raw(BigEndian.bytes(value.bitPattern)) }

    @inlinable package mutating func string(_ value: String) {
        varint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    @inlinable package mutating func optionalString(_ value: String?) {
        if let value {
            u8(1)
            string(value)
        } else {
            u8(0)
        }
    }

    @inlinable package mutating func strings(_ values: [String]) {
        varint(UInt64(values.count))
        for value in values { string(value) }
    }

    @inlinable package mutating func blob(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    @inlinable package mutating func raw(_ value: [UInt8]) { bytes.append(contentsOf: value) }
}

/// Big-endian fixed-width integers, used in keys so byte order is numeric order.
package enum BigEndian {
    @inlinable package static func bytes(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    @inlinable package static func uint64(_ bytes: [UInt8]) -> UInt64? { uint64(bytes[...]) }

    /// The big-endian value of exactly 8 bytes (one unaligned load: this decodes every log key
    /// a write reads, so it must not go through a generic fold).
    @inlinable package static func uint64(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        return bytes.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
    }
}
