import Foundation
import Testing
@testable import Timeline

/// Password reset, password change and email change (issue #12, item 6): a reset or a change
/// of password ends every session and every other reset token of the user, only an operator
/// gets reset tokens, tokens expire after an hour, and changing a credential needs the
/// current password.
@Suite struct CredentialTests {
    /// Runs `body`, expecting `code`, and checks that the log did not grow.
    func expectRefused(_ service: TimelineService, _ code: TimelineError.Code, field: String? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async throws {
        let before = try service.lastSequence()
        await expectError(code, field: field, sourceLocation: sourceLocation, body)
        #expect(try service.lastSequence() == before, "a failed command appended events", sourceLocation: sourceLocation)
    }

    func signIn(_ service: TimelineService, _ email: String, _ password: String) async throws -> String {
        let result = try await service.execute(.signIn(email: email, password: password))
        guard case .session(let token, _) = result else { throw TimelineError(.internal, "signIn returned \(result)") }
        return token
    }

    func resetToken(_ service: TimelineService, for user: UserID) async throws -> String {
        let result = try await service.execute(.requestPasswordReset(user: user.rawValue), as: .operator)
        guard case .token(let token) = result else { throw TimelineError(.internal, "requestPasswordReset returned \(result)") }
        return token
    }

    /// Whether `token` still acts (a harmless idempotent command: following `target`).
    func sessionWorks(_ service: TimelineService, _ token: String, following target: UserID) async throws -> Bool {
        do {
            _ = try await service.execute(.follow(user: target.rawValue), as: .session(token))
            return true
        } catch where error.code == .unauthenticated {
            return false
        }
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
        #expect(try await !sessionWorks(service, first, following: bob.id), "a session from before the reset still acts")
        #expect(try await !sessionWorks(service, second, following: bob.id), "a session from before the reset still acts")
        try await expectRefused(service, .unauthenticated, field: "token") {
            _ = try await service.execute(.resetPassword(token: other, password: "attacker-password", email: "eve@example.com"))
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
}
