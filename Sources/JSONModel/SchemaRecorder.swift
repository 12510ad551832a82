/// A type that gives its own schema instead of having it read from its `Decodable`
/// conformance: identifiers with a pattern, string enumerations, maps, anything whose
/// `init(from:)` checks its input. `schemaPlaceholder` is a valid value, returned while
/// recording the schema of a type that holds this one.
public protocol SchemaDescribed {
    /// The type's JSON Schema.
    static var jsonSchema: JSONSchema { get }
    /// Any valid value.
    static var schemaPlaceholder: Self { get }
}

/// A string enumeration: its schema lists its raw values.
public protocol SchemaEnumeration: SchemaDescribed, CaseIterable, RawRepresentable where RawValue == String {}

extension SchemaEnumeration {
    /// A string, one of the raw values.
    public static var jsonSchema: JSONSchema { .enumeration(allCases.map(\.rawValue)) }
    /// The first case.
    public static var schemaPlaceholder: Self { allCases.first! }
}

/// What a type adds to the schema read from its `Decodable` conformance: a description,
/// one per member, and members whose schema is narrower than their Swift type says (a
/// `String` that is a URL, an `Int` that is never negative).
public protocol SchemaDocumented {
    /// What a value of the type is.
    static var schemaDescription: String? { get }
    /// What each member is, by JSON key.
    static var memberDescriptions: [String: String] { get }
    /// Narrower schemas of some members, by JSON key (descriptions are added to them).
    static var memberSchemas: [String: JSONSchema] { get }
    /// Keywords added to the type's schema, in key order: rules across members
    /// (`dependentRequired`, `oneOf`, `not`) or narrower bounds of a leaf type.
    static var schemaKeywords: [String: JSONValue] { get }
}

extension SchemaDocumented {
    /// No description.
    public static var schemaDescription: String? { nil }
    /// No member descriptions.
    public static var memberDescriptions: [String: String] { [:] }
    /// No narrower members.
    public static var memberSchemas: [String: JSONSchema] { [:] }
    /// No added keywords.
    public static var schemaKeywords: [String: JSONValue] { [:] }
}

/// Why a schema could not be read from a type.
public struct SchemaRecordingError: Error, CustomStringConvertible {
    /// What went wrong, naming the type.
    public let description: String
    /// An error saying `description`.
    public init(description: String) { self.description = description }
}

extension JSONSchema {
    /// The schema of `type`, read from its `Decodable` conformance: each member it decodes
    /// (`decodeIfPresent` makes it optional), with the schemas of their types, and what
    /// `SchemaDescribed` and `SchemaDocumented` add.
    public static func of<T: Decodable>(_ type: T.Type) throws -> JSONSchema { try recorded(type).schema }

    static func recorded<T: Decodable>(_ type: T.Type) throws -> (schema: JSONSchema, placeholder: T) {
        if let described = T.self as? any SchemaDescribed.Type, let placeholder = described.schemaPlaceholder as? T {
            return (described.jsonSchema, placeholder)
        }
        let recording = Recording()
        let value: T
        do {
            value = try T(from: RecordingDecoder(recording: recording))
        } catch let error as SchemaRecordingError {
            throw error
        } catch {
            throw SchemaRecordingError(
                description: "\(T.self) did not decode from placeholders (\(error)): "
                    + "make it SchemaDescribed or SchemaEnumeration")
        }
        var schema = recording.schema
        if let documented = T.self as? any SchemaDocumented.Type {
            schema = documented.documented(schema)
        }
        return (schema, value)
    }
}

extension SchemaDocumented {
    /// `schema` (an object schema read from the type, or made some other way) with what the
    /// type adds: its keywords, its members' narrower schemas and descriptions, its description.
    public static func documented(_ schema: JSONSchema) -> JSONSchema {
        let schema = schemaKeywords.keys.sorted().reduce(schema) { $0.with($1, schemaKeywords[$1]!) }
        guard case .object(var properties)? = schema.json["properties"] else {
            return schema.described(schemaDescription)
        }
        for index in properties.indices {
            let key = properties[index].key
            var member = memberSchemas[key] ?? JSONSchema(properties[index].value)
            member = member.described(memberDescriptions[key])
            properties[index].value = member.json
        }
        return schema.with("properties", .object(properties)).described(schemaDescription)
    }
}

extension Optional: SchemaDescribed where Wrapped: Decodable {
    /// The wrapped type's schema, or `null`.
    public static var jsonSchema: JSONSchema { ((try? JSONSchema.of(Wrapped.self)) ?? .any).nullable }
    /// `nil`.
    public static var schemaPlaceholder: Self { nil }
}

extension Dictionary: SchemaDescribed where Key == String, Value: Decodable {
    /// An object of any keys, each value of `Value`'s schema.
    public static var jsonSchema: JSONSchema { .map(of: (try? JSONSchema.of(Value.self)) ?? .any) }
    /// An empty map.
    public static var schemaPlaceholder: Self { [:] }
}

