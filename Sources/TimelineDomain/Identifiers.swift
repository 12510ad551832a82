import JSONModel

/// A stable identifier: 1–64 characters of `[A-Za-z0-9_-]`. Generated identifiers are
/// 20-character push IDs whose byte order is creation order; imported ones are kept as they are.
public protocol Identifier: Hashable, Comparable, Sendable, CustomStringConvertible, Codable, SchemaDescribed {
    /// The identifier's text.
    var rawValue: String { get }
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    init(_ rawValue: String)
}

extension Identifier {
    /// The identifier's text.
    public var description: String { rawValue }
    /// Byte order of the text: for generated identifiers, creation order.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }

    /// Returns the identifier if `text` is a well-formed identifier, else `nil`.
    public static func parse(_ text: String) -> Self? { IdentifierSyntax.isValid(text) ? Self(text) : nil }
}

/// Identifiers are JSON strings; their schema is the envelope schema's `identifier`.
extension Identifier {
    /// Reads the identifier's text (as is: deciding checks user input with `parse(_:)`).
    public init(from decoder: any Decoder) throws { self.init(try decoder.singleValueContainer().decode(String.self)) }
    /// Writes the identifier's text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    /// `schemas/envelope.schema.json#/$defs/identifier`, as the files of `schemas/events/` and
    /// `schemas/commands/` reach it.
    public static var jsonSchema: JSONSchema { .identifier }
    /// A well-formed identifier.
    public static var schemaPlaceholder: Self { Self("x") }
}

extension JSONSchema {
    /// `schemas/envelope.schema.json#/$defs/identifier`, from a file of `schemas/events/` or
    /// `schemas/commands/`.
    public static let identifier = JSONSchema.reference("../envelope.schema.json#/$defs/identifier")
    /// `schemas/envelope.schema.json#/$defs/place`, from a file of `schemas/events/` or `schemas/commands/`.
    public static let place = JSONSchema.reference("../envelope.schema.json#/$defs/place")
}

/// The syntax shared by every identifier.
public enum IdentifierSyntax {
    /// The syntax as a JSON Schema `pattern`.
    public static let pattern = "^[A-Za-z0-9_-]{1,64}$"

    /// Whether `text` is 1–64 characters of `[A-Za-z0-9_-]`.
    public static func isValid(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (1...64).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F
        }
    }
}

/// A user's identifier.
public struct UserID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
/// A post's identifier.
public struct PostID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
/// An uploaded photo's identifier (`uploadMedia`), until and after a post attaches it.
public struct MediaID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
/// A comment's identifier.
public struct CommentID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
/// An event's identifier (unique in the log).
public struct EventID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
/// Content address of an image: the hex BLAKE2b-256 of its bytes.
public struct ImageID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
