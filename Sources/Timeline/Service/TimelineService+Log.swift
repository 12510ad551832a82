import Foundation
import LMDB

extension TimelineService {
    /// Walks the whole log: hash chain, sequence contiguity, stream and event-id indexes.
    public func verifyLog() throws(TimelineError) -> VerificationReport {
        let log = self.log
        do { return try environment.readingSequentially { try environment.read { txn in try log.verify(txn) } } } catch
        { throw Self.translate(error) }
    }

    /// The sequence number of the last event (0 for an empty log).
    public func lastSequence() throws(TimelineError) -> UInt64 {
        let log = self.log
        do { return try environment.read { txn in try log.head(txn).sequence } } catch { throw Self.translate(error) }
    }

    /// Up to `limit` events from `sequence` on.
    public func events(from sequence: UInt64 = 1, limit: Int = 1000) throws(TimelineError) -> [EventEnvelope] {
        let log = self.log
        do { return try environment.read { txn in try log.read(from: sequence, limit: limit, txn) } } catch {
            throw Self.translate(error)
        }
    }

    /// Every event of one stream (`user-<id>`, `post-<id>`), in order.
    public func stream(_ name: String) throws(TimelineError) -> [EventEnvelope] {
        let log = self.log
        do { return try environment.read { txn in try log.stream(name, txn) } } catch { throw Self.translate(error) }
    }

    /// Events from `sequence` on, then new ones as they are committed (by this or any other
    /// process), until the consuming task is cancelled. New events are noticed by polling
    /// every `interval`. Fails with a `TimelineError` (e.g. once the service is closed).
    public func subscribe(from sequence: UInt64 = 1, interval: Duration = .milliseconds(20)) -> LogSubscription {
        LogSubscription(
            AsyncThrowingStream { continuation in
                let task = Task {
                    var next = sequence
                    do {
                        while !Task.isCancelled {
                            let batch = try self.events(from: next, limit: 512)
                            for envelope in batch { continuation.yield(envelope) }
                            if let last = batch.last {
                                next = last.sequence + 1
                            } else {
                                try await Task.sleep(for: interval)
                            }
                        }
                        continuation.finish()
                    } catch is CancellationError {
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            })
    }
}

/// The log as `TimelineService.subscribe(from:interval:)` follows it: every event from a
/// sequence number on, then new ones as they are committed; it fails only with a
/// `TimelineError`.
public struct LogSubscription: AsyncSequence, Sendable {
    /// Each element is an event with its log position.
    public typealias Element = EventEnvelope
    /// The subscription fails only with a `TimelineError`.
    public typealias Failure = TimelineError

    private let stream: AsyncThrowingStream<EventEnvelope, any Error>

    init(_ stream: AsyncThrowingStream<EventEnvelope, any Error>) { self.stream = stream }

    /// Iterates the subscription (one iterator per subscription: the events are not replayed).
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<EventEnvelope, any Error>.AsyncIterator

        /// The next event, waiting for one to be committed; `nil` once cancelled.
        public mutating func next(isolation actor: isolated (any _Concurrency.Actor)? = #isolation)
            async throws(TimelineError) -> EventEnvelope?
        {
            do {
                return try await base.next(isolation: actor)
            } catch {
                throw TimelineService.translate(error)
            }
        }

        /// The next event (see `next(isolation:)`).
        public mutating func next() async throws(TimelineError) -> EventEnvelope? { try await next(isolation: nil) }
    }

    /// Starts iterating.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}

extension TimelineService {
    /// Runs `body` inside a read transaction (a test hook for reader-slot handling).
    package func holdReadTransaction(_ body: () throws -> Void) throws {
        try environment.read { _ in try body() }
    }

    /// Reader slots of dead processes cleared when this database was opened (when no other
    /// process had it open, LMDB resets the whole reader table instead).
    public var staleReadersClearedAtOpen: Int { environment.staleReadersClearedAtOpen }

    /// Clears reader slots left by processes that died inside a read transaction (they would
    /// keep old pages from being reused); returns how many. Also done on every open.
    @discardableResult
    public func clearStaleReaders() throws(TimelineError) -> Int {
        do { return try environment.clearStaleReaders() } catch { throw Self.translate(error) }
    }
}
