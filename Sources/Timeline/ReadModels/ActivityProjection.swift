import LMDB
import TimelineDomain

/// One entry of a user's activity feed.
struct ActivityRecord: Equatable {
    enum Kind: UInt8 {
        case comment = 0, like = 1, follow = 2, removed = 3, mention = 4, reply = 5, followRequest = 6, post = 7
        case boost = 8
        /// The actor featured the owner in one of their collections (`collection` says which).
        case addedToCollection = 9
    }
    var kind: Kind
    /// Who did it; `nil` for the operator (`removed`), stored as "".
    var actor: UserID?
    var post: PostID?
    var comment: CommentID?
    var at: Int64
    /// Why the operator removed the post (`removed` only; appended, so older records read as before).
    var reason: String?
    /// The collection the owner was featured in (`addedToCollection` only: it takes `reason`'s
    /// place in the bytes, the one trailing string).
    var collection: CollectionID?
    /// Whether the owner's notification policy holds it in a notification request (the kind
    /// byte's high bit, so older records read as not held): `Privacy` keeps it out of every read.
    var filtered = false

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.u8(kind.rawValue | (filtered ? 0x80 : 0))
        w.string(actor?.rawValue ?? "")
        w.optionalString(post?.rawValue)
        w.optionalString(comment?.rawValue)
        w.int64(at)
        if let trailing = reason ?? collection?.rawValue { w.string(trailing) }
        return w.bytes
    }

    init(
        kind: Kind, actor: UserID?, post: PostID?, comment: CommentID?, at: Int64, reason: String? = nil,
        collection: CollectionID? = nil
    ) {
        self.collection = collection
        self.kind = kind
        self.actor = actor
        self.post = post
        self.comment = comment
        self.at = at
        self.reason = reason
    }

    init(_ bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        let byte = try r.u8()
        guard let kind = Kind(rawValue: byte & 0x7F) else { throw CorruptRecord(message: "unknown activity kind") }
        self.kind = kind
        filtered = byte & 0x80 != 0
        let actor = try r.string()
        self.actor = actor.isEmpty ? nil : UserID(actor)
        post = try r.optionalString().map(PostID.init)
        comment = try r.optionalString().map(CommentID.init)
        at = try r.int64()
        let trailing = r.isAtEnd ? nil : try r.string()
        if kind == .addedToCollection { collection = trailing.map(CollectionID.init) } else { reason = trailing }
    }
}

/// What happened to each user: comments and likes on their posts by others, new followers and
/// requests to follow (each request's item goes once it is answered or withdrawn),
/// replies to their comments, `@mentions` of them in captions and comments (resolved to users by
/// the username index as it stands at that event, and never from someone they block), the posts
/// of those they follow who they asked to be notified of, their being featured in another's
/// collection (gone when they leave it or it is deleted), and their posts the operator removed
/// (with the reason). Entries disappear when what they report is
/// undone (comment deleted, like removed, unfollowed, post deleted or removed, a mention edited
/// out of a caption); a removal's entry stays until its owner is erased. Nothing is recorded
/// about a post whose thread the item's owner muted (`ProfileExtrasProjection`).
struct ActivityProjection: Projection {
    let name = ProjectionName.activity
    /// Usernames, to resolve mentions.
    let profiles: ProfilesProjection
    /// Blocks: a user who blocks an author is not told of their mentions or replies.
    let follows: FollowsProjection
    /// Comments: whom a reply answers.
    let posts: PostsProjection
    /// Muted conversations: no item about a post whose thread its owner muted is recorded.
    let extras: ProfileExtrasProjection
    let activity: Table<ActivityFeed>
    /// Where each item is found again when what it reports is undone.
    let references: Table<ActivityReferences>
    /// Who owns each post (shares the references' database: its keys are `o‖post`).
    let owners: Table<PostOwners>
    /// Each user's read marker, the newest item they have read (in the references' database:
    /// its keys are `r‖user`).
    let markers: Table<ReadMarkers>
    /// Each user's notification policy, `n‖user` (in the references' database).
    let policies: Table<NotificationPolicies>
    /// The accounts whose notifications each user accepted, `a‖user ‖ 0 ‖ account`.
    let accepted: Table<AcceptedSenders>
    /// The items held in each notification request, `h‖user ‖ 0 ‖ account ‖ 0 ‖ item`.
    let held: Table<HeldItems>
    var databases: [Database] { [activity.database, references.database] }

    private(set) var handlers = EventHandlers()

