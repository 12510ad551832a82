import Foundation
import LMDB
import OpenSSL
import Sodium
import Synchronization

/// The Timeline service: one LMDB database (a directory) holding the event log, the read
/// models and the image blobs. Commands append events and update the read models in one
/// durable write transaction, group-committed with concurrent commands; queries read a
/// consistent snapshot. Safe to share between threads and tasks.
///
/// ```swift
/// let timeline = try TimelineService(path: "timeline.db")
/// guard case .user(let alice) = try await timeline.execute(
///     .createUser(username: "alice", email: "a@example.com", password: "correct horse", bio: nil, url: nil)) else { return }
/// _ = try await timeline.execute(.addPost(image: jpegBase64, caption: "Sea #sea"), as: .user(alice.id.rawValue))
/// let home = try timeline.timeline(of: alice.id)
/// ```
public final class TimelineService: Sendable {
    /// How the service opens its database and runs.
    public struct Options: Sendable {
        /// `false` skips fsync on commit (tests, bulk loads): a crash may lose recent commands.
        public var durable = true
        /// Where time comes from (tests inject a clock).
        public var clock: any WallClock = SystemClock()
        /// argon2id cost; `.interactive` in production, `.minimum` keeps tests fast.
        public var passwordCost = Sodium.PasswordCost.interactive
        /// How long a session lasts (ms; 30 days).
        public var sessionLifetime: Int64 = 30 * 24 * 3600 * 1000
        /// The map size a new database starts with (it doubles as it fills).
        public var initialMapSize = 64 << 20
        /// Each of the database's two maps (the log's, the read models') never grows past this;
        /// commands then fail with `storage_full`.
        public var maxMapSize = 1 << 40
        /// For a new database: at this many followers an author's new posts are merged into
        /// followers' timelines at read time instead of being pushed into each (hybrid fan-out).
        /// Recorded in the database when it is created.
        public var fanoutThreshold: UInt64 = 2_000
        /// For a new database: how many of a hashtag's newest posts a follow of it writes into the
        /// follower's home timeline (its newer posts are pushed to it as they come); the older
        /// ones are merged from the tag's post list when reading. Recorded in the database when
        /// it is created.
        public var tagBackfill: UInt64 = 100
        /// Join a cluster: the authoritative log is replicated elsewhere and this database its
        /// local replica (`nil`: the embedded LMDB log is authoritative). Set through the
        /// `TimelineCluster` library's `cluster` option (JetStream), which keeps NATS out of
        /// this one.
        package var clusterConnector: (any ClusterConnector)?
        /// Sign checkpoints of the log's head into an anchor file outside the database as the
        /// log grows (`nil`: no anchor). Opening refuses a log that does not extend the anchor
        /// file's last checkpoint.
        public var anchor: AnchorOptions?
        /// A post reported by at least this many distinct users (whose reports stand: made
        /// since the operator last dismissed the post's reports) is hidden from everyone but its
        /// author until the operator removes it or dismisses the reports. Applied when reading
        /// (the read models keep the reports, not this setting), so changing it needs no rebuild.
        public var hideAfterReports = 5
        /// The least time ahead a post is scheduled for (ms; 5 minutes, as Mastodon). Tests
        /// lower it (`timeline serve` reads `TIMELINE_SCHEDULE_MIN_LEAD_MS`, for test servers only).
        public var scheduleMinimumLead = ScheduleLimits.minimumLead
        /// A report counts towards hiding a post only from an account that was at least this
        /// old when it reported (ms; a day), that has made at least `reportMinimumActivity`
        /// posts and comments, and that the post's author does not block; reports from one
        /// client address count once. (Every report still reaches the operator's queue.)
        public var reportMinimumAccountAge: Int64 = 24 * 3600 * 1000
        /// See `reportMinimumAccountAge`.
        public var reportMinimumActivity = 1
        /// Accept push subscriptions whose endpoint's host is an IP address or `localhost`
        /// (`timeline serve --push-allow-private`, which also lets the worker connect to private
        /// addresses); otherwise `subscribePush` refuses them with `invalid_argument`.
        public var privatePushEndpoints = false
        /// Random words for identifiers (secure randomness unless a test injects a seed).
        public var random: @Sendable () -> UInt64 = Sodium.randomWord
        /// Threads that run argon2id (hashing and verifying passwords), apart from every other
        /// thread: a flood of password attempts takes at most these cores.
        public var passwordThreads = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
        /// Password checks that may wait for those threads; one more is refused with
        /// `rate_limited` at once.
        public var passwordQueueLimit = 32
        /// argon2id password hashing (a test can count the calls).
        package var hashPassword: @Sendable (String, Sodium.PasswordCost) -> String? = {
            Sodium.hashPassword($0, cost: $1)
        }
        /// argon2id password verification (a test can count or hold the calls).
        package var verifyPassword: @Sendable (String, String) -> Bool = { Sodium.verifyPassword($0, hash: $1) }
        /// Open a log that holds sealed personal fields even though its key store (`keys/`, or
        /// the cluster's key bucket) has no email pepper: every sealed field then reads as
        /// erased. Without it such an open fails with `KeyStoreError.missingKeyStore`.
        public var acceptMissingKeys = false
        /// Where the keys are kept instead of `<path>/keys/` (tests inject failing stores).
        package var keyBackend: (any KeyBackend)?
        /// The replicated log to follow and feed instead of a JetStream stream (tests stand in
        /// for the network with it).
        package var replicator: (any LogReplicator)?
        /// The largest video upload taken, in bytes (100 MB).
        public var maxVideoBytes = VideoPolicy.maxUploadBytes
        /// The longest video taken, in seconds (3 minutes).
        public var maxVideoSeconds = VideoPolicy.maxSeconds
        /// The defaults: durable, interactive argon2id, no cluster, no anchor.
        public init() {}
    }

