import LMDB
import Sodium
import TimelineDomain

/// The projection registry is `ProjectionName` and `ReadModels` below: a new projection adds its
/// case there (the compiler then asks for its layout here and its handle in `ReadModels`), and
/// its `fold` says what it does with every event; every list of projections (application
/// order, checkpoints, rebuild, status) derives from `allCases`.
extension ProjectionName {
    /// The version of the projection's table layout. A new version gets a checkpoint of its
    /// own (`Generations.checkpointKey`), so a database written with an older layout replays
    /// the whole log into the projection once, when it is next opened or written, starting
    /// from empty tables (`catchUp`). Version 2 of `follows` keeps each follow's order (newest
    /// follow first); version 2 of `profiles` keeps emails only as their keyed hash; version 2
    /// of `posts` keeps each report's time and origin (`Report`), version 3 keeps in each post's
    /// record its author's username, its place and its standing reports (`StoredPost`); version
    /// 2 of `timeline` keeps with each entry whether its user likes or bookmarked the post;
    /// version 2 of `activity` adds mentions and replies (so a log written before tells of the
    /// mentions it holds, as a rebuild would: what it depends on replays with it, `catchUp`);
    /// version 2 of `profileExtras` keeps dismissed follow suggestions and the annual reports
    /// asked for; version 2 of `instance` keeps every version of the terms of service by its date.
    var layout: Int {
        switch self {
        // posts 4: each post's record holds its boost count and its poll's id (`StoredPost`);
        // 5: an album item may be a video (`AlbumItem`), and videos being transcoded are listed.
        case .posts: 5
        // activity 3: the `added_to_collection` items of the collections made before it; timeline
        // 3: followed hashtags' posts pushed and backfilled (`TimelineEntries`, `tagFollowers`).
        case .activity, .timeline: 3
        // polls 2: every poll by its end (`pollsByEnd`), which the push worker reads.
        // boosts 2: no count table (a post's record holds its boost count).
        case .follows, .profiles, .profileExtras, .instance, .polls, .boosts: 2
        // numericIDs 2: a conversation's key has its own kind byte (it had a comment's).
        case .numericIDs: 2
        case .sessions, .postImages, .hashtags, .places, .filters, .lists, .collections, .conversations,
            .scheduledPosts, .stories, .federation:
            1
        }
    }

    /// What a projection reads besides its own databases; rebuilding it rebuilds these too.
    var dependencies: [ProjectionName] {
        switch self {
        case .timeline: [.follows, .posts, .profiles, .boosts, .hashtags]
        case .posts: [.profiles]
        case .activity: [.profiles, .follows, .posts, .profileExtras]
        case .profiles, .sessions, .follows, .postImages, .hashtags, .places, .instance, .filters, .polls, .numericIDs,
            .profileExtras, .boosts, .lists, .collections, .conversations, .scheduledPosts, .stories, .federation:
            []
        }
    }

    /// `names` plus everything they depend on, in application order.
    static func closure(of names: some Sequence<ProjectionName>) -> [ProjectionName] {
        var set = Set(names)
        for name in set { set.formUnion(name.dependencies) }
        return allCases.filter(set.contains)
    }
}

/// Which generation of its databases each projection serves from. Generation 0 uses the plain
/// database names; generation n uses `g<n>.<name>`. A rebuild fills a new generation and
/// switches by rewriting this one value, in the same transaction that drops the old databases.
struct Generations: Equatable, Sendable {
    static let metaKey = Array("readModelGenerations".utf8)
    static let nextKey = Array("nextGeneration".utf8)

    var numbers: [ProjectionName: UInt64] = [:]

    func number(_ name: ProjectionName) -> UInt64 { numbers[name] ?? 0 }
    func prefix(_ name: ProjectionName) -> String { Self.prefix(number(name)) }
    static func prefix(_ generation: UInt64) -> String { generation == 0 ? "" : "g\(generation)." }

    /// The key of `name`'s checkpoint in the `checkpoints` database: `<generation prefix><name>`
    /// (the one definition of the format).
    func checkpointKey(_ name: ProjectionName) -> [UInt8] {
        Array((prefix(name) + name.rawValue + (name.layout > 1 ? "@\(name.layout)" : "")).utf8)
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        let entries = numbers.filter { $0.value != 0 }.sorted { $0.key.rawValue < $1.key.rawValue }
        w.varint(UInt64(entries.count))
        for (name, number) in entries {
            w.string(name.rawValue)
            w.varint(number)
        }
        return w.bytes
    }

