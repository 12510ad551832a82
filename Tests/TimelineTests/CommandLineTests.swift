import Foundation
import Testing
@testable import Timeline

/// The `timeline` tool refuses options it does not know, before doing anything.
@Suite struct CommandLineTests {
    func tool(_ arguments: [String]) throws -> Int32 {
        let child = try ToolProcess(arguments)
        try child.input.fileHandleForWriting.close()
        _ = child.output.fileHandleForReading.readDataToEndOfFile()
        child.process.waitUntilExit()
        return child.process.terminationStatus
    }

    /// Every JSON the tool prints itself (its typed answers, through JSONModel) is JSON with the
    /// members its help names: `audit show` indented, `--json` lines compact.
    @Test func theToolsOwnJSONOutputsParse() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let alice = try await service.createUser("alice")
        let post = try await service.addPost(by: alice.id, caption: "harbour")
        try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: alice.id)
        service.close()
        func output(_ arguments: [String]) throws -> [String: Any] {
            let child = try ToolProcess(arguments + ["--db", path])
            try child.input.fileHandleForWriting.close()
            let data = child.output.fileHandleForReading.readDataToEndOfFile()
            child.process.waitUntilExit()
            #expect(child.process.terminationStatus == 0, "\(arguments)")
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return try #require(object, "\(arguments): \(String(decoding: data, as: UTF8.self))")
        }
        #expect(try output(["audit", "show", "1"])["type"] as? String == "UserCreated")
        #expect(try output(["audit", "show", "1", "--json"])["sequence"] as? Int == 1)
        let stats = try output(["audit", "stats", "--json"])
        let events = try #require(stats["events"] as? Int)
        #expect(events >= 3 && (stats["byType"] as? [String: Int])?["PostReported"] == 1)
        #expect(try output(["audit", "verify", "--json"])["valid"] as? Bool == true)
        #expect(try output(["audit", "head", "--json"])["sequence"] as? Int == events)
        #expect(
            (try output(["query", "user", "--user", "@alice"])["result"] as? [String: Any])?["id"] as? String
                == alice.id.rawValue)
        let queue = try ToolProcess(["moderation", "list", "--json", "--db", path])
        try queue.input.fileHandleForWriting.close()
        let listed = try JSONSerialization.jsonObject(with: queue.output.fileHandleForReading.readDataToEndOfFile())
        queue.process.waitUntilExit()
        #expect((listed as? [[String: Any]])?.first?["post"] as? String == post.id.rawValue)
    }

    /// A mistyped `--verify` used to be taken as an unknown option with a value and ignored, so
    /// `rebuild --verfy x` rebuilt the read models instead of comparing them.
    @Test func unknownOptionsAreRefusedBeforeAnythingHappens() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        _ = try await service.createUser("alice")
        let generations = try service.projectionStatus().map(\.generation)
        service.close()
        #expect(try tool(["rebuild", "--verfy", "x", "--db", path]) == 2)
        #expect(try tool(["audit", "list", "--frobnicate", "x", "--db", path]) == 2)
        #expect(try tool(["query", "users", "--verify", "--db", path]) == 2)  // a flag no query takes
        #expect(try tool(["erase-user", "@alice", "--force", "--db", path]) == 2)
        #expect(try tool(["rebuild", "--verify=1", "--db", path]) == 2)  // a flag given a value
        #expect(try tool(["erase-user", "@alice", "--help=1", "--db", path]) == 2)
        #expect(try tool(["audit", "verify", "--anchor-key", "k", "--db", path]) == 2)  // audit checks an anchor with --anchor
        let reopened = try openService(path: path)
        #expect(try reopened.projectionStatus().map(\.generation) == generations, "nothing was rebuilt")
        #expect(try reopened.user(named: "alice").username == "alice", "nobody was erased")
        reopened.close()
        // The same commands, spelled right, run.
        #expect(try tool(["rebuild", "--verify", "--db", path]) == 0)
        #expect(try tool(["audit", "list", "--limit", "1", "--db", path]) == 0)
        #expect(try tool(["query", "users", "--limit", "1", "--db", path]) == 0)
    }
}
