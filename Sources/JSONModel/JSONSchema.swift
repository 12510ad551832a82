/// A JSON Schema (draft 2020-12) as a value: an ordered JSON object built with the
/// constructors below, or generated from a Swift type with `JSONSchema.of(_:)`, so that a
/// shape is defined once (its Swift type) and its schema follows from it.
public struct JSONSchema: Sendable, Equatable {
    /// The schema's JSON object.
    public var json: JSONValue

    /// A schema from its JSON object.
    public init(_ json: JSONValue) { self.json = json }

    /// Any value.
    public static let any = JSONSchema(.object([]))
    /// A string.
    public static let string = JSONSchema(["type": "string"])
    /// An integer.
    public static let integer = JSONSchema(["type": "integer"])
    /// A number.
    public static let number = JSONSchema(["type": "number"])
    /// `true` or `false`.
    public static let boolean = JSONSchema(["type": "boolean"])
    /// `null`.
    public static let null = JSONSchema(["type": "null"])

    /// A string matching `pattern` (an ECMA-262 regular expression) and/or of `format`.
    public static func string(pattern: String? = nil, format: String? = nil) -> JSONSchema {
        var schema = JSONSchema.string
        if let pattern { schema = schema.with("pattern", .string(pattern)) }
        if let format { schema = schema.with("format", .string(format)) }
        return schema
    }

    /// One of the strings `values`.
    public static func enumeration(_ values: [String]) -> JSONSchema {
        JSONSchema(["type": "string", "enum": .array(values.map(JSONValue.string))])
    }

    /// Exactly `value`.
    public static func constant(_ value: JSONValue) -> JSONSchema { JSONSchema(["const": value]) }

    /// An array of `items`.
    public static func array(of items: JSONSchema) -> JSONSchema { JSONSchema(["type": "array", "items": items.json]) }

    /// An object of any keys, each value `values`.
    public static func map(of values: JSONSchema) -> JSONSchema {
        JSONSchema(["type": "object", "additionalProperties": values.json])
    }

    /// An object of exactly `properties` (in order), of which `required` must be present.
    public static func object(_ properties: [(String, JSONSchema)], required: [String]) -> JSONSchema {
        JSONSchema([
            "type": "object", "additionalProperties": false,
            "required": .array(required.map(JSONValue.string)),
            "properties": .object(properties.map { (key: $0.0, value: $0.1.json) })
        ])
    }

    /// A reference to the schema at `target` (`#/components/schemas/Post`, `../envelope.schema.json#/$defs/id`).
    public static func reference(_ target: String) -> JSONSchema { JSONSchema(["$ref": .string(target)]) }

    /// Any one of `choices`.
    public static func oneOf(_ choices: [JSONSchema]) -> JSONSchema {
        JSONSchema(["oneOf": .array(choices.map(\.json))])
    }

    /// This schema with keyword `key` set to `value` (in place if present, else last).
    public func with(_ key: String, _ value: JSONValue) -> JSONSchema { JSONSchema(json.setting(key, value)) }

    /// This schema with `text` as its description (unchanged when `text` is nil).
    public func described(_ text: String?) -> JSONSchema { text.map { with("description", .string($0)) } ?? self }

    /// This schema, or `null`.
    public var nullable: JSONSchema {
        switch json["type"] {
        case .string(let type)?: with("type", [.string(type), "null"])
        case .array(let types)? where !types.contains("null"): with("type", .array(types + ["null"]))
        case .array?: self
        default: JSONSchema(["anyOf": [json, JSONSchema.null.json]])
        }
    }

    /// The schema of the member `name`, if this is an object schema that has it.
    public func property(_ name: String) -> JSONSchema? { json["properties"]?[name].map(JSONSchema.init) }
}