    init(numbers: [ProjectionName: UInt64] = [:]) { self.numbers = numbers }

    init(_ bytes: [UInt8]?) throws {
        guard let bytes else { return }
        var r = ByteReader(bytes)
        for _ in 0..<(try r.varint()) {
            guard let name = ProjectionName(rawValue: try r.string()) else {
                throw CorruptRecord(message: "unknown projection")
            }
            numbers[name] = try r.varint()
        }
    }
}

/// All projections of one database at given generations, plus the content-addressed image
/// blob store and the checkpoints. A class: every query and command holds it, and a reference
/// is cheaper to pass around than a struct of some forty database handles.
final class ReadModels: Sendable {
    let generations: Generations
    let profiles: ProfilesProjection
    let sessions: SessionsProjection
    let follows: FollowsProjection
    let posts: PostsProjection
    let postImages: PostImagesProjection
    let hashtags: HashtagsProjection
    let places: PlacesProjection
    let activity: ActivityProjection
    let timeline: TimelineProjection
    let boosts: BoostsProjection
    let instance: InstanceProjection
    let filters: FiltersProjection
    let polls: PollsProjection
    let lists: ListsProjection
    let collections: CollectionsProjection
    let conversations: ConversationsProjection
    let scheduledPosts: ScheduledPostsProjection
    let stories: StoriesProjection
    let numericIDs: NumericIDsProjection
    let profileExtras: ProfileExtrasProjection
    let federation: FederationProjection
    /// The stored images. Images are facts, not a projection: a rebuild keeps them.
    let images: Table<StoredImages>
    /// `Generations.checkpointKey` → BE(last applied sequence)
    let checkpoints: Database
    /// Every projection, in application order (`ProjectionName.allCases`).
    let all: [any Projection]
    private let checkpointKeys: [ProjectionName: [UInt8]]

    /// Opens every projection's databases at `generations`. The switch is the registry: it
    /// puts each projection in `all`, in application order.
    init(
        _ env: Environment, generations: Generations = Generations(), fanOut: FanOut,
        hashEmail: @escaping @Sendable (String) -> String
    ) throws {
        self.generations = generations
        let profiles = try ProfilesProjection(env, prefix: generations.prefix(.profiles), hashEmail: hashEmail)
        let sessions = try SessionsProjection(env, prefix: generations.prefix(.sessions))
        let follows = try FollowsProjection(env, prefix: generations.prefix(.follows))
        let posts = try PostsProjection(env, prefix: generations.prefix(.posts), profiles: profiles)
        let postImages = try PostImagesProjection(env, prefix: generations.prefix(.postImages))
        let hashtags = try HashtagsProjection(env, prefix: generations.prefix(.hashtags))
        let places = try PlacesProjection(env, prefix: generations.prefix(.places))
        let profileExtras = try ProfileExtrasProjection(env, prefix: generations.prefix(.profileExtras))
        let activity = try ActivityProjection(
            env, prefix: generations.prefix(.activity), profiles: profiles, follows: follows, posts: posts,
            extras: profileExtras)
        let boosts = try BoostsProjection(env, prefix: generations.prefix(.boosts))
        let timeline = try TimelineProjection(
            env, prefix: generations.prefix(.timeline), follows: follows, posts: posts, boosts: boosts,
            hashtags: hashtags, fanOut: fanOut)
        let instance = try InstanceProjection(env, prefix: generations.prefix(.instance))
        let filters = try FiltersProjection(env, prefix: generations.prefix(.filters))
        let polls = try PollsProjection(env, prefix: generations.prefix(.polls))
        let lists = try ListsProjection(env, prefix: generations.prefix(.lists))
        let collections = try CollectionsProjection(env, prefix: generations.prefix(.collections))
        let conversations = try ConversationsProjection(env, prefix: generations.prefix(.conversations))
        let scheduledPosts = try ScheduledPostsProjection(env, prefix: generations.prefix(.scheduledPosts))
        let stories = try StoriesProjection(env, prefix: generations.prefix(.stories))
        let numericIDs = try NumericIDsProjection(
            env, prefix: generations.prefix(.numericIDs), notifying: activity.handlers.types)
        let federation = try FederationProjection(env, prefix: generations.prefix(.federation))
        all = ProjectionName.allCases.map { name -> any Projection in
            switch name {
            case .profiles: profiles
            case .sessions: sessions
            case .follows: follows
            case .posts: posts
            case .postImages: postImages
            case .hashtags: hashtags
            case .places: places
            case .activity: activity
            case .timeline: timeline
            case .boosts: boosts
            case .instance: instance
            case .filters: filters
            case .polls: polls
            case .lists: lists
            case .collections: collections
            case .conversations: conversations
            case .scheduledPosts: scheduledPosts
            case .stories: stories
            case .numericIDs: numericIDs
            case .profileExtras: profileExtras
            case .federation: federation
            }
        }
        (self.profiles, self.sessions, self.follows, self.posts) = (profiles, sessions, follows, posts)
        self.postImages = postImages
        (self.hashtags, self.activity, self.timeline) = (hashtags, activity, timeline)
        self.boosts = boosts
        self.places = places
        self.instance = instance
        self.filters = filters
        self.polls = polls
        self.lists = lists
        self.collections = collections
        self.conversations = conversations
        self.scheduledPosts = scheduledPosts
        self.stories = stories
        self.numericIDs = numericIDs
        self.profileExtras = profileExtras
        self.federation = federation
        images = try Table(env, "images", placement: .primary)  // not recomputable from the log
        checkpoints = try env.database("checkpoints", placement: .derived)
        checkpointKeys = Dictionary(
            uniqueKeysWithValues: ProjectionName.allCases.map { ($0, generations.checkpointKey($0)) })
    }

