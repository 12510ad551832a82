import Foundation
import Synchronization
import Testing
@testable import Timeline
import TimelineDomain

/// The key store: a read error is not an erasure, a failed destruction is retried and never
/// ignored, and a database is not opened without its keys unless the operator says so.
@Suite struct KeyStoreTests {
    /// Keys in files, with failures switched on and off by the test.
    final class FlakyKeys: KeyBackend {
        let files: FileKeyBackend
        let failReads = Mutex(false)
        let failDestroys = Mutex(false)
        init(_ path: String) throws {
            files = try FileKeyBackend(directory: URL(fileURLWithPath: path).appendingPathComponent("keys"))
        }
        func read(_ name: String) throws -> [UInt8]? {
            if failReads.withLock({ $0 }), name != KeyStore.pepperName {
                throw KeyStoreError.unreadable(key: name, reason: "injected")
            }
            return try files.read(name)
        }
        func create(_ name: String, _ secret: [UInt8]) throws -> [UInt8] { try files.create(name, secret) }
        func destroy(_ name: String) throws {
            if failDestroys.withLock({ $0 }) { throw KeyStoreError.destructionFailed(key: name, reason: "injected") }
            try files.destroy(name)
        }
    }

    /// Each opening draws other identifiers (the test clock stands still).
    static let openings = Mutex<UInt64>(100)

    func open(_ path: String, _ keys: FlakyKeys) throws -> TimelineService {
        let seed = Self.openings.withLock {
            $0 += 1
            return $0
        }
        return try openService(path: path, durable: true, seed: seed) { $0.keyBackend = keys }
    }

    @Test func aKeyThatCannotBeReadFailsTheReadInsteadOfLookingErased() async throws {
        let path = temporaryPath()
        let keys = try FlakyKeys(path)
        var service = try open(path, keys)
        _ = try await service.execute(
            .createUser(username: "eve", email: "eve@example.com", password: "password-123", bio: "bio", url: nil))
        service.close()
        keys.failReads.withLock { $0 = true }
        service = try open(path, keys)  // a fresh process: nothing cached
        defer { service.close() }
        await expectError(.internal) { _ = try service.events(from: 1, limit: 10) }
        keys.failReads.withLock { $0 = false }
        let events = try service.events(from: 1, limit: 10)
        #expect(events.allSatisfy { !$0.erased })
    }

    @Test func aFailedDestructionIsRetriedAndTheUserReadsAsErasedMeanwhile() async throws {
        let path = temporaryPath()
        let keys = try FlakyKeys(path)
        var service = try open(path, keys)
        let eve = try await service.createUser("eve")
        _ = try await service.addPost(by: eve.id, caption: "eve's secret caption")
        let keyFile = path + "/keys/user-\(eve.id).key"
        keys.failDestroys.withLock { $0 = true }
        _ = try await service.execute(.eraseUser(user: eve.id.rawValue), as: .operator)  // committed: succeeds
        #expect(FileManager.default.fileExists(atPath: keyFile))
        #expect(
            try service.events(from: 1, limit: 100).filter { $0.erased }.count >= 2,
            "read as erased while the key remains")
        // The next write retries (and fails again); so does the next open.
        _ = try await service.createUser("alice")
        service.close()
        service = try open(path, keys)
        #expect(FileManager.default.fileExists(atPath: keyFile))
        #expect(try service.events(from: 1, limit: 100).filter { $0.erased }.count >= 2)
        // Once destruction works, the next write finishes it.
        keys.failDestroys.withLock { $0 = false }
        _ = try await service.createUser("bob")
        #expect(!FileManager.default.fileExists(atPath: keyFile))
        service.close()
    }

    /// The README's old by-hand restore: only `data.mdb` copied.
    @Test func aDatabaseWithoutItsKeysIsRefusedUnlessTheOperatorAccepts() async throws {
        let path = temporaryPath()
        let service = try openService(path: path, durable: true)
        _ = try await service.execute(
            .createUser(username: "eve", email: "eve@example.com", password: "password-123", bio: "kept bio", url: nil))
        service.close()
        let copy = temporaryPath("copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path + "/data.mdb", toPath: copy + "/data.mdb")

        let refused = try ToolProcess(["audit", "verify", "--db", copy]).finish()
        #expect(refused.status != 0 && !refused.output.contains("ok"))
        #expect { _ = try openService(path: copy) } throws: { error in
            (error as? TimelineError)?.message.contains("--accept-missing-keys") == true
        }
        #expect(
            !FileManager.default.fileExists(atPath: copy + "/keys/email-pepper.key"),
            "a refused open created a new pepper")

        let accepted = try ToolProcess(["audit", "verify", "--db", copy, "--accept-missing-keys"]).finish()
        #expect(accepted.status == 0 && accepted.output.contains("ok"))
        let opened = try openService(path: copy) { $0.acceptMissingKeys = true }
        defer { opened.close() }
        #expect(try opened.events(from: 1, limit: 10).allSatisfy(\.erased))
    }

    @Test func aRestoreFromABackupWithoutKeysIsRefusedUnlessAccepted() async throws {
        let path = temporaryPath()
        let service = try openService(path: path, durable: true)
        _ = try await service.createUser("eve")
        let backup = temporaryPath("backup")
        try service.backup(to: backup)
        service.close()
        #expect(FileManager.default.fileExists(atPath: backup + "/keys/email-pepper.key"))
        try FileManager.default.removeItem(atPath: backup + "/keys")
        let target = temporaryPath("restored")
        #expect(try ToolProcess(["restore", backup, "--db", target]).finish().status != 0)
        let other = temporaryPath("restored")
        let accepted = try ToolProcess(["restore", backup, "--db", other, "--accept-missing-keys"]).finish()
        #expect(accepted.status == 0 && accepted.output.contains("verified"))
    }

    @Test func copyingKeysFailsWhenTheyCannotBeRead() {
        let missing = URL(fileURLWithPath: temporaryPath("no-keys-here"))
        #expect(throws: TimelineError.self) {
            try TimelineService.copyKeys(from: missing, to: URL(fileURLWithPath: temporaryPath("to")))
        }
    }
}
