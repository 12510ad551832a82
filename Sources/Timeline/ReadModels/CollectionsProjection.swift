import LMDB
import TimelineDomain

/// The users' collections of accounts to feature (Mastodon's collections) and their items.
///
/// A block either way between a collection's owner and a featured account takes the item out
/// (neither is ever shown in the other's collection again, unless added anew once unblocked),
/// and an erasure deletes the erased user's collections and takes them out of every other's.
/// A suspension hides them when read (the `collections` surface), and comes back with an
/// unsuspension.
struct CollectionsProjection: Projection {
    let name = ProjectionName.collections
    /// A collection's id → its record.
    let collections: Table<CollectionRecords>
    /// `owner ‖ 0 ‖ collection`: each user's collections, oldest first.
    let owned: Table<Members<UserID, CollectionID>>
    /// `collection ‖ 0 ‖ item` → the item: each collection's items, in the order added.
    let items: Table<CollectionItems>
    /// `account ‖ 0 ‖ collection` → the item: the collections an account is featured in.
    let featured: Table<FeaturedIn>
    var databases: [Database] { [collections.database, owned.database, items.database, featured.database] }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        collections = try Table(env, prefix + "collections")
        owned = try Table(env, prefix + "ownedCollections")
        items = try Table(env, prefix + "collectionItems")
        featured = try Table(env, prefix + "featuredInCollections")
        handlers = Self.handlers(of: self)
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.collectionCreated) { (e: CollectionSettings, envelope, txn) in
            let record = CollectionRecord(settings: e, createdAt: envelope.timestamp, updatedAt: envelope.timestamp)
            try projection.collections.put(e.collectionId, record, txn)
            try projection.owned.put((e.ownerId, e.collectionId), (), txn)
        }
        handlers.on(.collectionUpdated) { (e: CollectionSettings, envelope, txn) in
            guard var record = try projection.collections.get(e.collectionId, txn) else { return }
            record.settings = e
            record.updatedAt = envelope.timestamp
            try projection.collections.put(e.collectionId, record, txn)
        }
        handlers.on(.collectionDeleted) { (e: CollectionDeleted, _, txn) in
            try projection.delete(e.collectionId, owner: e.ownerId, txn)
        }
        handlers.on(.collectionItemAdded) { (e: CollectionItemChange, envelope, txn) in
            let item = CollectionItemRecord(
                id: e.itemId, collection: e.collectionId, account: e.accountId, state: .accepted,
                createdAt: envelope.timestamp)
            try projection.items.put((e.collectionId, e.itemId), item, txn)
            try projection.featured.put((e.accountId, e.collectionId), e.itemId, txn)
        }
        handlers.on(.collectionItemRemoved) { (e: CollectionItemChange, _, txn) in
            try projection.items.delete((e.collectionId, e.itemId), txn)
            try projection.featured.delete((e.accountId, e.collectionId), txn)
        }
        handlers.on(.collectionItemRevoked) { (e: CollectionItemChange, _, txn) in
            guard var item = try projection.items.get((e.collectionId, e.itemId), txn) else { return }
            item.state = .revoked
            try projection.items.put((e.collectionId, e.itemId), item, txn)
        }
        handlers.on(.blocked) { (e: Block, _, txn) in
            // Neither shows in the other's collections any more.
            try projection.takeOut(e.blockedId, ofCollectionsBy: e.blockerId, txn)
            try projection.takeOut(e.blockerId, ofCollectionsBy: e.blockedId, txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            for collection in try projection.owned.members(of: e.userId, txn) {
                try projection.delete(collection, owner: e.userId, txn)
            }
            for collection in try projection.featured.members(of: e.userId, txn) {
                if let item = try projection.featured.get((e.userId, collection), txn) {
                    try projection.items.delete((collection, item), txn)
                }
            }
            try projection.featured.deleteAll(in: e.userId, txn)
        }
        return handlers
    }

    /// Takes `account`'s items out of `owner`'s collections.
    private func takeOut(_ account: UserID, ofCollectionsBy owner: UserID, _ txn: Transaction) throws {
        for collection in try featured.members(of: account, txn) {
            guard try owned.contains((owner, collection), txn),
                let item = try featured.get((account, collection), txn)
            else { continue }
            try items.delete((collection, item), txn)
            try featured.delete((account, collection), txn)
        }
    }

    /// Deletes the collection `id` of `owner` with its items.
    private func delete(_ id: CollectionID, owner: UserID, _ txn: Transaction) throws {
        var accounts: [UserID] = []
        try items.forEach(in: id, txn) { _, item in
            accounts.append(item.account)
            return true
        }
        for account in accounts { try featured.delete((account, id), txn) }
        try items.deleteAll(in: id, txn)
        try owned.delete((owner, id), txn)
        try collections.delete(id, txn)
    }
}

