import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// Grouped notifications (`/api/v2/notifications`, Mastodon 4.3): the same activity items as
/// `/api/v1/notifications`, read through the same privacy policy (a blocked or muted account's
/// items never reach here), gathered into groups at read time. Nothing is stored: an item's
/// group key is a function of the item alone. Likes of one post (`favourite`) and follows are
/// grouped by the hour they happened in — `favourite-<status>-<hour>` and `follow-<hour>`, the
/// hour counted from 1970 (Mastodon lets a group it keeps in Redis run on for up to 12 hours; a
/// fixed hour needs no state and gives the same key to every read) — and every other item is
/// `ungrouped-<id>`, as are those whose type `grouped_types[]` leaves out.
///
/// A page of `limit` groups is read newest first: items are taken until one would start group
/// `limit + 1`, and each group counts the items of it the page holds (`notifications_count`,
/// `page_min_id`, `page_max_id`), as Mastodon counts within the page's range. The `next` link
/// continues below the page's oldest item, so a group cut by it goes on, under the same key,
/// on the next page (clients merge groups by key).
extension MastodonAPI {
    static let groupedNotificationRoutes: [Route] = [
        now(
            "GET", "/api/v2/notifications", scope: "read:notifications",
            doc: .init(
                "The bearer's notifications in groups, newest first.", returns: .groupedNotifications,
                query: ["types[]", "exclude_types[]", "grouped_types[]", "account_id", "expand_accounts"],
                paged: true)
        ) { api, request, entities in
            try api.mastodonGroupedNotifications(request, entities)
        },
        now(
            "GET", "/api/v2/notifications/unread_count", scope: "read:notifications",
            doc: .init(
                "How many groups of notifications are unread (at most `limit`, 100 by default, 1000 at most).",
                returns: .count, query: ["limit", "types[]", "exclude_types[]", "grouped_types[]", "account_id"])
        ) { api, request, entities in
            try api.mastodonUnreadGroups(request, entities)
        },
        now(
            "GET", "/api/v2/notifications/{group_key}", scope: "read:notifications",
            doc: .init("One group of notifications, whole.", returns: .groupedNotifications)
        ) { api, request, entities in
            let me = try request.requireViewer()
            let group = try api.mastodonGroup(request.parameters["group_key"] ?? "", viewer: me, entities)
            let reader = GroupedNotificationReader(api: api, viewer: me, entities: entities)
            return Responses.entity(200, try reader.results(group, partial: false, paged: false))
        },
        now(
            "GET", "/api/v2/notifications/{group_key}/accounts", scope: "read:notifications",
            doc: .init("The accounts of a group's notifications, the latest first.", returns: .accounts)
        ) { api, request, entities in
            let me = try request.requireViewer()
            let groups = try api.mastodonGroup(request.parameters["group_key"] ?? "", viewer: me, entities)
            var seen: Set<UserID> = [], accounts: [Mastodon.Account] = []
            for entry in groups.flatMap(\.entries) where seen.insert(entry.actor.id).inserted {
                accounts.append(try entities.account(entry.actor))
            }
            return Responses.entity(200, accounts)
        },
        later(
            "POST", "/api/v2/notifications/{group_key}/dismiss", scope: "write:notifications",
            doc: .init("Dismisses every notification of a group.", returns: .empty)
        ) { api, request, entities in
            let me = try request.requireViewer()
            let groups = try api.mastodonGroup(request.parameters["group_key"] ?? "", viewer: me, entities)
            for entry in groups.flatMap(\.entries) {
                _ = try await api.execute(.dismissActivity(item: entry.item.id), request)
            }
            return Responses.entity(200, Mastodon.Empty())
        }
    ]
}

extension Mastodon {
    /// A page of grouped notifications (Mastodon's `GroupedNotificationsResults`): the groups,
    /// and the accounts and statuses they name, each once.
    struct GroupedNotificationsResults: Codable, Sendable {
        var accounts: [Account]
        /// Only with `expand_accounts=partial_avatars`: the sample accounts not in `accounts`.
        var partial_accounts: [PartialAccountWithAvatar]?
        var statuses: [Status]
        var notification_groups: [NotificationGroup]
    }

