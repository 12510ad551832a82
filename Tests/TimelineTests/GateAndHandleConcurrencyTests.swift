import Foundation
import Synchronization
import Testing
@testable import LMDB
@testable import Timeline
import TimelineBench

/// The transaction gate, database handles and moving read models under concurrency, each where
/// a test can show it.
@Suite struct GateAndHandleConcurrencyTests {
    /// `Environment.read` leaves the gate to adopt a map grown by another process, then enters
    /// again; when the environment was closed meanwhile, entering fails and the reader must not
    /// leave a second time (the count of users inside would go negative, and a later close
    /// would not wait for a real reader).
    @Test func failingToReenterAClosedGateLeavesOnce() throws {
        let gate = TransactionGate()
        try gate.enter()
        var inside = true
        #expect(throws: LMDBError.self) {
            try gate.outside(&inside) { gate.close {} }  // closed while outside
        }
        #expect(!inside)
        #expect(gate.userCount == 0)
    }

    /// Handles are opened without holding the cache's lock across the opening write: many
    /// tasks opening (the same and different) databases while others write neither deadlock
    /// nor get different handles for one name.
    @Test func openingDatabasesConcurrentlyGivesOneHandlePerName() async throws {
        let env = try Environment(
            path: temporaryPath(),
            options: {
                var o = Environment.Options()
                o.durable = false
                return o
            }())
        defer { env.close() }
        let opened = try await withThrowingTaskGroup(of: [(String, Database)].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var opened: [(String, Database)] = []
                    for index in 0..<24 {
                        let name = "db\((index + task) % 12)"
                        let db = try env.database(name)
                        opened.append((name, db))
                        try env.write { txn in try txn.put(db, Array("k\(task)".utf8), [UInt8(index)]) }
                    }
                    return opened
                }
            }
            var all: [(String, Database)] = []
            for try await some in group { all += some }
            return all
        }
        let seen = Dictionary(grouping: opened, by: \.0).mapValues { Set($0.map(\.1)) }
        #expect(seen.count == 12)
        #expect(seen.values.allSatisfy { $0.count == 1 })
    }

    /// A transaction whose read models keep moving is retried a bounded number of times, then
    /// fails with `conflict` (it used to recurse for as long as they moved).
    @Test func movingReadModelsAreRetriedABoundedNumberOfTimes() throws {
        let service = try openService()
        defer { service.close() }
        let attempts = Mutex(0)
        #expect(
            throws: TimelineError(.conflict, "the read models kept moving (rebuilds kept switching them); try again")
        ) {
            try service.registry.retrying { () throws -> Int? in
                attempts.withLock { $0 += 1 }
                throw ReadModelsMoved()
            }
        }
        #expect(attempts.withLock { $0 } == ModelRegistry.maxAttempts)
        #expect(try service.registry.retrying { 42 } == 42)
    }
}

extension ClusterTests {
    // In the cluster suite, which runs serialized: never two clusters starting at once.
    /// `LocalNATSCluster`'s processes are behind a lock: killing and restarting servers from
    /// many tasks at once leaves exactly the ones restarted running.
    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/sbin/nats-server")
                || FileManager.default.fileExists(atPath: "/usr/bin/nats-server")))
    func clusterProcessesSurviveConcurrentKills() async throws {
        let cluster = try LocalNATSCluster(directory: temporaryPath("nats"))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<6 { for index in 0..<3 { group.addTask { cluster.kill(index) } } }
        }
        #expect(cluster.runningCount == 0)
        try cluster.start(1)
        #expect(cluster.runningCount == 1)
        cluster.kill(1)
    }
}
