import Foundation

/// Who sends a delivery when several nodes plan the same ones (a cluster: every node follows
/// the same log): Web Push's and federation's outboxes ask it. Before sending, a node claims the delivery; only the one that got it sends,
/// and marks it done; a node that dies with a claim leaves it to expire, and another sends it.
public protocol DeliveryClaims: Sendable {
    /// Claims delivery `id` for this node.
    func claim(_ id: String) throws -> DeliveryClaim
    /// Marks delivery `id` finished (sent, or given up): no node sends it again.
    func finished(_ id: String) throws
    /// Gives up this node's claim on `id` (to be tried again, by any node).
    func release(_ id: String) throws
    /// How long a claim lasts (seconds) unless finished or released: a delivery another node
    /// holds is asked about again after this, when a dead node's claim has lapsed.
    var claimLifetime: TimeInterval { get }
}

/// What a claim found.
public enum DeliveryClaim: Sendable, Equatable {
    /// This node sends it.
    case mine
    /// Another node is sending it (ask again later: its claim expires if it dies).
    case taken
    /// Some node finished it.
    case done
}