    /// Notifications of one kind about one thing, gathered (Mastodon's `NotificationGroup`).
    struct NotificationGroup: Codable, Sendable {
        var group_key: String
        var notifications_count: Int
        var type: NotificationType
        /// A string, as Mastodon's own documentation and clients have it (its OpenAPI
        /// document says integer; Timeline's ids are not numbers).
        var most_recent_notification_id: String
        var page_min_id: String?
        var page_max_id: String?
        var latest_page_notification_at: String?
        var sample_account_ids: [String]
        var status_id: String?
        /// The collection the bearer was featured in (`added_to_collection` only; absent otherwise).
        var collection: Collection? = nil
    }

    /// An account as an avatar and a name (`expand_accounts=partial_avatars`).
    struct PartialAccountWithAvatar: Codable, Sendable {
        var id: String
        var acct: String
        var url: String
        var avatar: String
        var avatar_static: String
        var locked: Bool
        var bot: Bool
    }

    /// A count (`{"count": n}`).
    struct CountResponse: Codable, Sendable {
        var count: Int
    }
}

/// One notification as a group sees it: the item, its actor and its status.
struct GroupedEntry {
    /// The activity item.
    var item: ActivityItem
    /// Its Mastodon type.
    var type: Mastodon.NotificationType
    /// Who did it.
    var actor: Profile
    /// The status it is about, if any.
    var status: Mastodon.Status?
    /// The collection it is about (`added_to_collection`), if any.
    var collection: Mastodon.Collection? = nil
}

/// A group being read: its key and its entries, newest first.
struct GroupedBucket {
    /// The group key.
    var key: String
    /// Its entries, newest first.
    var entries: [GroupedEntry]
}

/// Reads the viewer's activity items as `GroupedEntry`s, looking each actor and status up once.
final class GroupedNotificationReader {
    /// How many items one read of the activity takes.
    static let chunk = 100
    /// How many accounts a group names (`sample_account_ids`), as Mastodon.
    static let samples = 8
    /// The span of a group of likes or follows, in milliseconds.
    static let window: Int64 = 3_600_000

    let api: TimelineAPI
    let viewer: UserID
    let entities: MastodonEntities
    private var profiles: [UserID: Profile?] = [:]
    private var statuses: [String: Mastodon.Status?] = [:]
    /// The viewer's notification filters, read once.
    private var filters: FilterMatching?
    /// The statuses (`c`/`p` and the id) a hide filter left out: their notifications go too.
    private var hidden: Set<String> = []

    /// What the viewer's notification filters make of the status `id`, `text`, by `author`.
    private func filtered(_ id: String, text: String, author: UserID) throws(TimelineError) -> FilterVerdict {
        if filters == nil { filters = try api.service.filterMatching(viewer: viewer, context: .notifications) }
        guard let filters, !filters.isEmpty, author != viewer else { return FilterVerdict(matches: []) }
        return filters.verdict(postId: id, text: text)
    }

    init(api: TimelineAPI, viewer: UserID, entities: MastodonEntities) {
        self.api = api
        self.viewer = viewer
        self.entities = entities
    }

    /// The group key of an item of `type`: likes of one post and follows by the hour, unless
    /// `grouped` leaves their type out; anything else alone.
    static func key(_ item: ActivityItem, type: Mastodon.NotificationType, grouped: Set<String>, ids: MastodonIDs)
        throws(TimelineError) -> String
    {
        let hour = item.at / window
        switch item.kind {
        case .like where grouped.contains("favourite"):
            if let post = item.post { return "favourite-\(try ids.id(.post(post)))-\(hour)" }
        case .follow where grouped.contains("follow"): return "follow-\(hour)"
        default: break
        }
        return "ungrouped-\(try ids.id(.notification(item.id)))"
    }

    /// The item as an entry, or nil when its actor or what it is about is gone from sight (as
    /// `mastodonNotification` leaves it out).
    func entry(_ item: ActivityItem) throws(TimelineError) -> GroupedEntry? {
        guard let type = item.kind.mastodonType.flatMap(Mastodon.NotificationType.init), let actorID = item.actor,
            let actor = try profile(actorID)
        else { return nil }
        var status: Mastodon.Status?
        if let comment = item.comment { status = try commentStatus(comment) }
        if let comment = item.comment, hidden.contains("c" + comment.rawValue) { return nil }
        if status == nil, let post = item.post { status = try postStatus(post) }
        if item.post != nil, status == nil { return nil }
        // The collection one was featured in, as one sees it now (gone: no notification).
        var collection: Mastodon.Collection?
        if let id = item.collection {
            guard
                let view = try mastodonFind({ () throws(TimelineError) in
                    try api.service.collection(id, viewer: viewer)
                })
            else { return nil }
            collection = try MastodonAPI.collection(view, entities)
        }
        return GroupedEntry(item: item, type: type, actor: actor, status: status, collection: collection)
    }

