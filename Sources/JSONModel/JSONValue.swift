/// A JSON value held in memory (one record of a streamed document).
public indirect enum JSONValue: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as written (no precision is lost).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// Keys in document order; a repeated key keeps its last value on lookup.
    case object([(key: String, value: JSONValue)])

    /// Equality member by member, in order (a tuple array is not `Equatable` by itself).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    /// The member `key` of an object (the last one if repeated).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The string, if this is one.
    public var string: String? { if case .string(let s) = self { s } else { nil } }

    /// The members of an object, or nothing.
    public var members: [(key: String, value: JSONValue)] { if case .object(let m) = self { m } else { [] } }
}

extension JSONValue {
    /// An integer.
    public static func integer(_ value: some BinaryInteger) -> JSONValue { .number(String(value)) }

    /// A number: integral values as integers, others as Swift spells the shortest exact decimal.
    public static func double(_ value: Double) -> JSONValue {
        if value.rounded() == value, abs(value) < 1e15 { return .number(String(Int64(value))) }
        return .number(String(value))
    }

    /// The elements of an array, or nothing.
    public var elements: [JSONValue] { if case .array(let a) = self { a } else { [] } }

    /// The values of the member `key` that may be one value or an array of them (as
    /// ActivityStreams' `to`, `attachment`, `icon`…): the array's elements, the one value, or
    /// nothing when it is absent or `null`.
    public func all(_ key: String) -> [JSONValue] {
        switch self[key] {
        case .array(let items)?: items
        case .null?, nil: []
        case let one?: [one]
        }
    }

    /// A copy of this object with `key` set to `value` (replaced in place if present, else
    /// appended); other values are returned unchanged.
    public func setting(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key, value))
        }
        return .object(members)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object, its members in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
}
