import LMDB
import TimelineDomain

// Notification requests (Mastodon 4.3's notification filtering): the activity projection
// applies each user's notification policy as it records an item, holding those of accounts the
// policy filters (`ActivityRecord.filtered`, listed by account in `HeldItems`) and dropping
// those it drops; an accepted account's items are let through, a dismissed one's deleted.

extension ActivityRecord.Kind {
    /// Whether a notification policy may hold or drop items of this kind: Mastodon's filterable
    /// types (a mention, a favourite, a reblog, a follow, a follow request); a post one asked to be told
    /// of (`status`) and a moderators' removal are never held.
    var isFilterable: Bool {
        switch self {
        case .comment, .like, .boost, .follow, .mention, .reply, .followRequest: true
        case .removed, .post, .addedToCollection: false
        }
    }
}

extension ActivityProjection {
    /// `user`'s notification policy (`NotificationPolicy.standard` until they set one).
    func notificationPolicy(of user: UserID, _ txn: Transaction) throws -> NotificationPolicy {
        try policies.get(user, txn) ?? .standard
    }

    /// What `owner`'s notification policy does with `item` now: Mastodon's filter conditions
    /// (its sender not followed by the owner, not following the owner, or created less than 30
    /// days before the item, or a private mention: the mention of a direct message by someone
    /// the owner does not follow), unless the owner accepted the sender's notifications or the
    /// kind is never filtered. Limited accounts do not exist here.
    func policyAction(on item: ActivityRecord, for owner: UserID, _ txn: Transaction) throws
        -> NotificationFilterAction
    {
        guard let actor = item.actor, actor != owner, item.kind.isFilterable else { return .accept }
        let policy = try notificationPolicy(of: owner, txn)
        guard policy.filtersAnything, try !accepted.contains((owner, actor), txn) else { return .accept }
        let created = try profiles.user(actor, txn)?.createdAt
        let privateMention =
            try item.kind == .mention && item.comment == nil
            && item.post.map { try posts.post($0, txn)?.visibility == .direct } ?? false
        return policy.action(
            notFollowing: try !follows.follows(owner, actor, txn), notFollower: try !follows.follows(actor, owner, txn),
            newAccount: created.map { item.at - $0 < NotificationPolicy.newAccountAge } ?? false,
            privateMention: privateMention)
    }

    /// The items held in `user`'s request from `account`, by id, oldest first.
    func heldItems(of user: UserID, from account: UserID, _ txn: Transaction) throws -> [String] {
        var items: [String] = []
        let prefix = HeldItems.prefix(of: user, from: account)
        try txn.scan(references.database, prefix: prefix) { key, _ in
            items.append(String(decoding: key[prefix.count...], as: UTF8.self))
            return true
        }
        return items
    }

    /// The accounts `user` holds notifications from, each with its held items' ids (oldest
    /// first), in account order.
    func notificationRequests(of user: UserID, _ txn: Transaction) throws -> [(account: UserID, items: [String])] {
        var requests: [(account: UserID, items: [String])] = []
        let prefix = HeldItems.prefix(of: user)
        try txn.scan(references.database, prefix: prefix) { key, _ in
            let rest = key[prefix.count...]
            guard let separator = rest.firstIndex(of: 0) else { return true }
            let account = UserID(String(decoding: rest[..<separator], as: UTF8.self))
            let item = String(decoding: rest[(separator + 1)...], as: UTF8.self)
            if requests.last?.account == account {
                requests[requests.count - 1].items.append(item)
            } else {
                requests.append((account, [item]))
            }
            return true
        }
        return requests
    }

    /// Forgets everything of `user`'s notification filtering (they are erased).
    func forgetNotificationRequests(of user: UserID, _ txn: Transaction) throws {
        _ = try held.deleteAll(withPrefix: HeldItems.prefix(of: user), txn)
        _ = try accepted.deleteAll(withPrefix: AcceptedSenders.prefix(of: user), txn)
        try policies.delete(user, txn)
    }

    /// The handlers of the policy and of the answers to requests.
    func notificationRequestHandlers(_ handlers: inout EventHandlers) {
        let projection = self
        handlers.on(.notificationPolicySet) { (e: NotificationPolicySet, _, txn) in
            // It applies to what comes from now on: what it held stays held, as in Mastodon.
            try projection.policies.put(e.userId, e.policy, txn)
        }
        handlers.on(.notificationRequestAccepted) { (e: NotificationRequestAnswer, _, txn) in
            try projection.accepted.put((e.userId, e.accountId), (), txn)
            for item in try projection.heldItems(of: e.userId, from: e.accountId, txn) {
                if var record = try projection.activity.get((e.userId, item), txn) {
                    record.filtered = false
                    try projection.activity.put((e.userId, item), record, txn)
                }
                try projection.held.delete((e.userId, e.accountId, item), txn)
            }
        }
        handlers.on(.notificationRequestDismissed) { (e: NotificationRequestAnswer, _, txn) in
            // Their references stay until what they name is undone (forgetting what is gone is nothing).
            for item in try projection.heldItems(of: e.userId, from: e.accountId, txn) {
                try projection.activity.delete((e.userId, item), txn)
                try projection.held.delete((e.userId, e.accountId, item), txn)
            }
        }
    }
}

/// A user → their notification policy, `n‖user` (in the activity references' database).
enum NotificationPolicies: TableLayout {
    static func key(_ user: UserID) -> [UInt8] { Array(("n" + user.rawValue).utf8) }
    static func encode(_ policy: NotificationPolicy) -> [UInt8] { policy.bytes }
    static func decode(_ bytes: [UInt8]) throws -> NotificationPolicy {
        guard let policy = NotificationPolicy(bytes: bytes) else {
            throw CorruptRecord(message: "a damaged notification policy")
        }
        return policy
    }
}

/// `a‖user ‖ 0 ‖ account` → nothing: an account whose notifications the user accepted.
enum AcceptedSenders: TableLayout {
    static func key(_ entry: (UserID, UserID)) -> [UInt8] {
        CompositeKey.make("a" + entry.0.rawValue, entry.1.rawValue)
    }
    static func encode(_: Void) -> [UInt8] { [] }
    static func decode(_: [UInt8]) {}
    /// The prefix of `user`'s entries.
    static func prefix(of user: UserID) -> [UInt8] { CompositeKey.prefix("a" + user.rawValue) }
}

/// `h‖user ‖ 0 ‖ account ‖ 0 ‖ item` → nothing: an item of `user`'s activity held in the
/// notification request of `account`.
enum HeldItems: TableLayout {
    static func key(_ entry: (UserID, UserID, String)) -> [UInt8] {
        CompositeKey.make("h" + entry.0.rawValue, entry.1.rawValue, entry.2)
    }
    static func encode(_: Void) -> [UInt8] { [] }
    static func decode(_: [UInt8]) {}
    /// The prefix of every request of `user`.
    static func prefix(of user: UserID) -> [UInt8] { CompositeKey.prefix("h" + user.rawValue) }
    /// The prefix of `user`'s request from `account`.
    static func prefix(of user: UserID, from account: UserID) -> [UInt8] {
        CompositeKey.make("h" + user.rawValue, account.rawValue) + [0]
    }
}
