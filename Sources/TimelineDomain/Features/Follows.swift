import JSONModel

// The follow graph: `follow` records `Followed`, `unfollow` records `Unfollowed` (both
// idempotent; a block stands in the way of a follow). Following a locked account asks first
// (see PrivateAccounts.swift). A follower may also ask to be notified of each of the
// followee's posts (`notify`, Mastodon's bell): `PostNotificationsOn` / `PostNotificationsOff`,
// ended with the follow or the request.

/// Payload of `Followed` and `Unfollowed`, and of the follow requests' events.
public struct Follow: Equatable, Sendable {
    /// Who follows.
    public var followerId: UserID
    /// Who is followed.
    public var followeeId: UserID
    /// A `Follow` payload.
    public init(followerId: UserID, followeeId: UserID) {
        self.followerId = followerId
        self.followeeId = followeeId
    }
}

extension Follow: EventPayload {
    /// The aggregate `Follow` events belong to: the user stream of `followerId`.
    package var stream: String { StreamName.user(followerId) }
    /// Every user a `Follow` payload names: `followerId`, `followeeId`.
    package var users: [UserID] { [followerId, followeeId] }
    /// Writes a `Follow` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(followerId.rawValue)
        w.string(followeeId.rawValue)
    }

    /// Reads a stored `Follow` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(followerId: UserID(try r.string()), followeeId: UserID(try r.string()))
    }

    /// A one-line human summary of a `Follow` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        let verb =
            switch type {
            case .followRequested: "asked to follow"
            case .followRequestRejected: "was turned down by"
            case .followRequestWithdrawn: "withdrew the request to follow"
            case .unfollowed: "unfollowed"
            case .postNotificationsOn: "asked to be notified of the posts of"
            case .postNotificationsOff: "stopped being notified of the posts of"
            case .boostsHidden: "hid the boosts of"
            case .boostsShown: "showed again the boosts of"
            default: "followed"
            }
        return "\(name(followerId)) \(verb) \(name(followeeId))"
    }
}

extension Decider {
    /// Follows `user` (or asks to), and with `notify` turns notifications of their posts on or
    /// off; already following, only `notify` can change anything.
    func follow(_ user: String, notify: Bool?, reblogs: Bool? = nil, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "follow")
        guard try state.user(target)?.suspended != true else { throw TimelineError.notFound("user", target.rawValue) }
        guard try !blockedEitherWay(me.id, target) else {
            throw TimelineError(.forbidden, "you cannot follow a user while one of you blocks the other")
        }
        let edge = Follow(followerId: me.id, followeeId: target)
        var events: [Event] = []
        if try !state.follows(me.id, target), try !state.followRequested(me.id, target) {
            // A locked account is asked first; its owner approves or rejects. So is a remote
            // one, whose server answers (`Accept` or `Reject`), locked or not.
            let asks = try state.user(target).map { $0.locked || $0.isRemote } ?? false
            events.append(asks ? .followRequested(edge) : .followed(edge))
        }
        if let notify, try notify != state.notifies(me.id, target) {
            events.append(notify ? .postNotificationsOn(edge) : .postNotificationsOff(edge))
        }
        events += try showingBoosts(reblogs, of: target, by: me.id)
        return Decision(events: events, outcome: .success(.changed(!events.isEmpty)))
    }

    /// Stops following `user`, or withdraws a pending request to.
    func unfollow(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "follow")
        let edge = Follow(followerId: me.id, followeeId: target)
        if try state.follows(me.id, target) {
            return Decision(events: [.unfollowed(edge)], outcome: .success(.changed(true)))
        }
        if try state.followRequested(me.id, target) {
            return Decision(events: [.followRequestWithdrawn(edge)], outcome: .success(.changed(true)))
        }
        return Decision(outcome: .success(.changed(false)))
    }
}

// MARK: - Commands

/// `follow`: the acting user follows `user`, or asks to when the account is locked
/// (idempotent); `notify` turns notifications of their posts on or off.
package struct FollowCommand: CommandDefinition {
    /// The command's public name, `follow`.
    package static let name = "follow"
    /// The `user` field.
    package let user: String
    /// The `notify` field.
    package let notify: Bool?
    /// The `reblogs` field: whether the user's boosts show in the home timeline.
    package let reblogs: Bool?

    /// A `follow` command with these fields.
    package init(user: String, notify: Bool?, reblogs: Bool? = nil) {
        self.user = user
        self.notify = notify
        self.reblogs = reblogs
    }

    /// Reads `follow`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        user = try fields.string("user")
        notify = try fields.optionalBool("notify")
        reblogs = try fields.optionalBool("reblogs")
    }

    /// Writes `follow`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("user", user)
        fields.set("notify", notify)
        fields.set("reblogs", reblogs)
    }

    /// Decides `follow` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.follow(user, notify: notify, reblogs: reblogs, by: $0) }
    }
}

extension Command {
    /// The acting user follows `user`, or asks to when the account is locked (idempotent);
    /// `notify` turns notifications of their posts on or off (`nil`: as it is); `reblogs` false
    /// hides their boosts from the home timeline, true shows them (`nil`: as it is).
    public static func follow(user: String, notify: Bool? = nil, reblogs: Bool? = nil) -> Command {
        Command(FollowCommand(user: user, notify: notify, reblogs: reblogs))
    }
}

/// `unfollow`: the acting user stops following `user`, or withdraws their request to (idempotent).
package struct UnfollowCommand: OneFieldCommand {
    /// The command's public name, `unfollow`, and its one field, `user`.
    package static let name = "unfollow", field = "user"
    /// The `user` field, raw user input.
    package let value: String

    /// A `unfollow` command naming `user` `value`.
    package init(value: String) { self.value = value }

    /// Decides `unfollow` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unfollow(value, by: $0) }
    }
}

extension Command {
    /// The acting user stops following `user`, or withdraws their request to (idempotent).
    public static func unfollow(user: String) -> Command { Command(UnfollowCommand(value: user)) }
}

// MARK: - JSON Schemas of the payloads

extension Follow {
    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .followRequested: "A user (followerId) asked to follow a locked account (followeeId). Approval records the "
            + "Followed itself.",
        .followRequestRejected: "The locked account's owner (followeeId) turned down the request of followerId.",
        .followRequestWithdrawn: "The request of followerId to follow followeeId was taken back: by the asker, or "
            + "by a block or an erasure between them.",
        .postNotificationsOn: "followerId asked to be told of each of followeeId's posts (follow's notify): each "
            + "post after it is an activity item of kind post for them while they follow.",
        .postNotificationsOff: "followerId stopped being told of followeeId's posts (follow's notify false). "
            + "Unfollowing, or a rejected or withdrawn request, ends it without this event.",
        .boostsHidden: "followerId hid followeeId's boosts from their home timeline (follow's reblogs false). "
            + "Unfollowing, or a rejected or withdrawn request, ends it without BoostsShown.",
        .boostsShown: "followerId showed followeeId's boosts in their home timeline again (follow's reblogs true)."
    ]
}

// MARK: - JSON Schemas of the commands

extension FollowCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "notify": "Optional: true asks to be told of each of the user's posts, false stops it; absent leaves it "
            + "as it is.",
        "reblogs": "Optional: false hides the user's boosts from the home timeline, true shows them again; absent "
            + "leaves it as it is."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "user": .identifier
    ]
}
