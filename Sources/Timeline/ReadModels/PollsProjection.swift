import LMDB
import TimelineDomain

/// Polls on posts (`PollSet`, `PollRemoved`, `PollVoted`): each poll with its counts, the
/// poll of each post, each voter's choices, and the `poll` notifications each participant (the
/// author and every voter) gets when a poll ends. Those are kept keyed by the poll's end
/// (`PollSet.endItemID`), so reading notifications picks the ones whose time has come: nothing
/// is written when a poll ends. A post's deletion or removal takes its poll, votes and
/// notifications with it; an erased user's pending notifications go (their votes stay counted,
/// as the counts are anonymous). Every poll is also kept by its end (`byEnd`): what the push
/// worker reads to tell the participants when one ends (`TimelineService.pollEnds(after:through:)`).
struct PollsProjection: Projection {
    let name = ProjectionName.polls
    /// pollId → the poll, its counts and voters.
    let polls: Table<StoredPolls>
    /// postId → pollId.
    let postPolls: Table<PostPolls>
    /// `poll ‖ 0 ‖ user` → the choices.
    let votes: Table<PollVotes>
    /// `user ‖ 0 ‖ end item id` → pollId: the `poll` notifications a user gets.
    let ends: Table<PollEnds>
    /// `BE(expiresAt) ‖ pollId` → nothing: every poll by its end, soonest first.
    let byEnd: Table<PollsByEnd>
    var databases: [Database] { [polls.database, postPolls.database, votes.database, ends.database, byEnd.database] }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        polls = try Table(env, prefix + "polls")
        postPolls = try Table(env, prefix + "postPolls")
        votes = try Table(env, prefix + "pollVotes")
        ends = try Table(env, prefix + "pollEnds")
        byEnd = try Table(env, prefix + "pollsByEnd")
        handlers = Self.handlers(of: self)
    }

    /// Takes poll `id` away: its votes, its participants' notifications and the post's link.
    private func drop(_ id: PollID, _ txn: Transaction) throws {
        guard let stored = try polls.get(id, txn) else { return }
        let item = stored.endItemID
        for voter in try votes.deleteAll(in: id, txn) { try ends.delete((voter, item), txn) }
        try ends.delete((stored.record.author, item), txn)
        try polls.delete(id, txn)
        try postPolls.delete(stored.record.post, txn)
        try byEnd.delete((stored.record.expiresAt, id), txn)
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.pollSet) { (e: PollSet, envelope, txn) in
            // Set anew by an edit: the votes start over.
            try projection.drop(e.pollId, txn)
            let record = PollRecord(
                id: e.pollId, post: e.postId, author: e.authorId, options: e.options, multiple: e.multiple,
                hideTotals: e.hideTotals, expiresAt: e.expiresAt)
            let stored = StoredPoll(
                record: record, counts: Array(repeating: 0, count: e.options.count), voters: 0,
                endItemID: e.endItemID)
            try projection.polls.put(e.pollId, stored, txn)
            try projection.postPolls.put(e.postId, e.pollId, txn)
            try projection.ends.put((e.authorId, e.endItemID), e.pollId, txn)
            try projection.byEnd.put((e.expiresAt, e.pollId), (), txn)
        }
        handlers.on(.pollRemoved) { (e: PollRemoved, _, txn) in try projection.drop(e.pollId, txn) }
        handlers.on(.pollVoted) { (e: PollVoted, _, txn) in
            guard var stored = try projection.polls.get(e.pollId, txn),
                try !projection.votes.contains((e.pollId, e.userId), txn)
            else { return }
            for choice in e.choices where stored.counts.indices.contains(choice) { stored.counts[choice] += 1 }
            stored.voters += 1
            try projection.polls.put(e.pollId, stored, txn)
            try projection.votes.put((e.pollId, e.userId), e.choices, txn)
            try projection.ends.put((e.userId, stored.endItemID), e.pollId, txn)
        }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in
            if let poll = try projection.postPolls.get(e.postId, txn) { try projection.drop(poll, txn) }
        }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in
            if let poll = try projection.postPolls.get(e.postId, txn) { try projection.drop(poll, txn) }
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            try projection.ends.deleteAll(in: e.userId, txn)
        }
        return handlers
    }

    // MARK: - Reads

    /// The `poll` notifications `user` has at `now` (polls ended at or before it), newest first,
    /// before `cursor` (an item id), at most `limit`.
    func endedPolls(of user: UserID, before cursor: String?, now: Int64, limit: Int, _ txn: Transaction) throws -> [(
        item: String, poll: PollID
    )] {
        var found: [(item: String, poll: PollID)] = []
        let prefix = ends.prefix(user)
        try txn.scanDescending(ends.database, prefix: prefix, before: cursor) { key, value in
            let item = String(decoding: key[prefix.count...], as: UTF8.self)
            guard let at = PushIDGenerator.timestamp(ofPrefix: item) else { return true }
            if at <= now { found.append((item, PollEnds.decode(value))) }
            return found.count < limit
        }
        return found
    }

    /// The polls ending after `after` and at or before `through` (ms since 1970), soonest first.
    func polls(endingAfter after: Int64, through: Int64, _ txn: Transaction) throws -> [PollID] {
        var found: [PollID] = []
        try txn.withCursor(byEnd.database) { cursor in
            var entry = try cursor.seek(atLeast: PollsByEnd.key((after &+ 1, PollID(""))))
            while let (key, _) = entry {
                guard let at = BigEndian.uint64(key[..<8]), Int64(bitPattern: at) <= through else { return }
                found.append(PollID(String(decoding: key[8...], as: UTF8.self)))
                entry = try cursor.next()
            }
        }
        return found
    }

    /// When the soonest poll ending after `after` ends (`nil`: none).
    func nextEnd(after: Int64, _ txn: Transaction) throws -> Int64? {
        try txn.withCursor(byEnd.database) { cursor in
            guard let (key, _) = try cursor.seek(atLeast: PollsByEnd.key((after &+ 1, PollID("")))),
                let at = BigEndian.uint64(key[..<8])
            else { return nil }
            return Int64(bitPattern: at)
        }
    }
}

