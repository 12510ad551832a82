/// What was worked out for a command before the writer decides it: the work too slow to run
/// inside the write transaction (argon2id, the image pipeline), fresh tokens, and where the
/// command came from. The service fills it in, the job carries it to the writer, and deciding
/// reads it as `DecisionContext.prepared`: one value on both sides, so neither repeats the
/// other's fields.
package struct Prepared: Sendable {
    /// argon2id hash of the new password of a `createUser`, `resetPassword` or
    /// `changePassword` (computed before deciding).
    public var passwordHash: String?
    /// For `signIn`, `changePassword`, `changeEmail` and `eraseUser`: the user whose password was
    /// verified (nil when it did not match).
    public var verifiedUser: UserID?
    /// For `changePassword`, `changeEmail` and `eraseUser`: the stored hash the given password
    /// matched, so deciding can tell that the password has not changed since it was verified.
    public var verifiedPasswordHash: String?
    /// A keyed hash of where the command came from (an HTTP client's address), if known:
    /// failed sign-ins are limited per email and origin.
    public var origin: String?
    /// A fresh random token (the new session of `signIn`, the token of `requestPasswordReset`).
    public var newToken: String?
    /// For `redeemAuthorization`: PKCE's `S256` of its verifier (base64url SHA-256), to compare
    /// with the challenge the authorization recorded.
    public var pkceChallenge: String?
    /// For `addPost`: the photo as the image pipeline produced it (decoded before deciding).
    public var processedImage: ProcessedImage?
    /// For `updateProfile` with a new photo: its 320 px and 96 px squares (made before deciding).
    public var processedAvatar: (large: ImageUpload, small: ImageUpload)?
    /// For `updateProfile` with a new header: its 1500×500 and 600×200 bands (made before deciding).
    public var processedHeader: (large: ImageUpload, small: ImageUpload)?
    /// For a sign-in or a check that gave a one-time code (`signIn`, `checkSignIn`,
    /// `confirmTwoFactor`, `disableTwoFactor`): what the code matched, under the user's enrolment.
    public var secondFactor: SecondFactorCheck?
    /// For `uploadVideo`: the upload, stored in the video store before deciding.
    public var stagedVideo: StagedVideo?
    /// For `finishVideo`: what the video worker made of the upload.
    public var finishedVideo: FinishedVideo?
    /// For `createActorKey`: the RSA key pair made for the actor.
    public var actorKey: ActorKeyPair?
    /// For `confirmTwoFactor`: the new recovery codes (deciding records their hashes).
    public var recoveryCodes: [String]?

    /// Nothing prepared yet.
    public init() {}
}
