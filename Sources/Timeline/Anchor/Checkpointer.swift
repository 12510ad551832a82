import Foundation
import LMDB
import TimelineDomain

/// How the service's anchoring is doing.
public struct AnchorStatus: Sendable, Equatable {
    /// The last sequence number this process signed a checkpoint for (the head at open until
    /// the log grows).
    public var checkpointed: UInt64
    /// Why the last checkpoint could not be written, if it could not (retried after the next
    /// commit and at close).
    public var failure: TimelineError?
}

/// Signs the log's head into the anchor file after commits, on its own thread, so the commit
/// path only signals it. Commits made while a checkpoint is being written are covered by the
/// next one. The head is read from a committed snapshot after the commit returned, so a
/// checkpoint never names an event that is not durable: a crash may lose the latest
/// checkpoint, never write a wrong one.
final class Checkpointer: @unchecked Sendable {
    private let condition = NSCondition()
    private var grown = false
    private var state: State = .running
    private var status: AnchorStatus
    private let key: AnchorKey
    private let file: AnchorFile
    private let clock: any WallClock
    private let head: @Sendable () throws -> LogHead

    private enum State { case running, stopping, stopped }

    /// - Parameter head: reads the log's committed head.
    init(
        key: AnchorKey, file: AnchorFile, clock: any WallClock, openedAt start: UInt64,
        head: @escaping @Sendable () throws -> LogHead
    ) {
        self.key = key
        self.file = file
        self.clock = clock
        self.head = head
        status = AnchorStatus(checkpointed: start)
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "timeline-anchor"
        thread.start()
    }

    /// Called after every commit: the log may have grown.
    func logMayHaveGrown() {
        condition.lock()
        grown = true
        condition.signal()
        condition.unlock()
    }

    var current: AnchorStatus {
        condition.lock()
        defer { condition.unlock() }
        return status
    }

    /// Writes a last checkpoint if the log grew since the last one, then stops the thread.
    func stop() {
        condition.lock()
        if case .running = state { state = .stopping }
        grown = true
        condition.broadcast()
        while true {
            if case .stopped = state { break }
            condition.wait()
        }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while !grown, case .running = state { condition.wait() }
            grown = false
            let last = state
            condition.unlock()
            checkpoint()
            if case .stopping = last {
                condition.lock()
                state = .stopped
                condition.broadcast()
                condition.unlock()
                return
            }
        }
    }

    private func checkpoint() {
        var outcome: (sequence: UInt64?, failure: TimelineError?) = (nil, nil)
        do {
            let head = try self.head()
            if head.sequence > current.checkpointed {
                try file.append(try AnchorCheckpoint(signing: head, time: clock.nowMilliseconds(), with: key))
                outcome.sequence = head.sequence
            }
        } catch {
            outcome.failure = TimelineService.translate(error)
        }
        condition.lock()
        if let sequence = outcome.sequence { status.checkpointed = sequence }
        if outcome.sequence != nil || outcome.failure != nil { status.failure = outcome.failure }
        condition.unlock()
    }
}

extension TimelineService {
    /// Loads the anchor key, refuses a log that does not extend the anchor file's last
    /// checkpoint (a log rewritten while the service was down must not be signed), and starts
    /// signing checkpoints.
    static func startAnchoring(_ anchor: AnchorOptions, environment: Environment, log: EventLog, clock: any WallClock)
        throws -> Checkpointer
    {
        let key = try AnchorKey.load(from: anchor.keyPath)
        let file = AnchorFile(path: anchor.checkpointsPath)
        if let last = try file.lastEntry() {
            guard last.isSigned(by: key.publicKey) else {
                throw TimelineError(
                    .conflict, "the last checkpoint of \(file.path) is not signed by the key \(anchor.keyPath)")
            }
            let report = try environment.read { txn in try log.check(extends: [last.head], txn) }
            if let problem = report.problem {
                throw TimelineError(
                    .conflict,
                    "refusing to extend a log that does not extend its anchor \(file.path): \(problem); check it with `timeline audit verify --anchor`"
                )
            }
        }
        let start = try environment.read { txn in try log.head(txn).sequence }
        return Checkpointer(key: key, file: file, clock: clock, openedAt: start) {
            let (sequence, hash) = try environment.read { txn in try log.head(txn) }
            return LogHead(sequence: sequence, hash: hash)
        }
    }

    /// How anchoring is doing (`nil` without `Options.anchor`).
    public var anchorStatus: AnchorStatus? { checkpointer?.current }
}
