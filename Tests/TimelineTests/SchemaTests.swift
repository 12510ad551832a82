import Foundation
import Testing
import Sodium
import OpenSSL
import WebPush
@testable import Timeline

/// What the code emits validates against `schemas/`, checked by Python's `jsonschema`.
@Suite struct SchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs the schema checker on `lines` (results against `schemas/results/<result>`); returns
    /// its exit status and output.
    func check(_ kind: String, result: String? = nil, _ lines: [String]) throws -> (Int32, String) {
        let file = temporaryPath("\(kind).jsonl")
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", Self.root.appendingPathComponent("tools/check-json-schemas.py").path, kind]
            + (result.map { [$0] } ?? []) + [file]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try spawn(process)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func everyEventTypeValidates() async throws {
        let service = try openService()
        try await Self.historyOfEveryEventType(service)
        let events = try service.events(from: 1)
        #expect(events.contains { $0.erased }, "events of the erased user decode with their personal fields gone")
        #expect(Set(events.map(\.type)) == Set(EventType.allCases), "the history must cover every event type")
        let lines = events.map { $0.jsonLine() }
        #expect(!lines.joined().contains("argon2"), "password hashes must be redacted")
        let (status, output) = try check("events", lines)
        #expect(status == 0, "\(output)")
        // The checker is not a rubber stamp: a wrong payload fails.
        let broken = lines[0].replacingOccurrences(of: "\"username\":\"alice\"", with: "\"username\":42")
        #expect(try check("events", [broken]).0 != 0)
    }

    /// Activity items of every kind (a removal has no actor, and a reason) validate, and the
    /// schema tells a removal from the others.
    @Test func activityItemsValidate() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let post = try await service.addPost(by: alice.id)
        try await service.run(.like(post: post.id.rawValue), as: bob.id)
        _ = try await service.addComment(by: bob.id, on: post.id)
        let removed = try await service.addPost(by: alice.id, image: 2)
        _ = try await service.execute(.removePost(post: removed.id.rawValue, reason: "rule 3"), as: .operator)
        try await service.run(.follow(user: bob.id.rawValue, notify: true), as: alice.id)
        _ = try await service.addPost(by: bob.id, image: 3)
        let items = try service.activity(of: alice.id).items
        #expect(Set(items.map(\.kind.rawValue)) == ["comment", "like", "follow", "removed", "post"])
        let lines = items.map { JSONOutput.line(JSONOutput.activity($0)) }
        let (status, output) = try check("result", result: "activityItem", lines)
        #expect(status == 0, "\(output)")
        let removal = try #require(lines.first { $0.contains("\"removed\"") })
        #expect(
            try check(
                "result", result: "activityItem", [removal.replacingOccurrences(of: ",\"reason\":\"rule 3\"", with: "")]
            ).0 != 0)
        #expect(
            try check(
                "result", result: "activityItem", [removal.replacingOccurrences(of: "{", with: "{\"actor\":\"x\",")]
            ).0 != 0)
    }

    @Test func everyCommandValidates() throws {
        let lines = sampleCommands.map { JSONOutput.line($0.jsonObject()) }
        let (status, output) = try check("commands", lines)
        #expect(status == 0, "\(output)")
        #expect(try check("commands", [#"{"command":"follow"}"#]).0 != 0)
    }
}
