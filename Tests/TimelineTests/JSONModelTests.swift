import Foundation
import JSONModel
import Testing

/// The typed JSON layer: values encode to the bytes Foundation's writer gives (sorted keys,
/// unescaped slashes), and schemas read from the same types accept what they encode.
@Suite struct JSONModelTests {
    enum Kind: String, Codable, SchemaEnumeration { case photo, video }

    struct Media: Codable, Equatable, SchemaDocumented {
        var id: String
        var kind: Kind
        var width: Int
        var alt: String?
        var focus: [Double]
        static let schemaDescription: String? = "A photo or a video."
        static let memberDescriptions = ["alt": "What the picture shows."]
        static let memberSchemas = ["id": JSONSchema.string(pattern: "^[0-9]+$")]
    }

    struct Post: Codable, Equatable {
        var id: String
        var caption: Nullable<String>
        var media: [Media]
        var counts: [String: Int]
        var sensitive: Bool
    }

    let post = Post(
        id: "1", caption: Nullable(nil),
        media: [Media(id: "2", kind: .video, width: 640, alt: "a \"quoted\"/slashed\nline é", focus: [0.5, -0.25])],
        counts: ["likes": 3, "Comments": 1], sensitive: false)

    @Test func encodesAsFoundationWritesSortedCompactJSON() throws {
        let ours = try JSONValueEncoder.bytes(post)
        let foundation = try JSONSerialization.data(
            withJSONObject: try JSONSerialization.jsonObject(with: Data(ours)),
            options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: foundation, as: UTF8.self))
        #expect(try JSONDecoder().decode(Post.self, from: Data(ours)) == post)
        #expect(String(decoding: ours, as: UTF8.self).contains(#""caption":null"#))
    }

    @Test func schemasAreReadFromTheTypes() throws {
        let schema = try JSONSchema.of(Post.self)
        #expect(schema.json["required"] == ["id", "caption", "media", "counts", "sensitive"])
        #expect(schema.property("caption")?.json["type"] == ["string", "null"])
        #expect(schema.property("counts") == .map(of: .integer))
        let media = try #require(schema.property("media")?.json["items"]).members.map(\.key)
        #expect(media == ["type", "additionalProperties", "required", "properties", "description"])
        let item = try JSONSchema.of(Media.self)
        #expect(item.json["required"] == ["id", "kind", "width", "focus"])
        #expect(item.property("kind")?.json["enum"] == ["photo", "video"])
        #expect(item.property("id")?.json["pattern"] == "^[0-9]+$")
        #expect(item.property("alt")?.json["description"] == "What the picture shows.")
        #expect(item.property("focus") == .array(of: .number))
    }

    struct Range: Codable, SchemaDocumented {
        var low: Int
        var high: Int?
        static let schemaKeywords: [String: JSONValue] = ["dependentRequired": ["high": ["low"]]]
    }

    /// `schemaKeywords` land in the schema, and `documented` applies a type's additions to a
    /// schema made some other way (as the command definitions' schemas are).
    @Test func documentationAddsKeywordsToAnySchema() throws {
        let schema = try JSONSchema.of(Range.self)
        #expect(schema.json["dependentRequired"] == ["high": ["low"]])
        #expect(schema.json["required"] == ["low"])
        let made = Media.documented(.object([("id", .string), ("alt", .string)], required: ["id"]))
        #expect(made.property("id")?.json["pattern"] == "^[0-9]+$")
        #expect(made.property("alt")?.json["description"] == "What the picture shows.")
        #expect(made.json["description"] == "A photo or a video.")
    }

    /// A `JSONValue` decodes from any JSON (members in key order), and is any value in a schema.
    @Test func valuesDecodeFromAnyJSON() throws {
        let text = #"{"b": [1, 2.5, null, true], "a": "x"}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(value == ["a": "x", "b": [1, .number("2.5"), nil, true]])
        #expect(JSONValue.jsonSchema == .any)
    }

    struct Counters: Codable {
        var total: UInt64
        var small: Int32?
        var big: UInt64?
        var ratio: Float?
    }

    @Test func optionalMembersOfEveryPrimitiveAreNotRequired() throws {
        let schema = try JSONSchema.of(Counters.self)
        #expect(schema.json["required"] == ["total"])
        #expect(schema.property("big") == .integer && schema.property("ratio") == .number)
    }

    @Test func prettyTextIsIndentedByTwoSpaces() {
        let text = JSONWriter.pretty(["a": [1, "b"], "c": [:], "d": []])
        #expect(text == "{\n  \"a\": [\n    1,\n    \"b\"\n  ],\n  \"c\": {},\n  \"d\": []\n}\n")
    }
}