    private func profile(_ id: UserID) throws(TimelineError) -> Profile? {
        if let known = profiles[id] { return known }
        let found = try mastodonFind { () throws(TimelineError) in try api.service.user(id, viewer: viewer) }
        profiles[id] = found
        return found
    }

    private func commentStatus(_ id: CommentID) throws(TimelineError) -> Mastodon.Status? {
        let key = "c" + id.rawValue
        if let known = statuses[key] { return known }
        var status: Mastodon.Status?
        if let comment = try mastodonFind({ () throws(TimelineError) in try api.service.comment(id, viewer: viewer) }),
            let author = try profile(comment.author)
        {
            // A hide filter leaves the notification out; warn and blur mark its status.
            let verdict = try filtered(comment.id.rawValue, text: comment.text, author: comment.author)
            if verdict.hidden { hidden.insert(key) }
            if !verdict.hidden {
                status = try entities.status(comment, author: author)
                if !verdict.matches.isEmpty { status?.filtered = try entities.filterResults(verdict.shown) }
            }
        }
        statuses[key] = status
        return status
    }

    private func postStatus(_ id: PostID) throws(TimelineError) -> Mastodon.Status? {
        let key = "p" + id.rawValue
        if let known = statuses[key] { return known }
        var status: Mastodon.Status?
        if let detail = try mastodonFind({ () throws(TimelineError) in
            try api.service.post(id, viewer: viewer, comments: PageRequest(limit: 1))
        }), let author = try profile(detail.post.author) {
            let verdict = try filtered(
                detail.post.id.rawValue, text: detail.post.searchableText, author: detail.post.author)
            if verdict.hidden { hidden.insert(key) }
            if !verdict.hidden {
                status = try entities.status(detail.post, author: author)
                if !verdict.matches.isEmpty { status?.filtered = try entities.filterResults(verdict.shown) }
            }
        }
        statuses[key] = status
        return status
    }

    /// Reads the activity of `kinds` newest first from below `before` (to `after`, exclusive),
    /// handing each item to `visit` until it answers false or the items run out.
    func descending(
        _ kinds: Set<ActivityItem.Kind>, before: String?, after: String? = nil,
        _ visit: (ActivityItem) throws(TimelineError) -> Bool
    ) throws(TimelineError) {
        var cursor = before
        while true {
            let page = try api.service.activity(
                of: viewer, PageRequest(limit: Self.chunk, before: cursor), kinds: kinds)
            for item in page.items {
                if let after, item.id <= after { return }
                guard try visit(item) else { return }
            }
            guard let next = page.next, !page.items.isEmpty else { return }
            cursor = next
        }
    }

    /// Reads the activity of `kinds` oldest first from above `after` (up to `before`,
    /// exclusive), handing each item to `visit` until it answers false or the items run out.
    func ascending(
        _ kinds: Set<ActivityItem.Kind>, after: String, before: String?,
        _ visit: (ActivityItem) throws(TimelineError) -> Bool
    ) throws(TimelineError) {
        var cursor = after
        while true {
            let request = PageRequest(limit: Self.chunk, before: before, after: cursor)
            let items = try api.service.activity(of: viewer, request, kinds: kinds).items.sorted { $0.id < $1.id }
            for item in items { guard try visit(item) else { return } }
            guard items.count == Self.chunk, let last = items.last else { return }
            cursor = last.id
        }
    }

