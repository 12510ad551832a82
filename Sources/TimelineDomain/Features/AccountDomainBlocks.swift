import JSONModel

// A person's domain blocks (#43, Mastodon's `/api/v1/domain_blocks`): `blockAccountDomain`
// records `AccountDomainBlocked`, `unblockAccountDomain` `AccountDomainUnblocked`. To the one who
// blocks, every account of that server is as if blocked, both ways (`blockedEitherWay`): its
// posts, boosts, comments, notifications and profiles are hidden from them, theirs from it. As
// on Mastodon, blocking ends the follows and follow requests both ways with the server's
// accounts known here. The operator's block of a whole server is `DomainBlocks.swift`.

/// The payload of `AccountDomainBlocked` and `AccountDomainUnblocked`: `userId` blocks (or no
/// longer blocks) the server `host`.
public struct AccountDomainBlock: Equatable, Sendable {
    /// Who blocks.
    public var userId: UserID
    /// The server's host (with its port, if it has one), lower case.
    public var host: String
    /// A payload: `userId` and `host`.
    public init(userId: UserID, host: String) {
        self.userId = userId
        self.host = host
    }
}

extension AccountDomainBlock: EventPayload {
    /// The aggregate: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `AccountDomainBlock` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes an `AccountDomainBlock` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(host)
    }
    /// Reads a stored `AccountDomainBlock` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), host: try r.string())
    }
    /// A one-line human summary of an `AccountDomainBlocked` or `AccountDomainUnblocked` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) \(type == .accountDomainBlocked ? "blocked" : "unblocked") the server \(host)"
    }
}

extension AccountDomainBlock {
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "host": "The server's host, with its port if it has one, lower case."
    ]
}

extension Decider {
    /// `blockAccountDomain` / `unblockAccountDomain`: `me` blocks the server `raw`, ending the
    /// follows and requests both ways with its accounts, or lifts the block (idempotent).
    func blockAccountDomain(_ raw: String, blocked: Bool, by me: UserRecord) throws -> Decision {
        let host = try Validation.domain(raw)
        guard try state.blocksDomain(me.id, host) != blocked else {
            return Decision(outcome: .success(.changed(false)))
        }
        let block = AccountDomainBlock(userId: me.id, host: host)
        guard blocked else {
            return Decision(events: [.accountDomainUnblocked(block)], outcome: .success(.changed(true)))
        }
        var events: [Event] = []
        for account in try state.remoteAccounts(onHost: host) {
            events += try endingRequests(between: me.id, account)
            for (follower, followee) in [(me.id, account), (account, me.id)] where try state.follows(follower, followee)
            {
                events.append(.unfollowed(Follow(followerId: follower, followeeId: followee)))
            }
        }
        events.append(.accountDomainBlocked(block))
        return Decision(events: events, outcome: .success(.changed(true)))
    }
}

/// `blockAccountDomain`: the acting user blocks every account of the server `host` (Mastodon's
/// domain block). Answers whether it changed.
package struct BlockAccountDomainCommand: OneFieldCommand {
    /// The command's public name, `blockAccountDomain`, and its one field, `host`.
    package static let name = "blockAccountDomain", field = "host"
    /// The `host` field.
    package let value: String
    /// A `blockAccountDomain` command naming `value`.
    package init(value: String) { self.value = value }
    /// The field is a host name, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { [field: .string] }
    /// Decides `blockAccountDomain` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.blockAccountDomain(value, blocked: true, by: $0) }
    }
}

/// `unblockAccountDomain`: the acting user lifts their block of the server `host`.
package struct UnblockAccountDomainCommand: OneFieldCommand {
    /// The command's public name, `unblockAccountDomain`, and its one field, `host`.
    package static let name = "unblockAccountDomain", field = "host"
    /// The `host` field.
    package let value: String
    /// An `unblockAccountDomain` command naming `value`.
    package init(value: String) { self.value = value }
    /// The field is a host name, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { [field: .string] }
    /// Decides `unblockAccountDomain` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.blockAccountDomain(value, blocked: false, by: $0) }
    }
}

extension Command {
    /// The acting user blocks every account of the server `host`.
    public static func blockAccountDomain(host: String) -> Command { Command(BlockAccountDomainCommand(value: host)) }
    /// The acting user lifts their block of the server `host`.
    public static func unblockAccountDomain(host: String) -> Command {
        Command(UnblockAccountDomainCommand(value: host))
    }
}