/// A collection's id → its record (version 1: its settings, made and changed times).
enum CollectionRecords: TableLayout {
    static func key(_ id: CollectionID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ record: CollectionRecord) -> [UInt8] {
        let s = record.settings
        var w = ByteWriter()
        w.u8(1)
        w.string(s.collectionId.rawValue)
        w.string(s.ownerId.rawValue)
        w.string(s.name)
        w.string(s.description)
        w.string(s.language ?? "")
        w.string(s.tag ?? "")
        w.u8((s.sensitive ? 1 : 0) | (s.discoverable ? 2 : 0))
        w.int64(record.createdAt)
        w.int64(record.updatedAt)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> CollectionRecord {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown collection record version") }
        let id = CollectionID(try r.string()), owner = UserID(try r.string())
        let name = try r.string(), description = try r.string(), language = try r.string(), tag = try r.string()
        let flags = try r.u8()
        let settings = CollectionSettings(
            collectionId: id, ownerId: owner, name: name, description: description,
            language: language.isEmpty ? nil : language, sensitive: flags & 1 != 0, discoverable: flags & 2 != 0,
            tag: tag.isEmpty ? nil : tag)
        return CollectionRecord(settings: settings, createdAt: try r.int64(), updatedAt: try r.int64())
    }
}

/// `collection ‖ 0 ‖ item` → the item (version 1: its account, state and when it was added).
enum CollectionItems: GroupedLayout {
    typealias Group = CollectionID
    typealias Member = CollectionItemID
    static func encode(_ item: CollectionItemRecord) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(item.id.rawValue)
        w.string(item.collection.rawValue)
        w.string(item.account.rawValue)
        w.u8(item.state == .accepted ? 0 : 1)
        w.int64(item.createdAt)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> CollectionItemRecord {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown collection item version") }
        let id = CollectionItemID(try r.string()), collection = CollectionID(try r.string())
        let account = UserID(try r.string()), state: CollectionItemState = try r.u8() == 0 ? .accepted : .revoked
        return CollectionItemRecord(
            id: id, collection: collection, account: account, state: state, createdAt: try r.int64())
    }
}

/// `account ‖ 0 ‖ collection` → the item featuring the account there.
enum FeaturedIn: GroupedLayout {
    typealias Group = UserID
    typealias Member = CollectionID
    static func encode(_ item: CollectionItemID) -> [UInt8] { Array(item.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> CollectionItemID {
        CollectionItemID(String(decoding: bytes, as: UTF8.self))
    }
}

extension CollectionID: KeyPart {}
extension CollectionItemID: KeyPart {}

/// A collection as one viewer sees it: its record, the items they may see (accepted, their
/// accounts in the viewer's sight) and the accounts (its owner first, then each item's).
public struct CollectionView: Equatable, Sendable {
    /// The collection.
    public var record: CollectionRecord
    /// The items the viewer may see, in the order added.
    public var items: [CollectionItemRecord]
    /// Its owner's profile, then each shown item's account's, in the items' order.
    public var accounts: [Profile]
    /// A collection as seen.
    public init(record: CollectionRecord, items: [CollectionItemRecord], accounts: [Profile]) {
        self.record = record
        self.items = items
        self.accounts = accounts
    }
}

extension ReadView {
    func collection(_ id: CollectionID) throws -> CollectionRecord? { try models.collections.collections.get(id, txn) }
    func collections(of owner: UserID) throws -> [CollectionRecord] {
        try models.collections.owned.members(of: owner, txn).compactMap { try collection($0) }
    }
    func collectionItems(_ id: CollectionID) throws -> [CollectionItemRecord] {
        var out: [CollectionItemRecord] = []
        try models.collections.items.forEach(in: id, txn) { _, item in
            out.append(item)
            return true
        }
        return out
    }

    /// `record` as `privacy`'s viewer sees it on the `collections` surface: nil when its owner
    /// is out of their sight (a block either way, a suspension); only accepted items whose
    /// accounts are in their sight.
    func shownCollection(_ record: CollectionRecord, _ privacy: Privacy<ReadView>) throws -> CollectionView? {
        guard try privacy.mayShow(account: record.owner, on: .collections), let owner = try user(record.owner) else {
            return nil
        }
        let present = Presenter(privacy)
        var items: [CollectionItemRecord] = [], accounts = [try present.profile(owner)]
        for item in try collectionItems(record.id) where item.state == .accepted {
            guard try privacy.mayShow(account: item.account, on: .collections), let user = try user(item.account)
            else { continue }
            items.append(item)
            accounts.append(try present.profile(user))
        }
        return CollectionView(record: record, items: items, accounts: accounts)
    }

    /// The collection `id` as `viewer` sees it (`not_found` when none, or out of their sight).
    func viewCollection(_ id: CollectionID, viewer: UserID?) throws -> CollectionView {
        guard let record = try collection(id), let shown = try shownCollection(record, try privacy(for: viewer))
        else { throw TimelineError.notFound("collection", id.rawValue) }
        return shown
    }

    /// `owner`'s collections `viewer` may see, the newest first, from `offset`: all of them
    /// for the owner, the discoverable ones for others, none when the owner is out of sight.
    func collections(by owner: UserID, viewer: UserID?, offset: Int, limit: Int) throws -> [CollectionView] {
        try requireUser(owner)
        let privacy = try privacy(for: viewer)
        let records = try collections(of: owner).reversed().filter { owner == viewer || $0.settings.discoverable }
        return try records.dropFirst(offset).prefix(limit).compactMap { try shownCollection($0, privacy) }
    }

    /// The collections `account` is featured in (accepted), as `account` sees them, oldest
    /// item first, from `offset`: only `account` may read them (Mastodon's 403 otherwise).
    func collections(featuring account: UserID, viewer: UserID?, offset: Int, limit: Int) throws
        -> [CollectionView]
    {
        try requireUser(account)
        guard viewer == account else {
            throw TimelineError(.forbidden, "only an account may read the collections it is in", field: "account")
        }
        let privacy = try privacy(for: viewer)
        var items: [CollectionItemRecord] = []
        for collection in try models.collections.featured.members(of: account, txn) {
            if let id = try models.collections.featured.get((account, collection), txn),
                let item = try models.collections.items.get((collection, id), txn), item.state == .accepted
            {
                items.append(item)
            }
        }
        items.sort { $0.id.rawValue < $1.id.rawValue }
        return try items.compactMap { try collection($0.collection) }.dropFirst(offset).prefix(limit)
            .compactMap { try shownCollection($0, privacy) }
    }
}
