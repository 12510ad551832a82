// The follow graph: `follow` records `Followed`, `unfollow` records `Unfollowed` (both
// idempotent; a block stands in the way of a follow). Following a locked account asks first
// (see PrivateAccounts.swift).

/// Payload of `Followed` and `Unfollowed`, and of the follow requests' events.
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
        let verb = switch type {
        case .followRequested: "asked to follow"
        case .followRequestRejected: "was turned down by"
        case .followRequestWithdrawn: "withdrew the request to follow"
        case .unfollowed: "unfollowed"
        default: "followed"
        }
        return "\(name(followerId)) \(verb) \(name(followeeId))"
    }
}

extension Decider {
    func follow(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "follow")
        guard try state.user(target)?.suspended != true else { throw TimelineError.notFound("user", target.rawValue) }
        guard try !blockedEitherWay(me.id, target) else {
            throw TimelineError(.forbidden, "you cannot follow a user while one of you blocks the other")
        }
        let edge = Follow(followerId: me.id, followeeId: target)
        guard try !state.follows(me.id, target), try !state.followRequested(me.id, target) else { return Decision(outcome: .success(.changed(false))) }
        // A locked account is asked first; its owner approves or rejects.
        let event: Event = try state.user(target)?.locked == true ? .followRequested(edge) : .followed(edge)
        return Decision(events: [event], outcome: .success(.changed(true)))
    }

    /// Stops following `user`, or withdraws a pending request to.
    func unfollow(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "follow")
        let edge = Follow(followerId: me.id, followeeId: target)
        if try state.follows(me.id, target) { return Decision(events: [.unfollowed(edge)], outcome: .success(.changed(true))) }
        if try state.followRequested(me.id, target) { return Decision(events: [.followRequestWithdrawn(edge)], outcome: .success(.changed(true))) }
        return Decision(outcome: .success(.changed(false)))
    }
}

// MARK: - Commands

/// `follow`: the acting user follows `user`, or asks to when the account is locked (idempotent).
package struct FollowCommand: OneFieldCommand {
    package static let name = "follow", field = "user"
    package let value: String

    package init(value: String) { self.value = value }

    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.follow(value, by: $0) }
    }
}

extension Command {
    /// The acting user follows `user`, or asks to when the account is locked (idempotent).
    public static func follow(user: String) -> Command { Command(FollowCommand(value: user)) }
}

/// `unfollow`: the acting user stops following `user`, or withdraws their request to (idempotent).
package struct UnfollowCommand: OneFieldCommand {
    package static let name = "unfollow", field = "user"
    package let value: String

    package init(value: String) { self.value = value }

    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unfollow(value, by: $0) }
    }
}

extension Command {
    /// The acting user stops following `user`, or withdraws their request to (idempotent).
    public static func unfollow(user: String) -> Command { Command(UnfollowCommand(value: user)) }
}
