import JSONModel

// Featured hashtags (#41, Mastodon's featured tags): `featureTag` records `TagFeatured`,
// `unfeatureTag` records `TagUnfeatured` (both idempotent); at most `FeaturedTag.maxTags` per
// user, shown on their profile with how many of their posts carry each.

/// Payload of `TagFeatured` and `TagUnfeatured`: a hashtag a user features on their profile.
public struct FeaturedTag: Equatable, Sendable {
    /// Whose profile features it.
    public var userId: UserID
    /// The hashtag, as captions record it (lowercased, without `#`).
    public var tag: String
    /// A `FeaturedTag` payload.
    public init(userId: UserID, tag: String) {
        self.userId = userId
        self.tag = tag
    }

    /// How many hashtags one profile may feature (Mastodon's limit).
    public static let maxTags = 10
}

extension FeaturedTag: EventPayload {
    /// The aggregate `FeaturedTag` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `FeaturedTag` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `FeaturedTag` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(tag)
    }

    /// Reads a stored `FeaturedTag` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), tag: try r.string())
    }

    /// A one-line human summary of a `FeaturedTag` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) \(type == .tagFeatured ? "featured" : "stopped featuring") #\(tag)"
    }

    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .tagFeatured: "A user (userId) featured a hashtag (tag, lowercased, without #) on their profile.",
        .tagUnfeatured: "A user (userId) stopped featuring a hashtag (tag)."
    ]
}

extension Validation {
    /// A hashtag to feature: with or without its `#`, one hashtag of letters, digits or `_`,
    /// as a caption would record it.
    public static func featuredTag(_ raw: String) throws(TimelineError) -> String {
        let bare = raw.hasPrefix("#") ? String(raw.dropFirst()) : raw
        let tags = (try? hashtags(in: "#" + bare)) ?? []
        guard tags.count == 1, tags[0] == hashtag(bare) else {
            throw TimelineError.invalid("tag", "tag must be one hashtag: letters, digits or _")
        }
        return tags[0]
    }
}

extension Decider {
    /// Features `raw` on `me`'s profile: an eleventh is `invalid_argument` (Mastodon's 422).
    func featureTag(_ raw: String, by me: UserRecord) throws -> Decision {
        let tag = try Validation.featuredTag(raw)
        if try state.featuresTag(me.id, tag) { return Decision(outcome: .success(.changed(false))) }
        guard try state.featuredTagCount(me.id) < FeaturedTag.maxTags else {
            throw TimelineError.invalid("tag", "you can feature at most \(FeaturedTag.maxTags) hashtags")
        }
        return Decision(
            events: [.tagFeatured(FeaturedTag(userId: me.id, tag: tag))], outcome: .success(.changed(true)))
    }

    /// Stops featuring `raw` (nothing when it is not featured).
    func unfeatureTag(_ raw: String, by me: UserRecord) throws -> Decision {
        let tag = try Validation.featuredTag(raw)
        let featured = try state.featuresTag(me.id, tag)
        return Decision(
            events: featured ? [.tagUnfeatured(FeaturedTag(userId: me.id, tag: tag))] : [],
            outcome: .success(.changed(featured)))
    }
}

// MARK: - Commands

/// `featureTag`: features a hashtag on the acting user's profile (idempotent; at most 10).
package struct FeatureTagCommand: OneFieldCommand {
    /// The command's public name, `featureTag`, and its one field, `tag`.
    package static let name = "featureTag", field = "tag"
    /// The field is a hashtag, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { [:] }
    /// The `tag` field, raw user input.
    package let value: String
    /// A `featureTag` command naming `tag` `value`.
    package init(value: String) { self.value = value }
    /// Decides `featureTag` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.featureTag(value, by: $0) }
    }
}

/// `unfeatureTag`: stops featuring a hashtag on the acting user's profile (idempotent).
package struct UnfeatureTagCommand: OneFieldCommand {
    /// The command's public name, `unfeatureTag`, and its one field, `tag`.
    package static let name = "unfeatureTag", field = "tag"
    /// The field is a hashtag, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { [:] }
    /// The `tag` field, raw user input.
    package let value: String
    /// An `unfeatureTag` command naming `tag` `value`.
    package init(value: String) { self.value = value }
    /// Decides `unfeatureTag` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unfeatureTag(value, by: $0) }
    }
}

extension Command {
    /// Features a hashtag on the acting user's profile (idempotent; at most 10).
    public static func featureTag(tag: String) -> Command { Command(FeatureTagCommand(value: tag)) }
    /// Stops featuring a hashtag on the acting user's profile (idempotent).
    public static func unfeatureTag(tag: String) -> Command { Command(UnfeatureTagCommand(value: tag)) }
}
