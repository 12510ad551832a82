import Foundation
import Testing

/// The README's layout and docs/architecture.md's code map name every target of Package.swift,
/// the code map with its dependencies exactly as the manifest declares them.
@Suite struct ModuleMapTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appending(path: "../..").standardized

    /// One target of the manifest: its name, its directory and its dependencies in order.
    struct Target: Equatable, CustomStringConvertible {
        let name: String
        let path: String
        let dependencies: [String]
        var description: String { "\(name) (\(path)): \(dependencies.joined(separator: ", "))" }
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appending(path: path), encoding: .utf8)
    }

    /// The quoted strings of `text`.
    static func quoted(_ text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// Package.swift's targets, read from its text: each `.target(`, `.systemLibrary(`,
    /// `.executableTarget(` or `.testTarget(` call up to the next one, with its `name:`,
    /// its `dependencies: [...]` and its `path:` (default: Sources/<name> or Tests/<name>).
    static func targets() throws -> [Target] {
        let manifest = try read("Package.swift")
            .split(separator: "\n").map { line in line.range(of: "//").map { line[..<$0.lowerBound] } ?? line }
            .joined(separator: "\n")
        let starts = ["target", "systemLibrary", "executableTarget", "testTarget"]
            .flatMap { manifest.ranges(of: ".\($0)(name:") }
            .sorted { $0.lowerBound < $1.lowerBound }
        return try starts.enumerated().map { index, start in
            let end = index + 1 < starts.count ? starts[index + 1].lowerBound : manifest.endIndex
            let call = manifest[start.upperBound..<end]
            let name = try #require(quoted(call).first)
            var dependencies: [String] = []
            if let list = call.range(of: "dependencies: [") {
                let close = try #require(call[list.upperBound...].firstIndex(of: "]"))
                dependencies = quoted(call[list.upperBound..<close])
            }
            var path = (manifest[start].contains("testTarget") ? "Tests/" : "Sources/") + name
            if let pathLabel = call.range(of: "path: ") {
                path = try #require(quoted(call[pathLabel.upperBound...]).first)
            }
            return Target(name: name, path: path, dependencies: dependencies)
        }
    }

    /// The body of the first ``` block after `heading` in `text`.
    static func block(after heading: String, in text: String) throws -> Substring {
        let section = try #require(text.range(of: heading)).upperBound
        let open = try #require(text.range(of: "```\n", range: section..<text.endIndex)).upperBound
        let close = try #require(text.range(of: "\n```", range: open..<text.endIndex)).lowerBound
        return text[open..<close]
    }

    /// The manifest is read as SwiftPM reads it: the parse finds the modules the source tree has.
    @Test func manifestIsParsed() throws {
        let targets = try Self.targets()
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.root.appending(path: "Sources").path)
        #expect(Set(targets.map(\.path).filter { $0.hasPrefix("Sources/") }) == Set(sources.map { "Sources/" + $0 }))
        #expect(targets.first { $0.name == "TimelineBench" }?.dependencies.contains("OpenSSL") == true)
        #expect(targets.first { $0.name == "TimelineTool" }?.path == "tools/timeline")
    }

    /// The README's Layout block lists every target's directory. Its entries start at the first
    /// column; `Sources/A, B, C` names Sources/A, Sources/B and Sources/C.
    @Test func readmeLayoutNamesEveryTarget() throws {
        let layout = try Self.block(after: "## Layout", in: Self.read("README.md"))
        var listed: Set<String> = []
        for line in layout.split(separator: "\n") where !line.hasPrefix(" ") {
            let entry = line.split(separator: "  ", maxSplits: 1).first ?? line
            let items = entry.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = items.first else { continue }
            let folder = first.split(separator: "/").dropLast().joined(separator: "/")
            listed.insert(first)
            for item in items.dropFirst() { listed.insert(folder.isEmpty ? item : folder + "/" + item) }
        }
        for target in try Self.targets() {
            #expect(listed.contains(target.path), "README.md's Layout does not list \(target.path)")
        }
    }

    /// docs/architecture.md's module table (`| Module | What it holds | Depends on |`) has one row
    /// per target, in the manifest's order, each naming the target's dependencies in its order.
    @Test func architectureTableMatchesTheManifest() throws {
        let text = try Self.read("docs/architecture.md")
        let table = try #require(text.range(of: "| Module | What it holds | Depends on |"))
        let rows = text[table.upperBound...].split(separator: "\n").dropFirst()  // the |---| line
            .prefix { $0.hasPrefix("|") }
        let documented = rows.map { row in
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map { $0 }
            let ticks: (Substring) -> [String] = { cell in
                cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                    .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            }
            let names = ticks(cells[1])
            return Target(
                name: names.first ?? "", path: names.dropFirst().first ?? "",
                dependencies: ticks(cells[cells.count - 2]))
        }
        let manifest = try Self.targets()
        #expect(documented.map(\.name) == manifest.map(\.name), "docs/architecture.md's rows are not the targets")
        for target in manifest {
            let row = documented.first { $0.name == target.name }
            #expect(row == target, "docs/architecture.md's row should read \(target)")
        }
    }
}
