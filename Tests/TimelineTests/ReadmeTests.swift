import Foundation
import Testing

/// The README's Swift snippets are compiled code.
@Suite struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../..").standardized

    /// The first ```swift block after `heading` in README.md.
    func snippet(after heading: String) throws -> [String] {
        let readme = try String(contentsOf: Self.root.appending(path: "README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: heading)).upperBound
        let open = try #require(readme.range(of: "```swift\n", range: section..<readme.endIndex)).upperBound
        let close = try #require(readme.range(of: "\n```", range: open..<readme.endIndex)).lowerBound
        return readme[open..<close].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The Library API example is, line for line, the block the QuickStart example runs.
    @Test func libraryExampleIsTheQuickStart() throws {
        let readme = try snippet(after: "## Library API")
        let example = try String(
            contentsOf: Self.root.appending(path: "Examples/QuickStart/main.swift"), encoding: .utf8)
        let begin = try #require(example.range(of: "// README: begin\n")).upperBound
        let end = try #require(example.range(of: "\n// README: end", range: begin..<example.endIndex)).lowerBound
        let quoted = example[begin..<end].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(readme.drop(while: { $0 == "import Timeline" || $0.isEmpty }) == quoted[...])
    }
}
