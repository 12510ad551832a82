import Foundation
import JSONModel
import MicroHTTPD
import Synchronization
import Timeline

/// The event streams of `GET /v1/stream`, all fed by one follower of the log: it reads each
/// event once the read models have applied it (written by any process on the database, or
/// any node of a cluster), asks the library what it means for each open stream's user
/// (`TimelineService.liveUpdates`), and writes Server-Sent Events whose `id:` is the event's
/// log sequence. A comment every 15 s keeps proxies from closing idle streams; a live client
/// that does not read is dropped (`EventStream`).
///
/// A stream lives only as long as the session that opened it (directly or through a ticket):
/// an event that may end sessions (sign-out, password change or reset, erasure) and every
/// heartbeat check the session, and a stream whose session ended is closed before anything
/// later is sent to it.
///
/// A stream that reconnects with `Last-Event-ID` is first *replaying*: a thread of its own
/// sends it what it missed, outside the lock the live streams share and only while the client
/// takes it (its buffer is under `replayBuffer`), until it reaches the follower's position;
/// then it joins the live streams under the lock: none lost, none twice. A backlog longer than
/// `replayHorizon` events is not replayed: the stream gets `event: reload` (refetch, then
/// follow) and goes on live.
final class LiveStreams: Sendable {
    private let service: TimelineService
    private let maxStreams: Int
    private let replayHorizon: UInt64
    private let state: Mutex<State>
    private let wake = NSCondition()
    private let replayWake = NSCondition()

    private struct State {
        /// The last sequence every live stream has been given.
        var position: UInt64
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
        var stopped = false
    }

    private struct Subscriber {
        let user: UserID
        /// The session token the stream was opened with (kept in memory only).
        let session: String
        let stream: EventStream
        let format: LiveFormat
        /// While replaying: the next sequence to send (the follower skips the stream).
        var replayFrom: UInt64?
    }

    static let pollInterval = 0.02
    static let heartbeatInterval: Duration = .seconds(15)
    /// A replaying stream is sent more only while it holds less than this for its client.
    static let replayBuffer = 64 << 10
    /// Events read from the log in one step of a replay.
    static let replayChunk = 256

    init(service: TimelineService, maxStreams: Int, replayHorizon: UInt64 = 100_000) {
        self.service = service
        self.maxStreams = maxStreams
        self.replayHorizon = replayHorizon
        state = Mutex(State(position: (try? service.appliedSequence()) ?? 0))
        let follower = Thread { [self] in follow() }
        follower.name = "timeline-live"
        follower.start()
        let replayer = Thread { [self] in replay() }
        replayer.name = "timeline-replay"
        replayer.start()
    }

    var openCount: Int { state.withLock { $0.subscribers.count } }

