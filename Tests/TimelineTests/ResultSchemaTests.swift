import Foundation
import JSONModel
import Testing
@testable import Timeline

/// `schemas/results/` is generated from the results' Swift types (`ResultJSON`): no schema of
/// a result is kept by hand.
@Suite struct ResultSchemaTests {
    static let folder = SchemaTests.root.appending(path: "schemas/results")

    /// Each file of `schemas/results/` is its type's schema (`ResultJSON.schemas()`). With
    /// `TIMELINE_WRITE_DOCS=1` the test writes them; otherwise each must be current, so that a
    /// change of a result's shape shows in the diff.
    @Test func theResultSchemasAreGeneratedFromTheirTypes() throws {
        let write = ProcessInfo.processInfo.environment["TIMELINE_WRITE_DOCS"] == "1"
        let schemas = try ResultJSON.schemas()
        for (name, title, schema) in schemas {
            let text = JSONWriter.pretty(ResultJSON.file(name, title: title, schema))
            let file = Self.folder.appending(path: "\(name).schema.json")
            if write { try text.write(to: file, atomically: true, encoding: .utf8) }
            let committed = try? String(contentsOf: file, encoding: .utf8)
            #expect(committed == text, """
                schemas/results/\(name).schema.json is stale: run TIMELINE_WRITE_DOCS=1 swift test \
                --filter theResultSchemasAreGeneratedFromTheirTypes
                """)
        }
        // No other file: every result schema comes from a type.
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        #expect(files == schemas.map { "\($0.name).schema.json" }.sorted())
    }
}
