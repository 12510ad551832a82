/// A stored record that cannot be decoded: corruption or a format this build does not know.
public struct CorruptRecord: Error, CustomStringConvertible, Sendable {
    /// What was wrong with the record.
    public let message: String
    /// A record that cannot be decoded, and why.
    @inlinable public init(message: String) { self.message = message }
    /// "corrupt record: " and the message.
    public var description: String { "corrupt record: \(message)" }
}

/// Reads what `ByteWriter` wrote, refusing (never trapping on) truncated or hostile bytes.
///
/// The reading itself is done by `SpanReading` over a `Span`, so a record can also be decoded
/// in place, straight from LMDB's map (`Transaction.withValue`), without copying it first.
package struct ByteReader {
    @usableFromInline let bytes: [UInt8]
    /// The read position, advanced by each read.
    @usableFromInline package internal(set) var offset: Int

    /// A reader of `bytes`, starting at `offset`.
    @inlinable package init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Whether every byte has been read.
    @inlinable package var isAtEnd: Bool { offset == bytes.count }
    /// How many bytes are left to read.
    @inlinable package var remaining: Int { bytes.count - offset }

    /// Reads one byte.
    @inlinable package mutating func u8() throws(CorruptRecord) -> UInt8 { try read(SpanReading.u8) }
    /// Reads an unsigned LEB128 varint.
    @inlinable package mutating func varint() throws(CorruptRecord) -> UInt64 { try read(SpanReading.varint) }
    /// Reads an `Int` (a varint of its 64-bit pattern).
    @inlinable package mutating func int() throws(CorruptRecord) -> Int { try read(SpanReading.int) }
    /// Reads an `Int64` (a varint of its bit pattern).
    @inlinable package mutating func int64() throws(CorruptRecord) -> Int64 { try read(SpanReading.int64) }
    /// Reads a length, refusing one past the end.
    @inlinable package mutating func length() throws(CorruptRecord) -> Int { try read(SpanReading.length) }
    /// Reads a length-prefixed UTF-8 string.
    @inlinable package mutating func string() throws(CorruptRecord) -> String { try read(SpanReading.string) }
    /// Reads a flag byte, then the string if it is 1.
    @inlinable package mutating func optionalString() throws(CorruptRecord) -> String? {
        try read(SpanReading.optionalString)
    }
    /// Reads a count, then that many strings.
    @inlinable package mutating func strings() throws(CorruptRecord) -> [String] { try read(SpanReading.strings) }

    @inlinable mutating func read<T>(_ primitive: (Span<UInt8>, inout Int) throws(CorruptRecord) -> T)
        throws(CorruptRecord) -> T
    {
        let bytes = self.bytes
        var position = offset
        defer { offset = position }
        return try primitive(bytes.span, &position)
    }

    /// Reads the next `count` bytes as they are.
    @inlinable package mutating func raw(_ count: Int) throws(CorruptRecord) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw CorruptRecord(message: "truncated") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Reads a length-prefixed run of bytes.
    @inlinable package mutating func blob() throws(CorruptRecord) -> [UInt8] { try raw(try length()) }
    /// What `ByteWriter.double` wrote.
    @inlinable package mutating func double() throws(CorruptRecord) -> Double {
        Double(bitPattern: BigEndian.uint64(try raw(8)) ?? 0)
    }

    /// Fails unless every byte has been read (trailing bytes mean a corrupt record).
    @inlinable package func expectEnd() throws(CorruptRecord) {
        guard isAtEnd else { throw CorruptRecord(message: "\(remaining) trailing bytes") }
    }
}

/// The decoding primitives, over a span of bytes and a read position that they advance.
package enum SpanReading {
    /// Reads one byte at `offset`.
    @inlinable @inline(__always) package static func u8(_ span: Span<UInt8>, _ offset: inout Int) throws(CorruptRecord)
        -> UInt8
    {
        guard offset < span.count else { throw CorruptRecord(message: "truncated") }
        defer { offset += 1 }
        return span[offset]
    }

    /// Reads an unsigned LEB128 varint of at most 64 bits, refusing one that overflows.
    @inlinable @inline(__always) package static func varint(_ span: Span<UInt8>, _ offset: inout Int)
        throws(CorruptRecord) -> UInt64
    {
        // Most are one byte (a string's length, a count): read without the loop's checks.
        if offset < span.count, span[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(span[offset])
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8(span, &offset)
            guard shift < 64, shift < 63 || byte <= 1 else { throw CorruptRecord(message: "varint overflow") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Reads an `Int` (a varint of its 64-bit pattern).
    @inlinable @inline(__always) package static func int(_ span: Span<UInt8>, _ offset: inout Int) throws(CorruptRecord)
        -> Int
    {
        Int(Int64(bitPattern: try varint(span, &offset)))
    }

    /// Reads an `Int64` (a varint of its bit pattern).
    @inlinable @inline(__always) package static func int64(_ span: Span<UInt8>, _ offset: inout Int)
        throws(CorruptRecord) -> Int64
    {
        Int64(bitPattern: try varint(span, &offset))
    }

    /// Reads a varint length, refusing one past the end of `span`.
    @inlinable @inline(__always) package static func length(_ span: Span<UInt8>, _ offset: inout Int)
        throws(CorruptRecord) -> Int
    {
        let n = try varint(span, &offset)
        guard n <= UInt64(span.count - offset) else { throw CorruptRecord(message: "length \(n) past the end") }
        return Int(n)
    }

    /// A length-prefixed UTF-8 string; ill-formed UTF-8 (only possible in a corrupted record,
    /// which the hash chain reports) is refused, not trapped on.
    @inlinable package static func string(_ span: Span<UInt8>, _ offset: inout Int) throws(CorruptRecord) -> String {
        let n = try length(span, &offset)
        defer { offset += n }
        do {
            return String(copying: try UTF8Span(validating: span.extracting(offset..<offset + n)))
        } catch {
            throw CorruptRecord(message: "ill-formed UTF-8")
        }
    }

    /// Steps over a string (`string`'s bytes, not checked nor made), or an optional one when
    /// `optional`: for a reader after one field of a record.
    @inlinable package static func skipString(_ span: Span<UInt8>, _ offset: inout Int, optional: Bool = false)
        throws(CorruptRecord)
    {
        if optional {
            switch try u8(span, &offset) {
            case 0: return
            case 1: break
            default: throw CorruptRecord(message: "bad optional flag")
            }
        }
        offset += try length(span, &offset)
    }

    /// A flag byte (0: `nil`, 1: a string follows), then the string.
    @inlinable package static func optionalString(_ span: Span<UInt8>, _ offset: inout Int) throws(CorruptRecord)
        -> String?
    {
        switch try u8(span, &offset) {
        case 0: return nil
        case 1: return try string(span, &offset)
        default: throw CorruptRecord(message: "bad optional flag")
        }
    }

    /// A varint count, then that many strings (a count past the end is refused before allocating).
    @inlinable package static func strings(_ span: Span<UInt8>, _ offset: inout Int) throws(CorruptRecord) -> [String] {
        let count = try varint(span, &offset)
        guard count <= UInt64(span.count - offset) else { throw CorruptRecord(message: "list count past the end") }
        var out: [String] = []
        out.reserveCapacity(Int(count))
        for _ in 0..<count { out.append(try string(span, &offset)) }
        return out
    }
}