    init(
        _ env: Environment, prefix: String, profiles: ProfilesProjection, follows: FollowsProjection,
        posts: PostsProjection, extras: ProfileExtrasProjection
    ) throws {
        self.extras = extras
        self.profiles = profiles
        self.follows = follows
        self.posts = posts
        activity = try Table(env, prefix + "activity")
        references = try Table(env, prefix + "activityRefs")
        owners = Table(references.database)
        markers = Table(references.database)
        policies = Table(references.database)
        accepted = Table(references.database)
        held = Table(references.database)
        handlers = Self.handlers(of: self)
    }

    /// How many items of `user`'s feed are after their read marker, counting at most `limit`
    /// and leaving out those `skipping` says to (a muted or blocked actor's).
    func unread(of user: UserID, upTo limit: Int, _ txn: Transaction, skipping: (ActivityRecord) throws -> Bool) throws
        -> Int
    {
        let marker = try markers.get(user, txn)
        var count = 0
        try activity.forEachDescending(in: user, txn) { id, record in
            if let marker, id <= marker { return false }
            if try !skipping(record) { count += 1 }
            return count < limit
        }
        return count
    }

    /// Records `item` in its owner's feed, as their notification policy says: shown, held in the
    /// notification request of its actor (`filtered`), or not at all (`drop`).
    private func record(
        _ item: ActivityRecord, as key: ActivityFeed.Key, reference: ActivityReference, _ txn: Transaction
    ) throws {
        var item = item
        // A muted conversation tells its muter nothing (nor pushes: a push is an item).
        if let post = item.post, try extras.conversationMutes.contains((key.0, post), txn) { return }
        switch try policyAction(on: item, for: key.0, txn) {
        case .drop: return
        case .filter:
            item.filtered = true
            if let actor = item.actor { try held.put((key.0, actor, key.1), (), txn) }
        case .accept: break
        }
        try activity.put(key, item, txn)
        try references.put(reference, key, txn)
    }

    /// Deletes an item, and its place in a notification request if it was held.
    private func deleteItem(_ key: ActivityFeed.Key, _ txn: Transaction) throws {
        if let record = try activity.get(key, txn), record.filtered, let actor = record.actor {
            try held.delete((key.0, actor, key.1), txn)
        }
        try activity.delete(key, txn)
    }

    private func forget(_ reference: ActivityReference, _ txn: Transaction) throws {
        guard let key = try references.get(reference, txn) else { return }
        try deleteItem(key, txn)
        try references.delete(reference, txn)
    }

    /// Forgets the item telling `account` it is featured in `owner`'s `collection`, and its references.
    private func forgetFeaturing(
        _ account: UserID, in collection: CollectionID, by owner: UserID, _ txn: Transaction
    ) throws {
        try forget(.collectionItem(collection, account: account), txn)
        try references.delete(.collectionPair(owner: owner, account: account, collection), txn)
    }

    /// Forgets the items about a deleted or removed post (comments and likes on it) and who owns it.
    private func forgetPost(_ post: PostID, _ txn: Transaction) throws {
        for key in try references.deleteAll(withPrefix: ActivityReferences.prefix(of: post), txn) {
            try deleteItem(key, txn)
        }
        try owners.delete(post, txn)
    }

    /// Records a mention item for each of `users`, keyed by the event, under
    /// `.mention(post, source, user)`.
    private func recordMentions(
        of users: [UserID], by author: UserID, post: PostID, comment: CommentID?,
        _ envelope: EventEnvelope, _ txn: Transaction
    ) throws {
        for user in users {
            try record(
                ActivityRecord(kind: .mention, actor: author, post: post, comment: comment, at: envelope.timestamp),
                as: (user, envelope.id.rawValue), reference: .mention(post, source: comment, user: user), txn)
        }
    }

    /// The users `text` mentions who are told of it: known, not `author`, not `skipping`, not
    /// blocking `author`.
    private func mentioned(in text: String?, by author: UserID, skipping: Set<UserID>, _ txn: Transaction) throws
        -> [UserID]
    {
        guard let text else { return [] }
        var users: [UserID] = []
        for name in Validation.mentions(in: text) {
            guard let user = try profiles.usernames.get(name, txn), user != author, !skipping.contains(user),
                try !follows.blocks(user, author, txn), !users.contains(user)
            else { continue }
            users.append(user)
        }
        return users
    }