    /// The default database location.
    public static let defaultPath = "timeline.db"

    /// The LMDB environment holding the log and the read models.
    package let environment: Environment
    /// The event log, the source of truth.
    package let log: EventLog
    let registry: ModelRegistry
    /// The tables a timeline page reads, for the benchmark's raw-LMDB baseline.
    package var timelinePageTables: TimelinePageTables {
        let models = registry.current
        return TimelinePageTables(
            timelines: models.timeline.timelines.database, posts: models.posts.posts.database,
            boosts: models.boosts.boosts.database, boostMark: ViewerMarks.boost.rawValue)
    }
    let options: Options
    /// The database's directory.
    let databasePath: String
    /// The videos' files, beside the database.
    package let videos: VideoStore
    /// Set in a cluster: how this replica follows and feeds the replicated log.
    let replication: Replication?
    private let follower: Follower?
    private let ids: Mutex<PushIDGenerator>
    private let committer: GroupCommitter<WriteJob>
    /// Batches and commands the committer has run (for metrics).
    private let committed = CommitCounts()
    /// Set with `Options.anchor`: signs the head after commits.
    let checkpointer: Checkpointer?
    /// A hash to verify against when the email is unknown, so both failures take as long.
    let decoyPasswordHash: String
    /// Where argon2id runs (never on the writer's or a caller's thread).
    let passwordWork: PasswordWork
    /// The last gone post's facts read from the log (`gonePost`): every open stream asks of the
    /// same deletion in turn, and a gone post's facts never change.
    let lastGonePost = Mutex<(id: PostID, record: PostRecord?)?>(nil)
    /// The videos an import running in this process transcoded and has not recorded yet (their
    /// events come with their posts, at its end): the video store's sweep keeps their files.
    let videosBeingImported = Mutex<Set<MediaID>>([])
    /// The actors' signing keys opened so far (`actorSigningKey`): a key is read from the log
    /// and parsed once, not per delivery.
    let signingKeys = Mutex<[UserID: RSAKey]>([:])
    /// What must act on an account's erasure in this process (`witnessErasures`).
    let erasureWitnesses = Mutex<[any ErasureWitness]>([])

