import Foundation
import JSONModel

extension JSONOutput {
    /// One compact line of JSON of `object` (a dictionary an event or a command makes), as `bytes(_:)` writes it.
    package static func line(_ object: Any) -> String { String(decoding: bytes(object), as: UTF8.self) }

    /// The compact JSON of `object` with sorted keys and unescaped slashes — byte for byte what
    /// `JSONSerialization.data(withJSONObject:options: [.sortedKeys, .withoutEscapingSlashes])`
    /// writes for the values `JSONOutput` builds (strings, integers, booleans, `NSNull`, arrays
    /// and string-keyed dictionaries of them), written directly: Foundation's writer on Linux
    /// bridges every value and compares keys through an ICU collator, which made it ~80% of
    /// the CPU of `GET /v1/timeline`. Anything else (a `Double`, say) goes to Foundation.
    package static func bytes(_ object: Any) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        if CompactJSONWriter.write(object, into: &out) { return out }
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data("{}".utf8))
    }
}

enum CompactJSONWriter {
    /// Appends `value`; false when it holds something this writer leaves to Foundation.
    /// Dispatches on the exact dynamic type: a conditional cast (`as?`, `is NSNull`) of a
    /// Swift collection bridges it to an NSArray or NSDictionary on Linux, which cost more
    /// than writing it.
    static func write(_ value: Any, into out: inout [UInt8]) -> Bool {
        switch ObjectIdentifier(type(of: value)) {
        case ObjectIdentifier(String.self):
            writeString(value as! String, into: &out)
        case ObjectIdentifier([String: Any].self):
            return writeObject(value as! [String: Any], into: &out)
        case ObjectIdentifier([[String: Any]].self):
            out.append(UInt8(ascii: "["))
            for (index, object) in (value as! [[String: Any]]).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard writeObject(object, into: &out) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        case ObjectIdentifier([String].self):
            out.append(UInt8(ascii: "["))
            for (index, string) in (value as! [String]).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(string, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case ObjectIdentifier(Int.self):
            out += Array(String(value as! Int).utf8)
        case ObjectIdentifier(Bool.self):
            out += (value as! Bool) ? Array("true".utf8) : Array("false".utf8)
        case ObjectIdentifier(Int64.self):
            out += Array(String(value as! Int64).utf8)
        case ObjectIdentifier(Int32.self):
            out += Array(String(value as! Int32).utf8)
        case ObjectIdentifier(UInt64.self):
            out += Array(String(value as! UInt64).utf8)
        case ObjectIdentifier(NSNull.self):
            out += Array("null".utf8)
        case ObjectIdentifier([Any].self):
            out.append(UInt8(ascii: "["))
            for (index, element) in (value as! [Any]).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard write(element, into: &out) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        default:
            return false
        }
        return true
    }

    private static func writeObject(_ object: [String: Any], into out: inout [UInt8]) -> Bool {
        out.append(UInt8(ascii: "{"))
        for (index, key) in object.keys.sorted(by: JSONWriter.keyOrder).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            guard write(object[key]!, into: &out) else { return false }
        }
        out.append(UInt8(ascii: "}"))
        return true
    }

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

    /// Writes well-formed UTF-8 `bytes` as a JSON string (a record's field: its bytes are
    /// searched for escapes in one contiguous pass).
    static func writeString(_ bytes: ArraySlice<UInt8>, into out: inout [UInt8]) {
        write(bytes, plain: !ByteScans.contains(bytes, where: mustEscape), into: &out)
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
