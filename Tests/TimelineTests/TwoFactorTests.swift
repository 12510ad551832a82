import Foundation
import OpenSSL
import Testing
import TimelineDomain
import Vips

@testable import Timeline

/// Two-factor sign-in through the library, on a clock the test moves: enrolment, confirmation,
/// codes that count once, recovery codes, the failure limit, turning it off, and erasure.
/// `Tests/mastodon/test_two_factor.py` checks the same codes with pyotp and the QR code with
/// zbarimg, over HTTP.
@Suite struct TwoFactorTests {
    /// A moment well inside a 30-second step (ms since 1970).
    static let start: Int64 = 1_767_225_600_000 + 10_000

    /// RFC 6238's code of `secret` (base32) at `ms`, computed here from the RFC (not by the
    /// service's own `OneTimeCode`).
    static func code(_ secret: String, at ms: Int64) -> String {
        var bits = 0, buffer: UInt64 = 0
        var key: [UInt8] = []
        for letter in secret.utf8 {
            let value = letter >= 65 ? UInt64(letter - 65) : UInt64(letter - 50 + 26)
            buffer = buffer << 5 | value
            bits += 5
            if bits >= 8 {
                key.append(UInt8(truncatingIfNeeded: buffer >> UInt64(bits - 8)))
                bits -= 8
            }
        }
        let counter = UInt64(ms / 1000 / 30)
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - $0 * 8)) }
        let mac = HMAC.sha1(key: key, message: message)
        let offset = Int(mac[19] & 15)
        let number = mac[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
        return String(format: "%06d", number % 1_000_000)
    }

    /// A service on a test clock with alice, and her enrolment.
    static func enrolled() async throws -> (TimelineService, TestClock, UserID, TwoFactorEnrollment) {
        let clock = TestClock(start)
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice").id
        guard case .twoFactorEnrollment(let enrollment) = try await service.run(.enrollTwoFactor, as: alice) else {
            throw TimelineError(.internal, "no enrolment")
        }
        return (service, clock, alice, enrollment)
    }

    static func signIn(_ service: TimelineService, code: String? = nil) async throws -> CommandResult {
        let command: Command =
            code.map { .signIn(email: "alice@example.com", password: "password-123", code: $0) }
            ?? .signIn(email: "alice@example.com", password: "password-123")
        return try await service.execute(command)
    }

    @Test func anEnrolmentIsAnAuthenticatorsSecretURIAndQRCode() async throws {
        let (service, _, _, enrollment) = try await Self.enrolled()
        #expect(enrollment.secret.count == 32)
        #expect(enrollment.secret.allSatisfy { $0.isUppercase || ("2"..."7").contains($0) })
        #expect(enrollment.otpauthURI.hasPrefix("otpauth://totp/Timeline:alice?secret=\(enrollment.secret)&"))
        #expect(enrollment.otpauthURI.contains("issuer=Timeline"))
        let header = try Vips.header(enrollment.qrCodePNG)
        #expect(header.width == header.height && header.width >= 21 * 8)
        // Not in force until confirmed: the password alone still signs in.
        #expect(try await Self.signIn(service).session != nil)
        // The secret is in no event: only the nonce it is derived from.
        let logged = try service.events().map { "\($0.event)" }.joined()
        #expect(!logged.contains(enrollment.secret))
    }

    @Test func aConfirmedAuthenticatorIsAskedForAndEachCodeCountsOnce() async throws {
        let (service, clock, alice, enrollment) = try await Self.enrolled()
        let wrong = Self.code(enrollment.secret, at: Self.start + 3_600_000)
        await #expect(throws: TimelineError(.invalidCredentials, "the code is not the authenticator's", field: "code"))
        {
            try await service.run(.confirmTwoFactor(code: wrong), as: alice)
        }
        let first = Self.code(enrollment.secret, at: clock.nowMilliseconds())
        guard case .recoveryCodes(let recovery) = try await service.run(.confirmTwoFactor(code: first), as: alice)
        else { throw TimelineError(.internal, "no recovery codes") }
        #expect(recovery.count == 10 && Set(recovery).count == 10)

        // Without a code: refused, and nothing is recorded.
        let before = try service.lastSequence()
        await #expect(throws: TimelineError.self) { try await Self.signIn(service) }
        do {
            _ = try await Self.signIn(service)
        } catch let error as TimelineError {
            #expect(error.code == .twoFactorRequired)
        }
        #expect(try service.lastSequence() == before)

        // The confirming code is spent; the next step's works once.
        await #expect(throws: TimelineError.self) { try await Self.signIn(service, code: first) }
        clock.advance(30_000)
        let next = Self.code(enrollment.secret, at: clock.nowMilliseconds())
        #expect(try await Self.signIn(service, code: next).session != nil)
        await #expect(throws: TimelineError.self) { try await Self.signIn(service, code: next) }
        // A phone a step behind still signs in; then no code of that step or before is good.
        clock.advance(60_000)
        let behind = Self.code(enrollment.secret, at: clock.nowMilliseconds() - 30_000)
        #expect(try await Self.signIn(service, code: behind).session != nil)
        await #expect(throws: TimelineError.self) { try await Self.signIn(service, code: behind) }

        // A recovery code, typed in upper case without dashes, works once.
        let typed = recovery[3].uppercased().replacingOccurrences(of: "-", with: "")
        #expect(try await Self.signIn(service, code: typed).session != nil)
        await #expect(throws: TimelineError.self) { try await Self.signIn(service, code: recovery[3]) }
        #expect(try await Self.signIn(service, code: recovery[4]).session != nil)
    }

    @Test func wrongCodesAreLimitedAsWrongPasswordsAre() async throws {
        let (service, clock, alice, enrollment) = try await Self.enrolled()
        _ = try await service.run(
            .confirmTwoFactor(code: Self.code(enrollment.secret, at: clock.nowMilliseconds())), as: alice)
        for _ in 0..<SignInPolicy.maxFailures {
            do {
                _ = try await Self.signIn(service, code: "000000")
                Issue.record("a wrong code signed in")
            } catch let error as TimelineError {
                #expect(error.code == .invalidCredentials && error.field == "code")
            }
        }
        clock.advance(30_000)
        let good = Self.code(enrollment.secret, at: clock.nowMilliseconds())
        do {
            _ = try await Self.signIn(service, code: good)
            Issue.record("a sign-in past the limit went through")
        } catch let error as TimelineError {
            #expect(error.code == .rateLimited)
        }
    }

    @Test func turningItOffNeedsThePasswordAndACode() async throws {
        let (service, clock, alice, enrollment) = try await Self.enrolled()
        _ = try await service.run(
            .confirmTwoFactor(code: Self.code(enrollment.secret, at: clock.nowMilliseconds())), as: alice)
        await #expect(throws: TimelineError(.conflict, "two-factor sign-in is on already: turn it off first")) {
            try await service.run(.enrollTwoFactor, as: alice)
        }
        clock.advance(30_000)
        let code = Self.code(enrollment.secret, at: clock.nowMilliseconds())
        await #expect(throws: TimelineError.self) {
            try await service.run(.disableTwoFactor(password: "wrong-password", code: code), as: alice)
        }
        await #expect(throws: TimelineError.self) {
            try await service.run(.disableTwoFactor(password: "password-123", code: "123456"), as: alice)
        }
        #expect(try await service.run(.disableTwoFactor(password: "password-123", code: code), as: alice) == .done)
        #expect(try await Self.signIn(service).session != nil)
        await #expect(throws: TimelineError(.conflict, "two-factor sign-in is off")) {
            try await service.run(.disableTwoFactor(password: "password-123", code: code), as: alice)
        }
    }

    @Test func enrollingAgainBeforeConfirmingReplacesTheSecret() async throws {
        let (service, clock, alice, old) = try await Self.enrolled()
        guard case .twoFactorEnrollment(let new) = try await service.run(.enrollTwoFactor, as: alice) else {
            throw TimelineError(.internal, "no enrolment")
        }
        #expect(new.secret != old.secret)
        await #expect(throws: TimelineError.self) {
            try await service.run(
                .confirmTwoFactor(code: Self.code(old.secret, at: clock.nowMilliseconds())), as: alice)
        }
        _ = try await service.run(
            .confirmTwoFactor(code: Self.code(new.secret, at: clock.nowMilliseconds())), as: alice)
    }

    @Test func theAuthorizePagesCheckSpendsTheCodeToo() async throws {
        let (service, clock, alice, enrollment) = try await Self.enrolled()
        _ = try await service.run(
            .confirmTwoFactor(code: Self.code(enrollment.secret, at: clock.nowMilliseconds())), as: alice)
        await #expect(throws: TimelineError.self) {
            try await service.execute(.checkSignIn(email: "alice@example.com", password: "password-123"))
        }
        clock.advance(30_000)
        let code = Self.code(enrollment.secret, at: clock.nowMilliseconds())
        let checked = try await service.execute(
            .checkSignIn(email: "alice@example.com", password: "password-123", code: code))
        guard case .user(let user) = checked else { throw TimelineError(.internal, "no user") }
        #expect(user.id == alice)
        await #expect(throws: TimelineError.self) { try await Self.signIn(service, code: code) }
    }

    @Test func erasingTheAccountDestroysTheSecret() async throws {
        let (service, clock, alice, enrollment) = try await Self.enrolled()
        _ = try await service.run(
            .confirmTwoFactor(code: Self.code(enrollment.secret, at: clock.nowMilliseconds())), as: alice)
        try await service.run(.eraseUser(user: alice.rawValue, password: "password-123"), as: alice)
        #expect(try service.read { view in try view.twoFactor(alice) } == nil)
        // The key is gone: nothing can derive the secret again.
        let keys = service.log.keys
        #expect(try TwoFactorSecret(user: alice, nonce: "any-nonce-of-hers", keys: keys) == nil)
    }
}

/// Two-factor sign-in over HTTP against a real `timeline serve`, checked by others' code
/// (Tests/mastodon/test_two_factor.py): pyotp's codes, zbarimg's reading of the QR code,
/// Mastodon.py's password grant.
@Suite struct TwoFactorHTTPTests {
    @Test(.timeLimit(.minutes(3))) func pyotpAndZbarimgAgreeWithTheServer() async throws {
        try await withServer { server in
            let alice = try await server.api.signUp("alice")
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_two_factor.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, "alice@example.com", "password-123"
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(150))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - two-factor sign-in checked by pyotp and zbarimg"), "\(text)")
        }
    }
}

/// Tests/browser/test_two_factor.py: Settings enrols an authenticator (the QR code, pyotp's code,
/// the recovery codes) and turns it off; Sign in asks for the code, in headless Chromium.
@Suite struct TwoFactorWebAppTests {
    @Test(.timeLimit(.minutes(3))) func inARealBrowser() async throws {
        try await WebAppTests.browserScript(
            "test_two_factor.py", passes: "ok - Settings turns it off with the password and a recovery code")
    }
}