    /// Opens (creating if needed) the database in directory `path`.
    public init(path: String = TimelineService.defaultPath, options: Options = Options()) throws(TimelineError) {
        guard Sodium.ensureInitialised() else { throw TimelineError(.internal, "libsodium failed to initialise") }
        guard options.hideAfterReports >= 1 else {
            throw TimelineError.invalid("hideAfterReports", "must be at least 1")
        }
        var envOptions = Environment.Options()
        envOptions.durable = options.durable
        envOptions.mapSize = min(options.initialMapSize, options.maxMapSize)
        envOptions.maxMapSize = options.maxMapSize
        envOptions.derivedData = true
        // Opened alone after a rebuild freed much of the read models' file: compact it first.
        envOptions.compactDerivedData = ReadModelCompaction.rule()
        do {
            try options.anchor?.checkOutside(databasePath: path)
            let environment = try Environment(path: path, options: envOptions)
            self.environment = environment
            if let replicator = options.replicator {
                log = try EventLog(
                    environment: environment, keyBackend: options.keyBackend,
                    acceptMissingKeys: options.acceptMissingKeys)
                replication = Replication(replicator: replicator, log: log)
            } else if let connector = options.clusterConnector {
                let cluster = try connector.connect()
                log = try EventLog(
                    environment: environment, keyBackend: options.keyBackend ?? cluster.keys,
                    acceptMissingKeys: options.acceptMissingKeys)
                replication = Replication(replicator: cluster.replicator, log: log)
            } else {
                log = try EventLog(
                    environment: environment, keyBackend: options.keyBackend,
                    acceptMissingKeys: options.acceptMissingKeys)
                replication = nil
            }
            let keys = log.keys
            registry = try ModelRegistry(
                environment, logMeta: log.meta,
                defaultFanOut: FanOut(threshold: options.fanoutThreshold, tagBackfill: options.tagBackfill),
                hashEmail: { keys.emailHash($0) })
            do {
                try Self.catchUpDerivedData(environment, log: log, registry: registry)
                try Self.sweepUnusedImagesOnce(environment, log: log, registry: registry)
                // Keys a crash (or a failure) left behind after their users' erasure.
                try log.listErasedUsersOnce(environment)
            } catch let error as LMDBError where error.code.isOutOfSpace {
                // A full disk: reads answer from the read models as they are; the first write
                // that finds space catches them up.
            }
            log.finishErasuresReporting(environment)
            checkpointer = try options.anchor.map { [log] anchor in
                try Self.startAnchoring(anchor, environment: environment, log: log, clock: options.clock)
            }
        } catch {
            throw TimelineService.translate(error)
        }
        self.options = options
        databasePath = path
        videos = VideoStore(databasePath: path)
        ids = Mutex(PushIDGenerator(random: options.random))
        passwordWork = PasswordWork(threads: options.passwordThreads, queueLimit: options.passwordQueueLimit)
        decoyPasswordHash =
            Sodium.hashPassword(
                String(decoding: Sodium.randomBytes(16).map { 0x61 + $0 % 26 }, as: UTF8.self),
                cost: options.passwordCost) ?? ""
        let environment = self.environment, log = self.log, registry = self.registry, replication = self.replication
        let checkpointer = self.checkpointer, committed = self.committed
        committer = GroupCommitter { batch in
            WriteJob.run(batch, environment: environment, log: log, registry: registry, replication: replication)
            committed.counts.withLock {
                $0.batches += 1
                $0.commands += UInt64(batch.count)
            }
            checkpointer?.logMayHaveGrown()
        }
        follower = replication.map { replication in
            Follower(interval: options.clusterConnector?.pollInterval ?? .milliseconds(20)) {
                do {
                    try replication.catchUp(environment, registry: registry)
                } catch is ReadModelsMoved {
                    try registry.reload()  // a rebuild switched generations
                }
            }
        }
    }

    deinit { close() }

    /// How many group commits (batches) and commands this service has run: their ratio is the
    /// mean batch size.
    public func commitBatchSizes() -> (batches: UInt64, commands: UInt64) { committed.counts.withLock { $0 } }

    /// Finishes queued commands and stops the writer (and, in a cluster, the follower), flushes
    /// the read models to disk and closes the database. Further commands and queries fail.
    /// (Close a service before opening the same database again in this process: LMDB's locks
    /// are per process.)
    public func close() {
        follower?.stop()
        committer.shutdown()
        passwordWork.stop()
        checkpointer?.stop()
        environment.close()
    }

