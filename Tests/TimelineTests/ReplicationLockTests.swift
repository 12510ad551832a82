import Foundation
import Synchronization
import Testing
@testable import Timeline

/// A replicated log in memory whose publishes wait at a gate: the network, slowed down to a
/// standstill on demand.
final class GatedReplicator: LogReplicator, @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [[UInt8]] = []
    private var closed = true
    private(set) var waiting = 0

    init(open: Bool) { closed = !open }

    func batch(at position: UInt64) throws -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        return position >= 1 && position <= UInt64(batches.count) ? batches[Int(position - 1)] : nil
    }

    func publish(_ batch: [UInt8], after position: UInt64, id: String) throws -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        waiting += 1
        condition.broadcast()
        while closed { condition.wait() }
        waiting -= 1
        guard position == UInt64(batches.count) else { throw ReplicationConflict() }
        batches.append(batch)
        return UInt64(batches.count)
    }

    /// Lets the publishes through.
    func open() {
        condition.lock()
        closed = false
        condition.broadcast()
        condition.unlock()
    }

    var publishesWaiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting
    }
}

@Suite struct ReplicationLockTests {
    /// While a cluster command waits on the network (its publish), LMDB's writer lock is free:
    /// another writer of the same database (here a transaction of this process; another
    /// process alike) goes through, and so does a read.
    @Test func aCommandWaitingOnTheNetworkHoldsNoTransaction() async throws {
        let network = GatedReplicator(open: false)
        let service = try openService { $0.replicator = network }
        let command = Task { try await service.createUser("alice") }
        let deadline = ContinuousClock.now + .seconds(120)  // a bound for a loaded machine, not a timing
        while network.publishesWaiting == 0 {
            try #require(ContinuousClock.now < deadline, "the command never reached its publish")
            try await Task.sleep(for: .milliseconds(5))
        }
        // A write transaction on another thread must not wait for the network.
        let wrote = Mutex(false)
        let environment = service.environment
        Thread.detachNewThread {
            _ = try? environment.write { _ in }
            wrote.withLock { $0 = true }
        }
        let bound = ContinuousClock.now + .seconds(20)  // generous: only a held lock keeps it out
        while !wrote.withLock({ $0 }), ContinuousClock.now < bound { try await Task.sleep(for: .milliseconds(5)) }
        let writerGotThrough = wrote.withLock { $0 }
        #expect(writerGotThrough, "a writer waited on the network (the publish held the write transaction)")
        #expect(try service.lastSequence() == 0)  // nothing is applied before the publish is accepted
        network.open()
        let alice = try await command.value
        #expect(try service.user(alice.id).username == "alice")
        #expect(try service.replicationPosition() == 1)
        service.close()
    }
}
