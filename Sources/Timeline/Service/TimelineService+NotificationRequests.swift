import LMDB
import TimelineDomain

/// A user's notification policy with what it holds now (`notificationPolicy(of:)`).
public struct NotificationPolicyView: Sendable, Equatable {
    /// What happens to notifications from accounts in each category.
    public var policy: NotificationPolicy
    /// How many notification requests are pending (accounts with notifications held).
    public var pendingRequests: Int
    /// How many notifications they hold together.
    public var pendingNotifications: Int
}

/// The notifications of one account held by the user's notification policy (Mastodon's
/// notification request): its id is the account's.
public struct NotificationRequest: Sendable, Equatable {
    /// The account whose notifications are held.
    public var account: UserID
    /// How many are held (those the user may see: none of a blocked or muted account's).
    public var count: Int
    /// When the oldest held one came (ms since 1970).
    public var createdAt: Int64
    /// When the newest held one came (ms since 1970).
    public var updatedAt: Int64
    /// The newest held notification.
    public var last: ActivityItem
}

extension TimelineService {
    /// `user`'s notification policy (Mastodon's defaults until they set one), with how many
    /// requests and notifications it holds now.
    public func notificationPolicy(of user: UserID) throws(TimelineError) -> NotificationPolicyView {
        try read { view in
            try view.requireUser(user)
            let requests = try view.notificationRequests(of: user)
            return NotificationPolicyView(
                policy: try view.models.activity.notificationPolicy(of: user, view.txn),
                pendingRequests: requests.count, pendingNotifications: requests.reduce(0) { $0 + $1.count })
        }
    }

    /// `user`'s notification requests, by account id descending (the cursor is an account id).
    public func notificationRequests(of user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError)
        -> Page<NotificationRequest>
    {
        let page = try page.validated()
        return try read { view in
            try view.requireUser(user)
            let all = try view.notificationRequests(of: user).reversed().filter { request in
                page.before.map { request.account.rawValue < $0 } ?? true
                    && page.after.map { request.account.rawValue > $0 } ?? true
            }
            let items = page.after == nil ? Array(all.prefix(page.limit)) : Array(all.suffix(page.limit))
            let more = page.after == nil && all.count > page.limit
            return Page(items: items, next: more ? items.last?.account.rawValue : nil)
        }
    }

    /// `user`'s notification request from `account` (`not_found` when none holds anything).
    public func notificationRequest(of user: UserID, from account: UserID) throws(TimelineError)
        -> NotificationRequest
    {
        try read { view in
            try view.requireUser(user)
            let items = try view.models.activity.heldItems(of: user, from: account, view.txn)
            guard let request = try view.notificationRequest(of: user, from: account, items: items) else {
                throw TimelineError(.notFound, "there is no notification request from \(account)")
            }
            return request
        }
    }
}

extension ReadView {
    /// `user`'s notification requests, in account order: those with a held item the privacy
    /// policy lets them see.
    func notificationRequests(of user: UserID) throws -> [NotificationRequest] {
        try models.activity.notificationRequests(of: user, txn).compactMap {
            try notificationRequest(of: user, from: $0.account, items: $0.items)
        }
    }

    /// The request of `items` (held from `account`), counting those `Privacy` would show were
    /// they not held; `nil` when none is.
    func notificationRequest(of user: UserID, from account: UserID, items: [String]) throws -> NotificationRequest? {
        let left = leftOut(try privacy(for: user), includingHeld: true)
        let present = Presenter(try privacy(for: nil))
        var shown: [(id: String, record: ActivityRecord)] = []
        for id in items {
            guard let record = try models.activity.activity.get((user, id), txn), try !left(record) else { continue }
            shown.append((id, record))
        }
        guard let first = shown.first, let newest = shown.max(by: { $0.id < $1.id }) else { return nil }
        return NotificationRequest(
            account: account, count: shown.count, createdAt: shown.map(\.record.at).min() ?? first.record.at,
            updatedAt: shown.map(\.record.at).max() ?? first.record.at,
            last: try present.activity(id: newest.id, newest.record))
    }
}
