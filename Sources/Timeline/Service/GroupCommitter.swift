import Foundation

/// The single owner of the write side: one batch of commands runs at a time, in one write
/// transaction and one fsync (group commit). Callers get their own result only after the
/// batch is durable.
///
/// A lone command that finds the committer idle runs at once on its caller's thread (no
/// hand-off to wake a thread for); commands that arrive while a batch runs queue up, and the
/// writer thread runs them together as the next batch.
final class GroupCommitter<Job: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: [Job] = []
    private var state: State = .running
    /// Whether a batch is running (on the writer thread or on a caller's).
    private var busy = false
    /// The size of the batch that ran last.
    private var lastBatch = 0
    private let maxBatch: Int
    /// How long a batch waits for callers of the previous batch to come back (seconds).
    private let linger: TimeInterval
    private let process: ([Job]) -> Void
    private var thread: Thread?

    private enum State { case running, stopping, stopped }

    /// - Parameter process: runs one batch; must deliver every job's result.
    init(maxBatch: Int = 512, linger: TimeInterval = 0.000_5, process: @escaping ([Job]) -> Void) {
        self.maxBatch = maxBatch
        self.linger = linger
        self.process = process
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "timeline-writer"
        self.thread = thread
        thread.start()
    }

    /// Runs `job` now, on this thread, if no batch is running or queued and the last one was a
    /// single command (no sign of concurrent callers, whose commands are better batched by the
    /// writer thread); returns whether it did (the job's result has then been delivered).
    func runIfIdle(_ job: Job) -> Bool {
        condition.lock()
        guard case .running = state, !busy, pending.isEmpty, lastBatch <= 1 else {
            condition.unlock()
            return false
        }
        busy = true
        lastBatch = 1
        condition.unlock()
        process([job])
        condition.lock()
        busy = false
        condition.broadcast()  // commands may have queued meanwhile; shutdown may be waiting
        condition.unlock()
        return true
    }

    /// Queues `job` for the writer thread; returns `false` when the committer has been shut down.
    func submit(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard case .running = state else { return false }
        pending.append(job)
        condition.signal()
        return true
    }

    private func run() {
        while true {
            condition.lock()
            while pending.isEmpty || busy, case .running = state { condition.wait() }
            while busy { condition.wait() }  // stopping: let a caller's batch finish
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
            busy = true
            lastBatch = batch.count
            condition.unlock()
            process(batch)
            condition.lock()
            busy = false
            condition.unlock()
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
