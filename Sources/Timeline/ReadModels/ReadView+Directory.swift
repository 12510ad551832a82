import LMDB
import TimelineDomain

/// The profile directory (Mastodon's `GET /api/v1/directory`): the accounts that let
/// themselves be found (`discoverable`), recently active or newest first. It reads the
/// profiles and each account's newest post as they stand; it keeps no table of its own.
extension ReadView {
    /// How many accounts the directory reads, at most (as `popularSuggestions`).
    static let directoryAccountsSampled = 10_000

    /// The discoverable accounts in `order`, `page.limit` of them from the offset that
    /// `page.before` holds (the previous page's `next`, a decimal number), without suspended
    /// accounts and anyone blocked either way with `viewer`.
    func directory(_ order: DirectoryOrder, _ page: PageRequest, viewer: UserID?) throws -> Page<Profile> {
        guard page.after == nil else { throw TimelineError.invalid("after", "this list is not paged by after") }
        let offset = try page.before.map(Self.directoryOffset) ?? 0
        // Each candidate with what it is ordered by: its newest post's id (ids are in time
        // order), or its creation.
        var candidates: [(record: UserRecord, newestPost: String)] = []
        var read = 0
        try txn.scan(models.profiles.users.database, prefix: []) { _, value in
            let record = try UserRecords.decode(value)
            if record.discoverable && !record.suspended {
                let newest = try models.posts.postsByUser.last(in: record.id, txn)
                candidates.append((record, newest?.rawValue ?? ""))
            }
            read += 1
            return read < Self.directoryAccountsSampled
        }
        candidates.sort { a, b in
            switch order {
            case .active:
                (a.newestPost, a.record.createdAt, a.record.id.rawValue)
                    > (b.newestPost, b.record.createdAt, b.record.id.rawValue)
            case .new: (a.record.createdAt, a.record.id.rawValue) > (b.record.createdAt, b.record.id.rawValue)
            }
        }
        let present = Presenter(try privacy(for: viewer))
        var items: [Profile] = []
        var position = 0
        for (record, _) in candidates {
            if try hidden(record.id, from: viewer) { continue }
            defer { position += 1 }
            guard position >= offset else { continue }
            if items.count == page.limit { return Page(items: items, next: String(position)) }
            items.append(try present.profile(record))
        }
        return Page(items: items, next: nil)
    }

    /// The offset a directory cursor holds: a whole number below a million.
    private static func directoryOffset(_ cursor: String) throws(TimelineError) -> Int {
        guard cursor.utf8.count <= 6, cursor.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let offset = Int(cursor)
        else { throw TimelineError.invalid("before", "before is not a valid cursor") }
        return offset
    }
}
