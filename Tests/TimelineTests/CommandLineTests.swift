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
