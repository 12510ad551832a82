import Synchronization

/// The one task a background worker runs (`DueTimeScheduler`, `VideoWorker`): started, then
/// cancelled and waited for when the worker stops.
final class StoppableTask: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Runs `body` in a task of its own (replacing none: a worker starts once).
    func start(_ body: @escaping @Sendable () async -> Void) {
        task.withLock { $0 = Task(operation: body) }
    }

    /// Cancels the task and waits for it to end (what it was doing, finished).
    func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }
}