    /// The projection named `name`.
    func projection(_ name: ProjectionName) -> any Projection { all[ProjectionName.allCases.firstIndex(of: name)!] }

    /// Which projections each event type changes (in application order), derived from their
    /// declared handlers: the one routing table (docs/events.md is printed from it).
    var routing: [EventType: [ProjectionName]] {
        Dictionary(
            uniqueKeysWithValues: EventType.allCases.map { type in
                (type, all.filter { $0.handlers.types.contains(type) }.map(\.name))
            })
    }

    /// Applies events as they are committed (by a command, a replicated batch or an import),
    /// and deletes, in the same transaction, the stored images they leave without a live post
    /// or avatar: a deleted or removed post's photos and an old profile photo are gone with the
    /// commit that let go of them. (A rebuild or a catch-up replays the log through the
    /// projections alone: the images were deleted when the events were first committed.)
    func apply(_ envelopes: [EventEnvelope], _ txn: Transaction) throws {
        var released: [(image: ImageID, owner: UserID)] = []
        for envelope in envelopes {
            released += try imagesReleased(by: envelope, txn)
            for projection in all { try projection.fold(envelope, txn) }
        }
        for (image, owner) in released where try !isInUse(image, owner: owner, txn) { try images.delete(image, txn) }
    }

    /// The images `envelope` may leave unused, read before it is applied.
    private func imagesReleased(by envelope: EventEnvelope, _ txn: Transaction) throws -> [(
        image: ImageID, owner: UserID
    )] {
        switch envelope.event {
        case .postDeleted(let e): try postImages.postImages.members(of: e.postId, txn).map { ($0, e.authorId) }
        case .postRemoved(let e): try postImages.postImages.members(of: e.postId, txn).map { ($0, e.authorId) }
        case .profileUpdated(let e) where e.avatar != nil || e.header != nil: try avatarImages(of: e.userId, txn)
        case .userErased(let e): try avatarImages(of: e.userId, txn) + storyImages(of: e.userId, txn)
        case .storyDeleted(let e), .storyExpired(let e):
            try stories.stories.get(e.storyId, txn).map { $0.variants.all.map { ($0, e.authorId) } } ?? []
        case .mediaDeleted(let e): try postImages.mediaImages.members(of: e.mediaId, txn).map { ($0, e.uploaderId) }
        // A profile update without a new photo keeps the old one; no other event lets go of an image.
        default: []
        }
    }

