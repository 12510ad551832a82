import Foundation
import TimelineDomain

/// Transcodes the videos uploaded (`timeline serve` runs one): a task that looks every half
/// second for recorded uploads not transcoded yet (`TimelineService.videosProcessing`, a read
/// of the projection) and transcodes up to `concurrency` at once, each on a thread of its own,
/// recording each result. It keeps no state of its own: an upload recorded before a restart is
/// still listed after it, and is transcoded then. A job that fails for a reason of the server's
/// (a full disk) is tried again a minute later.
public final class VideoWorker: Sendable {
    private let service: TimelineService
    private let concurrency: Int
    private let log: @Sendable (String) -> Void
    private let task = StoppableTask()

    /// A worker for `service`, transcoding up to `concurrency` videos at once; `log` is told of failures.
    public init(service: TimelineService, concurrency: Int = 1, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.service = service
        self.concurrency = max(1, concurrency)
        self.log = log
    }

    /// Starts transcoding (what was left before a restart at once), and clearing the video
    /// store of what the log no longer names (at once, then every hour).
    public func start() {
        let service = service, concurrency = concurrency, log = log
        task.start {
            var retryAfter: [MediaID: ContinuousClock.Instant] = [:]
            var nextSweep = ContinuousClock.now
            while !Task.isCancelled {
                let now = ContinuousClock.now
                if now >= nextSweep {
                    do { try service.sweepVideoStore() } catch { log("sweeping the video store: \(error)") }
                    nextSweep = now + .seconds(3600)
                }
                let pending = ((try? service.videosProcessing()) ?? []).filter {
                    retryAfter[$0.media, default: now] <= now
                }
                if pending.isEmpty {
                    try? await Task.sleep(for: .milliseconds(500))
                    continue
                }
                let failed = await withTaskGroup(of: MediaID?.self) { group in
                    for job in pending.prefix(concurrency) {
                        group.addTask {
                            do {
                                try await service.processVideo(job.media, upload: job.upload)
                                return nil
                            } catch {
                                log("transcoding video \(job.media): \(error)")
                                return job.media
                            }
                        }
                    }
                    return await group.reduce(into: [MediaID]()) { if let id = $1 { $0.append(id) } }
                }
                for id in failed { retryAfter[id] = ContinuousClock.now + .seconds(60) }
            }
        }
    }

    /// Stops looking for work and waits for the videos being transcoded.
    public func stop() async { await task.stop() }
}
