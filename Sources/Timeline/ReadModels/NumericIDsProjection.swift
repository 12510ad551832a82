import LMDB
import TimelineDomain

/// The numeric id of every object the Mastodon API shows (`NumericID`), assigned as the log
/// creates the object: the creating event's millisecond in the high 48 bits, the low 16 bits
/// of its log sequence number below. A pure function of each event, so a rebuild, a restored
/// backup, an import's replay and a cluster's second node give every object the same number,
/// and numbering one more kind of object later moves no other's. Within a kind's space
/// (statuses, accounts, notifications, …) two objects of one millisecond could only meet when
/// 65,536 events apart, or when one event makes two: the later then takes the next free
/// number. A number is never taken back (a deleted object keeps its entry), so none is reused.
struct NumericIDsProjection: Projection {
    let name = ProjectionName.numericIDs
    /// `kind ‖ native id` → BE(numeric id)
    let numbers: Table<NumberedObjects>
    /// `space ‖ BE(numeric id)` → `kind ‖ native id`
    let objects: Table<ObjectsByNumber>
    var databases: [Database] { [numbers.database, objects.database] }

    private(set) var handlers = EventHandlers()

    /// - Parameter notifying: the event types whose events may record a notification (the
    ///   activity projection's), each of which numbers its event as a notification.
    init(_ env: Environment, prefix: String, notifying: Set<EventType>) throws {
        numbers = try Table(env, prefix + "numberedObjects")
        objects = try Table(env, prefix + "objectsByNumber")
        handlers = Self.handlers(of: self, notifying: notifying)
    }

    /// The number of `object`, if the log made it.
    func number(of object: NumberedObject, _ txn: Transaction) throws -> NumericID? { try numbers.get(object, txn) }

    /// The object of `space` numbered `id`, if any.
    func object(_ space: NumberedObject.Space, numbered id: NumericID, _ txn: Transaction) throws -> NumberedObject? {
        try objects.get((space, id), txn)
    }

    /// Numbers `object` as made by the event at `sequence` and `timestamp`, unless it has a number.
    private func assign(_ object: NumberedObject, sequence: UInt64, timestamp: Int64, _ txn: Transaction) throws {
        guard try !numbers.contains(object, txn) else { return }
        var id = NumericID(milliseconds: timestamp, sequence: UInt16(truncatingIfNeeded: sequence))
        while try objects.contains((object.space, id), txn) { id = NumericID(id.value &+ 1) }
        try numbers.put(object, id, txn)
        try objects.put((object.space, id), object, txn)
    }