    private func storyImages(of user: UserID, _ txn: Transaction) throws -> [(image: ImageID, owner: UserID)] {
        try stories.byAuthor.members(of: user, txn).flatMap { id in
            try stories.stories.get(id, txn).map { $0.variants.all.map { ($0, user) } } ?? []
        }
    }

    private func avatarImages(of user: UserID, _ txn: Transaction) throws -> [(image: ImageID, owner: UserID)] {
        (try profiles.user(user, txn)?.profileImages ?? []).map { ($0, user) }
    }

    /// Deletes the stored images after the key `after` (from the first without it) that
    /// nothing live shows, looking at up to `limit` of them; the key to go on after, or nil
    /// when the table has been looked through.
    func deleteUnusedImages(after: [UInt8]?, limit: Int, _ txn: Transaction) throws -> [UInt8]? {
        var unused: [[UInt8]] = []
        var last: [UInt8]?
        var more = false
        try txn.withCursor(images.database) { cursor in
            var entry = try after.map { key in try cursor.seek(atLeast: key + [0]) } ?? cursor.first()
            var seen = 0
            while let (key, value) = entry {
                guard seen < limit else {
                    more = true
                    break
                }
                if try !isInUse(
                    ImageID(String(decoding: key, as: UTF8.self)), owner: StoredImages.decode(value).owner, txn)
                {
                    unused.append(key)
                }
                last = key
                seen += 1
                entry = try cursor.next()
            }
        }
        for key in unused { _ = try txn.delete(images.database, key) }
        return more ? last : nil
    }

    /// Whether a live post (any of its variants, or the image it was made from) or `owner`'s
    /// profile photo is the stored image `image`: only such an image is served.
    func isInUse(_ image: ImageID, owner: UserID, _ txn: Transaction) throws -> Bool {
        if try postImages.post(of: image, txn) != nil || postImages.isUnattachedMedia(image, txn) { return true }
        if try stories.images.last(in: image, txn) != nil { return true }
        return try profiles.user(owner, txn)?.profileImages.contains(image) ?? false
    }

    func checkpointKey(_ name: ProjectionName) -> [UInt8] { checkpointKeys[name]! }

    /// Forgets the named projection's checkpoint (its databases are being dropped).
    func deleteCheckpoint(_ name: ProjectionName, _ txn: Transaction) throws {
        try txn.delete(checkpoints, checkpointKey(name))
    }

    /// Records that the named projections (all by default) have applied the log up to `sequence`.
    func setCheckpoint(_ sequence: UInt64, for names: [ProjectionName] = ProjectionName.allCases, _ txn: Transaction)
        throws
    {
        for name in names { try txn.put(checkpoints, checkpointKey(name), BigEndian.bytes(sequence)) }
    }

    func checkpoint(_ name: ProjectionName, _ txn: Transaction) throws -> UInt64 {
        try txn.get(checkpoints, checkpointKey(name)).flatMap(BigEndian.uint64) ?? 0
    }

    /// Applies the logged events (up to `head`) that some projections have not seen yet, at
    /// most `limit` of them, and returns whether every projection is now at `head`.
    ///
    /// The models are derived data, committed just after the log: a process that dies between
    /// the two commits leaves them one batch behind, and after a machine crash they are
    /// recomputed from nothing. Every writer calls this before deciding, so they never lag.
    func catchUp(_ log: EventLog, head: UInt64, limit: UInt64 = .max, _ txn: Transaction) throws -> Bool {
        var checkpoints = try Dictionary(uniqueKeysWithValues: all.map { ($0.name, try checkpoint($0.name, txn)) })
        // A projection that starts again from nothing (a new layout) reads what it depends on as
        // it stood at each event, as a rebuild does: those start again with it.
        let restarting = checkpoints.filter { $0.value == 0 && head > 0 }.map(\.key)
        for name in ProjectionName.closure(of: restarting) { checkpoints[name] = 0 }
        let behind = all.map { ($0, checkpoints[$0.name] ?? 0) }.filter { $0.1 < head }
        guard let from = behind.map(\.1).min() else { return true }
        // A projection that has applied nothing under its layout starts from empty tables: they
        // may hold an older layout's entries (which replaying over would leave behind).
        for (projection, checkpoint) in behind where checkpoint == 0 {
            for db in projection.databases { try txn.clear(db) }
        }
        let to = from + min(limit, head - from)
        try log.forEach(from: from + 1, txn) { envelope in
            for (projection, checkpoint) in behind where envelope.sequence > checkpoint {
                try projection.fold(envelope, txn)
            }
            return envelope.sequence < to
        }
        try setCheckpoint(to, for: behind.map(\.0.name), txn)
        return to == head
    }

