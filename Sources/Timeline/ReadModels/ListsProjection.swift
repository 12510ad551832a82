import LMDB
import TimelineDomain

/// The users' lists and their members. A list's timeline is not materialised: it is merged at
/// read time from its members' post lists (`ReadView.listTimeline`), so it costs nothing to
/// post, and a member added or taken out, an unfollow or a block changes it at once, exactly
/// (docs/performance.md, "Lists", has the measurements that chose it).
///
/// An `Unfollowed` takes the unfollowed account out of every list of its follower (as
/// Mastodon does; a block records the unfollows first, and erasing a user unfollows
/// everyone), and a `UserErased` deletes the erased user's lists.
struct ListsProjection: Projection {
    let name = ProjectionName.lists
    /// A list's id → its record.
    let lists: Table<ListRecords>
    /// `owner ‖ 0 ‖ list`: each user's lists, oldest first.
    let owned: Table<Members<UserID, ListID>>
    /// `list ‖ 0 ‖ account`: each list's members.
    let members: Table<Members<ListID, UserID>>
    /// `owner ‖ 0 ‖ account ‖ 0 ‖ list`: the lists of one owner an account is in.
    let memberships: Table<Members<String, ListID>>
    var databases: [Database] { [lists.database, owned.database, members.database, memberships.database] }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        lists = try Table(env, prefix + "lists")
        owned = try Table(env, prefix + "ownedLists")
        members = try Table(env, prefix + "listMembers")
        memberships = try Table(env, prefix + "listMemberships")
        handlers = Self.handlers(of: self)
    }

    /// The `memberships` group of `account` in `owner`'s lists.
    static func membership(_ owner: UserID, _ account: UserID) -> String { owner.rawValue + "\u{0}" + account.rawValue }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.listCreated, .listUpdated) { (e: ListSettings, _, txn) in
            try projection.lists.put(e.listId, ListRecord(e), txn)
            try projection.owned.put((e.ownerId, e.listId), (), txn)
        }
        handlers.on(.listDeleted) { (e: ListDeleted, _, txn) in try projection.delete(e.listId, owner: e.ownerId, txn) }
        handlers.on(.listAccountAdded) { (e: ListMember, _, txn) in
            try projection.members.put((e.listId, e.accountId), (), txn)
            try projection.memberships.put((membership(e.ownerId, e.accountId), e.listId), (), txn)
        }
        handlers.on(.listAccountRemoved) { (e: ListMember, _, txn) in
            try projection.members.delete((e.listId, e.accountId), txn)
            try projection.memberships.delete((membership(e.ownerId, e.accountId), e.listId), txn)
        }
        handlers.on(.unfollowed) { (e: Follow, _, txn) in
            // Mastodon takes an unfollowed account out of its follower's lists.
            for list in try projection.memberships.deleteAll(in: membership(e.followerId, e.followeeId), txn) {
                try projection.members.delete((list, e.followeeId), txn)
            }
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            for list in try projection.owned.members(of: e.userId, txn) {
                try projection.delete(list, owner: e.userId, txn)
            }
        }
        return handlers
    }

    /// Deletes the list `id` of `owner` with its members.
    private func delete(_ id: ListID, owner: UserID, _ txn: Transaction) throws {
        for account in try members.deleteAll(in: id, txn) {
            try memberships.delete((Self.membership(owner, account), id), txn)
        }
        try owned.delete((owner, id), txn)
        try lists.delete(id, txn)
    }

    // MARK: - Reads

    /// `owner`'s lists, oldest first.
    func lists(of owner: UserID, _ txn: Transaction) throws -> [ListRecord] {
        try owned.members(of: owner, txn).compactMap { try lists.get($0, txn) }
    }

    /// The accounts in `owner`'s exclusive lists: their posts leave `owner`'s home timeline.
    func exclusiveMembers(of owner: UserID, _ txn: Transaction) throws -> Set<UserID> {
        var out = Set<UserID>()
        for list in try lists(of: owner, txn) where list.exclusive {
            out.formUnion(try members.members(of: list.id, txn))
        }
        return out
    }
}

