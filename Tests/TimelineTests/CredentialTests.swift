import Foundation
import Testing
@testable import Timeline

/// Password reset, password change and email change: a reset or a change
/// of password ends every session and every other reset token of the user, only an operator
/// gets reset tokens, tokens expire after an hour, and changing a credential needs the
/// current password.
@Suite struct CredentialTests {
    /// Runs `body`, expecting `code`, and checks that the log did not grow.
    func expectRefused(
        _ service: TimelineService, _ code: TimelineError.Code, field: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async throws {
        let before = try service.lastSequence()
        await expectError(code, field: field, sourceLocation: sourceLocation, body)
        #expect(
            try service.lastSequence() == before, "a failed command appended events", sourceLocation: sourceLocation)
    }

    func signIn(_ service: TimelineService, _ email: String, _ password: String) async throws -> String {
        let result = try await service.execute(.signIn(email: email, password: password))
        guard case .session(let token, _) = result else { throw TimelineError(.internal, "signIn returned \(result)") }
        return token
    }

    func resetToken(_ service: TimelineService, for user: UserID) async throws -> String {
        let result = try await service.execute(.requestPasswordReset(user: user.rawValue), as: .operator)
        guard case .token(let token) = result else {
            throw TimelineError(.internal, "requestPasswordReset returned \(result)")
        }
        return token
    }

    /// Whether `token` still acts (a harmless idempotent command: following `target`).
    func sessionWorks(_ service: TimelineService, _ token: String, following target: UserID) async throws -> Bool {
        do {
            _ = try await service.execute(.follow(user: target.rawValue), as: .session(token))
            return true
        } catch  where error.code == .unauthenticated {
            return false
        }
    }

    /// "Log out of all sessions": every session of the user ends, the one that asked too, and so
    /// do their reset tokens; other users keep theirs, and signing in again works.
    @Test func signingOutEverywhereEndsEverySessionAndResetToken() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let bob = try await service.createUser("bob")
        let phone = try await signIn(service, "alice@example.com", "password-123")
        let laptop = try await signIn(service, "alice@example.com", "password-123")
        let bobs = try await signIn(service, "bob@example.com", "password-123")
        let reset = try await resetToken(service, for: alice.id)
        #expect(try await sessionWorks(service, phone, following: bob.id))

