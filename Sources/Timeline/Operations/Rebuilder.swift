import Foundation
import LMDB
import Sodium
import TimelineDomain

/// How a rebuild runs.
public struct RebuildOptions: Sendable {
    /// The projections to rebuild (with what they depend on); `nil` rebuilds all.
    public var projections: [ProjectionName]?
    /// Build, compare every key with the live read models, report differences, switch nothing.
    public var verifyOnly = false
    /// Events applied per write transaction (writers of the service wait at most one chunk).
    public var chunkSize = 5_000
    /// Called after every chunk.
    public var progress: (@Sendable (RebuildProgress) -> Void)?
    /// Test hook: stop (as a crash would) after this many chunks, before switching.
    package var abandonAfterChunks: Int?

    /// Rebuilds `projections` (all when `nil`), or only compares with `verifyOnly`.
    public init(projections: [ProjectionName]? = nil, verifyOnly: Bool = false) {
        self.projections = projections
        self.verifyOnly = verifyOnly
    }
}

/// How far a rebuild is (reported after every chunk).
public struct RebuildProgress: Sendable {
    /// Events applied so far.
    public var applied: UInt64
    /// The log's head when the chunk ran.
    public var head: UInt64
    /// Seconds since the rebuild started.
    public var elapsed: Double
}

/// What a rebuild did.
public struct RebuildReport: Sendable {
    /// One projection's share of the work.
    public struct ProjectionTiming: Sendable {
        /// The projection.
        public var name: ProjectionName
        /// Events it applied.
        public var events: UInt64
        /// Time spent applying events to this projection.
        public var seconds: Double
        /// Its throughput.
        public var eventsPerSecond: Double { seconds > 0 ? Double(events) / seconds : 0 }
    }

    /// Per projection rebuilt.
    public var projections: [ProjectionTiming]
    /// Events applied.
    public var events: UInt64
    /// Wall-clock seconds.
    public var seconds: Double
    /// Whether the rebuilt models now serve (false with `verifyOnly`).
    public var switched: Bool
    /// Keys where rebuilt and live read models differ (only with `verifyOnly`).
    public var differences: [ReadModelDifference]
}

/// One key on which a rebuilt read model and the live one disagree.
public struct ReadModelDifference: Sendable, Equatable, CustomStringConvertible {
    /// The projection.
    public var projection: ProjectionName
    /// The database (its live name).
    public var database: String
    /// The key.
    public var key: [UInt8]
    /// The live value (`nil`: absent).
    public var live: [UInt8]?
    /// The rebuilt value (`nil`: absent).
    public var rebuilt: [UInt8]?

    /// One line: projection/database, then the key and both values as their sizes and short
    /// digests. Never the bytes: keys and values of some tables are emails, password hashes
    /// and other personal fields, and this line goes to a terminal or a log.
    public var description: String {
        "\(projection.rawValue)/\(database) key \(fingerprint(key)): live \(live.map(fingerprint) ?? "(absent)"), rebuilt \(rebuilt.map(fingerprint) ?? "(absent)")"
    }
}

/// `<n> bytes #<first 8 bytes of their BLAKE2b, hex>`: enough to tell values apart and match
/// them across lines, nothing of their content.
func fingerprint(_ bytes: [UInt8]) -> String {
    "\(bytes.count) bytes #" + hex(Array(Sodium.hash(bytes, length: 16).prefix(8)))
}

/// Status of one live projection.
public struct ProjectionStatus: Sendable {
    /// The projection.
    public var name: ProjectionName
    /// Which generation of its databases serves (0: the plain names).
    public var generation: UInt64
    /// The last log sequence it applied.
    public var checkpoint: UInt64
    /// Entries in its databases.
    public var entries: Int
}

extension TimelineService {
    /// The live projections with their generation, checkpoint and entry count.
    public func projectionStatus() throws(TimelineError) -> [ProjectionStatus] {
        try read { view in
            try ProjectionName.allCases.map { name in
                let projection = view.models.projection(name)
                let entries = try projection.databases.reduce(0) { $0 + (try view.txn.statistics($1).entries) }
                return ProjectionStatus(
                    name: name, generation: view.models.generations.number(name),
                    checkpoint: try view.models.checkpoint(name, view.txn), entries: entries)
            }
        }
    }

