import Foundation
import Testing
@testable import Timeline

/// Many readers at once, and reader slots left behind by killed processes.
@Suite struct ResourceTests {
    @Test func manyMoreReadersThanLMDBsDefaultSlotsDoNotFail() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        _ = try await service.addPost(by: alice.id)
        // 300 threads, each inside a read transaction at the same moment (LMDB's default is 126 slots).
        let inside = DispatchGroup(), release = DispatchSemaphore(value: 0), done = DispatchGroup()
        let failures = Failures()
        for _ in 0..<300 {
            inside.enter()
            done.enter()
            Thread {
                do {
                    try service.holdReadTransaction {
                        inside.leave()
                        release.wait()
                    }
                    _ = try service.timeline(of: alice.id)
                } catch {
                    failures.record(error)
                    inside.leave()
                }
                done.leave()
            }.start()
        }
        inside.wait()
        for _ in 0..<300 { release.signal() }
        done.wait()
        #expect(failures.count == 0, "\(failures.first.map { "\($0)" } ?? "")")
    }

    /// A closed service fails every call with a typed error (its LMDB environments are
    /// closed), and the database opens again in the same process.
    @Test func aClosedServiceFailsCleanlyAndTheDatabaseReopens() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let alice = try await service.createUser("alice")
        service.close()
        service.close()  // twice is harmless
        await expectError(.internal) {
            _ = try await service.execute(.follow(user: alice.id.rawValue), as: .user(alice.id.rawValue))
        }
        #expect(throws: TimelineError.self) { try service.user(alice.id) }
        #expect(throws: TimelineError.self) { try service.lastSequence() }
        let reopened = try openService(path: path, seed: 43)
        #expect(try reopened.user(alice.id).username == "alice")
        _ = try await reopened.createUser("bob")
        #expect(try reopened.verifyLog().isValid)
    }

    @Test func aReaderLeftByAKilledProcessIsCleared() async throws {
        let path = temporaryPath()
        // This process keeps the database open throughout, as a running service would.
        let service = try openService(path: path)
        _ = try await service.createUser("alice")
        let tool = try ToolProcess([path], executable: "ReaderHolder")
        // Wait until the child holds its read transaction, then kill it.
        waitForOutput(tool.output, containing: "holding")
        tool.kill()
        #expect(try service.clearStaleReaders() == 1)
        #expect(try service.clearStaleReaders() == 0)
        _ = try await service.createUser("bob")
        #expect(try service.verifyLog().isValid)
    }

    /// Holding a reader is a test fixture's job (`ReaderHolder`), not a command of the shipped tool.
    @Test func theReaderHookIsNotAPublicCommand() throws {
        let tool = try ToolProcess(
            ["debug-hold-reader", "--db", temporaryPath()], environment: ["TIMELINE_TEST_HOOKS": "1"])
        tool.process.waitUntilExit()
        #expect(tool.process.terminationStatus == 2)
    }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []
    func record(_ error: any Error) {
        lock.lock()
        errors.append(error)
        lock.unlock()
    }
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return errors.count
    }
    var first: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return errors.first
    }
}
