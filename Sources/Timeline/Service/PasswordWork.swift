import Foundation
import TimelineDomain

/// Where argon2id runs: a fixed number of threads of its own, fed by a bounded queue. Each
/// hash costs tens of milliseconds and 64 MiB, so a flood of password attempts (sign-ins from
/// many addresses, wrong current passwords from one session) would otherwise take every thread
/// the service and the HTTP server have. Here it takes at most `threads` cores; past `queueLimit`
/// waiting jobs a new one is refused at once with `rate_limited`, and no other command — none
/// waits for this pool — is slowed.
final class PasswordWork: @unchecked Sendable {  // `jobs` and `stopped` are guarded by `condition`
    private let queueLimit: Int
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var stopped = false

    init(threads: Int, queueLimit: Int) {
        self.queueLimit = max(1, queueLimit)
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in work() }
            thread.name = "timeline-password-\(index)"
            thread.start()
        }
    }

    /// Runs `body` on the pool and returns its result; `rate_limited` without running it when
    /// `queueLimit` jobs are already waiting.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws(TimelineError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            condition.lock()
            let queued = !stopped && jobs.count < queueLimit
            if queued {
                jobs.append { continuation.resume(returning: body()) }
                condition.signal()
            }
            condition.unlock()
            if !queued { continuation.resume(returning: nil) }
        }
        guard let result else {
            throw TimelineError(.rateLimited, "too many password checks are waiting; try again in a moment")
        }
        return result
    }

    /// Ends the threads once the jobs queued have run.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty, !stopped { condition.wait() }
            guard !jobs.isEmpty else { return condition.unlock() }
            let job = jobs.removeFirst()  // the queue is short (`queueLimit`)
            condition.unlock()
            job()
        }
    }
}
