import Foundation
import Testing
import Timeline

/// Several processes on one database, as SPEC allows (`timeline exec` beside `timeline serve`
/// and each other), starting and writing at the same moment.
@Suite struct MultiProcessTests {
    /// A process opening while another writes its first "unsynced" marker once read the
    /// half-written marker as a machine crash's and deleted the derived files the writer
    /// mapped: the two then used different lock files (crashes in LMDB's mutexes, hangs,
    /// acknowledged commands missing, a log index out of step with the log).
    @Test func processesStartingAndWritingTogetherLoseNothing() async throws {
        let path = temporaryPath()
        let setup = try ChildProcess(["exec", "--db", path])
        setup.write(#"{"id":"q","query":"users"}"# + "\n")
        setup.closeInput()
        #expect(await setup.exitStatus(within: .seconds(120)) == 0)

        var acknowledged = 0
        for round in 0..<4 {
            let writers = try (0..<4).map { writer in
                let child = try ChildProcess(["exec", "--db", path])
                for line in 0..<10 {
                    let name = "r\(round)w\(writer)n\(line)"
                    child.write(
                        #"{"id":"\#(name)","command":"createUser","username":"\#(name)","email":"\#(name)@example.com","password":"password-\#(name)"}"#
                            + "\n")
                }
                child.closeInput()
                return child
            }
            for child in writers {
                let status = await child.exitStatus(within: .seconds(120))
                #expect(status == 0, "round \(round): exit \(String(describing: status)): \(child.standardError)")
                let lines = child.standardOutput.split(separator: "\n")
                #expect(lines.count == 10 && lines.allSatisfy { $0.contains(#""ok":true"#) }, "\(child.standardOutput)")
                acknowledged += lines.filter { $0.contains(#""ok":true"#) }.count
            }
        }

        let service = try openService(path: path)
        defer { service.close() }
        var users = 0
        var page = try service.users(PageRequest(limit: 100))
        while true {
            users += page.items.count
            guard let next = page.next else { break }
            page = try service.users(PageRequest(limit: 100, before: next))
        }
        #expect(users == acknowledged && acknowledged == 160)
        #expect(try service.verifyLog().isValid)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }
}
