import Foundation
import Synchronization

/// A thread that runs `step` every `interval` until stopped (a cluster node applying the
/// batches other nodes publish). A failing step is retried at the next tick and reported on
/// stderr (once per distinct error, and again when it recovers), never dropped silently.
final class Follower: Sendable {
    /// Shared with the thread, which outlives no `stop()`.
    private final class State: Sendable {
        let running = Mutex(true)
        let finished = DispatchSemaphore(value: 0)
    }

    private let state = State()

    init(interval: Duration, step: @escaping @Sendable () throws -> Void) {
        let (seconds, attoseconds) = interval.components
        let microseconds = UInt32(max(1, seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        let state = self.state
        let thread = Thread {
            var failing: String?
            while state.running.withLock({ $0 }) {
                do {
                    try step()
                    if failing != nil { reportProblem("follower: applying replicated batches again") }
                    failing = nil
                } catch {
                    let message = "\(error)"
                    if message != failing {
                        reportProblem("follower: cannot apply replicated batches yet (retrying): \(message)")
                    }
                    failing = message
                }
                usleep(microseconds)
            }
            state.finished.signal()
        }
        thread.name = "timeline-follower"
        thread.start()
    }

    /// Stops the thread and waits for it to finish its current step.
    func stop() {
        let wasRunning = state.running.withLock { value in
            defer { value = false }
            return value
        }
        if wasRunning { state.finished.wait() }
    }
}