    /// The users a post's caption (`source` nil) or one of its comments mentions now, by their references.
    private func mentionReferences(of post: PostID, source: CommentID?, _ txn: Transaction) throws -> [UserID] {
        let prefix = ActivityReferences.mentionPrefix(of: post, source: source)
        var users: [UserID] = []
        try txn.scan(references.database, prefix: prefix) { key, _ in
            users.append(UserID(String(decoding: key[prefix.count...], as: UTF8.self)))
            return true
        }
        return users
    }

    /// The key of the item a `PostRemoved` records in its author's feed (its id is the event's).
    func removalKey(of envelope: EventEnvelope, author: UserID) -> ActivityFeed.Key { (author, envelope.id.rawValue) }

    /// The reference under which `envelope`'s activity item is recorded, for the events that
    /// record one to be found again (a comment, a like, a follow).
    private func reference(of envelope: EventEnvelope) -> ActivityReference? {
        switch envelope.event {
        case .commentAdded(let e): .comment(e.postId, e.commentId)
        case .likeAdded(let e): .like(e.postId, e.userId)
        case .postBoosted(let e): .boost(e.postId, e.userId)
        case .followed(let e): .follow(followee: e.followeeId, follower: e.followerId)
        case .followRequested(let e): .followRequest(followee: e.followeeId, follower: e.followerId)
        case .collectionItemAdded(let e): .collectionItem(e.collectionId, account: e.accountId)
        // No other event records an item found again by a reference.
        default: nil
        }
    }