    private static func handlers(of projection: Self, notifying: Set<EventType>) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.onEnvelope(Set(creating).union(notifying)) { envelope, txn in
            var made = created(by: envelope.event)
            if notifying.contains(envelope.type) { made.append(.notification(envelope.id.rawValue)) }
            for object in made {
                try projection.assign(object, sequence: envelope.sequence, timestamp: envelope.timestamp, txn)
            }
            // A poll's end is a notification numbered at its end's millisecond (each setting of
            // the poll has its own), so it sorts there among the notifications.
            if case .pollSet(let e) = envelope.event {
                try projection.assign(
                    .notification(e.endItemID), sequence: envelope.sequence, timestamp: e.expiresAt, txn)
            }
        }
        return handlers
    }

    /// The event types that make an object the Mastodon API shows (`created(by:)`'s).
    static let creating: [EventType] = [
        .userCreated, .postAdded, .commentAdded, .mediaUploaded, .videoUploaded, .announcementAdded, .instanceRuleAdded,
        .appRegistered, .pushSubscribed, .filterSaved, .pollSet, .tagFeatured, .postBoosted, .listCreated,
        .collectionCreated, .collectionItemAdded,
        .postScheduled, .remoteAccountSeen
    ]

    /// The objects `event` makes. A comment is also the activity item its post's author gets
    /// (the one item named by its comment, not its event).
    static func created(by event: Event) -> [NumberedObject] {
        switch event {
        case .userCreated(let e): [.account(e.userId)]
        // Seen again when it changed: the same number (`assign` keeps the first).
        case .remoteAccountSeen(let e): [.account(e.userId)]
        // A post made before uploads (or imported) shows its photo as an attachment named by
        // the image: numbered with the post.
        // A direct post may open a conversation, numbered with it (only the first message's names one).
        case .postAdded(let e):
            [.post(e.postId)]
                + (e.media.isEmpty && !e.imageId.rawValue.isEmpty ? [.media(MediaID(e.imageId.rawValue))] : [])
                + (e.visibility == .direct ? [.conversation(ConversationID(e.postId.rawValue))] : [])
        case .commentAdded(let e): [.comment(e.commentId), .notification(e.commentId.rawValue)]
        case .mediaUploaded(let e): [.media(e.mediaId)]
        case .videoUploaded(let e): [.media(e.mediaId)]
        case .announcementAdded(let e): [.announcement(e.announcementId)]
        case .instanceRuleAdded(let e): [.rule(e.ruleId)]
        case .appRegistered(let e): [.app(e.appId)]
        case .pushSubscribed(let e): [.pushSubscription(e.sessionHash)]
        // A filter, each keyword and each filter status: numbered when first saved.
        case .filterSaved(let e):
            [.filter(e.filterId)] + e.keywords.map { .filterKeyword($0.id) } + e.statuses.map { .filterStatus($0.id) }
        case .pollSet(let e): [.poll(e.pollId)]
        // Featured again after it was dropped: the same number (`assign` keeps the first).
        case .tagFeatured(let e): [.featuredTag(user: e.userId, tag: e.tag)]
        // A boost is a status of its own: its own number, never its post's.
        case .postBoosted(let e): [.boost(e.boostId)]
        case .listCreated(let e): [.list(e.listId)]
        case .collectionCreated(let e): [.collection(e.collectionId)]
        case .collectionItemAdded(let e): [.collectionItem(e.itemId)]
        case .postScheduled(let e): [.scheduledPost(e.scheduleId)]
        default: []
        }
    }
}

/// What a numeric id names: an object of the Mastodon API, by its kind and native id.
public enum NumberedObject: Hashable, Sendable {
    /// An account (Mastodon's `Account.id`).
    case account(UserID)
    /// A post (a status).
    case post(PostID)
    /// A comment (a status replying to its post).
    case comment(CommentID)
    /// An uploaded photo (`MediaAttachment.id`).
    case media(MediaID)
    /// An activity item (a notification), by its id: the id of the event that recorded it, or
    /// of the comment made on one's post.
    case notification(String)
    /// An announcement of the operator's.
    case announcement(AnnouncementID)
    /// A rule of the instance's.
    case rule(RuleID)
    /// A registered OAuth app (`Application.id`).
    case app(String)
    /// A session's Web Push subscription (`WebPushSubscription.id`), by the session's hash.
    case pushSubscription(String)
    /// A user's filter (`Filter.id`).
    case filter(FilterID)
    /// A filter's keyword (`FilterKeyword.id`).
    case filterKeyword(String)
    /// A filter's post (`FilterStatus.id`).
    case filterStatus(String)
    /// A poll on a post (`Poll.id`).
    case poll(PollID)
    /// A hashtag featured on a profile (`Mastodon.FeaturedTag.id`): its native id is `user#tag`.
    case featuredTag(String)