    /// Stores an image once, sealed with its owner's key (bound to the image's id).
    func storeImage(_ id: ImageID, _ upload: ImageUpload, owner: UserID, key: [UInt8], _ txn: Transaction) throws {
        guard try !images.contains(id, txn) else { return }
        let sealed = Sodium.seal(upload.bytes, key: key, context: StoredImages.key(id))
        try images.put(id, SealedImage(mediaType: upload.mediaType, owner: owner, sealed: sealed), txn)
    }
}

/// Which reports hide a post (`TimelineService.Options`): settings applied when reading, not
/// stored, so changing them needs no rebuild.
struct ReportPolicy: Sendable {
    /// Posts with this many counted reports are hidden from everyone but their author.
    var hideAfter = Int.max
    /// A report counts only from an account at least this old when it reported (ms)…
    var minimumAccountAge: Int64 = 0
    /// …that has made at least this many posts and comments.
    var minimumActivity = 0
}

/// The current state as deciding a command sees it, read inside the write transaction.
struct ReadView: DecisionState {
    let txn: Transaction
    let models: ReadModels
    /// Which reports hide a post.
    var reports = ReportPolicy()
    /// The time reads judge timed things by (whether a timed mute has ended), ms since 1970.
    /// Deciding judges by its context's time instead.
    var now: Int64 = 0

    /// The users `viewer` mutes now: their posts and doings are left out of what `viewer` reads
    /// (nobody, without a viewer).
    func activeMutes(of viewer: UserID?) throws -> Set<UserID> {
        guard let viewer else { return [] }
        return try models.follows.activeMutes(of: viewer, at: now, txn)
    }

