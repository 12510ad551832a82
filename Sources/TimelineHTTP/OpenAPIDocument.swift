import Foundation

/// `schemas/openapi.json`, read once: from the source tree this was built from, or beside the
/// executable's checkout (`.build/<config>/timeline` → `schemas/`).
enum OpenAPIDocument {
    static let bytes: [UInt8]? = {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../schemas/openapi.json")
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("../../../schemas/openapi.json")
        for url in [source, executable] {
            if let data = FileManager.default.contents(atPath: url.standardized.path) { return Array(data) }
        }
        return nil
    }()
}
