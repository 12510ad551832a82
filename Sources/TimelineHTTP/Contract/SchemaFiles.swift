import Foundation
import Timeline

/// The JSON Schemas of `schemas/` (the results', the commands' and the envelope's), which the
/// OpenAPI document embeds: read from the source tree this was built from, or beside the
/// executable's checkout (`.build/<config>/timeline` → `schemas/`).
enum SchemaFiles {
    static let directory: URL? = {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../schemas")
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("../../../schemas")
        return [source, executable].map(\.standardized)
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("envelope.schema.json").path) }
    }()

    /// The schema in `schemas/<relative>`.
    static func load(_ relative: String) throws(TimelineError) -> [String: Any] {
        guard let directory else { throw TimelineError(.internal, "schemas/ was not found beside the executable or the source") }
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(relative).path),
              let schema = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw TimelineError(.internal, "schemas/\(relative) is missing or not a JSON object") }
        return schema
    }

    /// The names of the schemas in `schemas/<folder>/` (`post` for `post.schema.json`), sorted.
    static func names(in folder: String) throws(TimelineError) -> [String] {
        guard let directory,
              let files = try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path)
        else { throw TimelineError(.internal, "schemas/\(folder) was not found") }
        return files.filter { $0.hasSuffix(".schema.json") }.map { String($0.dropLast(".schema.json".count)) }.sorted()
    }

    /// A copy of `schema` (from `schemas/<file>`) fit for `components/schemas`: without `$id` and
    /// `$schema`, and with every `$ref` pointing into the document (the server serves this one
    /// document, against whose URL relative references would otherwise be resolved).
    static func localised(_ schema: Any, from file: String) throws(TimelineError) -> Any {
        if let object = schema as? [String: Any] {
            var out: [String: Any] = [:]
            for (key, value) in object where key != "$id" && key != "$schema" {
                out[key] = key == "$ref" ? try reference(value as? String ?? "", from: file) : try localised(value, from: file)
            }
            return out
        }
        if let array = schema as? [Any] {
            var out: [Any] = []
            for value in array { out.append(try localised(value, from: file)) }
            return out
        }
        return schema
    }

    /// Where the `$ref` `target` of `schemas/<file>` is in the document.
    private static func reference(_ target: String, from file: String) throws(TimelineError) -> String {
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]), fragment = parts.count > 1 ? String(parts[1]) : ""
        var resolved = file.split(separator: "/").dropLast().map(String.init)
        for part in path.split(separator: "/") {
            if part == ".." { _ = resolved.popLast() } else if part != "." { resolved.append(String(part)) }
        }
        let joined = resolved.joined(separator: "/")
        if joined == "envelope.schema.json", let definition = fragment.split(separator: "/").last, fragment.hasPrefix("/$defs/") {
            return "#/components/schemas/\(definition)"
        }
        if joined.hasPrefix("results/"), joined.hasSuffix(".schema.json") {
            return "#/components/schemas/\(joined.dropFirst("results/".count).dropLast(".schema.json".count))\(fragment)"
        }
        throw TimelineError(.internal, "schemas/\(file): cannot place the $ref \(target) in the OpenAPI document")
    }
}