    /// The groups as Mastodon's results: with `paged`, each group's page fields; with
    /// `partial`, only each group's latest account in full and the other samples partial.
    func results(_ groups: [GroupedBucket], partial: Bool, paged: Bool) throws(TimelineError)
        -> Mastodon.GroupedNotificationsResults
    {
        var accounts: [Mastodon.Account] = [], full: Set<UserID> = [], sampled: [Profile] = []
        var statusList: [Mastodon.Status] = [], statusIDs: Set<String> = []
        var out: [Mastodon.NotificationGroup] = []
        for group in groups {
            guard let newest = group.entries.first, let oldest = group.entries.last else { continue }
            var samples: [Profile] = [], seen: Set<UserID> = []
            for entry in group.entries where samples.count < Self.samples && seen.insert(entry.actor.id).inserted {
                samples.append(entry.actor)
            }
            for (index, sample) in samples.enumerated() {
                if index == 0 || !partial {
                    if full.insert(sample.id).inserted { accounts.append(try entities.account(sample)) }
                } else {
                    sampled.append(sample)
                }
            }
            if let status = newest.status, statusIDs.insert(status.id).inserted { statusList.append(status) }
            out.append(
                Mastodon.NotificationGroup(
                    group_key: group.key, notifications_count: group.entries.count, type: newest.type,
                    most_recent_notification_id: try entities.ids.id(.notification(newest.item.id)),
                    page_min_id: paged ? try entities.ids.id(.notification(oldest.item.id)) : nil,
                    page_max_id: paged ? try entities.ids.id(.notification(newest.item.id)) : nil,
                    latest_page_notification_at: paged ? JSONOutput.timestamp(newest.item.at) : nil,
                    sample_account_ids: try samples.map { sample throws(TimelineError) in
                        try entities.ids.id(.account(sample.id))
                    }, status_id: newest.status?.id, collection: newest.collection))
        }
        var partials: [Mastodon.PartialAccountWithAvatar] = [], partialIDs: Set<UserID> = []
        for profile in sampled where !full.contains(profile.id) && partialIDs.insert(profile.id).inserted {
            let account = try entities.account(profile)
            partials.append(
                Mastodon.PartialAccountWithAvatar(
                    id: account.id, acct: account.acct, url: account.url, avatar: account.avatar,
                    avatar_static: account.avatar_static, locked: account.locked, bot: account.bot))
        }
        return Mastodon.GroupedNotificationsResults(
            accounts: accounts, partial_accounts: partial ? partials : nil, statuses: statusList,
            notification_groups: out)
    }
}

/// The filters of a grouped read: which kinds, which types group, whose items.
struct GroupedFilter {
    /// The activity kinds asked for.
    var kinds: Set<ActivityItem.Kind>
    /// The types that may group.
    var grouped: Set<String>
    /// Only this account's items, if set.
    var account: UserID?

    /// The filters of `params` (`types[]`, `exclude_types[]`, `grouped_types[]`, `account_id`).
    init(_ params: MastodonParams, ids: MastodonIDs) throws(TimelineError) {
        let known = Set(ActivityItem.Kind.allCases.filter { $0.mastodonType != nil })
        let wanted = params.list("types"), excluded = Set(params.list("exclude_types"))
        var kinds = wanted.isEmpty ? known : known.filter { wanted.contains($0.mastodonType ?? "") }
        kinds = kinds.filter { !excluded.contains($0.mastodonType ?? "") }
        self.kinds = kinds
        let groupedTypes = params.list("grouped_types")
        grouped = groupedTypes.isEmpty ? ["favourite", "follow", "reblog"] : Set(groupedTypes)
        account = try params.string("account_id").map { raw throws(TimelineError) in try ids.user(raw) }
    }

    /// Whether `entry` passes the account filter.
    func admits(_ entry: GroupedEntry) -> Bool { account.map { entry.actor.id == $0 } ?? true }
}

extension TimelineAPI {
    /// `GET /api/v2/notifications`: a page of `limit` groups (40 by default, 80 at most).
    func mastodonGroupedNotifications(_ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError)
        -> HTTPResponse
    {
        let me = try request.requireViewer()
        let params = try MastodonParams(request.http)
        let filter = try GroupedFilter(params, ids: entities.ids)
        let (limit, bounds) = try mastodonPaging(request, defaultLimit: 40, maxLimit: 80)
        let maxID = try entities.ids.cursor(bounds.maxID, in: .notification, name: "max_id")
        let sinceID = try entities.ids.cursor(bounds.sinceID, in: .notification, name: "since_id")
        let minID = try entities.ids.cursor(bounds.minID, in: .notification, name: "min_id")
        let expand = params.string("expand_accounts") ?? "full"
        guard expand == "full" || expand == "partial_avatars" else {
            throw TimelineError.invalid("expand_accounts", "expand_accounts must be full or partial_avatars")
        }
        let reader = GroupedNotificationReader(api: self, viewer: me, entities: entities)
        var order: [String] = [], groups: [String: [GroupedEntry]] = [:]
        var items: [ActivityItem] = []
        // Takes one item; false once it would start one group too many.
        let take = { (item: ActivityItem) throws(TimelineError) -> Bool in
            guard let entry = try reader.entry(item), filter.admits(entry) else {
                items.append(item)
                return true
            }
            let key = try GroupedNotificationReader.key(
                item, type: entry.type, grouped: filter.grouped, ids: entities.ids)
            if groups[key] == nil {
                guard order.count < limit else { return false }
                order.append(key)
            }
            groups[key, default: []].append(entry)
            items.append(item)
            return true
        }
        if !filter.kinds.isEmpty {
            if let minID {
                try reader.ascending(filter.kinds, after: minID, before: maxID, take)
            } else {
                try reader.descending(filter.kinds, before: maxID, after: sinceID, take)
            }
        }
        var buckets = order.map { key in
            GroupedBucket(key: key, entries: (groups[key] ?? []).sorted { $0.item.id > $1.item.id })
        }
        buckets.sort { ($0.entries.first?.item.id ?? "") > ($1.entries.first?.item.id ?? "") }
        let results = try reader.results(buckets, partial: expand == "partial_avatars", paged: true)
        // `next` continues below the oldest item read, `prev` above the newest.
        var links: [String] = []
        let path = entities.base + request.http.path
        let ids = items.map(\.id)
        if let oldest = ids.min() {
            links.append("<\(path)?limit=\(limit)&max_id=\(try entities.ids.id(.notification(oldest)))>; rel=\"next\"")
        }
        if let newest = ids.max() {
            links.append("<\(path)?limit=\(limit)&min_id=\(try entities.ids.id(.notification(newest)))>; rel=\"prev\"")
        }
        return Responses.entity(200, results, headers: links.isEmpty ? [] : [("Link", links.joined(separator: ", "))])
    }