        _ = try await service.execute(.signOutEverywhere, as: .session(laptop))
        #expect(try await !sessionWorks(service, phone, following: bob.id), "another session still acts")
        #expect(try await !sessionWorks(service, laptop, following: bob.id), "the session that asked still acts")
        try await expectRefused(service, .unauthenticated, field: "token") {
            _ = try await service.execute(.resetPassword(token: reset, password: "new-password", email: nil))
        }
        #expect(try await sessionWorks(service, bobs, following: alice.id))
        let again = try await signIn(service, "alice@example.com", "password-123")
        #expect(try await sessionWorks(service, again, following: bob.id))
        // It needs someone to sign out: no session, nothing recorded.
        let before = try service.lastSequence()
        await expectError(.unauthenticated) { _ = try await service.execute(.signOutEverywhere) }
        await expectError(.unauthenticated) { _ = try await service.execute(.signOutEverywhere, as: .session(phone)) }
        #expect(try service.lastSequence() == before)
    }

    @Test func resetEndsEverySessionAndEveryOtherToken() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice", password: "old-password")
        let bob = try await service.createUser("bob")
        let first = try await signIn(service, "alice@example.com", "old-password")
        let second = try await signIn(service, "alice@example.com", "old-password")
        let bobs = try await signIn(service, "bob@example.com", "password-123")
        let used = try await resetToken(service, for: alice.id)
        let other = try await resetToken(service, for: alice.id)
        let bobsToken = try await resetToken(service, for: bob.id)
        #expect(try await sessionWorks(service, first, following: bob.id))

        _ = try await service.execute(.resetPassword(token: used, password: "new-password", email: nil))
        #expect(
            try await !sessionWorks(service, first, following: bob.id), "a session from before the reset still acts")
        #expect(
            try await !sessionWorks(service, second, following: bob.id), "a session from before the reset still acts")
        try await expectRefused(service, .unauthenticated, field: "token") {
            _ = try await service.execute(
                .resetPassword(token: other, password: "attacker-password", email: "eve@example.com"))
        }
        // Other users keep their sessions and tokens; a new sign-in with the new password acts.
        #expect(try await sessionWorks(service, bobs, following: alice.id))
        let fresh = try await signIn(service, "alice@example.com", "new-password")
        #expect(try await sessionWorks(service, fresh, following: bob.id))
        await expectError(.invalidCredentials) { _ = try await signIn(service, "alice@example.com", "old-password") }
        // A token issued after the reset works.
        let later = try await resetToken(service, for: alice.id)
        _ = try await service.execute(.resetPassword(token: later, password: "newer-password", email: nil))
        _ = try await service.execute(.resetPassword(token: bobsToken, password: "bobs-new-password", email: nil))

        // The read models are derived from the log: a rebuild gives the same answers.
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        _ = try service.rebuild()
        #expect(try await !sessionWorks(service, first, following: bob.id), "a rebuild brought back a revoked session")
        #expect(try await !sessionWorks(service, fresh, following: bob.id), "a rebuild brought back a revoked session")
        #expect(try await !sessionWorks(service, bobs, following: alice.id), "a rebuild brought back a revoked session")
        _ = try await signIn(service, "alice@example.com", "newer-password")
    }

    @Test func onlyAnOperatorGetsAResetToken() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let session = try await signIn(service, "alice@example.com", "password-123")
        try await expectRefused(service, .forbidden) {
            _ = try await service.execute(.requestPasswordReset(user: alice.id.rawValue), as: .session(session))
        }
        try await expectRefused(service, .forbidden) {
            _ = try await service.execute(.requestPasswordReset(user: alice.id.rawValue), as: .user(alice.id.rawValue))
        }
        try await expectRefused(service, .unauthenticated) {
            _ = try await service.execute(.requestPasswordReset(user: alice.id.rawValue))
        }
        _ = try await resetToken(service, for: alice.id)
    }

    @Test func resetTokensExpireAfterAnHour() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice")
        let kept = try await resetToken(service, for: alice.id)
        clock.advance(59 * 60 * 1000)
        let late = try await resetToken(service, for: alice.id)
        clock.advance(60 * 1000 + 1)
        try await expectRefused(service, .unauthenticated, field: "token") {
            _ = try await service.execute(.resetPassword(token: kept, password: "new-password", email: nil))
        }
        _ = try await service.execute(.resetPassword(token: late, password: "new-password", email: nil))
        _ = try await signIn(service, "alice@example.com", "new-password")
    }

    /// Expects `body` to fail with `invalid_credentials`, recording only a failed sign-in.
    func expectWrongPassword(
        _ service: TimelineService, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async throws {
        let before = try service.lastSequence()
        await expectError(.invalidCredentials, sourceLocation: sourceLocation, body)
        let appended = try service.events(from: before + 1).map(\.type)
        #expect(appended == [.signInFailed], "\(appended)", sourceLocation: sourceLocation)
    }

    @Test func changePasswordNeedsTheCurrentOneAndEndsEverySession() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice", password: "old-password")
        let bob = try await service.createUser("bob")
        let session = try await signIn(service, "alice@example.com", "old-password")
        let other = try await signIn(service, "alice@example.com", "old-password")
        let token = try await resetToken(service, for: alice.id)

        try await expectWrongPassword(service) {
            _ = try await service.execute(
                .changePassword(currentPassword: "guessed-password", newPassword: "new-password"), as: .session(session)
            )
        }
        try await expectRefused(service, .invalidArgument, field: "newPassword") {
            _ = try await service.execute(
                .changePassword(currentPassword: "old-password", newPassword: "short"), as: .session(session))
        }
        try await expectRefused(service, .unauthenticated) {
            _ = try await service.execute(.changePassword(currentPassword: "old-password", newPassword: "new-password"))
        }
        #expect(try await sessionWorks(service, session, following: bob.id), "a refused change ended the session")

        let result = try await service.execute(
            .changePassword(currentPassword: "old-password", newPassword: "new-password"), as: .session(session))
        #expect(result == .user(try service.user(alice.id)))
        #expect(
            try await !sessionWorks(service, session, following: bob.id),
            "the session that changed the password still acts")
        #expect(
            try await !sessionWorks(service, other, following: bob.id),
            "another session still acts after a password change")
        try await expectRefused(service, .unauthenticated, field: "token") {
            _ = try await service.execute(.resetPassword(token: token, password: "attacker-password", email: nil))
        }
        await expectError(.invalidCredentials) { _ = try await signIn(service, "alice@example.com", "old-password") }
        let fresh = try await signIn(service, "alice@example.com", "new-password")
        #expect(try await sessionWorks(service, fresh, following: bob.id))

        _ = try service.rebuild()
        #expect(
            try await !sessionWorks(service, session, following: bob.id), "a rebuild brought back a revoked session")
        #expect(try await sessionWorks(service, fresh, following: bob.id))
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func wrongPasswordsAreRateLimitedLikeSignIns() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice", password: "right-password")
        for guess in 0..<SignInPolicy.maxFailures {
            try await expectWrongPassword(service) {
                _ = try await service.execute(
                    .changeEmail(password: "guess-\(guess)-password", email: "eve@example.com"),
                    as: .user(alice.id.rawValue))
            }
        }
        try await expectRefused(service, .rateLimited) {
            _ = try await service.execute(
                .changePassword(currentPassword: "right-password", newPassword: "eves-password"),
                as: .user(alice.id.rawValue))
        }
    }

    @Test func changeEmailNeedsThePasswordAndFreesTheOldEmail() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        _ = try await service.createUser("alice", password: "alice-password")
        let bob = try await service.createUser("bob")
        let session = try await signIn(service, "alice@example.com", "alice-password")

        try await expectWrongPassword(service) {
            _ = try await service.execute(
                .changeEmail(password: "guessed-password", email: "eve@example.com"), as: .session(session))
        }
        try await expectRefused(service, .emailTaken, field: "email") {
            _ = try await service.execute(
                .changeEmail(password: "alice-password", email: "BOB@example.com"), as: .session(session))
        }
        try await expectRefused(service, .invalidArgument, field: "email") {
            _ = try await service.execute(
                .changeEmail(password: "alice-password", email: "not an email"), as: .session(session))
        }
        // The same email again changes nothing.
        let before = try service.lastSequence()
        _ = try await service.execute(
            .changeEmail(password: "alice-password", email: "Alice@example.com"), as: .session(session))
        #expect(try service.lastSequence() == before)

        _ = try await service.execute(
            .changeEmail(password: "alice-password", email: "Alice.New@example.com"), as: .session(session))
        #expect(try await sessionWorks(service, session, following: bob.id), "an email change ends no session")
        await expectError(.invalidCredentials) { _ = try await signIn(service, "alice@example.com", "alice-password") }
        _ = try await signIn(service, "alice.new@example.com", "alice-password")
        // The old email is free again; the new one is taken.
        _ = try await service.execute(
            .createUser(username: "alice2", email: "alice@example.com", password: "password-123", bio: nil, url: nil))
        try await expectRefused(service, .emailTaken, field: "email") {
            _ = try await service.execute(
                .createUser(
                    username: "carol", email: "alice.new@example.com", password: "password-123", bio: nil, url: nil))
        }
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        service.close()
        // The new email is sealed in the log like UserCreated's, never in clear.
        let log = try Data(contentsOf: URL(fileURLWithPath: path).appendingPathComponent("data.mdb"))
        #expect(log.range(of: Data("alice.new@example.com".utf8)) == nil, "the new email is in the log in clear")
    }

    @Test func execContract() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice", password: "alice-password")
        let session = try await signIn(service, "alice@example.com", "alice-password")
        let exec = ExecSession(service: service)
        func answer(_ line: String) async throws -> [String: Any] {
            let out = await exec.handle(line: line)
            return try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        }
        func code(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["code"] as? String }
        let reset = try await answer(
            #"{"command":"requestPasswordReset","user":"\#(alice.id.rawValue)","session":"\#(session)"}"#)
        #expect(code(reset) == "forbidden")
        let wrong = try await answer(
            #"{"command":"changePassword","currentPassword":"nope-nope-nope","newPassword":"new-password","session":"\#(session)"}"#
        )
        #expect(code(wrong) == "invalid_credentials")
        let email = try await answer(
            #"{"command":"changeEmail","password":"alice-password","email":"a2@example.com","session":"\#(session)"}"#)
        #expect(email["ok"] as? Bool == true, "\(email)")
        let change = try await answer(
            #"{"command":"changePassword","currentPassword":"alice-password","newPassword":"new-password","session":"\#(session)"}"#
        )
        #expect(change["ok"] as? Bool == true, "\(change)")
        let after = try await answer(#"{"command":"follow","user":"\#(alice.id.rawValue)","session":"\#(session)"}"#)
        #expect(code(after) == "unauthenticated")
        _ = try await signIn(service, "a2@example.com", "new-password")
    }

    /// Failed sign-ins are limited per email *and* origin: a stranger who fails five times on
    /// purpose locks only their own address out, never the owner signing in from elsewhere.
    @Test func aStrangerCannotLockTheOwnerOut() async throws {
        let service = try openService()
        _ = try await service.createUser("alice", password: "the-right-one")
        for _ in 0..<SignInPolicy.maxFailures {
            await expectError(.invalidCredentials) {
                _ = try await service.execute(
                    .signIn(email: "alice@example.com", password: "guess-guess"), origin: "203.0.113.9")
            }
        }
        await expectError(.rateLimited) {
            _ = try await service.execute(
                .signIn(email: "alice@example.com", password: "the-right-one"), origin: "203.0.113.9")
        }
        let owner = try await service.execute(
            .signIn(email: "alice@example.com", password: "the-right-one"), origin: "198.51.100.7")
        #expect(owner.session != nil)
        // Local tools (no origin) have their own count too.
        #expect(
            try await service.execute(.signIn(email: "alice@example.com", password: "the-right-one")).session != nil)
        // The origin is recorded only as a keyed hash.
        let failed = try service.events(from: 1, limit: 100).compactMap { envelope -> SignInFailed? in
            if case .signInFailed(let e) = envelope.event { return e }
            return nil
        }
        #expect(failed.count == SignInPolicy.maxFailures)
        #expect(failed.allSatisfy { $0.origin?.count == 64 && !$0.origin!.contains("203.0.113.9") })
        service.close()
    }
}