    func user(_ id: UserID) throws -> UserRecord? { try models.profiles.user(id, txn) }
    func userID(username: String) throws -> UserID? { try models.profiles.usernames.get(username, txn) }
    func userID(email: String) throws -> UserID? { try models.profiles.userID(email: email, txn) }
    func post(_ id: PostID) throws -> PostRecord? { try models.posts.post(id, txn) }
    func comment(_ id: CommentID) throws -> CommentRecord? { try models.posts.comment(id, txn) }
    func follows(_ follower: UserID, _ followee: UserID) throws -> Bool {
        try models.follows.follows(follower, followee, txn)
    }
    func media(_ id: MediaID) throws -> MediaRecord? {
        try models.posts.media.get(id, txn).map { stored in
            var record = stored.record
            record.blurhash = stored.blurhash
            return record
        }
    }
    func app(_ id: String) throws -> AppRecord? { try models.sessions.apps.get(id, txn) }
    func userReported(_ reporter: UserID, _ user: UserID) throws -> Bool {
        try models.profiles.userReports.contains((user, reporter), txn)
    }
    func userReportCount(_ user: UserID) throws -> Int { try models.profiles.userReports.members(of: user, txn).count }
    func unattachedMedia(uploadedBefore time: Int64, limit: Int) throws -> [MediaRecord] {
        // A scheduled post's photos wait for it, however long.
        try models.posts.unattached(uploadedBefore: time, limit: limit, txn) {
            try models.scheduledPosts.held.contains($0, txn)
        }
    }
    func followRequested(_ follower: UserID, _ followee: UserID) throws -> Bool {
        try models.follows.requestPending(follower, followee, txn)
    }
    func notifies(_ follower: UserID, _ followee: UserID) throws -> Bool {
        try models.follows.notifies(follower, followee, txn)
    }
    func followRequests(to user: UserID) throws -> [UserID] {
        var users: [UserID] = []
        try models.follows.requestsInOrder.forEach(in: user, txn) { _, follower in
            users.append(follower)
            return true
        }
        return users
    }
    func likes(_ user: UserID, _ post: PostID) throws -> Bool { try models.posts.likes(user, post, txn) }
    func boost(by user: UserID, of post: PostID) throws -> PostID? {
        try models.boosts.byUserAndPost.get((user, post), txn)
    }
    func boostRecord(_ id: PostID) throws -> BoostRecord? { try models.boosts.boost(id, txn) }
    func boosts(by user: UserID) throws -> [BoostRecord] {
        try models.boosts.byUser.members(of: user, txn).compactMap { try models.boosts.boost($0, txn) }
    }
    func showsBoosts(_ follower: UserID, _ followee: UserID) throws -> Bool {
        try models.boosts.shows(follower, followee, txn)
    }
    func blocks(_ blocker: UserID, _ blocked: UserID) throws -> Bool {
        try models.follows.blocks(blocker, blocked, txn)
    }
    func mute(_ muter: UserID, _ muted: UserID) throws -> MuteRecord? { try models.follows.mute(muter, muted, txn) }
    func activityMarker(of user: UserID) throws -> String? { try models.activity.markers.get(user, txn) }
    func newestActivity(of user: UserID) throws -> String? { try models.activity.activity.last(in: user, txn) }
    func notificationPolicy(of user: UserID) throws -> NotificationPolicy {
        try models.activity.notificationPolicy(of: user, txn)
    }
    func holdsNotificationRequest(of user: UserID, from account: UserID) throws -> Bool {
        var found = false
        try txn.scan(models.activity.references.database, prefix: HeldItems.prefix(of: user, from: account)) { _, _ in
            found = true
            return false
        }
        return found
    }
    func holdsActivity(of user: UserID, item: String?) throws -> Bool {
        guard let item else { return try models.activity.activity.last(in: user, txn) != nil }
        return try models.activity.activity.contains((user, item), txn)
    }
    func bookmarks(_ user: UserID, _ post: PostID) throws -> Bool { try models.posts.bookmarks(user, post, txn) }
    func pinned(_ user: UserID, _ post: PostID) throws -> Bool {
        try models.profileExtras.pins.contains((user, post), txn)
    }
    func pinCount(_ user: UserID) throws -> Int { try models.profileExtras.pins.members(of: user, txn).count }
    func mutesConversation(_ user: UserID, _ post: PostID) throws -> Bool {
        try models.profileExtras.conversationMutes.contains((user, post), txn)
    }
    func accountNote(_ writer: UserID, _ target: UserID) throws -> String? {
        try models.profileExtras.notes.get((writer, target), txn)
    }
    func endorses(_ user: UserID, _ target: UserID) throws -> Bool {
        try models.profileExtras.endorsements.contains((user, target), txn)
    }
    func annualReportRead(_ user: UserID, _ year: Int) throws -> Bool? {
        try models.profileExtras.annualReports.get((user, AnnualReportMarks.key(year: year)), txn)
    }
    func dismissedSuggestion(_ user: UserID, _ target: UserID) throws -> Bool {
        try models.profileExtras.dismissedSuggestions.contains((user, target), txn)
    }
    func featuresTag(_ user: UserID, _ tag: String) throws -> Bool {
        try models.profileExtras.featuredTags.contains((user, tag), txn)
    }
    func featuredTagCount(_ user: UserID) throws -> Int {
        try models.profileExtras.featuredTags.members(of: user, txn).count
    }
    func followsTag(_ user: UserID, _ tag: String) throws -> Bool {
        try models.hashtags.tagFollows.contains((user, tag), txn)
    }
    func followedTagCount(_ user: UserID) throws -> Int { try models.hashtags.tagFollows.members(of: user, txn).count }
    func reported(_ user: UserID, _ post: PostID) throws -> Bool { try models.posts.reported(user, post, txn) }
    func standingReports(_ post: PostID, upTo limit: Int) throws -> Int {
        try models.posts.standingReports(post, upTo: limit, txn, counting: { _, _ in true }, oncePerOrigin: false)
    }

