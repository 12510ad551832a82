import Foundation
import MicroHTTPD
import Synchronization
import Timeline

/// The event streams of `GET /v1/stream`, all fed by one follower of the log: it reads each
/// event once the read models have applied it (written by any process on the database, or
/// any node of a cluster), asks the library what it means for each open stream's user
/// (`TimelineService.liveUpdates`), and writes Server-Sent Events whose `id:` is the event's
/// log sequence. A stream that reconnects with `Last-Event-ID` first gets every event after
/// that one, then the live ones: none lost, none twice. A comment every 15 s keeps proxies
/// from closing idle streams; a client that does not read is dropped (`EventStream`).
final class LiveStreams: Sendable {
    private let service: TimelineService
    private let maxStreams: Int
    private let state: Mutex<State>
    private let wake = NSCondition()

    private struct State {
        /// The last sequence every open stream has been given.
        var position: UInt64
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
        var stopped = false
    }

    private struct Subscriber {
        let user: UserID
        let stream: EventStream
    }

    static let pollInterval = 0.02
    static let heartbeatInterval: Duration = .seconds(15)

    init(service: TimelineService, maxStreams: Int) {
        self.service = service
        self.maxStreams = maxStreams
        state = Mutex(State(position: (try? service.appliedSequence()) ?? 0))
        let thread = Thread { [self] in follow() }
        thread.name = "timeline-live"
        thread.start()
    }

    var openCount: Int { state.withLock { $0.subscribers.count } }

    /// Opens a stream for `user`; with `after`, it first replays what happened after that
    /// event.
    func open(for user: UserID, after: UInt64?) throws(TimelineError) -> EventStream {
        let stream = EventStream()
        let result = state.withLock { state -> Result<Void, TimelineError> in
            guard !state.stopped else { return .failure(TimelineError(.internal, "the server is stopping")) }
            guard state.subscribers.count < maxStreams else { return .failure(TimelineError(.rateLimited, "too many open streams; try again later")) }
            stream.send(Array("retry: 2000\n: connected\n\n".utf8))
            if let after, after < state.position {
                var next = after + 1
                while next <= state.position {
                    let events: [EventEnvelope]
                    do { events = try service.events(from: next, limit: Int(min(512, state.position - next + 1))) } catch { return .failure(error as? TimelineError ?? TimelineError(.internal, "\(error)")) }
                    guard let last = events.last else { break }
                    for event in events where event.sequence <= state.position { deliver(event, to: user, stream) }
                    next = last.sequence + 1
                }
            }
            state.subscribers[ObjectIdentifier(stream)] = Subscriber(user: user, stream: stream)
            return .success(())
        }
        try result.get()
        stream.onGone { [weak self] in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: ObjectIdentifier(stream)) } }
        return stream
    }

    /// Ends every stream and the follower.
    func stop() {
        let streams = state.withLock { state -> [EventStream] in
            state.stopped = true
            return state.subscribers.values.map(\.stream)
        }
        for stream in streams { stream.close() }
        wake.lock()
        wake.signal()
        wake.unlock()
    }

    /// The follower: polls the read models' position, delivers new events, sends heartbeats.
    private func follow() {
        var lastBeat = ContinuousClock.now
        while !state.withLock({ $0.stopped }) {
            do {
                let applied = try service.appliedSequence()
                var position = state.withLock { $0.position }
                while position < applied {
                    let events = try service.events(from: position + 1, limit: Int(min(512, applied - position)))
                    guard !events.isEmpty else { break }
                    state.withLock { state in
                        for event in events {
                            for subscriber in state.subscribers.values { deliver(event, to: subscriber.user, subscriber.stream) }
                            state.position = event.sequence
                        }
                    }
                    position = events.last!.sequence
                }
            } catch {
                FileHandle.standardError.write(Data("timeline serve: live updates paused: \(error)\n".utf8))
            }
            if ContinuousClock.now - lastBeat >= Self.heartbeatInterval {
                lastBeat = ContinuousClock.now
                let streams = state.withLock { $0.subscribers.values.map(\.stream) }
                for stream in streams { stream.send(Array(": keep-alive\n\n".utf8)) }
            }
            wake.lock()
            _ = wake.wait(until: Date(timeIntervalSinceNow: Self.pollInterval))
            wake.unlock()
        }
    }

    /// Writes what `event` means for `user` to `stream`.
    private func deliver(_ event: EventEnvelope, to user: UserID, _ stream: EventStream) {
        guard let updates = try? service.liveUpdates(for: event, viewer: user) else { return }
        for update in updates {
            let (name, data): (String, [String: Any]) = switch update {
            case .post(let post): ("post", JSONOutput.post(post))
            case .activity(let item): ("activity", JSONOutput.activity(item))
            case .removed(let post): ("removed", ["post": post.rawValue])
            }
            stream.send(Array("id: \(event.sequence)\nevent: \(name)\ndata: ".utf8) + JSONOutput.bytes(data) + Array("\n\n".utf8))
        }
    }
}
