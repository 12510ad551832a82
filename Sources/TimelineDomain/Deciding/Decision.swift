/// What deciding may use besides state: the time, fresh identifiers, settings and the work done
/// before deciding that must not run inside the writer (`prepared`).
package struct DecisionContext {
    /// The time of the decision (ms since 1970): every event it records carries it.
    public var now: Int64
    /// A fresh identifier (a push ID, in the service) for each new entity.
    public var newID: () -> String
    /// Hex BLAKE2b of a session token.
    public var hashToken: (String) -> String
    /// Hex BLAKE2b of an owner's image bytes (the image's address).
    public var contentID: (UserID, [UInt8]) -> String
    /// Keyed hash of a (lowercased) email, as failed sign-ins record it and the read models
    /// keep it (`UserRecord.emailHash`): the same function on both sides, so it has no default.
    public var hashEmail: (String) -> String
    /// How long a new session lasts (ms): 30 days by default.
    public var sessionLifetime: Int64 = 30 * 24 * 3600 * 1000
    /// What the service worked out before deciding (password hashing and verification, the
    /// image pipeline, tokens, the origin).
    public var prepared = Prepared()
    /// A post with this many standing reports (distinct reporters, since the last dismissal) is
    /// hidden from everyone but its author: to them it is `not_found`.
    public var hideAfterReports: Int = .max
    /// Whether a push endpoint may name its host by an IP address or `localhost` (the operator's
    /// `--push-allow-private`: push services on loopback or a private network).
    public var privatePushEndpoints = false
    /// The least time ahead a post is scheduled for (ms): `ScheduleLimits.minimumLead`, lowered
    /// only by tests (`TimelineService.Options.scheduleMinimumLead`).
    public var scheduleMinimumLead = ScheduleLimits.minimumLead

    /// A context with these functions and the defaults for the rest.
    public init(
        now: Int64, newID: @escaping () -> String, hashToken: @escaping (String) -> String,
        contentID: @escaping (UserID, [UInt8]) -> String, hashEmail: @escaping (String) -> String
    ) {
        self.now = now
        self.newID = newID
        self.hashToken = hashToken
        self.contentID = contentID
        self.hashEmail = hashEmail
    }
}

/// What a command produced: events to append, image blobs to store, and its outcome (which
/// may be a failure that still records events, as a failed sign-in does).
package struct Decision: Sendable {
    /// The events to append, in order.
    public var events: [Event] = []
    /// New images, by content address.
    public var blobs: [ImageID: ImageUpload] = [:]
    /// What the caller is answered: a success by reference, or a failure (events or not).
    public var outcome: Result<Outcome, TimelineError>
    /// The user the events are recorded as acting (`nil`: `system`, as SPEC names every actor
    /// that is not a user — the operator's tools too).
    public var actor: UserID?
    /// Whose images `blobs` are (sealed with their key), when not the actor's: the uploader of
    /// a video the server's worker finished.
    public var blobOwner: UserID?

    /// A decision with these events, images, outcome and actor.
    public init(
        events: [Event] = [], blobs: [ImageID: ImageUpload] = [:], outcome: Result<Outcome, TimelineError>,
        actor: UserID? = nil
    ) {
        self.events = events
        self.blobs = blobs
        self.outcome = outcome
        self.actor = actor
    }
}

/// The successful result of a command, by reference; the service reads the referenced record
/// back from the read models after applying the events.
package enum Outcome: Sendable, Equatable {
    /// A user (created, or changed).
    case user(UserID)
    /// The acting user's profile as they see it, with their settings (`updateProfile`).
    case ownProfile(UserID)
    /// A new session: its token (shown once) and its user.
    case session(token: String, user: UserID)
    /// A one-time token for the user (shown once).
    case token(String)
    /// A post (created, or changed).
    case post(PostID)
    /// The media uploaded or changed.
    case media(MediaID)
    /// An OAuth app registered, with its client secret (shown once).
    case app(id: String, secret: String)
    /// A comment (added, or changed).
    case comment(CommentID)
    /// Whether the command changed anything (an idempotent command that found it done says `false`).
    case changed(Bool)
    /// The command succeeded with nothing to answer.
    case done
    /// A record was made that has no read of its own here: its new id (a rule, an announcement).
    case created(String)
    /// An authenticator's enrolment for the user: its secret, URI and QR code (shown once).
    case twoFactorEnrollment(UserID)
    /// A story (posted).
    case story(StoryID)
    /// Two-factor sign-in's recovery codes (shown once).
    case recoveryCodes([String])
}

/// Sign-in rate limit: this many failures per email within the window refuse further tries.
package enum SignInPolicy {
    /// Failed sign-ins within `window` that refuse the next try.
    public static let maxFailures = 5
    /// The window failed sign-ins are counted in (ms): 15 minutes.
    public static let window: Int64 = 15 * 60 * 1000
    /// How long a password-reset token stays valid: one hour.
    public static let resetLifetime: Int64 = 3600 * 1000
    /// The least time between two reset emails to one account (ms): 10 minutes.
    public static let resetInterval: Int64 = 10 * 60 * 1000

    /// The token of a reset mailed by `requestPasswordResetByEmail`: the key store's keyed hash
    /// (`hashEmail`, under its secret pepper) of the reset's nonce, set apart from any email's
    /// hash by a NUL (no email holds one). Deciding records only the token's hash; the mailer
    /// recomputes the token from the nonce when it sends.
    public static func resetToken(nonce: String, hashEmail: (String) -> String) -> String {
        hashEmail("\u{0}password-reset\u{0}" + nonce)
    }
}

/// Decides a command: validates it against `state` and returns its events, or throws a typed
/// error (nothing to append). Pure: all I/O is behind `state` and `context`.
package func decide(_ command: Command, actor: Actor, state: some DecisionState, context: DecisionContext) throws
    -> Decision
{
    try command.definition.decide(Decider(state: state, context: context), actor: actor)
}

/// Checks everything about a command that deciding it will check before its slow preparation
/// (the argon2id hashing of `createUser` and `resetPassword`: input rules, uniqueness, the reset
/// token), so that the work runs only for a command that can succeed. The writer decides again
/// against the state it then sees.
package func precheck(_ command: Command, state: some DecisionState, context: DecisionContext) throws {
    try command.definition.precheck(Decider(state: state, context: context))
}

/// Who runs a command, as the domain sees it.
package enum Actor: Sendable, Equatable {
    /// A trusted local operator acting as this user.
    case user(UserID)
    /// A session, named by the hash of its token.
    case session(hash: String)
    /// A trusted local operator acting as nobody in particular (e.g. `timeline erase-user`).
    case `operator`
    /// Nobody signed in: only commands that need no actor.
    case anonymous
}
