import Foundation

/// The part of RFC 8941 (Structured Field Values) that RFC 9421's `Signature-Input` and
/// `Signature` and RFC 9530's `Content-Digest` use: a dictionary whose members are byte
/// sequences or inner lists of strings, each with parameters.
enum StructuredFields {
    /// A bare item.
    enum Item: Equatable {
        case string(String)
        case token(String)
        case integer(Int64)
        case bytes([UInt8])
        case boolean(Bool)
    }

    /// A dictionary member's value.
    enum Value: Equatable {
        case item(Item)
        /// An inner list of items.
        case innerList([Item])
    }

    /// A dictionary member: its key, value and parameters, in the order written.
    struct Member: Equatable {
        var key: String
        var value: Value
        var parameters: [(key: String, value: Item)]

        static func == (a: Member, b: Member) -> Bool {
            a.key == b.key && a.value == b.value && a.parameters.elementsEqual(b.parameters) { $0 == $1 }
        }
    }

    /// The longest field parsed (a signature's input is a few hundred bytes).
    static let maxLength = 8 * 1024

    /// The members of a dictionary field's value.
    static func dictionary(_ text: String) throws(SignatureError) -> [Member] {
        var parser = Parser(Array(text.utf8))
        return try parser.dictionary()
    }

    /// `items` as an inner list with `parameters`, written as RFC 8941 serialises it.
    static func serialise(innerList items: [Item], parameters: [(key: String, value: Item)]) -> String {
        "(" + items.map(serialise).joined(separator: " ") + ")"
            + parameters.map { ";" + $0.key + ($0.value == .boolean(true) ? "" : "=" + serialise($0.value)) }.joined()
    }

    /// A bare item as RFC 8941 serialises it.
    static func serialise(_ item: Item) -> String {
        switch item {
        case .string(let text):
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .token(let token): token
        case .integer(let number): String(number)
        case .bytes(let bytes): ":" + Data(bytes).base64EncodedString() + ":"
        case .boolean(let flag): flag ? "?1" : "?0"
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var at = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        private var current: UInt8? { at < bytes.count ? bytes[at] : nil }

        private func fail(_ why: String) -> SignatureError { .malformed(why) }

        private mutating func skip(_ set: Set<UInt8>) { while let byte = current, set.contains(byte) { at += 1 } }

        mutating func dictionary() throws(SignatureError) -> [Member] {
            guard bytes.count <= StructuredFields.maxLength else { throw fail("a structured field too long") }
            var members: [Member] = []
            skip([0x20])
            while current != nil {
                let key = try self.key()
                var value = Value.item(.boolean(true))
                if current == UInt8(ascii: "=") {
                    at += 1
                    value = current == UInt8(ascii: "(") ? .innerList(try innerList()) : .item(try item())
                }
                let parameters = try self.parameters()
                members.removeAll { $0.key == key }
                members.append(Member(key: key, value: value, parameters: parameters))
                skip([0x20, 0x09])
                guard current != nil else { break }
                guard current == UInt8(ascii: ",") else { throw fail("a dictionary member not followed by a comma") }
                at += 1
                skip([0x20, 0x09])
                guard current != nil else { throw fail("a dictionary ending in a comma") }
            }
            return members
        }

        private mutating func innerList() throws(SignatureError) -> [Item] {
            at += 1
            var items: [Item] = []
            while true {
                skip([0x20])
                guard let byte = current else { throw fail("an inner list not closed") }
                if byte == UInt8(ascii: ")") {
                    at += 1
                    return items
                }
                items.append(try item())
                // A parameter on a component (`;sf`, `;key`, `;req`) is not taken.
                guard current == UInt8(ascii: " ") || current == UInt8(ascii: ")") else {
                    throw fail("an inner list's item with parameters, or not separated by a space")
                }
            }
        }

        private mutating func parameters() throws(SignatureError) -> [(key: String, value: Item)] {
            var parameters: [(key: String, value: Item)] = []
            while current == UInt8(ascii: ";") {
                at += 1
                skip([0x20])
                let key = try self.key()
                var value = Item.boolean(true)
                if current == UInt8(ascii: "=") {
                    at += 1
                    value = try item()
                }
                parameters.removeAll { $0.key == key }
                parameters.append((key, value))
            }
            return parameters
        }

        private mutating func key() throws(SignatureError) -> String {
            let start = at
            guard let first = current, (0x61...0x7A).contains(first) || first == UInt8(ascii: "*") else {
                throw fail("a key that does not start with a lower-case letter")
            }
            while let byte = current,
                (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || "_-.*".utf8.contains(byte)
            {
                at += 1
            }
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }

        private mutating func item() throws(SignatureError) -> Item {
            guard let byte = current else { throw fail("a value missing") }
            switch byte {
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: ":"): return .bytes(try byteSequence())
            case UInt8(ascii: "?"):
                at += 1
                guard let flag = current, flag == UInt8(ascii: "0") || flag == UInt8(ascii: "1") else {
                    throw fail("a boolean that is not ?0 or ?1")
                }
                at += 1
                return .boolean(flag == UInt8(ascii: "1"))
            case UInt8(ascii: "-"), 0x30...0x39: return .integer(try integer())
            default:
                let start = at
                guard (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "*") else {
                    throw fail("a value of an unknown kind")
                }
                while let next = current, next > 0x20, next < 0x7F, !"\"(),;<=>?@[\\]{}".utf8.contains(next) {
                    at += 1
                }
                return .token(String(decoding: bytes[start..<at], as: UTF8.self))
            }
        }

        private mutating func string() throws(SignatureError) -> String {
            at += 1
            var out: [UInt8] = []
            while let byte = current {
                at += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = current, escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\") else {
                        throw fail("a string with a bad escape")
                    }
                    at += 1
                    out.append(escaped)
                case 0x20..<0x7F: out.append(byte)
                default: throw fail("a string with a byte outside printable ASCII")
                }
            }
            throw fail("a string not closed")
        }

        private mutating func byteSequence() throws(SignatureError) -> [UInt8] {
            at += 1
            let start = at
            while let byte = current, byte != UInt8(ascii: ":") { at += 1 }
            guard current == UInt8(ascii: ":"),
                let data = Data(base64Encoded: String(decoding: bytes[start..<at], as: UTF8.self))
            else { throw fail("a byte sequence that is not base64 between colons") }
            at += 1
            return Array(data)
        }

        private mutating func integer() throws(SignatureError) -> Int64 {
            let start = at
            if current == UInt8(ascii: "-") { at += 1 }
            while let byte = current, (0x30...0x39).contains(byte) { at += 1 }
            guard at - start <= 15, let number = Int64(String(decoding: bytes[start..<at], as: UTF8.self)) else {
                throw fail("an integer that is not 1 to 15 digits")
            }
            return number
        }
    }
}