    /// `GET /api/v2/notifications/unread_count`: the groups above the read marker, counted up to `limit`.
    func mastodonUnreadGroups(_ request: APIRequest, _ entities: MastodonEntities) throws(TimelineError)
        -> HTTPResponse
    {
        let me = try request.requireViewer()
        let params = try MastodonParams(request.http)
        let filter = try GroupedFilter(params, ids: entities.ids)
        let limit = try params.limit(default: 100, max: 1000)
        let reader = GroupedNotificationReader(api: self, viewer: me, entities: entities)
        var keys: Set<String> = []
        if !filter.kinds.isEmpty {
            try reader.descending(filter.kinds, before: nil, after: try service.activityMarker(of: me)) {
                item throws(TimelineError) in
                guard let entry = try reader.entry(item), filter.admits(entry) else { return true }
                keys.insert(
                    try GroupedNotificationReader.key(
                        item, type: entry.type, grouped: filter.grouped, ids: entities.ids))
                return keys.count < limit
            }
        }
        return Responses.entity(200, Mastodon.CountResponse(count: keys.count))
    }

    /// The group `key` names, whole (one bucket), or `notFound` when it has no item the viewer
    /// may see: `ungrouped-<id>` is that item; a likes or follows key is read over its hour.
    func mastodonGroup(_ key: String, viewer: UserID, _ entities: MastodonEntities) throws(TimelineError)
        -> [GroupedBucket]
    {
        let reader = GroupedNotificationReader(api: self, viewer: viewer, entities: entities)
        let parts = key.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        var entries: [GroupedEntry] = []
        let grouped: Set<String> = ["favourite", "follow"]
        if key.hasPrefix("ungrouped-") {
            let id = try entities.ids.notification(String(key.dropFirst("ungrouped-".count)))
            guard let item = try service.activity(of: viewer, PageRequest(limit: 1, before: id + "~")).items.first,
                item.id == id, let entry = try reader.entry(item)
            else { throw TimelineError(.notFound, "Record not found") }
            entries = [entry]
        } else if parts.count >= 2, ["favourite", "follow"].contains(parts[0]), let hour = Int64(parts.last ?? ""),
            hour >= 0, hour < Int64.max / GroupedNotificationReader.window - 1
        {
            let start = hour * GroupedNotificationReader.window, end = start + GroupedNotificationReader.window
            let kinds: Set<ActivityItem.Kind> = parts[0] == "follow" ? [.follow] : [.like]
            try reader.descending(kinds, before: PushIDGenerator.timePrefix(of: end), after: nil) {
                item throws(TimelineError) in
                guard item.at >= start else { return false }
                if let entry = try reader.entry(item),
                    try GroupedNotificationReader.key(item, type: entry.type, grouped: grouped, ids: entities.ids)
                        == key
                {
                    entries.append(entry)
                }
                return true
            }
        }
        guard !entries.isEmpty else { throw TimelineError(.notFound, "Record not found") }
        return [GroupedBucket(key: key, entries: entries)]
    }

}
