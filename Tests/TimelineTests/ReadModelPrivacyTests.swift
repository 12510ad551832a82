import Foundation
import LMDB
import Testing
@testable import Timeline

/// The read models keep no email in clear: the email index and the user records hold the
/// email's keyed hash, so no file of the database shows one (the log seals them).
@Suite struct ReadModelPrivacyTests {
    /// Every file under `path` (the log, the read models, the keys), as bytes.
    func files(under path: String) throws -> [(String, Data)] {
        let root = URL(fileURLWithPath: path)
        let names = try #require(FileManager.default.subpathsOfDirectory(atPath: path) as [String]?)
        return try names.compactMap { name in
            var isDirectory: ObjCBool = false
            guard
                FileManager.default.fileExists(
                    atPath: root.appendingPathComponent(name).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { return nil }
            return (name, try Data(contentsOf: root.appendingPathComponent(name)))
        }
    }

    @Test func noFileOfTheDatabaseHoldsAnEmailInClear() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let emails = ["zelda.secret@example.com", "moved.secret@example.com", "reset.secret@example.com"]
        _ = try await service.execute(
            .createUser(username: "zelda", email: emails[0], password: "password-123", bio: nil, url: nil))
        let zelda = try service.user(named: "zelda").id
        let session = try #require(
            try await service.execute(.signIn(email: emails[0], password: "password-123")).session)
        #expect(session.user.id == zelda)
        try await service.run(.changeEmail(password: "password-123", email: emails[1]), as: zelda)
        let token = try #require(
            try await service.execute(.requestPasswordReset(user: zelda.rawValue), as: .operator).token)
        _ = try await service.execute(.resetPassword(token: token, password: "password-456", email: emails[2]))
        // The index answers by the email, as before: sign-in, uniqueness, contacts.
        #expect(
            try await service.execute(.signIn(email: emails[2], password: "password-456")).session?.user.id == zelda)
        await expectError(.emailTaken) {
            _ = try await service.execute(
                .createUser(username: "other", email: emails[2], password: "password-123", bio: nil, url: nil))
        }
        _ = try await service.execute(
            .createUser(username: "other", email: emails[0], password: "password-123", bio: nil, url: nil))
        service.close()
        let all = try files(under: path)
        #expect(all.contains { $0.0.hasSuffix("data.mdb") })
        for (name, bytes) in all {
            for email in emails { #expect(bytes.range(of: Data(email.utf8)) == nil, "\(name) holds \(email) in clear") }
        }
    }

    /// A database whose profiles were written before (layout 1: the email index by clear email)
    /// is projected again from empty tables when opened: the clear entries are gone, and the
    /// index answers by hash.
    @Test func profilesOfAnOlderLayoutAreReplayedFromEmpty() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let ann = try await service.createUser("ann")
        // As a layout-1 database left it: an index entry by clear email, and no checkpoint
        // under the current layout.
        try service.environment.write { txn in
            let models = service.registry.current
            try txn.put(models.profiles.emails.database, Array("ann@example.com".utf8), Array(ann.id.rawValue.utf8))
            try models.deleteCheckpoint(.profiles, txn)
        }
        service.close()
        let reopened = try openService(path: path)
        defer { reopened.close() }
        _ = try await reopened.createUser("bob")  // a writer catches the models up first
        let (clear, found) = try reopened.read { view in
            (
                try view.txn.get(view.models.profiles.emails.database, Array("ann@example.com".utf8)),
                try view.userID(email: "ann@example.com")
            )
        }
        #expect(clear == nil, "the clear entry is gone")
        #expect(found == ann.id)
        #expect(try reopened.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }
}
