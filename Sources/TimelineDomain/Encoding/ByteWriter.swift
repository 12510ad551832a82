/// Appends the compact binary encoding used for events and read-model records:
/// LEB128 varints, length-prefixed UTF-8 strings, presence-flagged optionals.
package struct ByteWriter {
    /// The bytes written so far.
    @usableFromInline package internal(set) var bytes: [UInt8] = []

    /// An empty writer with room for `capacity` bytes.
    @inlinable package init(capacity: Int = 128) { bytes.reserveCapacity(capacity) }

    /// Appends one byte.
    @inlinable package mutating func u8(_ value: UInt8) { bytes.append(value) }

    /// Appends an unsigned LEB128 varint: 7 bits a byte, the high bit set on all but the last.
    @inlinable package mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Appends an `Int`, as a varint of its 64-bit pattern (a negative one takes 10 bytes).
    @inlinable package mutating func int(_ value: Int) { varint(UInt64(bitPattern: Int64(value))) }
    /// Appends an `Int64`, as a varint of its bit pattern.
    @inlinable package mutating func int64(_ value: Int64) { varint(UInt64(bitPattern: value)) }
    /// An IEEE 754 double, its 8 bytes big-endian.
    @inlinable package mutating func double(_ value: Double) { raw(BigEndian.bytes(value.bitPattern)) }

    /// Appends a UTF-8 string, its byte count first (a varint).
    @inlinable package mutating func string(_ value: String) {
        varint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    /// Appends a flag byte (0: `nil`, 1: a string follows), then the string.
    @inlinable package mutating func optionalString(_ value: String?) {
        if let value {
            u8(1)
            string(value)
        } else {
            u8(0)
        }
    }

    /// Appends a count (a varint), then each string.
    @inlinable package mutating func strings(_ values: [String]) {
        varint(UInt64(values.count))
        for value in values { string(value) }
    }

    /// Appends bytes, their count first (a varint).
    @inlinable package mutating func blob(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends bytes as they are, with no length (the reader must know it).
    @inlinable package mutating func raw(_ value: [UInt8]) { bytes.append(contentsOf: value) }
}

/// Big-endian fixed-width integers, used in keys so byte order is numeric order.
package enum BigEndian {
    /// The 8 bytes of `value`, most significant first.
    @inlinable package static func bytes(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// The big-endian value of exactly 8 bytes (`nil` for any other count).
    @inlinable package static func uint64(_ bytes: [UInt8]) -> UInt64? { uint64(bytes[...]) }

    /// The big-endian value of exactly 8 bytes (one unaligned load: this decodes every log key
    /// a write reads, so it must not go through a generic fold).
    @inlinable package static func uint64(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        return bytes.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
    }
}
