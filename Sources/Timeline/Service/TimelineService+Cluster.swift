import Foundation

extension TimelineService {
    /// How many replicated batches this node has applied (0 outside a cluster). A client that
    /// wrote through one node can wait on another for this position (read-your-writes).
    public func replicationPosition() throws(TimelineError) -> UInt64 {
        guard let replication else { return 0 }
        do { return try environment.read { txn in try replication.position(txn) } } catch {
            throw Self.translate(error)
        }
    }

    /// Waits until this node has applied the replicated log up to `position`.
    public func waitForReplication(to position: UInt64, timeout: Duration = .seconds(10)) async throws(TimelineError) {
        let deadline = ContinuousClock.now + timeout
        while try replicationPosition() < position {
            guard ContinuousClock.now < deadline else {
                throw TimelineError(.internal, "this node did not reach replicated position \(position) in time")
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
