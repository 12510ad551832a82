import Foundation
import JSONModel

/// The pieces of compact JSON the page writer (`postPageBytes`) and the timestamps write
/// straight into bytes: strings and integers, spelled as `JSONWriter` spells them.
enum CompactJSONWriter {
    /// Appends `string` as a JSON string.
    static func writeString(_ string: String, into out: inout [UInt8]) { writeString(string.utf8, into: &out) }

    /// Appends `value`'s decimal digits (what `String(value)` spells), zero-padded to
    /// `minimumDigits`, without making a string.
    static func writeInteger(_ value: Int, into out: inout [UInt8], minimumDigits: Int = 1) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var count = 1, rest = magnitude
        while rest >= 10 {
            count += 1
            rest /= 10
        }
        count = max(count, minimumDigits)
        let end = out.count + count
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var index = end, remaining = magnitude
        repeat {
            index -= 1
            out[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        } while remaining > 0
    }

    /// Whether JSON must escape `byte` in a string: a control character, `"` or `\`.
    static func mustEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Writes a record's field `bytes` as a JSON string, searched in one contiguous pass for
    /// what must be escaped and for bytes past ASCII. Those are copied only when well-formed
    /// UTF-8: a damaged record's go through `String(decoding:as:)`, which repairs them, so what
    /// is written is always JSON (the record's fields are not checked when they are found).
    static func writeString(_ bytes: ArraySlice<UInt8>, into out: inout [UInt8]) {
        guard ByteScans.contains(bytes, where: { mustEscape($0) || $0 >= 0x80 }) else {
            return write(bytes, plain: true, into: &out)
        }
        let wellFormed = (try? UTF8Span(validating: bytes.span)) != nil
        write(bytes, plain: wellFormed && !ByteScans.contains(bytes, where: mustEscape), into: &out)
    }

    /// Writes well-formed UTF-8 `bytes` as a JSON string.
    static func writeString(_ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
        write(bytes, plain: !bytes.contains(where: mustEscape), into: &out)
    }

    /// Most strings (ids, usernames, timestamps) need no escaping (`plain`): copied whole.
    private static func write(_ bytes: some Collection<UInt8>, plain: Bool, into out: inout [UInt8]) {
        guard !plain else {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return
        }
        writeEscaped(bytes, into: &out)
    }

    /// A string that needs escaping is rare (a caption with a quote or a line break): it is
    /// written by `JSONWriter`, whose escaping every answer shares.
    private static func writeEscaped(_ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
        JSONWriter.writeString(String(decoding: bytes, as: UTF8.self), into: &out)
    }
}
