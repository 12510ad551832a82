import LMDB
import TimelineDomain

/// `user ‖ 0 ‖ year` → whether the user read their annual report of that year (asked for ones only).
enum AnnualReportMarks: GroupedLayout {
    typealias Group = UserID
    typealias Member = String
    static func encode(_ read: Bool) -> [UInt8] { [read ? 1 : 0] }
    static func decode(_ bytes: [UInt8]) -> Bool { bytes.first == 1 }
    /// A year as a member: four digits, so the keys sort by year.
    static func key(year: Int) -> String { String(year) }
}

/// `writer ‖ 0 ‖ target` → the writer's private note on the target.
enum AccountNotes: GroupedLayout {
    typealias Group = UserID
    typealias Member = UserID
    static func encode(_ note: String) -> [UInt8] { Array(note.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// What a profile and a thread keep for their owner (#41): pinned posts, muted conversations,
/// private notes on accounts, endorsed accounts, featured hashtags, dismissed follow suggestions and
/// the annual reports asked for. A deleted or
/// removed post leaves the pins and the muted conversations; an ended follow ends its endorsement; an erased
/// user's pins, mutes, notes, endorsements and dismissals go, and so do those about them.
struct ProfileExtrasProjection: Projection {
    let name = ProjectionName.profileExtras
    let pins: Table<TimedMembers<UserID, PostID>>  // a user's pinned posts → cursor
    let pinList: Table<InOrder<UserID, PostID>>  // a user's pinned posts, the latest pinned last
    let conversationMutes: Table<Members<UserID, PostID>>  // the threads a user muted
    let conversationMuters: Table<Members<PostID, UserID>>  // who muted a post's thread
    let notes: Table<AccountNotes>  // writer's note on target (private to the writer)
    let notesAbout: Table<Members<UserID, UserID>>  // target → who wrote a note on them
    let endorsements: Table<TimedMembers<UserID, UserID>>  // endorser's endorsed accounts → cursor
    let endorsementList: Table<InOrder<UserID, UserID>>  // endorser's endorsed accounts, the latest last
    let endorsedBy: Table<Members<UserID, UserID>>  // endorsed account → who endorses them
    let featuredTags: Table<TimedMembers<UserID, String>>  // a user's featured hashtags → cursor
    let featuredTagList: Table<InOrder<UserID, String>>  // a user's featured hashtags, the latest last
    let dismissedSuggestions: Table<Members<UserID, UserID>>  // the accounts a user asked not to be suggested
    let dismissedBy: Table<Members<UserID, UserID>>  // account → who asked not to be suggested it
    let annualReports: Table<AnnualReportMarks>  // the years a user asked a report of → read
    var databases: [Database] {
        [
            pins.database, pinList.database, conversationMutes.database, conversationMuters.database,
            notes.database, notesAbout.database, endorsements.database, endorsementList.database,
            endorsedBy.database, featuredTags.database, featuredTagList.database, dismissedSuggestions.database,
            dismissedBy.database, annualReports.database
        ]
    }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        pins = try Table(env, prefix + "pins")
        pinList = try Table(env, prefix + "pinList")
        conversationMutes = try Table(env, prefix + "conversationMutes")
        conversationMuters = try Table(env, prefix + "conversationMuters")
        notes = try Table(env, prefix + "accountNotes")
        notesAbout = try Table(env, prefix + "accountNotesAbout")
        endorsements = try Table(env, prefix + "endorsements")
        endorsementList = try Table(env, prefix + "endorsementList")
        endorsedBy = try Table(env, prefix + "endorsedBy")
        featuredTags = try Table(env, prefix + "featuredTags")
        featuredTagList = try Table(env, prefix + "featuredTagList")
        dismissedSuggestions = try Table(env, prefix + "dismissedSuggestions")
        dismissedBy = try Table(env, prefix + "suggestionsDismissedBy")
        annualReports = try Table(env, prefix + "annualReports")
        handlers = Self.handlers(of: self)
    }

    /// `user`'s pinned posts, the latest pinned first.
    func pinned(by user: UserID, _ txn: Transaction) throws -> [PostID] {
        var posts: [PostID] = []
        try pinList.forEachDescending(in: user, txn) { _, post in
            posts.append(post)
            return true
        }
        return posts
    }

    /// The accounts `user` endorses, the latest endorsed first.
    func endorsed(by user: UserID, _ txn: Transaction) throws -> [UserID] {
        var users: [UserID] = []
        try endorsementList.forEachDescending(in: user, txn) { _, target in
            users.append(target)
            return true
        }
        return users
    }

    /// The hashtags `user` features, in the order they were featured.
    func featured(by user: UserID, _ txn: Transaction) throws -> [String] {
        var tags: [String] = []
        try featuredTagList.forEach(in: user, txn) { _, tag in
            tags.append(tag)
            return true
        }
        return tags
    }

    /// Stops `user`'s featuring of `tag` (nothing if it is not featured).
    private func unfeature(_ user: UserID, _ tag: String, _ txn: Transaction) throws {
        guard let cursor = try featuredTags.get((user, tag), txn) else { return }
        try featuredTagList.delete((user, cursor), txn)
        try featuredTags.delete((user, tag), txn)
    }

    /// Takes `post` off `user`'s pins (nothing if it is not pinned).
    private func unpin(_ user: UserID, _ post: PostID, _ txn: Transaction) throws {
        guard let cursor = try pins.get((user, post), txn) else { return }
        try pinList.delete((user, cursor), txn)
        try pins.delete((user, post), txn)
    }

    /// Ends `user`'s endorsement of `target` (nothing if there is none).
    private func unendorse(_ user: UserID, _ target: UserID, _ txn: Transaction) throws {
        guard let cursor = try endorsements.get((user, target), txn) else { return }
        try endorsementList.delete((user, cursor), txn)
        try endorsements.delete((user, target), txn)
        try endorsedBy.delete((target, user), txn)
    }

    /// A deleted or removed post leaves its author's pins and every muted-conversation list.
    private func remove(_ post: PostID, author: UserID, _ txn: Transaction) throws {
        try unpin(author, post, txn)
        for user in try conversationMuters.deleteAll(in: post, txn) { try conversationMutes.delete((user, post), txn) }
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.postPinned) { (e: Pin, envelope, txn) in
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.unpin(e.userId, e.postId, txn)
            try projection.pins.put((e.userId, e.postId), cursor, txn)
            try projection.pinList.put((e.userId, cursor), e.postId, txn)
        }
        handlers.on(.postUnpinned) { (e: Pin, _, txn) in try projection.unpin(e.userId, e.postId, txn) }
        handlers.on(.conversationMuted) { (e: ConversationMute, _, txn) in
            try projection.conversationMutes.put((e.userId, e.postId), (), txn)
            try projection.conversationMuters.put((e.postId, e.userId), (), txn)
        }
        handlers.on(.conversationUnmuted) { (e: ConversationMute, _, txn) in
            try projection.conversationMutes.delete((e.userId, e.postId), txn)
            try projection.conversationMuters.delete((e.postId, e.userId), txn)
        }
        handlers.on(.accountNoteSet) { (e: AccountNote, _, txn) in
            if e.note.isEmpty {
                try projection.notes.delete((e.userId, e.targetId), txn)
                try projection.notesAbout.delete((e.targetId, e.userId), txn)
            } else {
                try projection.notes.put((e.userId, e.targetId), e.note, txn)
                try projection.notesAbout.put((e.targetId, e.userId), (), txn)
            }
        }
        handlers.on(.accountEndorsed) { (e: AccountChoice, envelope, txn) in
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.unendorse(e.userId, e.targetId, txn)
            try projection.endorsements.put((e.userId, e.targetId), cursor, txn)
            try projection.endorsementList.put((e.userId, cursor), e.targetId, txn)
            try projection.endorsedBy.put((e.targetId, e.userId), (), txn)
        }
        handlers.on(.suggestionDismissed) { (e: AccountChoice, _, txn) in
            try projection.dismissedSuggestions.put((e.userId, e.targetId), (), txn)
            try projection.dismissedBy.put((e.targetId, e.userId), (), txn)
        }
        handlers.on(.annualReportGenerated) { (e: AnnualReportMark, _, txn) in
            try projection.annualReports.put((e.userId, AnnualReportMarks.key(year: e.year)), false, txn)
        }
        handlers.on(.annualReportRead) { (e: AnnualReportMark, _, txn) in
            try projection.annualReports.put((e.userId, AnnualReportMarks.key(year: e.year)), true, txn)
        }
        handlers.on(.accountUnendorsed) { (e: AccountChoice, _, txn) in
            try projection.unendorse(e.userId, e.targetId, txn)
        }
        handlers.on(.tagFeatured) { (e: UserHashtag, envelope, txn) in
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.unfeature(e.userId, e.tag, txn)
            try projection.featuredTags.put((e.userId, e.tag), cursor, txn)
            try projection.featuredTagList.put((e.userId, cursor), e.tag, txn)
        }
        handlers.on(.tagUnfeatured) { (e: UserHashtag, _, txn) in try projection.unfeature(e.userId, e.tag, txn) }
        // Mastodon's rule: an endorsement lasts as long as the follow.
        handlers.on(.unfollowed) { (e: Follow, _, txn) in try projection.unendorse(e.followerId, e.followeeId, txn) }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in try projection.remove(e.postId, author: e.authorId, txn)
        }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in try projection.remove(e.postId, author: e.authorId, txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            let user = e.userId
            try projection.pinList.deleteAll(in: user, txn)
            try projection.pins.deleteAll(in: user, txn)
            try projection.featuredTagList.deleteAll(in: user, txn)
            try projection.featuredTags.deleteAll(in: user, txn)
            for post in try projection.conversationMutes.deleteAll(in: user, txn) {
                try projection.conversationMuters.delete((post, user), txn)
            }
            for target in try projection.notes.deleteAll(in: user, txn) {
                try projection.notesAbout.delete((target, user), txn)
            }
            for writer in try projection.notesAbout.deleteAll(in: user, txn) {
                try projection.notes.delete((writer, user), txn)
            }
            for target in try projection.endorsements.members(of: user, txn) {
                try projection.unendorse(user, target, txn)
            }
            for endorser in try projection.endorsedBy.members(of: user, txn) {
                try projection.unendorse(endorser, user, txn)
            }
            _ = try projection.annualReports.deleteAll(in: user, txn)
            for target in try projection.dismissedSuggestions.deleteAll(in: user, txn) {
                try projection.dismissedBy.delete((target, user), txn)
            }
            for dismisser in try projection.dismissedBy.deleteAll(in: user, txn) {
                try projection.dismissedSuggestions.delete((dismisser, user), txn)
            }
        }
        return handlers
    }
}
