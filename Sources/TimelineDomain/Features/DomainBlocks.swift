import JSONModel

// The operator's domain blocks (#43): `blockDomain` records `DomainBlocked`, `unblockDomain`
// `DomainUnblocked`. Nothing from a blocked server is accepted (its inbox requests are refused
// before anything is fetched) and nothing is sent to it; it is no peer.

/// The payload of `DomainBlocked` and `DomainUnblocked`: a server's host (with its port, if
/// it has one), lower case.
public struct DomainBlock: Equatable, Sendable {
    /// The host.
    public var host: String
    /// A payload naming `host`.
    public init(host: String) { self.host = host }
}

extension DomainBlock: EventPayload {
    /// The aggregate: the instance's stream.
    package var stream: String { StreamName.instance }
    /// A `DomainBlock` payload names no user.
    package var users: [UserID] { [] }
    /// Writes a `DomainBlock` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws { w.string(host) }
    /// Reads a stored `DomainBlock` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws { self.init(host: try r.string()) }
    /// A one-line human summary of a `DomainBlocked` or `DomainUnblocked` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the operator \(type == .domainBlocked ? "blocked" : "unblocked") \(host)"
    }
}

extension DomainBlock {
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "host": "The server's host, with its port if it has one, lower case."
    ]
}

extension Validation {
    /// A server's host as domain blocks name it: a DNS name (or an IP address), with an optional
    /// port, at most 253 characters, lower case.
    public static func domain(_ raw: String) throws(TimelineError) -> String {
        let host = raw.lowercased()
        let name = host.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        let port = host.split(separator: ":", maxSplits: 1).dropFirst().first
        guard (1...253).contains(host.utf8.count), !name.isEmpty,
            name.utf8.allSatisfy({
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D
            }),
            port.map({ UInt16($0) != nil }) ?? true
        else { throw .invalid("host", "host must be a host name, with a port if it has one (photos.example:8443)") }
        return host
    }
}

extension Decider {
    /// `blockDomain` / `unblockDomain`: the operator blocks a server, or lifts its block
    /// (idempotent: answers whether it changed anything).
    func blockDomain(_ raw: String, blocked: Bool, actor: Actor) throws -> Decision {
        try requireOperator(actor, blocked ? "block a server" : "unblock a server")
        let host = try Validation.domain(raw)
        guard try state.domainBlocked(host) != blocked else { return Decision(outcome: .success(.changed(false))) }
        let event: Event = blocked ? .domainBlocked(DomainBlock(host: host)) : .domainUnblocked(DomainBlock(host: host))
        return Decision(events: [event], outcome: .success(.changed(true)))
    }
}

/// `blockDomain`: the operator stops federating with a server (`host`). Answers whether it changed.
package struct BlockDomainCommand: OneFieldCommand {
    /// The command's public name, `blockDomain`, and its one field, `host`.
    package static let name = "blockDomain", field = "host"
    /// The `host` field.
    package let value: String
    /// A `blockDomain` command naming `value`.
    package init(value: String) { self.value = value }
    /// The field is a host name, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { [field: .string] }
    /// Decides `blockDomain` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.blockDomain(value, blocked: true, actor: actor)
    }
}

/// `unblockDomain`: the operator federates with a server again. Answers whether it changed.
package struct UnblockDomainCommand: OneFieldCommand {
    /// The command's public name, `unblockDomain`, and its one field, `host`.
    package static let name = "unblockDomain", field = "host"
    /// The `host` field.
    package let value: String
    /// An `unblockDomain` command naming `value`.
    package init(value: String) { self.value = value }
    /// The field is a host name, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { [field: .string] }
    /// Decides `unblockDomain` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.blockDomain(value, blocked: false, actor: actor)
    }
}

extension Command {
    /// Stops federating with the server `host` (the operator's).
    public static func blockDomain(host: String) -> Command { Command(BlockDomainCommand(value: host)) }
    /// Federates with the server `host` again (the operator's).
    public static func unblockDomain(host: String) -> Command { Command(UnblockDomainCommand(value: host)) }
}
