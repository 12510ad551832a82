import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Erasure survives a crash between the `UserErased` commit and the key's destruction: the
/// next open finishes the destruction, and a destruction that fails is retried, not ignored.
@Suite struct ErasureCrashTests {
    static let secrets = ["eve.crash@example.com", "Eve's crash-test bio", "A caption that must not survive #evecrash"]

    /// A database holding eve (email, bio, a captioned post) and alice, closed.
    func eveDatabase() async throws -> (path: String, eve: UserID) {
        let path = temporaryPath()
        let service = try openService(path: path, durable: true)
        defer { service.close() }
        _ = try await service.execute(
            .createUser(
                username: "eve", email: Self.secrets[0], password: "password-123", bio: Self.secrets[1], url: nil))
        let eve = try service.user(named: "eve").id
        _ = try await service.addPost(by: eve, caption: Self.secrets[2])
        _ = try await service.createUser("alice")
        return (path, eve)
    }

    /// What a reader sees after the crash: no clear personal field in `audit list --json`,
    /// no key file, and erasing again is `not_found` (the user is erased).
    func expectErased(_ path: String, _ eve: UserID, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let audit = try ToolProcess(["audit", "list", "--db", path, "--json"])
        let (status, listing) = audit.finish()
        #expect(status == 0, sourceLocation: sourceLocation)
        #expect(listing.contains("UserErased"), sourceLocation: sourceLocation)
        for secret in Self.secrets {
            #expect(!listing.contains(secret), "audit still shows \(secret)", sourceLocation: sourceLocation)
        }
        #expect(
            !FileManager.default.fileExists(atPath: path + "/keys/user-\(eve).key"), "the erased user's key survived",
            sourceLocation: sourceLocation)
        let service = try openService(path: path)
        defer { service.close() }
        await expectError(.notFound) { _ = try service.user(eve) }
        await expectError(.notFound) { _ = try await service.execute(.eraseUser(user: eve.rawValue), as: .operator) }
        #expect(try service.events(from: 1, limit: 1_000).contains { $0.erased })
        #expect(try service.verifyLog().isValid)
    }

    /// The reproduction: `strace` kills `timeline erase-user` at its first `openat` of the
    /// erased user's key file, i.e. after the commit and before the key is destroyed.
    @Test func aCrashBeforeTheKeyIsDestroyedIsFinishedAtTheNextOpen() async throws {
        let strace = "/usr/bin/strace"
        try #require(
            FileManager.default.isExecutableFile(atPath: strace), "install strace (tools/install-deps --tests)")
        let (path, eve) = try await eveDatabase()
        let keyFile = path + "/keys/user-\(eve).key"
        #expect(FileManager.default.fileExists(atPath: keyFile))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: strace)
        process.arguments = [
            "-f", "-qq", "-o", "/dev/null", "-P", keyFile, "-e", "trace=openat", "-e", "inject=openat:signal=SIGKILL",
            try timelineExecutable().path, "erase-user", "--db", path, eve.rawValue
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try spawn(process)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0, "erase-user was not killed")
        try await expectErased(path, eve)
    }
}

extension ToolProcess {
    /// Closes its input, reads all its output and waits for it to exit.
    func finish() -> (status: Int32, output: String) {
        try? input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
