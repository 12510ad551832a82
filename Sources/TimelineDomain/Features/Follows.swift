// The follow graph: `follow` records `Followed`, `unfollow` records `Unfollowed` (both
// idempotent; a block stands in the way of a follow).

/// Payload of `Followed` and `Unfollowed`.
public struct Follow: Equatable, Sendable {
    /// Who follows.
    public var followerId: UserID
    /// Who is followed.
    public var followeeId: UserID
    /// A `Follow` payload.
    public init(followerId: UserID, followeeId: UserID) { self.followerId = followerId; self.followeeId = followeeId }
}

extension Follow: EventPayload {
    package var stream: String { StreamName.user(followerId) }
    package var users: [UserID] { [followerId, followeeId] }
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws { w.string(followerId.rawValue); w.string(followeeId.rawValue) }

    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(followerId: UserID(try r.string()), followeeId: UserID(try r.string()))
    }

    package func json(erased: Bool) -> [String: Any] { ["followerId": followerId.rawValue, "followeeId": followeeId.rawValue] }

    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(followerId)) \(type == .followed ? "followed" : "unfollowed") \(name(followeeId))"
    }
}

extension Decider {
    func follow(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "follow")
        let following = try state.follows(me.id, target)
        guard try !blockedEitherWay(me.id, target) else {
            throw TimelineError(.forbidden, "you cannot follow a user while one of you blocks the other")
        }
        return Decision(events: following ? [] : [.followed(Follow(followerId: me.id, followeeId: target))], outcome: .success(.changed(!following)))
    }

    func unfollow(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "follow")
        let following = try state.follows(me.id, target)
        return Decision(events: following ? [.unfollowed(Follow(followerId: me.id, followeeId: target))] : [], outcome: .success(.changed(following)))
    }
}

// MARK: - Commands

/// `follow`: the acting user follows `user` (idempotent).
package struct FollowCommand: OneFieldCommand {
    package static let name = "follow", field = "user"
    package let value: String

    package init(value: String) { self.value = value }

    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.follow(value, by: $0) }
    }
}

extension Command {
    /// The acting user follows `user` (idempotent).
    public static func follow(user: String) -> Command { Command(FollowCommand(value: user)) }
}

/// `unfollow`: the acting user stops following `user` (idempotent).
package struct UnfollowCommand: OneFieldCommand {
    package static let name = "unfollow", field = "user"
    package let value: String

    package init(value: String) { self.value = value }

    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unfollow(value, by: $0) }
    }
}

extension Command {
    /// The acting user stops following `user` (idempotent).
    public static func unfollow(user: String) -> Command { Command(UnfollowCommand(value: user)) }
}