    /// The featured hashtag `tag` of `user`.
    public static func featuredTag(user: UserID, tag: String) -> NumberedObject {
        .featuredTag("\(user.rawValue)#\(tag)")
    }
    /// A boost (a status of its own, whose `reblog` is the boosted post).
    case boost(PostID)
    /// A user's list (`List.id`).
    case list(ListID)
    /// A user's collection of accounts to feature (`Collection.id`).
    case collection(CollectionID)
    /// An account featured in a collection (`CollectionItem.id`).
    case collectionItem(CollectionItemID)
    /// A conversation of direct messages (`Conversation.id`).
    case conversation(ConversationID)
    /// A user's scheduled post (`ScheduledStatus.id`).
    case scheduledPost(ScheduledPostID)

    /// The ids one Mastodon answer's field may hold: posts and comments are both statuses.
    public enum Space: UInt8, Sendable {
        /// `Status.id`: posts, comments and boosts.
        case status = 0x73
        /// `Account.id`.
        case account = 0x61
        /// `MediaAttachment.id`.
        case media = 0x6D
        /// `Notification.id`.
        case notification = 0x6E
        /// `Announcement.id`.
        case announcement = 0x41
        /// `Rule.id`.
        case rule = 0x72
        /// `Application.id`.
        case app = 0x6F
        /// `WebPushSubscription.id`.
        case pushSubscription = 0x77
        /// `Filter.id`.
        case filter = 0x46
        /// `FilterKeyword.id`.
        case filterKeyword = 0x4B
        /// `FilterStatus.id`.
        case filterStatus = 0x53
        /// `Poll.id`.
        case poll = 0x50
        /// `Mastodon.FeaturedTag.id`.
        case featuredTag = 0x66
        /// `List.id`.
        case list = 0x6C
        /// `Collection.id`.
        case collection = 0x43
        /// `CollectionItem.id`.
        case collectionItem = 0x49
        /// `Conversation.id`.
        case conversation = 0x63
        /// `ScheduledStatus.id`.
        case scheduledPost = 0x74
    }

    /// The space the object's number is unique in.
    public var space: Space {
        switch self {
        case .post, .comment, .boost: .status
        case .account: .account
        case .media: .media
        case .notification: .notification
        case .announcement: .announcement
        case .rule: .rule
        case .app: .app
        case .pushSubscription: .pushSubscription
        case .filter: .filter
        case .filterKeyword: .filterKeyword
        case .filterStatus: .filterStatus
        case .poll: .poll
        case .featuredTag: .featuredTag
        case .list: .list
        case .collection: .collection
        case .collectionItem: .collectionItem
        case .conversation: .conversation
        case .scheduledPost: .scheduledPost
        }
    }

    /// The kinds by name, as the `mastodonId` query takes them.
    public static let kinds = [
        "account", "post", "comment", "media", "notification", "announcement", "rule", "app", "pushSubscription",
        "filter", "filterKeyword", "filterStatus", "poll", "featuredTag", "boost", "list",
        "collection", "collectionItem", "conversation",
        "scheduledPost"
    ]

    /// The object of kind `kind` (one of `kinds`) with the native id `id`; nil for another kind.
    public init?(kind: String, id: String) {
        switch kind {
        case "account": self = .account(UserID(id))
        case "post": self = .post(PostID(id))
        case "comment": self = .comment(CommentID(id))
        case "media": self = .media(MediaID(id))
        case "notification": self = .notification(id)
        case "announcement": self = .announcement(AnnouncementID(id))
        case "rule": self = .rule(RuleID(id))
        case "app": self = .app(id)
        case "pushSubscription": self = .pushSubscription(id)
        case "filter": self = .filter(FilterID(id))
        case "filterKeyword": self = .filterKeyword(id)
        case "filterStatus": self = .filterStatus(id)
        case "poll": self = .poll(PollID(id))
        case "featuredTag": self = .featuredTag(id)
        case "boost": self = .boost(PostID(id))
        case "list": self = .list(ListID(id))
        case "collection": self = .collection(CollectionID(id))
        case "collectionItem": self = .collectionItem(CollectionItemID(id))
        case "conversation": self = .conversation(ConversationID(id))
        case "scheduledPost": self = .scheduledPost(ScheduledPostID(id))
        default: return nil
        }
    }

