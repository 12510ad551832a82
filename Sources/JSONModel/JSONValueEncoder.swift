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

/// One value being encoded: its containers fill it in, `value` reads it out.
final class Node {
    enum Kind {
        case empty
        case leaf(JSONValue)
        case object
        case array
    }
    /// What the node holds; an object's members and an array's elements are kept beside it, in
    /// the node itself, so that adding one does not copy the others.
    var kind: Kind = .empty {
        didSet {
            if case .object = kind {} else { members = [] }
            if case .array = kind {} else { elements = [] }
        }
    }
    private var members: [(key: String, node: Node)] = []
    private var elements: [Node] = []

    /// The number of elements, if this is an array.
    var count: Int { elements.count }

    /// The member `key`'s node (made, in order, on first use; a type's keys are few, so
    /// finding one by a walk is cheaper than a table).
    func member(_ key: String) -> Node {
        if case .object = kind, let found = members.first(where: { $0.key == key }) { return found.node }
        if case .object = kind {} else { kind = .object }
        let node = Node()
        members.append((key, node))
        return node
    }

    /// A new last element.
    func appended() -> Node {
        if case .array = kind {} else { kind = .array }
        let node = Node()
        elements.append(node)
        return node
    }

    /// The encoded value; `nil` when nothing was encoded (an omitted member).
    var value: JSONValue? {
        switch kind {
        case .empty: nil
        case .leaf(let value): value
        case .object: .object(members.compactMap { m in m.node.value.map { (key: m.key, value: $0) } })
        case .array: .array(elements.map { $0.value ?? .null })
        }
    }
}

struct TreeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.kind {} else { node.kind = .object }
        return KeyedEncodingContainer(KeyedTree<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.kind {} else { node.kind = .array }
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
    var count: Int { node.count }

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