    /// Replays the log into new read-model databases while the live ones keep serving, catches
    /// up with events appended meanwhile, then switches to them atomically and drops the old
    /// ones (blue/green). With `verifyOnly`, compares instead of switching. An interrupted
    /// rebuild leaves the live read models in service; its leftovers are dropped by the next.
    public func rebuild(_ options: RebuildOptions = RebuildOptions()) throws(TimelineError) -> RebuildReport {
        do {
            return try environment.readingSequentially { try Rebuilder(service: self, options: options).run() }
        } catch {
            throw Self.translate(error)
        }
    }
}

private struct Rebuilder {
    let service: TimelineService
    let options: RebuildOptions
    var environment: Environment { service.environment }
    var log: EventLog { service.log }

    func run() throws -> RebuildReport {
        let names = ProjectionName.closure(of: options.projections ?? ProjectionName.allCases)
        let started = Date()
        let (generation, live) = try prepare()
        var target = live.generations
        for name in names { target.numbers[name] = generation }
        let models = try ReadModels(
            environment, generations: target, fanOut: service.registry.fanOut,
            hashEmail: service.registry.hashEmail)
        let projections = names.map(models.projection)
        var timings = names.map { RebuildReport.ProjectionTiming(name: $0, events: 0, seconds: 0) }
        var applied: UInt64 = 0
        var chunks = 0
        var switched = false
        while true {
            if let limit = options.abandonAfterChunks, chunks >= limit {
                throw RebuildAbandoned()
            }
            // Counted per attempt: a write that grows the map runs its body again.
            let step = try environment.write { txn -> (done: Bool, head: UInt64, events: UInt64, seconds: [Double]) in
                var events: UInt64 = 0
                var seconds = [Double](repeating: 0, count: projections.count)
                let head = try log.head(txn).sequence
                let from = try models.checkpoint(names[0], txn) + 1
                let to = min(head, from + UInt64(options.chunkSize) - 1)
                if from <= to {
                    try log.forEach(from: from, txn) { envelope in
                        for (index, projection) in projections.enumerated() {
                            let start = DispatchTime.now().uptimeNanoseconds
                            try projection.fold(envelope, txn)
                            seconds[index] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                        }
                        events += 1
                        return envelope.sequence < to
                    }
                    try models.setCheckpoint(to, for: names, txn)
                }
                guard to == head else { return (false, head, events, seconds) }
                if !options.verifyOnly {
                    try switchGenerations(to: target, replacing: live, names: names, txn)
                }
                return (true, head, events, seconds)
            }
            applied += step.events
            for index in timings.indices {
                timings[index].events += step.events
                timings[index].seconds += step.seconds[index]
            }
            switched = step.done && !options.verifyOnly
            chunks += 1
            options.progress?(
                RebuildProgress(applied: applied, head: step.head, elapsed: Date().timeIntervalSince(started)))
            if step.done { break }
        }
        var differences: [ReadModelDifference] = []
        if switched {
            environment.forget(names.flatMap { live.projection($0).databases })
            try service.registry.reload()
        } else if options.verifyOnly {
            differences = try compare(models, names: names)
            try discard(models, names: names)
        }
        return RebuildReport(
            projections: timings, events: applied, seconds: Date().timeIntervalSince(started),
            switched: switched, differences: differences)
    }

    /// Allocates a fresh generation number and drops leftovers of interrupted rebuilds.
    private func prepare() throws -> (UInt64, ReadModels) {
        let meta = service.registry.meta
        try service.registry.reload()
        let live = service.registry.current
        let (generation, stale) = try environment.write { txn -> (UInt64, [String]) in
            let stored = try txn.get(meta, Generations.nextKey).flatMap(BigEndian.uint64) ?? 1
            let highest = live.generations.numbers.values.max() ?? 0
            let generation = max(stored, highest + 1)
            try txn.put(meta, Generations.nextKey, BigEndian.bytes(generation + 1))
            // Databases of a generation no live projection uses belong to an interrupted rebuild.
            let liveNames = Set(ProjectionName.allCases.flatMap { live.projection($0).databases.map(\.name) })
            let stale = try txn.databaseNames().filter {
                $0.hasPrefix("g") && $0.contains(".") && !liveNames.contains($0)
            }
            let liveCheckpoints = Set(ProjectionName.allCases.map(live.checkpointKey))
            var staleCheckpoints: [[UInt8]] = []
            try txn.scan(live.checkpoints, prefix: []) { key, _ in
                if !liveCheckpoints.contains(key) { staleCheckpoints.append(key) }
                return true
            }
            for key in staleCheckpoints { try txn.delete(live.checkpoints, key) }
            return (generation, stale)
        }
        if !stale.isEmpty {
            let handles = try stale.map { try environment.database($0, placement: .derived) }
            try environment.write { txn in for db in handles { try txn.drop(db) } }
            environment.forget(handles)
        }
        return (generation, live)
    }