    /// The activity item `envelope` recorded, with its owner and id, if it recorded one that is
    /// still there (none for a comment on one's own post, or a like since removed).
    func recorded(by envelope: EventEnvelope, _ txn: Transaction) throws -> (
        owner: UserID, id: String, record: ActivityRecord
    )? {
        guard let reference = reference(of: envelope), let key = try references.get(reference, txn),
            let record = try activity.get(key, txn)
        else { return nil }
        return (key.0, key.1, record)
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.postAdded) { (e: PostAdded, envelope, txn) in
            try projection.owners.put(e.postId, e.authorId, txn)
            let users = try projection.mentioned(in: e.caption, by: e.authorId, skipping: [], txn)
            try projection.recordMentions(of: users, by: e.authorId, post: e.postId, comment: nil, envelope, txn)
            // Followers who asked to be told of the author's posts (once: a mention told some
            // already); never of a direct message, which only its addressees are told of.
            guard e.visibility != .direct else { return }
            let at = envelope.timestamp
            let item = ActivityRecord(kind: .post, actor: e.authorId, post: e.postId, comment: nil, at: at)
            try projection.follows.notified.forEachMember(in: e.authorId, txn) { follower in
                guard !users.contains(follower),
                    try projection.follows.follows(follower, e.authorId, txn)
                else { return }
                try projection.record(
                    item, as: (follower, envelope.id.rawValue),
                    reference: .post(e.postId, follower: follower), txn)
            }
        }
        handlers.on(.postEdited) { (e: PostEdited, envelope, txn) in
            // Mentions edited out are forgotten; new ones are told; those kept stay as they were.
            let before = Set(try projection.mentionReferences(of: e.postId, source: nil, txn))
            let now = try projection.mentioned(in: e.caption, by: e.authorId, skipping: [], txn)
            for user in before.subtracting(now) {
                try projection.forget(.mention(e.postId, source: nil, user: user), txn)
            }
            try projection.recordMentions(
                of: now.filter { !before.contains($0) }, by: e.authorId, post: e.postId,
                comment: nil, envelope, txn)
        }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in try projection.forgetPost(e.postId, txn) }
        handlers.on(.postRemoved) { (e: PostRemoved, envelope, txn) in
            // Its comments and likes leave as with a deletion; the author learns why.
            try projection.forgetPost(e.postId, txn)
            let item = ActivityRecord(
                kind: .removed, actor: nil, post: e.postId, comment: nil, at: envelope.timestamp,
                reason: e.reason)
            try projection.activity.put(projection.removalKey(of: envelope, author: e.authorId), item, txn)
        }
        handlers.on(.commentAdded) { (e: CommentAdded, envelope, txn) in
            let at = envelope.timestamp
            // The post's owner is told of the comment, the answered comment's author of the
            // reply, everyone else named of the mention: one item each at most.
            // (A post's owner answered on their own post is told of the reply.)
            let owner = try projection.owners.get(e.postId, txn)
            var answered = try e.replyTo.flatMap { try projection.posts.comment($0, txn) }?.author
            if let user = answered, try user == e.authorId || projection.follows.blocks(user, e.authorId, txn) {
                answered = nil
            }
            if let owner, owner != e.authorId, owner != answered {
                try projection.record(
                    ActivityRecord(kind: .comment, actor: e.authorId, post: e.postId, comment: e.commentId, at: at),
                    as: (owner, e.commentId.rawValue), reference: .comment(e.postId, e.commentId), txn)
            }
            if let answered {
                try projection.record(
                    ActivityRecord(kind: .reply, actor: e.authorId, post: e.postId, comment: e.commentId, at: at),
                    as: (answered, envelope.id.rawValue), reference: .reply(e.postId, e.commentId), txn)
            }
            let told = Set([owner, answered].compactMap { $0 })
            let users = try projection.mentioned(in: e.text, by: e.authorId, skipping: told, txn)
            try projection.recordMentions(
                of: users, by: e.authorId, post: e.postId, comment: e.commentId,
                envelope, txn)
        }
        handlers.on(.commentDeleted) { (e: CommentDeleted, _, txn) in
            try projection.forget(.comment(e.postId, e.commentId), txn)
            try projection.forget(.reply(e.postId, e.commentId), txn)
            for user in try projection.mentionReferences(of: e.postId, source: e.commentId, txn) {
                try projection.forget(.mention(e.postId, source: e.commentId, user: user), txn)
            }
        }
        handlers.on(.likeAdded) { (e: Like, envelope, txn) in
            guard let owner = try projection.owners.get(e.postId, txn), owner != e.userId else { return }
            try projection.record(
                ActivityRecord(kind: .like, actor: e.userId, post: e.postId, comment: nil, at: envelope.timestamp),
                as: (owner, envelope.id.rawValue), reference: .like(e.postId, e.userId), txn)
        }
        handlers.on(.likeRemoved) { (e: Like, _, txn) in try projection.forget(.like(e.postId, e.userId), txn) }
        handlers.on(.postBoosted) { (e: Boost, envelope, txn) in
            // The post's author is told (Mastodon's `reblog`), unless they boosted it themselves.
            guard e.authorId != e.userId, try projection.owners.get(e.postId, txn) != nil else { return }
            try projection.record(
                ActivityRecord(kind: .boost, actor: e.userId, post: e.postId, comment: nil, at: envelope.timestamp),
                as: (e.authorId, envelope.id.rawValue), reference: .boost(e.postId, e.userId), txn)
        }
        handlers.on(.boostRemoved) { (e: Boost, _, txn) in try projection.forget(.boost(e.postId, e.userId), txn) }
        handlers.on(.collectionItemAdded) { (e: CollectionItemChange, envelope, txn) in
            // The featured account is told (Mastodon's `added_to_collection`), unless it is the owner.
            guard e.accountId != e.ownerId else { return }
            let key = (e.accountId, envelope.id.rawValue)
            try projection.record(
                ActivityRecord(
                    kind: .addedToCollection, actor: e.ownerId, post: nil, comment: nil, at: envelope.timestamp,
                    collection: e.collectionId),
                as: key, reference: .collectionItem(e.collectionId, account: e.accountId), txn)
            // Found again by the two users too, for a block between them (`CollectionsProjection`
            // takes the item out then, with no event of its own).
            if try projection.references.get(.collectionItem(e.collectionId, account: e.accountId), txn) != nil {
                try projection.references.put(
                    .collectionPair(owner: e.ownerId, account: e.accountId, e.collectionId), key, txn)
            }
        }
        handlers.on(.collectionItemRemoved, .collectionItemRevoked) { (e: CollectionItemChange, _, txn) in
            try projection.forgetFeaturing(e.accountId, in: e.collectionId, by: e.ownerId, txn)
        }
        handlers.on(.collectionDeleted) { (e: CollectionDeleted, _, txn) in
            let prefix = ActivityReferences.prefix(of: e.collectionId)
            var accounts: [UserID] = []
            try txn.scan(projection.references.database, prefix: prefix) { key, _ in
                accounts.append(UserID(CompositeKey.suffix(key, after: prefix)))
                return true
            }
            for account in accounts { try projection.forgetFeaturing(account, in: e.collectionId, by: e.ownerId, txn) }
        }
        handlers.on(.blocked) { (e: Block, _, txn) in
            // A block either way takes the featured account out of the other's collections.
            for (owner, account) in [(e.blockerId, e.blockedId), (e.blockedId, e.blockerId)] {
                let prefix = ActivityReferences.prefix(owner: owner, account: account)
                var collections: [CollectionID] = []
                try txn.scan(projection.references.database, prefix: prefix) { key, _ in
                    collections.append(CollectionID(CompositeKey.suffix(key, after: prefix)))
                    return true
                }
                for collection in collections {
                    try projection.forgetFeaturing(account, in: collection, by: owner, txn)
                }
            }
        }
        handlers.on(.followRequested) { (e: Follow, envelope, txn) in
            let at = envelope.timestamp
            try projection.record(
                ActivityRecord(kind: .followRequest, actor: e.followerId, post: nil, comment: nil, at: at),
                as: (e.followeeId, envelope.id.rawValue),
                reference: .followRequest(followee: e.followeeId, follower: e.followerId), txn)
        }
        handlers.on(.followRequestRejected, .followRequestWithdrawn) { (e: Follow, _, txn) in
            try projection.forget(.followRequest(followee: e.followeeId, follower: e.followerId), txn)
        }
        handlers.on(.followed) { (e: Follow, envelope, txn) in
            // An approved request's item gives way to the follow's.
            try projection.forget(.followRequest(followee: e.followeeId, follower: e.followerId), txn)
            try projection.record(
                ActivityRecord(kind: .follow, actor: e.followerId, post: nil, comment: nil, at: envelope.timestamp),
                as: (e.followeeId, envelope.id.rawValue),
                reference: .follow(followee: e.followeeId, follower: e.followerId), txn)
        }
        handlers.on(.unfollowed) { (e: Follow, _, txn) in
            try projection.forget(.follow(followee: e.followeeId, follower: e.followerId), txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            // Everything others did to them was undone by the events before this one; what
            // remains is their own feed.
            try projection.activity.deleteAll(in: e.userId, txn)
            // Their collections go with them: those they featured are no longer told of them.
            let owned = ActivityReferences.prefix(owner: e.userId)
            var featured: [(UserID, CollectionID)] = []
            try txn.scan(projection.references.database, prefix: owned) { key, _ in
                let (account, collection) = CompositeKey.split(Array(key[owned.count...]))
                featured.append((UserID(account), CollectionID(collection)))
                return true
            }
            for (account, collection) in featured {
                try projection.forgetFeaturing(account, in: collection, by: e.userId, txn)
            }
            try projection.markers.delete(e.userId, txn)
            try projection.forgetNotificationRequests(of: e.userId, txn)
        }
        handlers.on(.activityDismissed) { (e: ActivityDismissed, _, txn) in
            // The references stay until what they name is undone; forgetting an item already gone is nothing.
            if let item = e.item {
                try projection.deleteItem((e.userId, item), txn)
            } else {
                _ = try projection.activity.deleteAll(in: e.userId, txn)
                _ = try projection.held.deleteAll(withPrefix: HeldItems.prefix(of: e.userId), txn)
            }
        }
        handlers.on(.activityRead) { (e: ActivityRead, _, txn) in
            // Never past the newest item there is: a marker beyond it would leave every later
            // item read before it came.
            guard let newest = try projection.activity.last(in: e.userId, txn) else { return }
            try projection.markers.put(e.userId, min(e.upTo, newest), txn)
        }
        projection.notificationRequestHandlers(&handlers)
        return handlers
    }
}

