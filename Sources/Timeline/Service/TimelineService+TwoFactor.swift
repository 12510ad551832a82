import TimelineDomain

/// Whether a user's two-factor sign-in is on.
public struct TwoFactorStatus: Sendable, Equatable {
    /// Whether a sign-in needs a one-time code (an enrolment not yet confirmed is not).
    public var enabled: Bool
    /// How many recovery codes are not used yet.
    public var recoveryCodesLeft: Int
}

/// Two-factor sign-in's work before deciding: checking a one-time code against the user's
/// enrolment (the secret derived from their key, `TwoFactorSecret`), and making an
/// enrolment's nonce and a confirmation's recovery codes.
extension TimelineService {
    /// Whether `user`'s two-factor sign-in is on, and how many recovery codes are left.
    public func twoFactorStatus(of user: UserID) throws(TimelineError) -> TwoFactorStatus {
        try read { view in
            let factor = try view.twoFactor(user)
            let enabled = factor?.confirmed == true
            return TwoFactorStatus(
                enabled: enabled, recoveryCodesLeft: enabled ? factor?.recoveryCodeHashes.count ?? 0 : 0)
        }
    }

    /// Fills in what `command` needs of two-factor sign-in (nothing, for other commands), after
    /// the password checks `prepare` made.
    func prepareTwoFactor(_ command: Command, actor: Actor, _ prepared: inout Prepared) throws(TimelineError) {
        switch command.definition {
        case let signIn as SignInCommand:
            if let code = signIn.code, let user = prepared.verifiedUser { try checkCode(code, of: user, &prepared) }
        case let check as CheckSignInCommand:
            if let code = check.code, let user = prepared.verifiedUser { try checkCode(code, of: user, &prepared) }
        case is EnrollTwoFactorCommand:
            prepared.newToken = Self.newToken()
        case let confirm as ConfirmTwoFactorCommand:
            let now = options.clock.nowMilliseconds()
            if let user = try read({ view in try Self.actingUser(actor, view, now: now) }) {
                try checkCode(confirm.value, of: user, &prepared)
            }
            prepared.recoveryCodes = RecoveryCodes.make()
        case let disable as DisableTwoFactorCommand:
            // `prepare` verified the password: the code is checked only for its user.
            if let user = prepared.verifiedUser { try checkCode(disable.code, of: user, &prepared) }
        default:
            break
        }
    }

    /// Checks `code` against `user`'s enrolment (confirmed or not), now: the time step it is
    /// the code of, or the hash of the recovery code it may be. Deciding then accepts it only
    /// if the enrolment is still theirs and the code unspent.
    private func checkCode(_ code: String, of user: UserID, _ prepared: inout Prepared) throws(TimelineError) {
        let now = options.clock.nowMilliseconds()
        guard let factor = try read({ view in try view.twoFactor(user) }) else { return }
        let secret: TwoFactorSecret?
        do {
            secret = try TwoFactorSecret(user: user, nonce: factor.nonce, keys: log.keys)
        } catch {
            throw TimelineError(.internal, "the account's key could not be read: \(error)")
        }
        guard let secret else { return }
        var check = SecondFactorCheck(nonce: factor.nonce)
        check.step = OneTimeCode.matchingStep(code, secret.bytes, at: now)
        if check.step == nil, let normal = TwoFactorPolicy.normalizedRecoveryCode(code) {
            check.recoveryCodeHash = Self.hashToken(normal)
        }
        prepared.secondFactor = check
    }
}

extension ReadView {
    /// What `enrollTwoFactor` answers for `user`'s pending enrolment: the secret (base32), its
    /// `otpauth://` URI and a QR code of that URI (PNG, base64).
    func twoFactorEnrollment(of user: UserID, keys: any PayloadKeys) throws -> TwoFactorEnrollment {
        guard let factor = try twoFactor(user), let account = try self.user(user),
            let secret = try TwoFactorSecret(user: user, nonce: factor.nonce, keys: keys)
        else { throw TimelineError.notFound("two-factor enrolment", user.rawValue) }
        let uri = secret.uri(account: account.username, issuer: TwoFactorEnrollment.issuer)
        return TwoFactorEnrollment(
            secret: secret.base32, otpauthURI: uri, qrCodePNG: try TwoFactorSecret.qrCodePNG(uri))
    }
}
