import LMDB
import TimelineDomain

/// The conversations of direct messages (`DirectMessages.swift`), per participant. The direct
/// posts among one set of participants (author and addressees) are one conversation, named by
/// the first of them (`ConversationID`); each participant's list holds it with its last message
/// and whether it is unread (a message by someone else came in since they read it), newest last
/// message first. A participant's `ConversationRemoved` takes it out of their list only, until a
/// new message brings it back (as Mastodon's); a deleted or removed message leaves it, and a
/// conversation left with none leaves every list. Who may see each last message is still the
/// privacy policy's, at read time (`ReadView.conversations(of:_:)`).
struct ConversationsProjection: Projection {
    let name = ProjectionName.conversations
    /// The sorted participants' ids, joined by spaces → the conversation.
    let keys: Table<ConversationKeys>
    /// `conversation ‖ 0 ‖ participant`.
    let participants: Table<Members<ConversationID, UserID>>
    /// `participant ‖ 0 ‖ conversation`: every conversation one takes part in, removed or not.
    let taking: Table<Members<UserID, ConversationID>>
    /// `conversation ‖ 0 ‖ message`: its direct posts not deleted.
    let messages: Table<Members<ConversationID, PostID>>
    /// A direct post → its conversation.
    let conversationOf: Table<ConversationOfMessage>
    /// `participant ‖ 0 ‖ conversation` → its last message and whether it is unread.
    let entries: Table<ConversationEntries>
    /// `participant ‖ 0 ‖ last message` → the conversation: a list, newest last message first.
    let latest: Table<LatestConversations>
    var databases: [Database] {
        [
            keys.database, participants.database, taking.database, messages.database, conversationOf.database,
            entries.database,
            latest.database
        ]
    }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        keys = try Table(env, prefix + "conversationKeys")
        participants = try Table(env, prefix + "conversationParticipants")
        taking = try Table(env, prefix + "conversationsTakenPartIn")
        messages = try Table(env, prefix + "conversationMessages")
        conversationOf = try Table(env, prefix + "conversationOfMessage")
        entries = try Table(env, prefix + "conversationEntries")
        latest = try Table(env, prefix + "latestConversations")
        handlers = Self.handlers(of: self)
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.postAdded) { (e: PostAdded, _, txn) in
            guard e.visibility == .direct else { return }
            let people = conversationParticipants(author: e.authorId, addressees: e.addressees)
            let key = people.map(\.rawValue).joined(separator: " ")
            let conversation: ConversationID
            if let known = try projection.keys.get(key, txn) {
                conversation = known
            } else {
                conversation = ConversationID(e.postId.rawValue)
                try projection.keys.put(key, conversation, txn)
                for person in people {
                    try projection.participants.put((conversation, person), (), txn)
                    try projection.taking.put((person, conversation), (), txn)
                }
            }
            try projection.messages.put((conversation, e.postId), (), txn)
            try projection.conversationOf.put(e.postId, conversation, txn)
            for person in people {
                try projection.setLast(
                    e.postId, unread: person != e.authorId, of: conversation, for: person, txn)
            }
        }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in try projection.drop(e.postId, txn) }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in try projection.drop(e.postId, txn) }
        handlers.on(.conversationRead) { (e: ConversationMark, _, txn) in
            guard var entry = try projection.entries.get((e.userId, e.conversationId), txn) else { return }
            entry.unread = false
            try projection.entries.put((e.userId, e.conversationId), entry, txn)
        }
        handlers.on(.conversationRemoved) { (e: ConversationMark, _, txn) in
            guard let entry = try projection.entries.get((e.userId, e.conversationId), txn) else { return }
            try projection.entries.delete((e.userId, e.conversationId), txn)
            try projection.latest.delete((e.userId, entry.last), txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            try projection.entries.deleteAll(in: e.userId, txn)
            try projection.latest.deleteAll(in: e.userId, txn)
            try projection.taking.deleteAll(in: e.userId, txn)
        }
        return handlers
    }

    /// Makes `post` the last message of `conversation` in `user`'s list (back in it if removed).
    private func setLast(
        _ post: PostID, unread: Bool, of conversation: ConversationID, for user: UserID, _ txn: Transaction
    ) throws {
        if let old = try entries.get((user, conversation), txn) { try latest.delete((user, old.last), txn) }
        try entries.put((user, conversation), ConversationEntry(last: post, unread: unread), txn)
        try latest.put((user, post), conversation, txn)
    }

    /// A deleted or removed post leaves its conversation: where it was the last message, the
    /// one before takes its place; a conversation left with none leaves every list.
    private func drop(_ post: PostID, _ txn: Transaction) throws {
        guard let conversation = try conversationOf.get(post, txn) else { return }
        try conversationOf.delete(post, txn)
        try messages.delete((conversation, post), txn)
        let newest = try messages.last(in: conversation, txn)
        for person in try participants.members(of: conversation, txn) {
            guard var entry = try entries.get((person, conversation), txn), entry.last == post else { continue }
            try latest.delete((person, post), txn)
            if let newest {
                entry.last = newest
                try entries.put((person, conversation), entry, txn)
                try latest.put((person, newest), conversation, txn)
            } else {
                try entries.delete((person, conversation), txn)
            }
        }
    }
}

/// A conversation in one participant's list: its last message, and whether it is unread.
struct ConversationEntry: Equatable, Sendable {
    var last: PostID
    var unread: Bool
}