/// A user's feed, `owner ‖ 0 ‖ itemId` → the item (its id is the comment's, or the event's that
/// recorded it): a descending scan pages it newest first.
enum ActivityFeed: GroupedLayout {
    typealias Group = UserID
    typealias Member = String
    static func encode(_ item: ActivityRecord) -> [UInt8] { item.encoded() }
    static func decode(_ bytes: [UInt8]) throws -> ActivityRecord { try ActivityRecord(bytes) }
}

/// What an activity item reports, to find the item again when it is undone.
enum ActivityReference {
    case comment(PostID, CommentID)
    case like(PostID, UserID)
    /// A boost of the post by the user.
    case boost(PostID, UserID)
    case follow(followee: UserID, follower: UserID)
    case followRequest(followee: UserID, follower: UserID)
    /// A reply (the comment) to a comment on the post.
    case reply(PostID, CommentID)
    /// A mention of `user` in the post's caption (`source` nil) or in one of its comments.
    case mention(PostID, source: CommentID?, user: UserID)
    /// The post, told to a follower who asked to be notified of its author's posts.
    case post(PostID, follower: UserID)
    /// The account featured in the collection.
    case collectionItem(CollectionID, account: UserID)
    /// The same, by the collection's owner and the account (a block between them ends it).
    case collectionPair(owner: UserID, account: UserID, CollectionID)
}

