import Foundation

/// The single owner of the write side: commands queue up here and one writer thread runs
/// them in batches, each batch in one write transaction and one fsync (group commit).
/// Callers await their own result, which is delivered only after the batch is durable.
final class GroupCommitter<Job: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: [Job] = []
    private var state: State = .running
    private let maxBatch: Int
    /// How long a batch waits for callers of the previous batch to come back (seconds).
    private let linger: TimeInterval
    private let process: ([Job]) -> Void
    private var thread: Thread?

    private enum State { case running, stopping, stopped }

    /// - Parameter process: runs one batch on the writer thread; must deliver every job's result.
    init(maxBatch: Int = 512, linger: TimeInterval = 0.000_5, process: @escaping ([Job]) -> Void) {
        self.maxBatch = maxBatch
        self.linger = linger
        self.process = process
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "timeline-writer"
        self.thread = thread
        thread.start()
    }

    /// Queues `job`; returns `false` when the committer has been shut down.
    func submit(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard case .running = state else { return false }
        pending.append(job)
        condition.signal()
        return true
    }

    private func run() {
        var lastBatch = 0
        while true {
            condition.lock()
            while pending.isEmpty, case .running = state { condition.wait() }
            if pending.isEmpty {
                state = .stopped
                condition.broadcast()
                condition.unlock()
                return
            }
            // The callers of the last batch are likely about to send their next command:
            // give them a moment to join, so one fsync serves them all.
            if pending.count < lastBatch {
                let deadline = Date(timeIntervalSinceNow: linger)
                while pending.count < lastBatch, case .running = state, condition.wait(until: deadline) {}
            }
            let batch = Array(pending.prefix(maxBatch))
            pending.removeFirst(batch.count)
            condition.unlock()
            lastBatch = batch.count
            process(batch)
        }
    }

    /// Finishes the queued jobs, then stops the writer thread.
    func shutdown() {
        condition.lock()
        if case .running = state { state = .stopping }
        condition.broadcast()
        while true {
            if case .stopped = state { break }
            condition.wait()
        }
        condition.unlock()
    }
}