extension ConversationID: KeyPart {}

/// The sorted participants' ids → the conversation.
enum ConversationKeys: TableLayout {
    static func key(_ key: String) -> [UInt8] { Array(key.utf8) }
    static func encode(_ id: ConversationID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> ConversationID { ConversationID(String(decoding: bytes, as: UTF8.self)) }
}

/// A direct post → its conversation.
enum ConversationOfMessage: TableLayout {
    static func key(_ post: PostID) -> [UInt8] { Array(post.rawValue.utf8) }
    static func encode(_ id: ConversationID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> ConversationID { ConversationID(String(decoding: bytes, as: UTF8.self)) }
}

/// `participant ‖ 0 ‖ conversation` → unread (one byte) ‖ last message.
enum ConversationEntries: GroupedLayout {
    typealias Group = UserID
    typealias Member = ConversationID
    static func encode(_ entry: ConversationEntry) -> [UInt8] {
        [entry.unread ? 1 : 0] + Array(entry.last.rawValue.utf8)
    }
    static func decode(_ bytes: [UInt8]) throws -> ConversationEntry {
        guard let flag = bytes.first else { throw CorruptRecord(message: "an empty conversation entry") }
        return ConversationEntry(last: PostID(String(decoding: bytes.dropFirst(), as: UTF8.self)), unread: flag == 1)
    }
}

/// `participant ‖ 0 ‖ last message` → the conversation.
enum LatestConversations: GroupedLayout {
    typealias Group = UserID
    typealias Member = PostID
    static func encode(_ id: ConversationID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> ConversationID { ConversationID(String(decoding: bytes, as: UTF8.self)) }
}

extension ReadView {
    /// Whether the conversation `id` is in `user`'s list.
    func conversationListed(_ id: ConversationID, for user: UserID) throws -> Bool {
        try models.conversations.entries.contains((user, id), txn)
    }

    /// `user`'s conversations, newest last message first (the page's cursors are the last
    /// messages' ids, as Mastodon pages them): each with the other participants, its last message
    /// as the policy lets `user` see it, and whether it is unread. One whose last message the
    /// policy hides from them (its author suspended, a block since) is left out.
    func conversations(of user: UserID, _ request: PageRequest) throws -> Page<Conversation> {
        try requireUser(user)
        let present = Presenter(try privacy(for: user))
        return try pageDescending(models.conversations.latest, in: user, request) { last, id in
            guard let entry = try models.conversations.entries.get((user, id), txn),
                let post = try present.listedPost(last, on: .conversations)
            else { return nil }
            let others = try models.conversations.participants.members(of: id, txn).filter { $0 != user }
            return Conversation(id: id, accounts: others, lastPost: post, unread: entry.unread)
        }
    }

    /// The conversation holding the direct post `post`, as `user` sees it in their list (nil
    /// when it is not there, or its last message is out of their sight).
    func conversation(holding post: PostID, of user: UserID) throws -> Conversation? {
        guard let id = try models.conversations.conversationOf.get(post, txn),
            let entry = try models.conversations.entries.get((user, id), txn),
            let last = try Presenter(try privacy(for: user)).listedPost(entry.last, on: .conversations)
        else { return nil }
        let others = try models.conversations.participants.members(of: id, txn).filter { $0 != user }
        return Conversation(id: id, accounts: others, lastPost: last, unread: entry.unread)
    }

    /// `user`'s direct posts (their own and those addressed to them), newest first, as the
    /// policy lets them see each: Mastodon's direct timeline.
    func directPosts(of user: UserID, _ request: PageRequest) throws -> Page<Post> {
        try requireUser(user)
        let present = Presenter(try privacy(for: user))
        var posts: [Post] = []
        if let after = request.after {
            // The `limit` shown messages right after `after` (below `before`), answered newest first.
            for id in try models.conversations.taking.members(of: user, txn) {
                var taken = 0
                try models.conversations.messages.forEach(in: id, txn) { post, _ in
                    guard after.utf8.lexicographicallyPrecedes(post.rawValue.utf8) else { return true }
                    if let before = request.before, !post.rawValue.utf8.lexicographicallyPrecedes(before.utf8) {
                        return false
                    }
                    guard let shown = try present.listedPost(post, on: .conversations) else { return true }
                    posts.append(shown)
                    taken += 1
                    return taken < request.limit
                }
            }
            posts.sort { $0.id < $1.id }
            return Page(items: Array(posts.prefix(request.limit)).reversed(), next: nil)
        }
        // The newest `limit + 1` shown messages before the cursor of each conversation they take
        // part in (removed from their list or not: the timeline is of statuses), merged by id.
        for id in try models.conversations.taking.members(of: user, txn) {
            var taken = 0
            try models.conversations.messages.forEachDescending(in: id, txn) { post, _ in
                if let before = request.before, !post.rawValue.utf8.lexicographicallyPrecedes(before.utf8) {
                    return true
                }
                guard let shown = try present.listedPost(post, on: .conversations) else { return true }
                posts.append(shown)
                taken += 1
                return taken <= request.limit
            }
        }
        posts.sort { $1.id < $0.id }
        let page = Array(posts.prefix(request.limit))
        return Page(items: page, next: posts.count > request.limit ? page.last?.id.rawValue : nil)
    }
}
