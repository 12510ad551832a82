/// Appends the compact binary encoding used for events and read-model records:
/// LEB128 varints, length-prefixed UTF-8 strings, presence-flagged optionals.
package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 128) { bytes.reserveCapacity(capacity) }

    package mutating func u8(_ value: UInt8) { bytes.append(value) }

    package mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    package mutating func int(_ value: Int) { varint(UInt64(bitPattern: Int64(value))) }
    package mutating func int64(_ value: Int64) { varint(UInt64(bitPattern: value)) }
    /// An IEEE 754 double, its 8 bytes big-endian.
    package mutating func double(_ value: Double) { raw(BigEndian.bytes(value.bitPattern)) }

    package mutating func string(_ value: String) {
        varint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    package mutating func optionalString(_ value: String?) {
        if let value {
            u8(1)
            string(value)
        } else {
            u8(0)
        }
    }

    package mutating func strings(_ values: [String]) {
        varint(UInt64(values.count))
        for value in values { string(value) }
    }

    package mutating func blob(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    package mutating func raw(_ value: [UInt8]) { bytes.append(contentsOf: value) }
}

/// Big-endian fixed-width integers, used in keys so byte order is numeric order.
enum BigEndian {
    static func bytes(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    static func uint64<C: Collection>(_ bytes: C) -> UInt64? where C.Element == UInt8 {
        guard bytes.count == 8 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
