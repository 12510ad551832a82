import Foundation
import JSONModel
import Testing
@testable import TimelineHTTP

/// The pieces the typed Mastodon entities stand on: `JSONNull`, `JSONValue` read through a
/// `Decoder`, `JSONSchema.components` (a held entity by `$ref`), and the Mastodon document's
/// components read from the entity types.
@Suite struct MastodonModelTests {
    struct Inner: Codable, Sendable { var name: String }
    struct Outer: Codable, Sendable {
        var inner: Inner
        var maybe: Nullable<Inner>
        var list: [Inner]
        var never: JSONNull
    }

    @Test func jsonNullIsAlwaysNull() throws {
        let outer = Outer(inner: Inner(name: "a"), maybe: Nullable(nil), list: [], never: JSONNull())
        let text = String(decoding: try JSONValueEncoder.bytes(outer), as: UTF8.self)
        #expect(text == #"{"inner":{"name":"a"},"list":[],"maybe":null,"never":null}"#)
        #expect(try JSONDecoder().decode(Outer.self, from: Data(text.utf8)).never == JSONNull())
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([JSONNull].self, from: Data("[1]".utf8)) }
        #expect(try JSONSchema.of(Outer.self).property("never") == .null)
    }

    @Test func jsonValueIsReadThroughADecoder() throws {
        let text = #"{"a": [1, 2.5, true, null, "x/y"], "b": {"c": -3}, "d": 12345678901234}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(value["a"] == [1, .number("2.5"), true, nil, "x/y"])
        #expect(value["b"] == ["c": -3])
        #expect(value["d"] == .number("12345678901234"))
        #expect(value.members.count == 3)
    }

    @Test func componentsReferToTheSchemasTheyHold() throws {
        let named = [("Inner", try JSONSchema.of(Inner.self)), ("Outer", try JSONSchema.of(Outer.self))]
        let components = JSONSchema.components(named.map { (name: $0.0, schema: $0.1) })
        #expect(components.map(\.name) == ["Inner", "Outer"])
        #expect(components[0].schema == named[0].1)
        let outer = components[1].schema
        #expect(outer.property("inner") == .reference("#/components/schemas/Inner"))
        #expect(outer.property("maybe")?.json == ["anyOf": [["$ref": "#/components/schemas/Inner"], ["type": "null"]]])
        #expect(outer.property("list") == .array(of: .reference("#/components/schemas/Inner")))
    }

    @Test func theMastodonDocumentsComponentsAreTheEntityTypes() throws {
        let schemas = try MastodonOpenAPI.schemas()
        let names = Set(schemas.map(\.name))
        #expect(names.count == schemas.count)
        // Every reference names a component, and the entities held by others are referred to.
        func references(_ value: JSONValue) -> [String] {
            switch value {
            case .object(let members):
                members.flatMap { $0.key == "$ref" ? [$0.value.string ?? ""] : references($0.value) }
            case .array(let elements): elements.flatMap(references)
            default: []
            }
        }
        let all = schemas.flatMap { references($0.schema.json) }
        #expect(all.allSatisfy { $0.hasPrefix("#/components/schemas/") && names.contains(String($0.dropFirst(21))) })
        let status = try #require(schemas.first { $0.name == "Status" }?.schema)
        #expect(status.property("account") == .reference("#/components/schemas/Account"))
        #expect(status.property("in_reply_to_id")?.json["type"] == ["string", "null"])
        #expect(status.json["required"]?.elements.contains("in_reply_to_id") == true)
        let credential = try #require(schemas.first { $0.name == "CredentialAccount" }?.schema)
        #expect(credential.property("source")?.json["required"]?.elements.contains("follow_requests_count") == true)
        #expect(credential.property("header") != nil)
    }
}
