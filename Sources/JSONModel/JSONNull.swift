/// A member that is always `null`: what an API answers for a feature a server does not have
/// (Mastodon's `reblog`, `poll` and `card` of a status that has none), present and typed as
/// such, so that its schema says `null` instead of inventing a shape.
public struct JSONNull: Codable, Sendable, Equatable, SchemaDescribed {
    /// The null value.
    public init() {}

    /// Reads `null` (anything else is a type mismatch).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard container.decodeNil() else {
            throw DecodingError.typeMismatch(
                JSONNull.self, .init(codingPath: decoder.codingPath, debugDescription: "expected null"))
        }
    }

    /// Writes `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }

    /// `{"type": "null"}`.
    public static var jsonSchema: JSONSchema { .null }
    /// The null value.
    public static var schemaPlaceholder: JSONNull { JSONNull() }
}
