import JSONModel

// Followed hashtags (#41, Mastodon's followed tags): `followTag` records `TagFollowed`,
// `unfollowTag` records `TagUnfollowed`; both are idempotent, as Mastodon's are (following a
// tag again answers the tag, unfollowing one not followed changes nothing and appends
// nothing). The public posts that carry a followed tag come into the follower's home timeline
// (merged at read time from the tag's posts: `ReadView.timeline(of:_:)`).

/// Payload of `TagFollowed` and `TagUnfollowed`: a hashtag a user follows.
public struct FollowedTag: Equatable, Sendable {
    /// Who follows it.
    public var userId: UserID
    /// The hashtag, as captions record it (lowercased, without `#`).
    public var tag: String
    /// A `FollowedTag` payload.
    public init(userId: UserID, tag: String) {
        self.userId = userId
        self.tag = tag
    }

    /// How many hashtags one user may follow: each is a source the home timeline merges at
    /// read time, so their number bounds a page's cost (Mastodon sets no limit).
    public static let maxTags = 100
}

extension FollowedTag: EventPayload {
    /// The aggregate `FollowedTag` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `FollowedTag` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `FollowedTag` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(tag)
    }

    /// Reads a stored `FollowedTag` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), tag: try r.string())
    }

    /// A one-line human summary of a `FollowedTag` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) \(type == .tagFollowed ? "followed" : "stopped following") #\(tag)"
    }

    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .tagFollowed:
            "A user (userId) followed a hashtag (tag, lowercased, without #): its public posts come into their home timeline.",
        .tagUnfollowed: "A user (userId) stopped following a hashtag (tag)."
    ]
}

extension Decider {
    /// `me` follows the hashtag `raw` (normalised as captions record it; nothing when followed
    /// already): a 101st is `invalid_argument`.
    func followTag(_ raw: String, by me: UserRecord) throws -> Decision {
        let tag = try Validation.featuredTag(raw)
        if try state.followsTag(me.id, tag) { return Decision(outcome: .success(.changed(false))) }
        guard try state.followedTagCount(me.id) < FollowedTag.maxTags else {
            throw TimelineError.invalid("tag", "you can follow at most \(FollowedTag.maxTags) hashtags")
        }
        return Decision(
            events: [.tagFollowed(FollowedTag(userId: me.id, tag: tag))], outcome: .success(.changed(true)))
    }

    /// `me` stops following the hashtag `raw` (nothing when they do not follow it).
    func unfollowTag(_ raw: String, by me: UserRecord) throws -> Decision {
        let tag = try Validation.featuredTag(raw)
        let followed = try state.followsTag(me.id, tag)
        return Decision(
            events: followed ? [.tagUnfollowed(FollowedTag(userId: me.id, tag: tag))] : [],
            outcome: .success(.changed(followed)))
    }
}

// MARK: - Commands

/// `followTag`: the acting user follows a hashtag (idempotent; at most 100).
package struct FollowTagCommand: OneFieldCommand {
    /// The command's public name, `followTag`, and its one field, `tag`.
    package static let name = "followTag", field = "tag"
    /// The field is a hashtag, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { [:] }
    /// The `tag` field, raw user input.
    package let value: String
    /// A `followTag` command naming `tag` `value`.
    package init(value: String) { self.value = value }
    /// Decides `followTag` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.followTag(value, by: $0) }
    }
}

/// `unfollowTag`: the acting user stops following a hashtag (idempotent).
package struct UnfollowTagCommand: OneFieldCommand {
    /// The command's public name, `unfollowTag`, and its one field, `tag`.
    package static let name = "unfollowTag", field = "tag"
    /// The field is a hashtag, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { [:] }
    /// The `tag` field, raw user input.
    package let value: String
    /// An `unfollowTag` command naming `tag` `value`.
    package init(value: String) { self.value = value }
    /// Decides `unfollowTag` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unfollowTag(value, by: $0) }
    }
}

extension Command {
    /// The acting user follows a hashtag: its public posts come into their home timeline.
    public static func followTag(tag: String) -> Command { Command(FollowTagCommand(value: tag)) }
    /// The acting user stops following a hashtag (idempotent).
    public static func unfollowTag(tag: String) -> Command { Command(UnfollowTagCommand(value: tag)) }
}
