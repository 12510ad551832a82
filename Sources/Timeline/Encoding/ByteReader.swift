/// A stored record that cannot be decoded: corruption or a format this build does not know.
public struct CorruptRecord: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { "corrupt record: \(message)" }
}

/// Reads what `ByteWriter` wrote, refusing (never trapping on) truncated or hostile bytes.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func u8() throws(CorruptRecord) -> UInt8 {
        guard offset < bytes.count else { throw CorruptRecord(message: "truncated") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws(CorruptRecord) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            guard shift < 64, shift < 63 || byte <= 1 else { throw CorruptRecord(message: "varint overflow") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    mutating func int() throws(CorruptRecord) -> Int { Int(Int64(bitPattern: try varint())) }
    mutating func int64() throws(CorruptRecord) -> Int64 { Int64(bitPattern: try varint()) }

    mutating func length() throws(CorruptRecord) -> Int {
        let n = try varint()
        guard n <= UInt64(remaining) else { throw CorruptRecord(message: "length \(n) past the end") }
        return Int(n)
    }

    mutating func raw(_ count: Int) throws(CorruptRecord) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw CorruptRecord(message: "truncated") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A length-prefixed UTF-8 string. Ill-formed UTF-8 (only possible in a corrupted record,
    /// which the hash chain reports) is repaired, not trapped on.
    mutating func string() throws(CorruptRecord) -> String {
        let n = try length()
        defer { offset += n }
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[offset..<offset + n]), as: UTF8.self) }
    }

    mutating func optionalString() throws(CorruptRecord) -> String? {
        switch try u8() {
        case 0: return nil
        case 1: return try string()
        default: throw CorruptRecord(message: "bad optional flag")
        }
    }

    mutating func strings() throws(CorruptRecord) -> [String] {
        let count = try varint()
        guard count <= UInt64(remaining) else { throw CorruptRecord(message: "list count past the end") }
        var out: [String] = []
        out.reserveCapacity(Int(count))
        for _ in 0..<count { out.append(try string()) }
        return out
    }

    mutating func blob() throws(CorruptRecord) -> [UInt8] { try raw(try length()) }

    func expectEnd() throws(CorruptRecord) {
        guard isAtEnd else { throw CorruptRecord(message: "\(remaining) trailing bytes") }
    }
}
