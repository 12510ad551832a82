import JSONModel

// Blocks: `block` records `Blocked` (after the `Unfollowed` events that end the follows
// between the two users both ways), `unblock` records `Unblocked` (both idempotent).

/// Payload of `Blocked` and `Unblocked`. While a block stands neither user can follow the
/// other, nor like or comment on the other's posts, nor find the other in lists.
public struct Block: Equatable, Sendable {
    /// Who blocks.
    public var blockerId: UserID
    /// Who is blocked.
    public var blockedId: UserID
    /// A `Block` payload.
    public init(blockerId: UserID, blockedId: UserID) {
        self.blockerId = blockerId
        self.blockedId = blockedId
    }
}

extension Block: EventPayload {
    /// The aggregate `Block` events belong to: the user stream of `blockerId`.
    package var stream: String { StreamName.user(blockerId) }
    /// Every user a `Block` payload names: `blockerId`, `blockedId`.
    package var users: [UserID] { [blockerId, blockedId] }
    /// Writes a `Block` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(blockerId.rawValue)
        w.string(blockedId.rawValue)
    }

    /// Reads a stored `Block` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(blockerId: UserID(try r.string()), blockedId: UserID(try r.string()))
    }

    /// A one-line human summary of a `Block` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(blockerId)) \(type == .blocked ? "blocked" : "unblocked") \(name(blockedId))"
    }
}

extension Decider {
    func block(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "block")
        guard try !state.blocks(me.id, target) else { return Decision(outcome: .success(.changed(false))) }
        // A block ends the follows and follow requests both ways (so timelines stay SPEC's definition).
        var events = try endingRequests(between: me.id, target)
        if try state.follows(me.id, target) {
            events.append(.unfollowed(Follow(followerId: me.id, followeeId: target)))
        }
        if try state.follows(target, me.id) {
            events.append(.unfollowed(Follow(followerId: target, followeeId: me.id)))
        }
        // and the boosts of either's posts by the other.
        events += try endingBoosts(between: me.id, target)
        events.append(.blocked(Block(blockerId: me.id, blockedId: target)))
        return Decision(events: events, outcome: .success(.changed(true)))
    }

    func unblock(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "block")
        let blocking = try state.blocks(me.id, target)
        return Decision(
            events: blocking ? [.unblocked(Block(blockerId: me.id, blockedId: target))] : [],
            outcome: .success(.changed(blocking)))
    }
}

// MARK: - Commands

/// `block`: the acting user blocks `user` (idempotent): it ends the follows between them both ways.
package struct BlockCommand: OneFieldCommand {
    /// The command's public name, `block`, and its one field, `user`.
    package static let name = "block", field = "user"
    /// The `user` field, raw user input.
    package let value: String

    /// A `block` command naming `user` `value`.
    package init(value: String) { self.value = value }

    /// Decides `block` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.block(value, by: $0) }
    }
}

extension Command {
    /// The acting user blocks `user` (idempotent): it ends the follows between them both ways.
    public static func block(user: String) -> Command { Command(BlockCommand(value: user)) }
}

/// `unblock`: the acting user lifts their block of `user` (idempotent).
package struct UnblockCommand: OneFieldCommand {
    /// The command's public name, `unblock`, and its one field, `user`.
    package static let name = "unblock", field = "user"
    /// The `user` field, raw user input.
    package let value: String

    /// A `unblock` command naming `user` `value`.
    package init(value: String) { self.value = value }

    /// Decides `unblock` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unblock(value, by: $0) }
    }
}

extension Command {
    /// The acting user lifts their block of `user` (idempotent).
    public static func unblock(user: String) -> Command { Command(UnblockCommand(value: user)) }
}
