/// Encodes an `Encodable` value into a `JSONValue`: members in the order the value encodes
/// them (`JSONWriter` sorts them when asked), integers exactly, `nil` optionals omitted (as
/// synthesized conformances do) unless encoded as `null` (`Nullable`).
public enum JSONValueEncoder {
    /// The JSON form of `value`.
    public static func encode(_ value: some Encodable) throws -> JSONValue {
        if let json = value as? JSONValue { return json }
        let node = Node()
        try value.encode(to: TreeEncoder(node: node, codingPath: []))
        return node.value ?? .object([])
    }

    /// The compact bytes of `value`, members sorted (the form of the product's answers).
    public static func bytes(_ value: some Encodable) throws -> [UInt8] {
        JSONWriter.bytes(try encode(value))
    }
}

extension JSONValue: Encodable {
    /// Encodes the tree as it is (a `JSONValue` inside an `Encodable` value).
    public func encode(to encoder: any Encoder) throws {
        guard let tree = encoder as? TreeEncoder else {
            throw EncodingError.invalidValue(
                self,
                .init(
                    codingPath: encoder.codingPath,
                    debugDescription: "a JSONValue encodes through JSONValueEncoder"))
        }
        tree.node.kind = .leaf(self)
    }
}

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

/// One value being encoded: its containers fill it in, `value` reads it out.
final class Node {
    enum Kind {
        case empty
        case leaf(JSONValue)
        case object([(key: String, node: Node)])
        case array([Node])
    }
    var kind: Kind = .empty

    /// The member `key`'s node (made, in order, on first use).
    func member(_ key: String) -> Node {
        if case .object(let members) = kind, let found = members.first(where: { $0.key == key }) { return found.node }
        let node = Node()
        if case .object(var members) = kind {
            members.append((key, node))
            kind = .object(members)
        } else {
            kind = .object([(key, node)])
        }
        return node
    }

    /// A new last element.
    func appended() -> Node {
        let node = Node()
        if case .array(var elements) = kind {
            elements.append(node)
            kind = .array(elements)
        } else {
            kind = .array([node])
        }
        return node
    }

    /// The encoded value; `nil` when nothing was encoded (an omitted member).
    var value: JSONValue? {
        switch kind {
        case .empty: nil
        case .leaf(let value): value
        case .object(let members): .object(members.compactMap { m in m.node.value.map { (key: m.key, value: $0) } })
        case .array(let elements): .array(elements.map { $0.value ?? .null })
        }
    }
}

struct TreeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.kind {} else { node.kind = .object([]) }
        return KeyedEncodingContainer(KeyedTree<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.kind {} else { node.kind = .array([]) }
        return UnkeyedTree(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleTree(node: node, codingPath: codingPath) }
}

struct KeyedTree<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue, _ key: Key) { node.member(key.stringValue).kind = .leaf(value) }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.double(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try value.encode(to: TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

struct UnkeyedTree: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { if case .array(let elements) = node.kind { elements.count } else { 0 } }

    private func append(_ value: JSONValue) { node.appended().kind = .leaf(value) }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(.double(value)) }
    mutating func encode(_ value: Float) throws { append(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { append(.integer(value)) }
    mutating func encode(_ value: Int64) throws { append(.integer(value)) }
    mutating func encode(_ value: UInt64) throws { append(.integer(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: TreeEncoder(node: node.appended(), codingPath: codingPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        TreeEncoder(node: node.appended(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        TreeEncoder(node: node.appended(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.appended(), codingPath: codingPath) }
}

struct SingleTree: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    private func set(_ value: JSONValue) { node.kind = .leaf(value) }
    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(.double(value)) }
    mutating func encode(_ value: Float) throws { set(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { set(.integer(value)) }
    mutating func encode(_ value: Int8) throws { set(.integer(value)) }
    mutating func encode(_ value: Int16) throws { set(.integer(value)) }
    mutating func encode(_ value: Int32) throws { set(.integer(value)) }
    mutating func encode(_ value: Int64) throws { set(.integer(value)) }
    mutating func encode(_ value: UInt) throws { set(.integer(value)) }
    mutating func encode(_ value: UInt8) throws { set(.integer(value)) }
    mutating func encode(_ value: UInt16) throws { set(.integer(value)) }
    mutating func encode(_ value: UInt32) throws { set(.integer(value)) }
    mutating func encode(_ value: UInt64) throws { set(.integer(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: TreeEncoder(node: node, codingPath: codingPath))
    }
}