    /// Rewrites the read models of the database at `path` without their free pages when a
    /// rebuild left at least a third of their file, and at least `minimumFreeBytes`, free
    /// (`ReadModelCompaction`) and no process has the database open. A service opening a
    /// database alone does this itself. Returns the bytes in use before and after, or `nil`
    /// when there was nothing to do or another process has the database open.
    public static func compactReadModels(path: String, minimumFreeBytes: Int = ReadModelCompaction.minimumFreeBytes)
        throws(TimelineError) -> (before: Int, after: Int)?
    {
        do {
            return try Environment.compactDerivedData(
                path: path, when: ReadModelCompaction.rule(minimumFreeBytes: minimumFreeBytes))
        } catch {
            throw translate(error)
        }
    }

    /// Brings the log's indexes and the read models up to the log in chunks: after a crash
    /// between a batch's two commits they are one batch behind, after a machine crash they
    /// start from nothing.
    private static func catchUpDerivedData(_ environment: Environment, log: EventLog, registry: ModelRegistry) throws {
        while try !environment.write({ txn in
            let head = try log.head(txn).sequence
            guard try log.indexUnindexed(through: head, limit: 20_000, txn) else { return false }
            guard let models = try registry.models(in: txn) else { throw ReadModelsMoved() }
            return try models.catchUp(log, head: head, limit: 5_000, txn)
        }) {}
    }

    /// Deletes, once per database, the stored images that no live post or profile photo shows:
    /// a database written before images went with the commit that let go of them still holds
    /// some. In chunks, each committed with how far it got (a crash goes on from there); when
    /// done, `meta` says so and later opens skip it.
    private static func sweepUnusedImagesOnce(_ environment: Environment, log: EventLog, registry: ModelRegistry) throws
    {
        let done = Array("unusedImagesSwept".utf8), progress = Array("unusedImagesSweptThrough".utf8)
        guard try environment.read({ try $0.get(log.meta, done) }) == nil else { return }
        while try environment.write({ txn in
            guard let models = try registry.models(in: txn) else { throw ReadModelsMoved() }
            if let next = try models.deleteUnusedImages(after: try txn.get(log.meta, progress), limit: 200, txn) {
                try txn.put(log.meta, progress, next)
                return true
            }
            try txn.put(log.meta, done, [1])
            _ = try txn.delete(log.meta, progress)
            return false
        }) {}
    }

    /// A new identifier: time-ordered, unique in this process (an import's new posts take them).
    package func newID() -> String {
        let now = options.clock.nowMilliseconds()
        return ids.withLock { $0.next(at: now) }
    }

    // MARK: - Commands

    /// Runs `command` as `caller`. Returns after the events are durably committed; on failure
    /// nothing was appended (except the record of a failed sign-in). `origin` says where the
    /// command came from (an HTTP client's address; recorded only as a keyed hash): failed
    /// sign-ins are limited per email and origin.
    public func execute(
        _ command: Command, as caller: Caller = .anonymous, origin: String? = nil,
        correlationId: String? = nil
    ) async throws(TimelineError) -> CommandResult {
        try await execute(command, as: caller, origin: origin, correlationId: correlationId, given: Prepared())
    }

    /// `execute`, for an `addPost` whose photo already went through the image pipeline (the bench).
    package func execute(_ command: Command, as caller: Caller, processedImage: ProcessedImage?)
        async throws(TimelineError) -> CommandResult
    {
        var given = Prepared()
        given.processedImage = processedImage
        return try await execute(command, as: caller, given: given)
    }

