/// Writes `JSONValue`s as text: compact (one line, the form of every API answer and log line)
/// or indented by two spaces (the generated files of `schemas/`), members in their order or
/// sorted as Foundation's `.sortedKeys` sorts them.
public enum JSONWriter {
    /// The compact UTF-8 bytes of `value`; `sortedKeys` sorts every object's members.
    public static func bytes(_ value: JSONValue, sortedKeys: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, sortedKeys: sortedKeys, indent: nil, into: &out)
        return out
    }

    /// The text of `value`, indented by two spaces per level (as Python's `json.dumps(indent=2)`),
    /// ending with a newline.
    public static func pretty(_ value: JSONValue, sortedKeys: Bool = false) -> String {
        var out: [UInt8] = []
        write(value, sortedKeys: sortedKeys, indent: 0, into: &out)
        out.append(UInt8(ascii: "\n"))
        return String(decoding: out, as: UTF8.self)
    }

    private static func write(_ value: JSONValue, sortedKeys: Bool, indent: Int?, into out: inout [UInt8]) {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .number(let n): out += Array(n.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            writeList(elements, open: "[", close: "]", indent: indent, into: &out) { element, out in
                write(element, sortedKeys: sortedKeys, indent: indent.map { $0 + 1 }, into: &out)
            }
        case .object(let members):
            let ordered = sortedKeys ? members.sorted { keyOrder($0.key, $1.key) } : members
            writeList(ordered, open: "{", close: "}", indent: indent, into: &out) { member, out in
                writeString(member.key, into: &out)
                out += indent == nil ? [UInt8(ascii: ":")] : Array(": ".utf8)
                write(member.value, sortedKeys: sortedKeys, indent: indent.map { $0 + 1 }, into: &out)
            }
        }
    }

    private static func writeList<Element>(
        _ items: [Element], open: Character, close: Character, indent: Int?, into out: inout [UInt8],
        _ each: (Element, inout [UInt8]) -> Void
    ) {
        out.append(open.asciiValue!)
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if let indent { newline(indent + 1, into: &out) }
            each(item, &out)
        }
        if let indent, !items.isEmpty { newline(indent, into: &out) }
        out.append(close.asciiValue!)
    }

    private static func newline(_ level: Int, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\n"))
        out += repeatElement(UInt8(ascii: " "), count: 2 * level)
    }

    /// Foundation's `.sortedKeys` order for the keys the product writes (ASCII letters,
    /// digits and `_`): case-insensitive, then by code point.
    public static func keyOrder(_ a: String, _ b: String) -> Bool {
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return a.utf8.lexicographicallyPrecedes(b.utf8)
            case (nil, _): return true
            case (_, nil): return false
            case let (x?, y?):
                let lx = x >= 65 && x <= 90 ? x + 32 : x, ly = y >= 65 && y <= 90 ? y + 32 : y
                if lx != ly { return lx < ly }
            }
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// `string` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\t`, … or
    /// `\u00XX`, everything else (slashes and non-ASCII too) as it is.
    public static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case ..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