    /// The reports of `post` that count towards hiding it: standing, one per origin, each from
    /// an account that was established (`ReportPolicy`) when it reported. Only what held then
    /// decides: the author cannot un-hide their post by blocking its reporters afterwards (and
    /// someone the author blocks cannot report it at all), nor can a reporter make a report
    /// count by becoming active later.
    func countedReports(_ post: PostID, upTo limit: Int) throws -> Int {
        try models.posts.standingReports(post, upTo: limit, txn) { reporter, report in
            guard report.activity >= min(reports.minimumActivity, Report.maxActivity) else { return false }
            guard let reporterRecord = try user(reporter) else { return false }
            return report.at - reporterRecord.createdAt >= reports.minimumAccountAge
        }
    }
    func session(hash: String) throws -> SessionRecord? { try models.sessions.session(hash: hash, txn) }
    func authorization(hash: String) throws -> AuthorizationRecord? {
        try models.sessions.authorization(hash: hash, txn)
    }
    func appToken(hash: String) throws -> AppTokenRecord? { try models.sessions.appToken(hash: hash, txn) }
    func pushSubscription(sessionHash: String) throws -> PushSubscriptionRecord? {
        try models.sessions.pushSubscriptions.get(sessionHash, txn)
    }
    func signInFailures(limiterKey: String, since: Int64) throws -> Int {
        try models.sessions.failures(limiterKey: limiterKey, since: since, txn)
    }

    func passwordReset(hash: String) throws -> SessionRecord? { try models.sessions.passwordReset(hash: hash, txn) }
    func twoFactor(_ user: UserID) throws -> TwoFactorRecord? { try models.sessions.twoFactor.get(user, txn) }
    func hasActorKey(_ user: UserID) throws -> Bool { try models.federation.actorKeys.contains(user, txn) }
    func domainBlocked(_ host: String) throws -> Bool {
        guard host.utf8.count <= Validation.maxActorURL else { return false }
        return try models.federation.blockedDomains.contains(host, txn)
    }
    func remoteAccount(actor: String) throws -> RemoteAccountRecord? {
        guard actor.utf8.count <= Validation.maxActorURL else { return nil }
        return try models.federation.remoteActors.get(actor, txn).map(RemoteAccountRecord.init)
    }
    func remoteAccounts(onHost host: String) throws -> [UserID] {
        guard host.utf8.count <= Validation.maxActorURL else { return [] }
        return try models.federation.remoteAccountsByHost.members(of: host, txn)
    }
    func blocksDomain(_ user: UserID, _ host: String) throws -> Bool {
        guard host.utf8.count <= Validation.maxActorURL else { return false }
        return try models.federation.accountDomainBlocks.contains((user, host), txn)
    }
    func remotePost(object: String) throws -> PostID? {
        guard object.utf8.count <= Validation.maxActorURL else { return nil }
        return try models.federation.remotePosts.get(object, txn)
    }
    func remoteComment(object: String) throws -> CommentID? {
        guard object.utf8.count <= Validation.maxActorURL else { return nil }
        return try models.federation.remoteComments.get(object, txn)
    }
    func story(_ id: StoryID) throws -> StoryRecord? { try models.stories.stories.get(id, txn) }
    func hasViewed(_ story: StoryID, _ viewer: UserID) throws -> Bool {
        try models.stories.views.contains((story, viewer), txn)
    }
    func lastPasswordResetRequest(_ user: UserID) throws -> Int64? {
        try models.sessions.resetRequests.get(user, txn).map { Int64(bitPattern: $0) }
    }

    func footprint(of user: UserID) throws -> UserFootprint {
        var footprint = UserFootprint()
        let (follows, posts) = (models.follows, models.posts)
        footprint.following = try follows.following.members(of: user, txn)
        footprint.followers = try follows.followers.members(of: user, txn)
        footprint.requested = try follows.requested.members(of: user, txn)
        footprint.requestedBy = try follows.requests.members(of: user, txn)
        footprint.posts = try posts.postsByUser.members(of: user, txn)
        footprint.unattachedMedia = try posts.unattached(uploadedBefore: .max, limit: .max, txn).filter {
            $0.uploader == user
        }.map(\.id)
        let own = Set(footprint.posts)
        footprint.likes = try posts.likesByUser.members(of: user, txn).filter { !own.contains($0) }
        footprint.bookmarks = try posts.bookmarks.members(of: user, txn)
        footprint.blocking = try follows.blocking.members(of: user, txn)
        footprint.blockedBy = try follows.blockedBy.members(of: user, txn)
        footprint.muting = try follows.muting.members(of: user, txn)
        footprint.mutedBy = try follows.mutedBy.members(of: user, txn)
        footprint.comments = try posts.commentsByUser.members(of: user, txn).compactMap(comment).filter {
            !own.contains($0.post)
        }
        return footprint
    }
}