    /// The native id (`/v1`'s).
    public var nativeID: String { String(decoding: key.dropFirst(), as: UTF8.self) }

    /// The kind's byte and the native id, as keys store them.
    fileprivate var key: [UInt8] {
        let (kind, id): (UInt8, String) =
            switch self {
            case .account(let id): (0x61, id.rawValue)
            case .post(let id): (0x70, id.rawValue)
            case .comment(let id): (0x63, id.rawValue)
            case .media(let id): (0x6D, id.rawValue)
            case .notification(let id): (0x6E, id)
            case .announcement(let id): (0x41, id.rawValue)
            case .rule(let id): (0x72, id.rawValue)
            case .app(let id): (0x6F, id)
            case .pushSubscription(let id): (0x77, id)
            case .filter(let id): (0x46, id.rawValue)
            case .filterKeyword(let id): (0x4B, id)
            case .filterStatus(let id): (0x53, id)
            case .poll(let id): (0x50, id.rawValue)
            case .featuredTag(let id): (0x66, id)
            case .boost(let id): (0x62, id.rawValue)
            case .list(let id): (0x6C, id.rawValue)
            case .collection(let id): (0x43, id.rawValue)
            case .collectionItem(let id): (0x49, id.rawValue)
            case .conversation(let id): (0x64, id.rawValue)
            case .scheduledPost(let id): (0x74, id.rawValue)
            }
        return [kind] + Array(id.utf8)
    }

    fileprivate init(key: [UInt8]) throws {
        guard let kind = key.first else { throw CorruptRecord(message: "an empty numbered object") }
        let id = String(decoding: key.dropFirst(), as: UTF8.self)
        switch kind {
        case 0x61: self = .account(UserID(id))
        case 0x70: self = .post(PostID(id))
        case 0x63: self = .comment(CommentID(id))
        case 0x6D: self = .media(MediaID(id))
        case 0x6E: self = .notification(id)
        case 0x41: self = .announcement(AnnouncementID(id))
        case 0x72: self = .rule(RuleID(id))
        case 0x6F: self = .app(id)
        case 0x77: self = .pushSubscription(id)
        case 0x46: self = .filter(FilterID(id))
        case 0x4B: self = .filterKeyword(id)
        case 0x53: self = .filterStatus(id)
        case 0x50: self = .poll(PollID(id))
        case 0x66: self = .featuredTag(id)
        case 0x62: self = .boost(PostID(id))
        case 0x6C: self = .list(ListID(id))
        case 0x43: self = .collection(CollectionID(id))
        case 0x49: self = .collectionItem(CollectionItemID(id))
        case 0x64: self = .conversation(ConversationID(id))
        case 0x74: self = .scheduledPost(ScheduledPostID(id))
        default: throw CorruptRecord(message: "an unknown kind of numbered object")
        }
    }
}

/// `kind ‖ native id` → BE(numeric id)
enum NumberedObjects: TableLayout {
    static func key(_ object: NumberedObject) -> [UInt8] { object.key }
    static func encode(_ id: NumericID) -> [UInt8] { BigEndian.bytes(id.value) }
    static func decode(_ bytes: [UInt8]) throws -> NumericID {
        guard let value = BigEndian.uint64(bytes) else { throw CorruptRecord(message: "a damaged numeric id") }
        return NumericID(value)
    }
}

/// `space ‖ BE(numeric id)` → `kind ‖ native id`
enum ObjectsByNumber: TableLayout {
    static func key(_ key: (space: NumberedObject.Space, id: NumericID)) -> [UInt8] {
        [key.space.rawValue] + BigEndian.bytes(key.id.value)
    }
    static func encode(_ object: NumberedObject) -> [UInt8] { object.key }
    static func decode(_ bytes: [UInt8]) throws -> NumberedObject { try NumberedObject(key: bytes) }
}
