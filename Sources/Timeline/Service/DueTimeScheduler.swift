import Foundation

/// The server's one trigger for work due at a time (`timeline serve` runs one): a task that asks
/// each job when it is next due, sleeps until the soonest (at most a second, so work scheduled
/// or moved meanwhile is seen, and a clock that jumps is followed), and runs each job that is
/// due. It keeps no state of its own: each job reads its due time from the read models (and,
/// for what it has done, its own durable record), so a restart runs at once what came due
/// while the server was down. The jobs: the scheduled posts' publication
/// (`DueTimeScheduler.Job.scheduledPosts`), the stories' sweep (`DueTimeScheduler.Job.stories`)
/// and the polls' end pushes (`PushWorker.pollEndJob`).
public final class DueTimeScheduler: Sendable {
    /// Work due at a time.
    public struct Job: Sendable {
        /// What it is (in the log's messages).
        public let name: String
        /// When it is next due (ms since 1970, the service's clock); `nil`: nothing pending.
        public let nextDue: @Sendable () throws -> Int64?
        /// Does what is due now; a job still due after it is run again a second later.
        public let run: @Sendable () async throws -> Void

        /// A job called `name`, due at `nextDue()`, doing `run`.
        public init(
            name: String, nextDue: @escaping @Sendable () throws -> Int64?,
            run: @escaping @Sendable () async throws -> Void
        ) {
            self.name = name
            self.nextDue = nextDue
            self.run = run
        }

        /// Publishes the scheduled posts due (`TimelineService.publishDueScheduledPosts`);
        /// `log` is told of each one that failed.
        public static func scheduledPosts(_ service: TimelineService, log: @escaping @Sendable (String) -> Void)
            -> Job
        {
            Job(
                name: "scheduled posts", nextDue: { try service.nextScheduledPostDue() },
                run: {
                    try await service.publishDueScheduledPosts { id, error in
                        log("publishing scheduled post \(id): \(error)")
                    }
                })
        }
    }

    private let now: @Sendable () -> Int64
    private let jobs: [Job]
    private let task = StoppableTask()
    private let log: @Sendable (String) -> Void

    /// A scheduler of `jobs` on `service`'s clock; `log` is told of failures.
    public init(service: TimelineService, jobs: [Job], log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.now = { service.now() }
        self.jobs = jobs
        self.log = log
    }

    /// Starts running the jobs (what is overdue at once).
    public func start() {
        let jobs = self.jobs, now = self.now, log = self.log
        task.start {
            while !Task.isCancelled {
                var wait: Int64 = 1000
                for job in jobs {
                    do {
                        if let due = try job.nextDue(), due <= now() { try await job.run() }
                        // Until the next is due; one still due now failed: tried again in a second.
                        if let due = try job.nextDue() {
                            let left = due - now()
                            wait = min(wait, left <= 0 ? 1000 : left)
                        }
                    } catch {
                        log("\(job.name): \(error)")
                    }
                }
                try? await Task.sleep(for: .milliseconds(max(1, wait)))
            }
        }
    }

    /// Stops and waits for a job in flight.
    public func stop() async { await task.stop() }
}
