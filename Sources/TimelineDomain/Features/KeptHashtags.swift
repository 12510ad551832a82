import JSONModel

// The hashtags a user keeps (#41): those they follow (Mastodon's followed tags: `followTag`
// records `TagFollowed`, `unfollowTag` records `TagUnfollowed`; a followed tag's public posts
// come into their home timeline, merged at read time: `ReadView.timeline(of:_:)`) and those
// they feature on their profile (Mastodon's featured tags: `featureTag`, `unfeatureTag`, shown
// with how many of their posts carry each). Both sets are decided one way: idempotent, as
// Mastodon's are (keeping a tag again changes nothing and appends nothing), and capped.

/// Payload of `TagFollowed`, `TagUnfollowed`, `TagFeatured` and `TagUnfeatured`: a hashtag a
/// user keeps in one of their sets (`HashtagSet`).
public struct UserHashtag: Equatable, Sendable {
    /// Whose set it is.
    public var userId: UserID
    /// The hashtag, as captions record it (lowercased, without `#`).
    public var tag: String
    /// A `UserHashtag` payload.
    public init(userId: UserID, tag: String) {
        self.userId = userId
        self.tag = tag
    }
}

/// A set of hashtags a user keeps, with what adding to it and taking from it record.
public enum HashtagSet: Sendable {
    /// The hashtags they follow.
    case followed
    /// The hashtags their profile features.
    case featured

    /// How many the set may hold: a followed tag is a source the home timeline merges at read
    /// time, so their number bounds a page's cost (Mastodon sets no limit); a profile features
    /// ten (Mastodon's limit).
    public var limit: Int {
        switch self {
        case .followed: 100
        case .featured: 10
        }
    }

    /// The verb of the set (`you can follow at most …`).
    var verb: String {
        switch self {
        case .followed: "follow"
        case .featured: "feature"
        }
    }

    func added(_ tag: UserHashtag) -> Event {
        switch self {
        case .followed: .tagFollowed(tag)
        case .featured: .tagFeatured(tag)
        }
    }

    func removed(_ tag: UserHashtag) -> Event {
        switch self {
        case .followed: .tagUnfollowed(tag)
        case .featured: .tagUnfeatured(tag)
        }
    }
}

extension UserHashtag: EventPayload {
    /// The aggregate `UserHashtag` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `UserHashtag` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `UserHashtag` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(tag)
    }

    /// Reads a stored `UserHashtag` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), tag: try r.string())
    }

    /// A one-line human summary of a `UserHashtag` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        let verb =
            switch type {
            case .tagFollowed: "followed"
            case .tagUnfollowed: "stopped following"
            case .tagFeatured: "featured"
            default: "stopped featuring"
            }
        return "\(name(userId)) \(verb) #\(tag)"
    }

    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .tagFollowed:
            "A user (userId) followed a hashtag (tag, lowercased, without #): its public posts come into their home timeline.",
        .tagUnfollowed: "A user (userId) stopped following a hashtag (tag).",
        .tagFeatured: "A user (userId) featured a hashtag (tag, lowercased, without #) on their profile.",
        .tagUnfeatured: "A user (userId) stopped featuring a hashtag (tag)."
    ]
}

extension Validation {
    /// A hashtag to follow or feature: with or without its `#`, one hashtag of letters, digits
    /// or `_`, as a caption would record it.
    public static func singleHashtag(_ raw: String) throws(TimelineError) -> String {
        let bare = raw.hasPrefix("#") ? String(raw.dropFirst()) : raw
        let tags = (try? hashtags(in: "#" + bare)) ?? []
        guard tags.count == 1, tags[0] == hashtag(bare) else {
            throw TimelineError.invalid("tag", "tag must be one hashtag: letters, digits or _")
        }
        return tags[0]
    }
}

