/// Reading a `JSONValue` from any `Decoder` (a request body through `JSONDecoder`): `null`,
/// booleans, integers exactly (as 64-bit), other numbers as `Double`s, strings, arrays, and
/// objects with their members in the order the decoder lists them (`JSONDecoder` does not
/// promise the document's).
extension JSONValue: Decodable {
    /// The value `decoder` holds.
    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(
                try object.allKeys.map { key in
                    (key: key.stringValue, value: try object.decode(JSONValue.self, forKey: key))
                })
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? single.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? single.decode(Double.self) {
            self = .double(number)
        } else {
            self = .string(try single.decode(String.self))
        }
    }
}

/// Any member name.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