/// A list's id → its record (version 1: owner, title, replies policy and exclusiveness).
enum ListRecords: TableLayout {
    static func key(_ id: ListID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ list: ListRecord) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(list.id.rawValue)
        w.string(list.owner.rawValue)
        w.string(list.title)
        w.u8(list.repliesPolicy.code | (list.exclusive ? 0x80 : 0))
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> ListRecord {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown list record version") }
        let id = ListID(try r.string()), owner = UserID(try r.string()), title = try r.string(), flags = try r.u8()
        return ListRecord(
            id: id, owner: owner, title: title, repliesPolicy: try ListRepliesPolicy(code: flags & 0x7F),
            exclusive: flags & 0x80 != 0)
    }
}

extension ListID: KeyPart {}

extension ReadView {
    func list(_ id: ListID) throws -> ListRecord? { try models.lists.lists.get(id, txn) }
    func lists(of owner: UserID) throws -> [ListRecord] { try models.lists.lists(of: owner, txn) }
    func listHas(_ id: ListID, _ account: UserID) throws -> Bool {
        try models.lists.members.contains((id, account), txn)
    }

    /// The list `id`, if `viewer` owns it (another's list is `not_found`, as Mastodon answers).
    func ownList(_ id: ListID, viewer: UserID) throws -> ListRecord {
        guard let record = try list(id), record.owner == viewer else {
            throw TimelineError.notFound("list", id.rawValue)
        }
        return record
    }

    /// The posts of the members of `viewer`'s list `id` that `viewer` may see (the `list`
    /// surface: each author followed, no block, no mute), newest first: their post lists merged
    /// at read time, like the pulled authors of the home timeline.
    func listTimeline(_ id: ListID, viewer: UserID, _ request: PageRequest) throws -> Page<Post> {
        _ = try ownList(id, viewer: viewer)
        let privacy = try privacy(for: viewer).knowingSuspended(models.profiles.suspendedUsers(txn))
        let present = Presenter(privacy)
        let authors = try models.lists.members.members(of: id, txn).filter {
            try privacy.mayShow(postsBy: $0, on: .list)
        }
        let posts = models.posts
        let sources = authors.map { MergeSource(prefix: posts.postsByUser.prefix($0), floor: nil) }
        let databases =
            Array(repeating: posts.postsByUser.database, count: authors.count)
            + [posts.likesByUser.database, posts.bookmarks.database]
        return try txn.withCursors(databases) { cursors in
            var marks = PulledMarks(
                viewer: viewer, posts: posts, likes: cursors[sources.count], bookmarks: cursors[sources.count + 1])
            return try Self.mergedPage(sources, Array(cursors.prefix(sources.count)), request) { id in
                try present.listedPost(id, on: .list, marks: try marks.of(id))
            }
        }
    }

    /// `MergeSource.page` for many sources (a list's hundreds of members): the sources' current
    /// ids in a max-heap, so each item costs log k comparisons instead of k. A page of
    /// `request.after` is `MergeSource.page`'s (read upwards, as the home timeline's).
    static func mergedPage<Item>(
        _ sources: [MergeSource], _ cursors: [Cursor], _ request: PageRequest,
        item: (ArraySlice<UInt8>) throws -> Item?
    ) throws -> Page<Item> {
        if request.after != nil { return try MergeSource.page(sources, cursors, request) { id, _ in try item(id) } }
        var sources = sources
        for index in sources.indices { try sources[index].start(cursors[index], before: request.before) }
        var heap = sources.indices.filter { sources[$0].current != nil }
        // Whether source `a`'s current id is newer than source `b`'s.
        func newer(_ a: Int, _ b: Int) -> Bool { sources[b].current!.lexicographicallyPrecedes(sources[a].current!) }
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var top = parent
                if left < heap.count, newer(heap[left], heap[top]) { top = left }
                if right < heap.count, newer(heap[right], heap[top]) { top = right }
                if top == parent { return }
                heap.swapAt(parent, top)
                parent = top
            }
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        var items: [Item] = []
        items.reserveCapacity(request.limit)
        var last: ArraySlice<UInt8>?
        while let best = heap.first {
            let id = sources[best].current!
            try sources[best].advance(cursors[best])
            if sources[best].current == nil {
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
            }
            siftDown(0)
            guard let kept = try item(id) else { continue }
            // Full, and another kept item follows: the page has a next (never an empty one).
            if items.count == request.limit {
                return Page(items: items, next: last.map { String(decoding: $0, as: UTF8.self) })
            }
            items.append(kept)
            last = id
        }
        return Page(items: items, next: nil)
    }
}