extension Decider {
    /// Adds the hashtag `raw` (normalised as captions record it) to `me`'s `set`, or takes it
    /// out (`adding` false): nothing when it is there already, or not there; one more than the
    /// set's limit is `invalid_argument` (Mastodon's 422).
    func keep(_ raw: String, in set: HashtagSet, adding: Bool, by me: UserRecord) throws -> Decision {
        let tag = try Validation.singleHashtag(raw)
        let kept = try state.keeps(me.id, tag, in: set)
        guard kept != adding else { return Decision(outcome: .success(.changed(false))) }
        let payload = UserHashtag(userId: me.id, tag: tag)
        guard adding else { return Decision(events: [set.removed(payload)], outcome: .success(.changed(true))) }
        guard try state.keptHashtagCount(me.id, in: set) < set.limit else {
            throw TimelineError.invalid("tag", "you can \(set.verb) at most \(set.limit) hashtags")
        }
        return Decision(events: [set.added(payload)], outcome: .success(.changed(true)))
    }
}

extension DecisionState {
    /// Whether `user` keeps `tag` in their `set`.
    func keeps(_ user: UserID, _ tag: String, in set: HashtagSet) throws -> Bool {
        switch set {
        case .followed: try followsTag(user, tag)
        case .featured: try featuresTag(user, tag)
        }
    }

    /// How many hashtags `user` keeps in their `set`.
    func keptHashtagCount(_ user: UserID, in set: HashtagSet) throws -> Int {
        switch set {
        case .followed: try followedTagCount(user)
        case .featured: try featuredTagCount(user)
        }
    }
}

// MARK: - Commands

/// A command that adds a hashtag to one of the acting user's sets, or takes one out: its one
/// field is `tag`, a hashtag (not an identifier).
package protocol HashtagSetCommand: OneFieldCommand {
    /// The set it changes.
    static var set: HashtagSet { get }
    /// Whether it adds the tag (or takes it out).
    static var adds: Bool { get }
}

extension HashtagSetCommand {
    /// The field, `tag`.
    package static var field: String { "tag" }
    /// The field is a hashtag, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { [:] }
    /// Decides the command for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.keep(value, in: Self.set, adding: Self.adds, by: $0) }
    }
}

/// `followTag`: the acting user follows a hashtag (idempotent; at most 100).
package struct FollowTagCommand: HashtagSetCommand {
    /// The command's public name, `followTag`; it adds to the followed tags.
    package static let name = "followTag", set = HashtagSet.followed, adds = true
    /// The `tag` field, raw user input.
    package let value: String
    /// A `followTag` command naming `tag` `value`.
    package init(value: String) { self.value = value }
}

/// `unfollowTag`: the acting user stops following a hashtag (idempotent).
package struct UnfollowTagCommand: HashtagSetCommand {
    /// The command's public name, `unfollowTag`; it takes from the followed tags.
    package static let name = "unfollowTag", set = HashtagSet.followed, adds = false
    /// The `tag` field, raw user input.
    package let value: String
    /// An `unfollowTag` command naming `tag` `value`.
    package init(value: String) { self.value = value }
}

/// `featureTag`: features a hashtag on the acting user's profile (idempotent; at most 10).
package struct FeatureTagCommand: HashtagSetCommand {
    /// The command's public name, `featureTag`; it adds to the featured tags.
    package static let name = "featureTag", set = HashtagSet.featured, adds = true
    /// The `tag` field, raw user input.
    package let value: String
    /// A `featureTag` command naming `tag` `value`.
    package init(value: String) { self.value = value }
}

/// `unfeatureTag`: stops featuring a hashtag on the acting user's profile (idempotent).
package struct UnfeatureTagCommand: HashtagSetCommand {
    /// The command's public name, `unfeatureTag`; it takes from the featured tags.
    package static let name = "unfeatureTag", set = HashtagSet.featured, adds = false
    /// The `tag` field, raw user input.
    package let value: String
    /// An `unfeatureTag` command naming `tag` `value`.
    package init(value: String) { self.value = value }
}

extension Command {
    /// The acting user follows a hashtag: its public posts come into their home timeline.
    public static func followTag(tag: String) -> Command { Command(FollowTagCommand(value: tag)) }
    /// The acting user stops following a hashtag (idempotent).
    public static func unfollowTag(tag: String) -> Command { Command(UnfollowTagCommand(value: tag)) }
    /// Features a hashtag on the acting user's profile (idempotent; at most 10).
    public static func featureTag(tag: String) -> Command { Command(FeatureTagCommand(value: tag)) }
    /// Stops featuring a hashtag on the acting user's profile (idempotent).
    public static func unfeatureTag(tag: String) -> Command { Command(UnfeatureTagCommand(value: tag)) }
}