    /// `execute`, for a command some of whose slow work is done already (`given`): an `addPost`
    /// whose `processedImage` is what `ImagePipeline.post` made of the very bytes it carries (the
    /// bench's network builder posts a few images many times and processes each once), an
    /// `uploadVideo` of a file staged already, a `finishVideo` with the video worker's work.
    package func execute(
        _ command: Command, as caller: Caller = .anonymous, origin: String? = nil, correlationId: String? = nil,
        given: Prepared
    ) async throws(TimelineError) -> CommandResult {
        let origin = origin.map { log.keys.emailHash("origin:" + $0) }
        let actor: Actor
        var prepared: Prepared
        do {
            actor = try Self.actor(of: caller)
            prepared = try await prepare(command, actor: actor, origin: origin, given: given)
        } catch {
            if let staged = given.stagedVideo { videos.discard(staged) }
            throw error
        }
        prepared.origin = origin
        // What must be done with what an erasure destroys is prepared before it runs.
        var afterErasure: [@Sendable () -> Void] = []
        if let erase = command.definition as? EraseUserCommand, IdentifierSyntax.isValid(erase.user) {
            for witness in erasureWitnesses.withLock({ $0 }) {
                if let after = await witness.prepare(erasing: UserID(erase.user)) { afterErasure.append(after) }
            }
        }
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<CommandResult, TimelineError>, Never>) in
            let job = WriteJob(
                service: self, command: command, actor: actor, prepared: prepared, correlationId: correlationId,
                deliver: { continuation.resume(returning: $0) })
            // In a cluster a batch waits on the network (publish, retries): keep it off the
            // caller's (cooperative) thread.
            if replication == nil, committer.runIfIdle(job) { return }
            if !committer.submit(job) {
                continuation.resume(returning: .failure(TimelineError(.internal, "the service is closed")))
            }
        }
        // A refused upload keeps nothing: its staged video goes (a command appends nothing, and
        // changes nothing, when it fails).
        if case .failure = result, let staged = prepared.stagedVideo { videos.discard(staged) }
        if case .success = result {
            for after in afterErasure { after() }
        }
        return try result.get()
    }

    /// Who `caller` is, as deciding sees it (a session by its token's hash).
    private static func actor(of caller: Caller) throws(TimelineError) -> Actor {
        switch caller {
        case .anonymous: return .anonymous
        case .user(let id):
            guard IdentifierSyntax.isValid(id) else {
                throw TimelineError(.unauthenticated, "the acting user id is not valid")
            }
            return .user(UserID(id))
        case .session(let token): return .session(hash: Self.hashToken(token))
        case .operator: return .operator
        }
    }

    /// Work done before the writer sees a command of `actor`: the slow password hashing and
    /// verification and the image pipeline, which must not hold up other commands. Every limit
    /// a password attempt is under is checked before argon2id's work is spent on it.
    /// The photo `image` (base64) through the image pipeline, unless that was done already.
    private func processed(_ image: String, _ done: ProcessedImage?) throws(TimelineError) -> ProcessedImage {
        if let done { return done }
        return try ImagePipeline.post(try ImageUpload(base64: image))
    }

    private func prepare(_ command: Command, actor: Actor, origin: String?, given: Prepared)
        async throws(TimelineError) -> Prepared
    {
        var prepared = given
        let processedImage = given.processedImage
        switch command.definition {
        case let new as CreateUserCommand:
            try await precheckAndHash(command, new.password, &prepared)
        case let reset as ResetPasswordCommand:
            try await precheckAndHash(command, reset.password, &prepared)
        case let signIn as SignInCommand:
            try await verifySignIn(email: signIn.email, password: signIn.password, origin: origin, &prepared)
        case let check as CheckSignInCommand:
            try await verifySignIn(email: check.email, password: check.password, origin: origin, &prepared)
        case is RequestPasswordResetCommand, is RegisterAppCommand, is AuthorizeAppCommand, is IssueAppTokenCommand:
            prepared.newToken = Self.newToken()
        case let redeem as RedeemAuthorizationCommand:
            prepared.newToken = Self.newToken()
            prepared.pkceChallenge = redeem.codeVerifier.map { Sodium.base64URL(Sodium.sha256(Array($0.utf8))) }
        case let post as AddPostCommand:
            // Cheap checks first: the image work is spent only on a post that can be added.
            if let caption = post.caption { _ = try Validation.caption(caption) }
            if let location = post.location { _ = try Validation.place(location) }
            if let warning = post.warning { _ = try Validation.warning(warning) }
            if case .image(let image) = post.photos { prepared.processedImage = try processed(image, processedImage) }
        case let upload as UploadMediaCommand:
            if let alt = upload.alt { _ = try Validation.alt(alt) }
            prepared.processedImage = try processed(upload.image, processedImage)
        case let story as PostStoryCommand:
            prepared.processedImage = try processed(story.value, processedImage)
        case let upload as UploadVideoCommand where given.stagedVideo == nil:
            prepared.stagedVideo = try stageVideo(base64: upload.video, alt: upload.alt)
        case let profile as UpdateProfileCommand:
            if case .set(let image)? = profile.avatar {
                prepared.processedAvatar = try ImagePipeline.avatar(try ImageUpload(base64: image))
            }
            if case .set(let image)? = profile.header {
                prepared.processedHeader = try ImagePipeline.header(try ImageUpload(base64: image))
            }
        case let change as ChangePasswordCommand:
            try Validation.password(change.newPassword, field: "newPassword")
            try await verifyPassword(change.currentPassword, of: actor, origin: origin, &prepared)
            if prepared.verifiedUser != nil { prepared.passwordHash = try await hashPassword(change.newPassword) }
        case let change as ChangeEmailCommand:
            _ = try Validation.email(change.email)
            try await verifyPassword(change.password, of: actor, origin: origin, &prepared)
        case let erase as EraseUserCommand:
            if let password = erase.password {
                try await verifyPassword(password, of: actor, origin: origin, &prepared)
            }
        case let disable as DisableTwoFactorCommand:
            try await verifyPassword(disable.password, of: actor, origin: origin, &prepared)
        case is CreateActorKeyCommand where given.actorKey == nil:
            prepared.actorKey = try Self.newActorKeyPair()
        default:
            break  // nothing slow to do before the writer decides
        }
        try prepareTwoFactor(command, actor: actor, &prepared)
        return prepared
    }

    /// The context commands are decided in, as of now (the writer adds what `prepare` found
    /// out, as `DecisionContext.prepared`).
    func decisionContext() -> DecisionContext {
        var context = DecisionContext(
            now: options.clock.nowMilliseconds(), newID: { [unowned self] in newID() },
            hashToken: Self.hashToken, contentID: Self.contentID,
            hashEmail: registry.hashEmail)  // the read models' hash: one function for both
        context.sessionLifetime = options.sessionLifetime
        context.hideAfterReports = options.hideAfterReports
        context.privatePushEndpoints = options.privatePushEndpoints
        context.scheduleMinimumLead = options.scheduleMinimumLead
        return context
    }

    /// An image's address: per owner, so erasing one user never touches another's images.
    static func contentID(_ owner: UserID, _ bytes: [UInt8]) -> String {
        hex(Sodium.hash(Array(owner.rawValue.utf8) + [0], bytes))
    }

    // MARK: - Reading

    /// Runs `body` on one consistent snapshot of the read models.
    func read<R>(_ body: (ReadView) throws -> R) throws(TimelineError) -> R {
        do {
            // A rebuild that switched generations makes `models(in:)` nil: reopen, then retry.
            return try registry.retrying {
                try environment.read { txn -> R? in
                    guard let models = try registry.models(in: txn) else { return nil }
                    return try body(
                        ReadView(txn: txn, models: models, reports: reportPolicy, now: options.clock.nowMilliseconds()))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Which reports hide a post, from the options.
    var reportPolicy: ReportPolicy {
        ReportPolicy(
            hideAfter: options.hideAfterReports, minimumAccountAge: options.reportMinimumAccountAge,
            minimumActivity: options.reportMinimumActivity)
    }

    /// Maps storage failures to the public error codes.
    package static func translate(_ error: any Error) -> TimelineError {
        switch error {
        case let error as TimelineError: return error
        // What is full, never where: the message reaches HTTP clients, and a path would tell
        // them about the server's files.
        case let error as LMDBError where error.code.isOutOfSpace:
            return TimelineError(
                .storageFull, error.code == .mapFull ? "the database has reached its size limit" : "the disk is full")
        case let error as CocoaError where error.code == .fileWriteOutOfSpace:
            return TimelineError(.storageFull, "the disk is full")
        case let error as POSIXError where error.code == .ENOSPC || error.code == .EDQUOT:
            return TimelineError(.storageFull, "the disk is full")
        case let error as EventStoreError:
            return TimelineError(.internal, error.description)
        default:
            return TimelineError(.internal, "\(error)")
        }
    }
}

/// How many batches and commands a service's committer has run.
final class CommitCounts: Sendable {
    let counts = Mutex<(batches: UInt64, commands: UInt64)>((0, 0))
}