/// An activity item's reference → the item's key in `ActivityFeed`: `p‖post ‖ 0 ‖ C‖comment`,
/// `p‖post ‖ 0 ‖ L‖user`, `p‖post ‖ 0 ‖ R‖comment`, `p‖post ‖ 0 ‖ M‖comment?/user`,
/// `p‖post ‖ 0 ‖ S‖follower` (a post's
/// references are one prefix scan), `f‖followee ‖ 0 ‖ follower`, `q‖followee ‖ 0 ‖ follower`.
enum ActivityReferences: TableLayout {
    static func key(_ reference: ActivityReference) -> [UInt8] {
        switch reference {
        case let .comment(post, comment): prefix(of: post) + Array(("C" + comment.rawValue).utf8)
        case let .like(post, user): prefix(of: post) + Array(("L" + user.rawValue).utf8)
        case let .boost(post, user): prefix(of: post) + Array(("B" + user.rawValue).utf8)
        case let .follow(followee, follower): CompositeKey.make("f" + followee.rawValue, follower.rawValue)
        case let .followRequest(followee, follower): CompositeKey.make("q" + followee.rawValue, follower.rawValue)
        case let .reply(post, comment): prefix(of: post) + Array(("R" + comment.rawValue).utf8)
        case let .mention(post, source, user): mentionPrefix(of: post, source: source) + Array(user.rawValue.utf8)
        case let .post(post, follower): prefix(of: post) + Array(("S" + follower.rawValue).utf8)
        case let .collectionItem(collection, account): prefix(of: collection) + Array(account.rawValue.utf8)
        case let .collectionPair(owner, account, collection):
            prefix(owner: owner, account: account) + Array(collection.rawValue.utf8)
        }
    }

    /// The prefix of the references to the items of `owner`'s collections featuring `account`,
    /// `K‖owner/account ‖ 0`.
    static func prefix(owner: UserID, account: UserID) -> [UInt8] {
        CompositeKey.prefix("K" + owner.rawValue + "/" + account.rawValue)
    }

    /// The prefix of the references to the items of all `owner`'s collections, `K‖owner/`
    /// (identifiers hold no `/`).
    static func prefix(owner: UserID) -> [UInt8] { Array(("K" + owner.rawValue + "/").utf8) }

    /// The prefix of the references to a collection's items, `k‖collection ‖ 0`.
    static func prefix(of collection: CollectionID) -> [UInt8] { CompositeKey.prefix("k" + collection.rawValue) }

    /// The prefix of the references to the mentions in `post`'s caption (`source` nil) or in one
    /// of its comments: `p‖post ‖ 0 ‖ M‖source/`.
    static func mentionPrefix(of post: PostID, source: CommentID?) -> [UInt8] {
        prefix(of: post) + Array(("M" + (source?.rawValue ?? "") + "/").utf8)
    }
    static func encode(_ item: ActivityFeed.Key) -> [UInt8] { ActivityFeed.key(item) }
    /// A damaged value (no separator) names no item (an empty id), so undoing what it reported
    /// still goes on: the feed is derived data, and a rebuild writes it anew.
    static func decode(_ bytes: [UInt8]) -> ActivityFeed.Key {
        guard let separator = bytes.firstIndex(of: 0) else {
            return (UserID(String(decoding: bytes, as: UTF8.self)), "")
        }
        return (
            UserID(String(decoding: bytes[..<separator], as: UTF8.self)),
            String(decoding: bytes[(separator + 1)...], as: UTF8.self)
        )
    }

    /// The prefix of the references to the items about `post` (comments and likes on it).
    static func prefix(of post: PostID) -> [UInt8] { CompositeKey.prefix("p" + post.rawValue) }
}

/// A user → the id of the newest activity item they have read, `r‖user` (in the references'
/// database).
enum ReadMarkers: TableLayout {
    static func key(_ user: UserID) -> [UInt8] { Array(("r" + user.rawValue).utf8) }
    static func encode(_ upTo: String) -> [UInt8] { Array(upTo.utf8) }
    static func decode(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// A post → its author, `o‖post` (in the references' database).
enum PostOwners: TableLayout {
    static func key(_ post: PostID) -> [UInt8] { Array(("o" + post.rawValue).utf8) }
    static func encode(_ owner: UserID) -> [UInt8] { Array(owner.rawValue.utf8) }
    static func decode(_ bytes: [UInt8]) -> UserID { UserID(String(decoding: bytes, as: UTF8.self)) }
}