    /// In the same transaction as the last chunk: record the new generations (if nobody else
    /// switched meanwhile) and drop the old databases.
    private func switchGenerations(
        to target: Generations, replacing live: ReadModels, names: [ProjectionName], _ txn: Transaction
    ) throws {
        let current = try Generations(txn.get(service.registry.meta, Generations.metaKey))
        guard names.allSatisfy({ current.number($0) == live.generations.number($0) }) else {
            throw TimelineError(.conflict, "another rebuild switched these projections meanwhile")
        }
        var next = current
        for name in names { next.numbers[name] = target.number(name) }
        try txn.put(service.registry.meta, Generations.metaKey, next.encoded())
        for name in names {
            for db in live.projection(name).databases { try txn.drop(db) }
            try live.deleteCheckpoint(name, txn)
        }
    }

    /// Compares every key of the rebuilt databases with the live ones at the same log position.
    private func compare(_ rebuilt: ReadModels, names: [ProjectionName]) throws -> [ReadModelDifference] {
        for _ in 0..<5 {
            let result = try environment.read { txn -> [ReadModelDifference]? in
                guard let live = try service.registry.models(in: txn) else { return nil }
                // Both must have applied the same events; otherwise catch up and try again.
                let head = try log.head(txn).sequence
                guard try rebuilt.checkpoint(names[0], txn) == head,
                    try names.allSatisfy({ try live.checkpoint($0, txn) == head })
                else { return nil }
                var differences: [ReadModelDifference] = []
                for name in names {
                    for (liveDB, newDB) in zip(live.projection(name).databases, rebuilt.projection(name).databases) {
                        differences += try diff(liveDB, newDB, projection: name, txn)
                    }
                }
                return differences
            }
            if let result { return result }
            try service.registry.reload()
            try catchUp(rebuilt, names: names)
        }
        throw TimelineError(.conflict, "the log kept moving; could not compare at one position")
    }

    private func catchUp(_ models: ReadModels, names: [ProjectionName]) throws {
        try environment.write { txn in
            let head = try log.head(txn).sequence
            let from = try models.checkpoint(names[0], txn) + 1
            guard from <= head else { return }
            let projections = names.map(models.projection)
            try log.forEach(from: from, txn) { envelope in
                for projection in projections { try projection.fold(envelope, txn) }
                return true
            }
            try models.setCheckpoint(head, for: names, txn)
        }
    }

    /// A merge walk over two databases in key order.
    private func diff(_ live: Database, _ rebuilt: Database, projection: ProjectionName, _ txn: Transaction) throws
        -> [ReadModelDifference]
    {
        var out: [ReadModelDifference] = []
        try txn.withCursor(live) { a in
            try txn.withCursor(rebuilt) { b in
                var x = try a.first(), y = try b.first()
                while x != nil || y != nil {
                    if let (k1, v1) = x, let (k2, v2) = y, k1 == k2 {
                        if v1 != v2 {
                            out.append(
                                ReadModelDifference(
                                    projection: projection, database: live.name, key: k1, live: v1, rebuilt: v2))
                        }
                        x = try a.next()
                        y = try b.next()
                    } else if let (k1, v1) = x, y == nil || k1.lexicographicallyPrecedes(y!.key) {
                        out.append(
                            ReadModelDifference(
                                projection: projection, database: live.name, key: k1, live: v1, rebuilt: nil))
                        x = try a.next()
                    } else if let (k2, v2) = y {
                        out.append(
                            ReadModelDifference(
                                projection: projection, database: live.name, key: k2, live: nil, rebuilt: v2))
                        y = try b.next()
                    }
                }
            }
        }
        return out
    }

    private func discard(_ models: ReadModels, names: [ProjectionName]) throws {
        let databases = names.flatMap { models.projection($0).databases }
        try environment.write { txn in
            for db in databases { try txn.drop(db) }
            for name in names { try models.deleteCheckpoint(name, txn) }
        }
        environment.forget(databases)
    }
}

/// The rebuild stopped before switching (the test hook that stands for a crash).
public struct RebuildAbandoned: Error {}
