import Foundation
import LMDB
import TimelineDomain

/// Pending scheduled posts (`PostScheduled`, `ScheduledPostChanged`; `ScheduledPostCancelled`
/// and `ScheduledPostPublished` end them): each with the post as it will be, each user's, the
/// photos each holds, and all of them by when they are due — what the server's publisher reads
/// (`TimelineService.nextScheduledPostDue`, `dueScheduledPosts`). Erasing a user ends theirs.
struct ScheduledPostsProjection: Projection {
    let name = ProjectionName.scheduledPosts
    /// scheduleId → the pending schedule.
    let schedules: Table<ScheduledPostRecords>
    /// `author ‖ 0 ‖ scheduleId`: each user's pending schedules, in id order.
    let owned: Table<Members<UserID, ScheduledPostID>>
    /// BE(publishAt) ‖ scheduleId → nothing: every pending schedule, soonest first.
    let due: Table<DueTimes<ScheduledPostID>>
    /// mediaId → the schedule holding it.
    let held: Table<HeldMedia>
    var databases: [Database] { [schedules.database, owned.database, due.database, held.database] }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        schedules = try Table(env, prefix + "scheduledPosts")
        owned = try Table(env, prefix + "ownedScheduledPosts")
        due = try Table(env, prefix + "dueScheduledPosts")
        held = try Table(env, prefix + "scheduledMedia")
        handlers = Self.handlers(of: self)
    }

    /// Ends the pending schedule `id`: its entries and its photos' hold.
    private func end(_ id: ScheduledPostID, _ txn: Transaction) throws {
        guard let record = try schedules.get(id, txn) else { return }
        try schedules.delete(id, txn)
        try owned.delete((record.author, id), txn)
        try due.delete((record.publishAt, id), txn)
        for media in record.draft.media { try held.delete(media, txn) }
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.postScheduled) { (e: PostScheduled, _, txn) in
            try projection.schedules.put(e.scheduleId, ScheduledPostRecord(e), txn)
            try projection.owned.put((e.authorId, e.scheduleId), (), txn)
            try projection.due.put((e.publishAt, e.scheduleId), (), txn)
            for media in e.media { try projection.held.put(media, e.scheduleId, txn) }
        }
        handlers.on(.scheduledPostChanged) { (e: ScheduledPostChanged, _, txn) in
            guard var record = try projection.schedules.get(e.scheduleId, txn) else { return }
            try projection.due.delete((record.publishAt, e.scheduleId), txn)
            record.publishAt = e.publishAt
            try projection.schedules.put(e.scheduleId, record, txn)
            try projection.due.put((e.publishAt, e.scheduleId), (), txn)
        }
        handlers.on(.scheduledPostCancelled) { (e: ScheduledPostCancelled, _, txn) in
            try projection.end(e.scheduleId, txn)
        }
        handlers.on(.scheduledPostPublished) { (e: ScheduledPostPublished, _, txn) in
            try projection.end(e.scheduleId, txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            for id in try projection.owned.members(of: e.userId, txn) { try projection.end(id, txn) }
        }
        return handlers
    }

    // MARK: - Reads

    /// `user`'s pending schedules, in id order.
    func scheduled(of user: UserID, _ txn: Transaction) throws -> [ScheduledPostRecord] {
        try owned.members(of: user, txn).compactMap { try schedules.get($0, txn) }
    }
}

extension ScheduledPostID: KeyPart {}

/// scheduleId → the pending schedule: a version byte, BE(publishAt), then the draft as sorted JSON.
enum ScheduledPostRecords: TableLayout {
    static func key(_ id: ScheduledPostID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ record: ScheduledPostRecord) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // A `PostScheduled` is plain values: encoding it cannot fail.
        let json = (try? encoder.encode(record.draft)).map(Array.init) ?? []
        return [1] + BigEndian.bytes(UInt64(bitPattern: record.publishAt)) + json
    }
    static func decode(_ bytes: [UInt8]) throws -> ScheduledPostRecord {
        guard bytes.count > 9, bytes[0] == 1, let at = BigEndian.uint64(bytes[1..<9]) else {
            throw CorruptRecord(message: "a damaged scheduled post record")
        }
        do {
            let draft = try JSONDecoder().decode(PostScheduled.self, from: Data(bytes[9...]))
            return ScheduledPostRecord(draft, publishAt: Int64(bitPattern: at))
        } catch { throw CorruptRecord(message: "a damaged scheduled post record") }
    }
}

/// mediaId → the pending schedule holding it.
enum HeldMedia: TableLayout {
    static func key(_ id: MediaID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ id: ScheduledPostID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> ScheduledPostID { ScheduledPostID(String(decoding: bytes, as: UTF8.self)) }
}

extension ReadView {
    func scheduledPost(_ id: ScheduledPostID) throws -> ScheduledPostRecord? {
        try models.scheduledPosts.schedules.get(id, txn)
    }
    func scheduledPosts(of user: UserID) throws -> [ScheduledPostRecord] {
        try models.scheduledPosts.scheduled(of: user, txn)
    }
    func scheduledPost(holding media: MediaID) throws -> ScheduledPostID? {
        try models.scheduledPosts.held.get(media, txn)
    }
}
