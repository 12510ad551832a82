/// Reading a `JSONValue` from any `Decoder` (a request body through `JSONDecoder`): `null`,
/// booleans, integers exactly (as 64-bit, signed or not), other numbers as `Double`s, strings, arrays, and
/// objects with their members sorted by key (`JSONDecoder` does not keep the document's order).
extension JSONValue: Decodable, SchemaDescribed {
    /// Reads any JSON value (an object's members in key order: `Decoder` does not keep theirs).
    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(
                try keyed.allKeys.sorted { $0.stringValue < $1.stringValue }
                    .map { (key: $0.stringValue, value: try keyed.decode(JSONValue.self, forKey: $0)) })
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(elements)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let bool = try? single.decode(Bool.self) {
                self = .bool(bool)
            } else if let integer = try? single.decode(Int64.self) {
                self = .integer(integer)
            } else if let integer = try? single.decode(UInt64.self) {
                self = .integer(integer)
            } else if let number = try? single.decode(Double.self) {
                self = .double(number)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    /// Any value.
    public static var jsonSchema: JSONSchema { .any }
    /// `null`.
    public static var schemaPlaceholder: JSONValue { .null }
}

/// Any member name.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
