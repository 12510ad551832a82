import Foundation
import JSONModel
import Timeline

/// The JSON Schemas of `schemas/` that are not made from the results' Swift types (the
/// commands' and the envelope's), which the OpenAPI document embeds: read from the source tree
/// this was built from, or beside the executable's checkout (`.build/<config>/timeline` →
/// `schemas/`).
enum SchemaFiles {
    static let directory: URL? = {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../schemas")
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
            .appendingPathComponent("../../../schemas")
        return [source, executable].map(\.standardized)
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("envelope.schema.json").path) }
    }()

    /// The schema in `schemas/<relative>`.
    static func load(_ relative: String) throws(TimelineError) -> JSONValue {
        guard let directory else {
            throw TimelineError(.internal, "schemas/ was not found beside the executable or the source")
        }
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(relative).path),
            let schema = try? JSONDecoder().decode(Parsed.self, from: data).value, case .object = schema
        else { throw TimelineError(.internal, "schemas/\(relative) is missing or not a JSON object") }
        return schema
    }

    /// A JSON text read into a `JSONValue` (an object's members in key order: the document is
    /// written with sorted keys).
    private struct Parsed: Decodable {
        let value: JSONValue

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            if let object = try? decoder.container(keyedBy: Key.self) {
                value = .object(
                    try object.allKeys.map(\.stringValue).sorted(by: JSONWriter.keyOrder).map { key in
                        (key: key, value: try object.decode(Parsed.self, forKey: Key(stringValue: key)).value)
                    })
            } else if var array = try? decoder.unkeyedContainer() {
                var elements: [JSONValue] = []
                while !array.isAtEnd { elements.append(try array.decode(Parsed.self).value) }
                value = .array(elements)
            } else {
                let single = try decoder.singleValueContainer()
                if single.decodeNil() {
                    value = .null
                } else if let bool = try? single.decode(Bool.self) {
                    value = .bool(bool)
                } else if let integer = try? single.decode(Int64.self) {
                    value = .integer(integer)
                } else if let number = try? single.decode(Double.self) {
                    value = .double(number)
                } else {
                    value = .string(try single.decode(String.self))
                }
            }
        }
    }

    /// A copy of `schema` (from `schemas/<file>`) fit for `components/schemas`: without `$id` and
    /// `$schema`, and with every `$ref` pointing into the document (the server serves this one
    /// document, against whose URL relative references would otherwise be resolved).
    static func localised(_ schema: JSONValue, from file: String) throws(TimelineError) -> JSONValue {
        switch schema {
        case .object(let members):
            var out: [(key: String, value: JSONValue)] = []
            for (key, value) in members where key != "$id" && key != "$schema" {
                out.append(
                    (
                        key,
                        key == "$ref"
                            ? .string(try reference(value.string ?? "", from: file)) : try localised(value, from: file)
                    ))
            }
            return .object(out)
        case .array(let elements):
            var out: [JSONValue] = []
            for value in elements { out.append(try localised(value, from: file)) }
            return .array(out)
        default:
            return schema
        }
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
        if joined == "envelope.schema.json", let definition = fragment.split(separator: "/").last,
            fragment.hasPrefix("/$defs/")
        {
            return "#/components/schemas/\(definition)"
        }
        if joined.hasPrefix("results/"), joined.hasSuffix(".schema.json") {
            return
                "#/components/schemas/\(joined.dropFirst("results/".count).dropLast(".schema.json".count))\(fragment)"
        }
        throw TimelineError(.internal, "schemas/\(file): cannot place the $ref \(target) in the OpenAPI document")
    }
}