    /// Opens a stream for `user` of `session`, written in `format`; with `after`, it first
    /// replays what happened after that event.
    func open(
        for user: UserID, session: String, after: UInt64?, format: LiveFormat = .timeline,
        stream: EventStream = EventStream()
    ) throws(TimelineError) -> EventStream {
        let result = state.withLock { state -> Result<Void, TimelineError> in
            guard !state.stopped else { return .failure(TimelineError(.internal, "the server is stopping")) }
            guard state.subscribers.count < maxStreams else {
                return .failure(TimelineError(.rateLimited, "too many open streams; try again later"))
            }
            // Checked again under the lock: an event that ended the session before this point
            // was handled by the follower without this stream, and any later one will see it.
            guard (try? service.userID(session: session)) == user else {
                return .failure(TimelineError(.unauthenticated, "the session is not valid or has expired"))
            }
            stream.send(format.greeting)
            var subscriber = Subscriber(user: user, session: session, stream: stream, format: format)
            if let after, after < state.position {
                if state.position - after > replayHorizon {
                    stream.send(
                        Array(
                            "id: \(state.position)\nevent: reload\ndata: {\"reason\":\"too far behind to replay\"}\n\n"
                                .utf8))
                } else {
                    subscriber.replayFrom = after + 1
                }
            }
            state.subscribers[ObjectIdentifier(stream)] = subscriber
            return .success(())
        }
        try result.get()
        stream.onGone { [weak self] in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: ObjectIdentifier(stream)) }
        }
        signal(replayWake)
        return stream
    }

    /// Ends every stream and the follower.
    func stop() {
        let streams = state.withLock { state -> [EventStream] in
            state.stopped = true
            return state.subscribers.values.map(\.stream)
        }
        for stream in streams { stream.close() }
        signal(wake)
        signal(replayWake)
    }

    private func signal(_ condition: NSCondition) {
        condition.lock()
        condition.signal()
        condition.unlock()
    }

    /// The follower: polls the read models' position, delivers new events to the live
    /// streams, ends the streams of ended sessions, sends heartbeats.
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
                            if let user = Self.sessionsMayEnd(event) { closeEnded(of: user, &state) }
                            for subscriber in state.subscribers.values where subscriber.replayFrom == nil {
                                deliver(event, to: subscriber)
                            }
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
                closeExpired()
                let streams = state.withLock { $0.subscribers.values.map { ($0.stream, $0.format.heartbeat) } }
                for (stream, beat) in streams { stream.send(beat) }
            }
            wake.lock()
            _ = wake.wait(until: Date(timeIntervalSinceNow: Self.pollInterval))
            wake.unlock()
        }
    }

    /// The user whose sessions `event` may end, if any.
    private static func sessionsMayEnd(_ event: EventEnvelope) -> UserID? {
        switch event.event {
        case .signedOut(let e): e.userId
        case .signedOutEverywhere(let e): e.userId
        case .passwordChanged(let e): e.userId
        case .userErased(let e): e.userId
        case .userSuspended(let e): e.userId
        default: nil
        }
    }

    /// Closes (and forgets) `user`'s streams whose session is no longer valid.
    private func closeEnded(of user: UserID, _ state: inout State) {
        for (key, subscriber) in state.subscribers where subscriber.user == user {
            guard (try? service.userID(session: subscriber.session)) != user else { continue }
            state.subscribers[key] = nil
            subscriber.stream.close()
        }
    }

    /// Closes the streams whose session has expired (or ended unseen), checking the sessions
    /// outside the lock every stream shares: one read each, for up to `maxStreams` streams.
    private func closeExpired() {
        let open = state.withLock {
            $0.subscribers.map { (key: $0.key, user: $0.value.user, session: $0.value.session) }
        }
        let ended = Set(open.filter { (try? service.userID(session: $0.session)) != $0.user }.map(\.key))
        guard !ended.isEmpty else { return }
        let streams = state.withLock { state in ended.compactMap { state.subscribers.removeValue(forKey: $0)?.stream } }
        for stream in streams { stream.close() }
    }

    /// The replayer: sends each replaying stream the events it missed, as fast as its client
    /// reads them, then makes it live.
    private func replay() {
        while !state.withLock({ $0.stopped }) {
            let replaying = state.withLock { state in
                state.subscribers.compactMap { key, subscriber in subscriber.replayFrom.map { (key, subscriber, $0) } }
            }
            var progressed = false
            for (key, subscriber, from) in replaying where subscriber.stream.bufferedBytes < Self.replayBuffer {
                let position = state.withLock { $0.position }
                var next = from, ended = false
                if next <= position,
                    let events = try? service.events(
                        from: next, limit: Int(min(UInt64(Self.replayChunk), position - next + 1)))
                {
                    for event in events where event.sequence <= position {
                        guard subscriber.stream.bufferedBytes < Self.replayBuffer else { break }  // the client has enough for now
                        // The session is checked as the live streams' is: before what follows its end.
                        if Self.sessionsMayEnd(event) == subscriber.user,
                            (try? service.userID(session: subscriber.session)) != subscriber.user
                        {
                            ended = true
                            break
                        }
                        deliver(event, to: subscriber)
                        next = event.sequence + 1
                    }
                }
                if next > from { progressed = true }  // only then is another round due at once
                if ended {
                    state.withLock { _ = $0.subscribers.removeValue(forKey: key) }
                    subscriber.stream.close()
                    continue
                }
                state.withLock { state in
                    guard state.subscribers[key] != nil else { return }
                    // Caught up with the follower (which has not moved past `next - 1` without
                    // this stream, as it skips replaying ones): live from here on.
                    state.subscribers[key]?.replayFrom = next > state.position ? nil : next
                }
            }
            replayWake.lock()
            _ = replayWake.wait(until: Date(timeIntervalSinceNow: progressed ? 0.001 : Self.pollInterval))
            replayWake.unlock()
        }
    }

    /// Writes what `event` means for the subscriber's user to its stream, in its format.
    private func deliver(_ event: EventEnvelope, to subscriber: Subscriber) {
        if subscriber.format.readsHome, let updates = try? service.liveUpdates(for: event, viewer: subscriber.user) {
            for update in updates {
                if let bytes = subscriber.format.encode(event.sequence, update) { subscriber.stream.send(bytes) }
            }
        }
        if let extra = subscriber.format.extra, let bytes = extra(event.sequence, event) {
            subscriber.stream.send(bytes)
        }
    }
}

/// How a live stream writes: what it starts with, each update (nil: nothing for this
/// stream), and what keeps an idle connection open.
struct LiveFormat: Sendable {
    let greeting: [UInt8]
    let heartbeat: [UInt8]
    let encode: @Sendable (_ sequence: UInt64, _ update: LiveUpdate) -> [UInt8]?
    /// Whether the stream carries the user's home updates (`encode`'s): a public or hashtag
    /// stream alone does not.
    var readsHome = true
    /// What else an event writes, read from the event itself (the public and hashtag streams).
    var extra: (@Sendable (_ sequence: UInt64, _ event: EventEnvelope) -> [UInt8]?)?

    /// A format of `greeting`, `heartbeat` and `encode` (home updates), and `extra`.
    init(
        greeting: [UInt8], heartbeat: [UInt8], readsHome: Bool = true,
        extra: (@Sendable (UInt64, EventEnvelope) -> [UInt8]?)? = nil,
        encode: @escaping @Sendable (UInt64, LiveUpdate) -> [UInt8]?
    ) {
        self.greeting = greeting
        self.heartbeat = heartbeat
        self.readsHome = readsHome
        self.extra = extra
        self.encode = encode
    }

    /// `GET /v1/stream`'s Server-Sent Events: `post`, `activity` and `removed`, each with the
    /// log sequence as its `id:` (what `Last-Event-ID` resumes after).
    static let timeline = LiveFormat(
        greeting: Array("retry: 2000\n: connected\n\n".utf8), heartbeat: Array(": keep-alive\n\n".utf8)
    ) { sequence, update in
        let name: String, data: JSONValue
        switch update {
        case .post(let post): (name, data) = ("post", JSONOutput.post(post))
        case .activity(let item): (name, data) = ("activity", JSONOutput.activity(item))
        case .removed(let post): (name, data) = ("removed", JSONOutput.removed(post))
        // An edit, and a boost taken back, are not its events (the next read shows them).
        case .edited, .unboosted: return nil
        case .conversation(let c): (name, data) = ("conversation", JSONOutput.conversation(c))
        }
        return Array("id: \(sequence)\nevent: \(name)\ndata: ".utf8) + JSONOutput.bytes(data) + Array("\n\n".utf8)
    }
}