/// A member that is always present, as `null` when it has no value (Mastodon's entities
/// write `"in_reply_to_id": null` where Swift's synthesized coding would leave the key out).
public struct Nullable<Wrapped: Codable & Sendable>: Codable, Sendable {
    /// The value, if any.
    public var value: Wrapped?
    /// `value`, or null.
    public init(_ value: Wrapped?) { self.value = value }
    /// Reads a value or null.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value = container.decodeNil() ? nil : try container.decode(Wrapped.self)
    }
    /// Writes the value or null.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

extension Nullable: Equatable where Wrapped: Equatable {}

extension Nullable: SchemaDescribed {
    /// The wrapped type's schema, or `null` (always present).
    public static var jsonSchema: JSONSchema { ((try? JSONSchema.of(Wrapped.self)) ?? .any).nullable }
    /// null.
    public static var schemaPlaceholder: Self { Nullable(nil) }
}

/// What decoding one value recorded.
final class Recording {
    var leaf: JSONSchema?
    var properties: [(String, JSONSchema)] = []
    var required: [String] = []
    var items: JSONSchema?

    var schema: JSONSchema {
        if let items { return .array(of: items) }
        if let leaf { return leaf }
        return .object(properties, required: required)
    }

    func member(_ key: String, _ schema: JSONSchema, required isRequired: Bool) {
        guard !properties.contains(where: { $0.0 == key }) else { return }
        properties.append((key, schema))
        if isRequired { required.append(key) }
    }
}

struct RecordingDecoder: Decoder {
    let recording: Recording
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordingKeyed<Key>(recording: recording, codingPath: codingPath))
    }
    func unkeyedContainer() -> any UnkeyedDecodingContainer {
        RecordingUnkeyed(recording: recording, codingPath: codingPath)
    }
    func singleValueContainer() -> any SingleValueDecodingContainer {
        RecordingSingle(recording: recording, codingPath: codingPath)
    }
}

/// The placeholder and schema of each primitive a container may be asked for.
private func primitive<T: Decodable>(_ type: T.Type) throws -> (JSONSchema, T) {
    switch type {
    case is String.Type: return (.string, "" as! T)
    case is Bool.Type: return (.boolean, false as! T)
    case is Double.Type: return (.number, 0.0 as! T)
    case is Float.Type: return (.number, Float(0) as! T)
    case is Int.Type: return (.integer, 0 as! T)
    case is Int8.Type: return (.integer, Int8(0) as! T)
    case is Int16.Type: return (.integer, Int16(0) as! T)
    case is Int32.Type: return (.integer, Int32(0) as! T)
    case is Int64.Type: return (.integer, Int64(0) as! T)
    case is UInt.Type: return (.integer, UInt(0) as! T)
    case is UInt8.Type: return (.integer, UInt8(0) as! T)
    case is UInt16.Type: return (.integer, UInt16(0) as! T)
    case is UInt32.Type: return (.integer, UInt32(0) as! T)
    case is UInt64.Type: return (.integer, UInt64(0) as! T)
    default:
        let (schema, value) = try JSONSchema.recorded(type)
        return (schema, value)
    }
}

struct RecordingKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recording: Recording
    let codingPath: [any CodingKey]
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (schema, value) = try primitive(type)
        recording.member(key.stringValue, schema, required: true)
        return value
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let (schema, _) = try primitive(type)
        recording.member(key.stringValue, schema, required: false)
        return nil
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as Any.Type, key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Any.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Any.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Any.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Any.Type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(type, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(type, key) }
    // Each primitive's own `decodeIfPresent`: the protocol's defaults for them would record the
    // member as required (they call `decode`).
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(type, key) }

    private func decode<T: Decodable>(_ type: Any.Type, _ key: Key) throws -> T { try decode(T.self, forKey: key) }
    private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        try decodeIfPresent(T.self, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let nested = Recording()
        defer { recording.member(key.stringValue, nested.schema, required: true) }
        return KeyedDecodingContainer(RecordingKeyed<NestedKey>(recording: nested, codingPath: codingPath + [key]))
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw SchemaRecordingError(description: "nested unkeyed containers are not recorded (\(key.stringValue))")
    }
    func superDecoder() throws -> any Decoder { RecordingDecoder(recording: recording, codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        RecordingDecoder(recording: recording, codingPath: codingPath + [key])
    }
}

struct RecordingUnkeyed: UnkeyedDecodingContainer {
    let recording: Recording
    let codingPath: [any CodingKey]
    var count: Int? { 1 }
    var isAtEnd: Bool { currentIndex > 0 }
    var currentIndex = 0

    mutating func decodeNil() throws -> Bool { false }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (schema, value) = try primitive(type)
        recording.items = schema
        currentIndex += 1
        return value
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw SchemaRecordingError(description: "nested keyed containers in arrays are not recorded")
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw SchemaRecordingError(description: "nested arrays are not recorded")
    }
    mutating func superDecoder() throws -> any Decoder {
        RecordingDecoder(recording: recording, codingPath: codingPath)
    }
}

struct RecordingSingle: SingleValueDecodingContainer {
    let recording: Recording
    let codingPath: [any CodingKey]
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (schema, value) = try primitive(type)
        recording.leaf = schema
        return value
    }
}