/// `BE(expiresAt) ‖ pollId` → nothing: the polls by their end.
enum PollsByEnd: TableLayout {
    static func key(_ key: (Int64, PollID)) -> [UInt8] {
        BigEndian.bytes(UInt64(bitPattern: key.0)) + Array(key.1.rawValue.utf8)
    }
    static func encode(_: Void) -> [UInt8] { [] }
    static func decode(_: [UInt8]) {}
}

/// A poll as the projection keeps it: the record, each option's count, how many voted, and the
/// id of its end's notification.
struct StoredPoll: Equatable {
    var record: PollRecord
    var counts: [Int]
    var voters: Int
    var endItemID: String
}

/// pollId → `StoredPoll` (a version byte first).
enum StoredPolls: TableLayout {
    static func key(_ id: PollID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ p: StoredPoll) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(p.record.post.rawValue)
        w.string(p.record.author.rawValue)
        w.strings(p.record.options)
        w.u8((p.record.multiple ? 1 : 0) | (p.record.hideTotals ? 2 : 0))
        w.int64(p.record.expiresAt)
        w.varint(UInt64(p.counts.count))
        for count in p.counts { w.int(count) }
        w.int(p.voters)
        w.string(p.endItemID)
        w.string(p.record.id.rawValue)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> StoredPoll {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown poll record version") }
        let post = PostID(try r.string()), author = UserID(try r.string()), options = try r.strings()
        let flags = try r.u8(), expiresAt = try r.int64()
        let n = try r.varint()
        guard n <= 16 else { throw CorruptRecord(message: "a damaged poll record") }
        var counts: [Int] = []
        for _ in 0..<n { counts.append(try r.int()) }
        let voters = try r.int(), item = try r.string(), id = PollID(try r.string())
        return StoredPoll(
            record: PollRecord(
                id: id, post: post, author: author, options: options, multiple: flags & 1 != 0,
                hideTotals: flags & 2 != 0, expiresAt: expiresAt),
            counts: counts, voters: voters, endItemID: item)
    }
}

/// postId → pollId.
enum PostPolls: TableLayout {
    static func key(_ id: PostID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ id: PollID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> PollID { PollID(String(decoding: bytes, as: UTF8.self)) }
}

extension PollID: KeyPart {}

/// `poll ‖ 0 ‖ user` → the options the user chose.
enum PollVotes: GroupedLayout {
    typealias Group = PollID
    typealias Member = UserID
    static func encode(_ choices: [Int]) -> [UInt8] { choices.map { UInt8(clamping: $0) } }
    static func decode(_ bytes: [UInt8]) -> [Int] { bytes.map(Int.init) }
}

/// `user ‖ 0 ‖ end item id` → pollId: the `poll` notifications a user gets, by when they are due.
enum PollEnds: GroupedLayout {
    typealias Group = UserID
    typealias Member = String
    static func encode(_ id: PollID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> PollID { PollID(String(decoding: bytes, as: UTF8.self)) }
}

extension ReadView {
    func poll(_ id: PollID) throws -> PollRecord? { try models.polls.polls.get(id, txn)?.record }
    func poll(ofPost post: PostID) throws -> PollRecord? {
        guard let id = try models.polls.postPolls.get(post, txn) else { return nil }
        return try poll(id)
    }
    func voted(_ user: UserID, in poll: PollID) throws -> Bool { try models.polls.votes.contains((poll, user), txn) }
}
