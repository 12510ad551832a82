import Foundation
import JSONModel
import Testing
@testable import Timeline
@testable import TimelineDomain

/// The files of `schemas/` that describe events and commands are generated from the Swift
/// types (one definition each): `schemas/envelope.schema.json` from `EventJSON`,
/// `schemas/events/<Type>.v<current>.schema.json` from each payload type's `Decodable` and
/// `SchemaDocumented` conformances, `schemas/commands/<name>.schema.json` from each command's
/// definition. With `TIMELINE_WRITE_DOCS=1` the test writes them; otherwise each must be
/// current, so that a change of a type shows in the diff of its schema.
///
/// The schemas of past versions (`PostAdded.v1` … `.v4` of a type now at `.v5`) are frozen
/// history: the type no longer has their shape, so nothing generates them, and they are kept
/// as they were when their version was current (old events in the log are checked against them).
@Suite struct GeneratedSchemaTests {
    static let base = "https://timeline.example/schemas/"

    /// `schema` as a file: `$schema`, `$id` and `title` first, then the schema's own keywords.
    static func file(_ path: String, title: String, _ schema: JSONSchema) -> String {
        let header: [(key: String, value: JSONValue)] = [
            ("$schema", "https://json-schema.org/draft/2020-12/schema"), ("$id", .string(base + path)),
            ("title", .string(title))
        ]
        return JSONWriter.pretty(.object(header + schema.json.members))
    }

    /// Every generated file, by its path under `schemas/`.
    static func generated() throws -> [(path: String, text: String)] {
        var files = [(path: String, text: String)]()
        files.append(
            ("envelope.schema.json", file("envelope.schema.json", title: "Event envelope", try .of(EventJSON.self))))
        for type in EventType.allCases {
            let path = "events/\(type.rawValue).v\(type.currentVersion).schema.json"
            let title = "\(type.rawValue) payload, schema version \(type.currentVersion)"
            files.append((path, file(path, title: title, try type.payloadSchema())))
        }
        for definition in Command.definitions {
            let path = "commands/\(definition.name).schema.json"
            files.append((path, file(path, title: definition.schemaTitle, try definition.jsonSchema())))
        }
        return files
    }

    @Test func schemaFilesAreGeneratedFromTheTypes() throws {
        let write = ProcessInfo.processInfo.environment["TIMELINE_WRITE_DOCS"] == "1"
        var stale: [String] = []
        for (path, text) in try Self.generated() {
            let url = SchemaTests.root.appending(path: "schemas/" + path)
            if write { try text.write(to: url, atomically: true, encoding: .utf8) }
            if (try? String(contentsOf: url, encoding: .utf8)) != text { stale.append(path) }
        }
        // Nothing else is kept by hand: every other file is a past version of a current event type.
        let generated = Set(try Self.generated().map(\.path))
        let current = Dictionary(uniqueKeysWithValues: EventType.allCases.map { ($0.rawValue, Int($0.currentVersion)) })
        for folder in ["events", "commands"] {
            let names = try FileManager.default.contentsOfDirectory(
                atPath: SchemaTests.root.appending(path: "schemas/" + folder).path)
            for name in names where !generated.contains(folder + "/" + name) {
                let parts = name.split(separator: ".")
                let past =
                    folder == "events" && parts.count == 4 && parts[1].hasPrefix("v")
                    && Int(parts[1].dropFirst()).map { $0 < current[String(parts[0])] ?? 0 } == true
                #expect(past, "schemas/\(folder)/\(name) is neither generated nor a past version of an event type")
            }
        }
        #expect(
            stale.isEmpty,
            "stale in schemas/: \(stale.joined(separator: ", ")); run TIMELINE_WRITE_DOCS=1 swift test --filter GeneratedSchemaTests"
        )
    }
}
