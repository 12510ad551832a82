import LMDB
import TimelineDomain

/// All projections of one database, applied in a fixed order (timeline last: it reads the
/// follow graph and posts), plus the content-addressed image blob store and checkpoints.
struct ReadModels: Sendable {
    let profiles: ProfilesProjection
    let sessions: SessionsProjection
    let follows: FollowsProjection
    let posts: PostsProjection
    let hashtags: HashtagsProjection
    let activity: ActivityProjection
    let timeline: TimelineProjection
    /// imageId → media type byte ‖ bytes. Images are facts, not a projection: a rebuild
    /// keeps them.
    let images: Database
    /// projection name → BE(last applied sequence)
    let checkpoints: Database

    init(_ env: Environment, prefix: String = "") throws {
        profiles = try ProfilesProjection(env, prefix: prefix)
        sessions = try SessionsProjection(env, prefix: prefix)
        follows = try FollowsProjection(env, prefix: prefix)
        posts = try PostsProjection(env, prefix: prefix)
        hashtags = try HashtagsProjection(env, prefix: prefix)
        activity = try ActivityProjection(env, prefix: prefix)
        timeline = try TimelineProjection(env, prefix: prefix, follows: follows, posts: posts)
        images = try env.database("images")
        checkpoints = try env.database(prefix + "checkpoints")
    }

    var all: [any Projection] { [profiles, sessions, follows, posts, hashtags, activity, timeline] }

    func apply(_ envelopes: [EventEnvelope], _ txn: Transaction) throws {
        for envelope in envelopes {
            for projection in all { try projection.apply(envelope, txn) }
        }
    }

    /// Records that every projection has applied the log up to `sequence`.
    func setCheckpoint(_ sequence: UInt64, _ txn: Transaction) throws {
        for projection in all { try txn.put(checkpoints, Array(projection.name.utf8), BigEndian.bytes(sequence)) }
    }

    func checkpoint(_ name: String, _ txn: Transaction) throws -> UInt64 {
        try txn.get(checkpoints, Array(name.utf8)).flatMap(BigEndian.uint64) ?? 0
    }

    func storeImage(_ id: ImageID, _ upload: ImageUpload, _ txn: Transaction) throws {
        let code = UInt8(MediaType.allCases.firstIndex(of: upload.mediaType) ?? 0)
        try txn.put(images, Array(id.rawValue.utf8), [code] + upload.bytes, flags: .noOverwrite)
    }
}

/// The current state as deciding a command sees it, read inside the write transaction.
struct ReadView: DecisionState {
    let txn: Transaction
    let models: ReadModels

    func user(_ id: UserID) throws -> UserRecord? { try models.profiles.user(id, txn) }
    func userID(username: String) throws -> UserID? {
        try txn.get(models.profiles.usernames, Array(username.utf8)).map { UserID(String(decoding: $0, as: UTF8.self)) }
    }
    func userID(email: String) throws -> UserID? {
        try txn.get(models.profiles.emails, Array(email.utf8)).map { UserID(String(decoding: $0, as: UTF8.self)) }
    }
    func post(_ id: PostID) throws -> PostRecord? { try models.posts.post(id, txn) }
    func comment(_ id: CommentID) throws -> CommentRecord? { try models.posts.comment(id, txn) }
    func follows(_ follower: UserID, _ followee: UserID) throws -> Bool { try models.follows.follows(follower, followee, txn) }
    func likes(_ user: UserID, _ post: PostID) throws -> Bool { try models.posts.likes(user, post, txn) }
    func session(hash: String) throws -> SessionRecord? { try models.sessions.session(hash: hash, txn) }
    func signInFailures(email: String, since: Int64) throws -> Int { try models.sessions.failures(email: email, since: since, txn) }
}
