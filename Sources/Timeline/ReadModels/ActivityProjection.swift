import LMDB
import TimelineDomain

/// One entry of a user's activity feed.
struct ActivityRecord: Equatable {
    enum Kind: UInt8 { case comment = 0, like = 1, follow = 2, removed = 3 }
    var kind: Kind
    /// Who did it; `nil` for the operator (`removed`), stored as "".
    var actor: UserID?
    var post: PostID?
    var comment: CommentID?
    var at: Int64
    /// Why the operator removed the post (`removed` only; appended, so older records read as before).
    var reason: String?

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.u8(kind.rawValue); w.string(actor?.rawValue ?? ""); w.optionalString(post?.rawValue)
        w.optionalString(comment?.rawValue); w.int64(at)
        if let reason { w.string(reason) }
        return w.bytes
    }

    init(kind: Kind, actor: UserID?, post: PostID?, comment: CommentID?, at: Int64, reason: String? = nil) {
        self.kind = kind; self.actor = actor; self.post = post; self.comment = comment; self.at = at; self.reason = reason
    }

    init(_ bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard let kind = Kind(rawValue: try r.u8()) else { throw CorruptRecord(message: "unknown activity kind") }
        self.kind = kind
        let actor = try r.string()
        self.actor = actor.isEmpty ? nil : UserID(actor)
        post = try r.optionalString().map(PostID.init)
        comment = try r.optionalString().map(CommentID.init)
        at = try r.int64()
        reason = r.isAtEnd ? nil : try r.string()
    }
}

/// What happened to each user: comments and likes on their posts by others, new followers, and
/// their posts the operator removed (with the reason). Entries disappear when what they report
/// is undone (comment deleted, like removed, unfollowed, post deleted or removed); a removal's
/// entry stays until its owner is erased.
struct ActivityProjection: Projection {
    let name = ProjectionName.activity
    let activity: Database  // owner ‖ 0 ‖ activityId → ActivityRecord
    /// `o‖post` → owner; `p‖post‖0‖C‖comment`, `p‖post‖0‖L‖user`, `f‖followee‖0‖follower` → activity key
    let references: Database
    var databases: [Database] { [activity, references] }

    init(_ env: Environment, prefix: String) throws {
        activity = try env.database(prefix + "activity", placement: .derived)
        references = try env.database(prefix + "activityRefs", placement: .derived)
    }

    private func ownerKey(_ post: PostID) -> [UInt8] { Array(("o" + post.rawValue).utf8) }
    private func postPrefix(_ post: PostID) -> [UInt8] { Key.prefix("p" + post.rawValue) }

    private func record(_ owner: String, id: String, reference: [UInt8], _ item: ActivityRecord, _ txn: Transaction) throws {
        let key = Key.make(owner, id)
        try txn.put(activity, key, item.encoded())
        try txn.put(references, reference, key)
    }

    private func forget(reference: [UInt8], _ txn: Transaction) throws {
        guard let key = try txn.get(references, reference) else { return }
        try txn.delete(activity, key)
        try txn.delete(references, reference)
    }

    private func owner(of post: PostID, _ txn: Transaction) throws -> String? {
        try txn.get(references, ownerKey(post)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Forgets the items about a deleted or removed post (comments and likes on it) and who owns it.
    private func forgetPost(_ post: PostID, _ txn: Transaction) throws {
        var found: [(reference: [UInt8], key: [UInt8])] = []
        try txn.scan(references, prefix: postPrefix(post)) { reference, key in
            found.append((reference, key))
            return true
        }
        for (reference, key) in found {
            try txn.delete(activity, key)
            try txn.delete(references, reference)
        }
        try txn.delete(references, ownerKey(post))
    }

    /// The key of the item a `PostRemoved` records in its author's feed (its id is the event's).
    func removalKey(of envelope: EventEnvelope, author: UserID) -> [UInt8] { Key.make(author.rawValue, envelope.id.rawValue) }

    /// The reference under which `envelope`'s activity item is recorded, for the events that
    /// record one to be found again (a comment, a like, a follow).
    private func reference(of envelope: EventEnvelope) -> [UInt8]? {
        switch envelope.event {
        case .commentAdded(let e): postPrefix(e.postId) + Array(("C" + e.commentId.rawValue).utf8)
        case .likeAdded(let e): postPrefix(e.postId) + Array(("L" + e.userId.rawValue).utf8)
        case .followed(let e): Key.make("f" + e.followeeId.rawValue, e.followerId.rawValue)
        // No other event records an item found again by a reference.
        default: nil
        }
    }

    /// The activity item `envelope` recorded, with its owner and id, if it recorded one that is
    /// still there (none for a comment on one's own post, or a like since removed).
    func recorded(by envelope: EventEnvelope, _ txn: Transaction) throws -> (owner: UserID, id: String, record: ActivityRecord)? {
        guard let reference = reference(of: envelope), let key = try txn.get(references, reference),
              let separator = key.firstIndex(of: 0), let value = try txn.get(activity, key) else { return nil }
        return (UserID(String(decoding: key[..<separator], as: UTF8.self)), String(decoding: key[(separator + 1)...], as: UTF8.self),
                try ActivityRecord(value))
    }

    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        let at = envelope.timestamp
        switch envelope.event {
        case .postAdded(let e):
            try txn.put(references, ownerKey(e.postId), Array(e.authorId.rawValue.utf8))
        case .postDeleted(let e):
            try forgetPost(e.postId, txn)
        case .postRemoved(let e):
            // Its comments and likes leave as with a deletion; the author learns why.
            try forgetPost(e.postId, txn)
            let item = ActivityRecord(kind: .removed, actor: nil, post: e.postId, comment: nil, at: at, reason: e.reason)
            try txn.put(activity, removalKey(of: envelope, author: e.authorId), item.encoded())
        case .commentAdded(let e):
            guard let owner = try owner(of: e.postId, txn), owner != e.authorId.rawValue else { return }
            try record(owner, id: e.commentId.rawValue, reference: reference(of: envelope)!,
                       ActivityRecord(kind: .comment, actor: e.authorId, post: e.postId, comment: e.commentId, at: at), txn)
        case .commentDeleted(let e):
            try forget(reference: postPrefix(e.postId) + Array(("C" + e.commentId.rawValue).utf8), txn)
        case .likeAdded(let e):
            guard let owner = try owner(of: e.postId, txn), owner != e.userId.rawValue else { return }
            try record(owner, id: envelope.id.rawValue, reference: reference(of: envelope)!,
                       ActivityRecord(kind: .like, actor: e.userId, post: e.postId, comment: nil, at: at), txn)
        case .likeRemoved(let e):
            try forget(reference: postPrefix(e.postId) + Array(("L" + e.userId.rawValue).utf8), txn)
        case .followed(let e):
            try record(e.followeeId.rawValue, id: envelope.id.rawValue, reference: reference(of: envelope)!,
                       ActivityRecord(kind: .follow, actor: e.followerId, post: nil, comment: nil, at: at), txn)
        case .unfollowed(let e):
            try forget(reference: Key.make("f" + e.followeeId.rawValue, e.followerId.rawValue), txn)
        case .userErased(let e):
            // Everything others did to them was undone by the events before this one; what
            // remains is their own feed.
            try txn.deleteAll(activity, prefix: Key.prefix(e.userId.rawValue))
        default:
            throw UnroutedEvent(projection: name, type: envelope.type)
        }
    }
}
