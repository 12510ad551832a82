import LMDB
import TimelineDomain

/// A read model derived from the log: it owns some databases and folds events into them
/// inside the write transaction that appends the events.
protocol Projection: Sendable {
    /// Stable name (used by checkpoints and the rebuild tool).
    var name: ProjectionName { get }
    /// The databases this projection owns (and a rebuild replaces).
    var databases: [Database] { get }
    /// What the projection does with the events it handles, each declared once with
    /// `EventHandlers.on`; it never names the others, which change nothing of it. Every writer,
    /// the catch-up and the rebuilder hand each event to every projection's `fold`, which runs
    /// the handler of the event's type, if any. (A `PostRemoved` goes wherever a `PostDeleted`
    /// goes.) Which projections each event changes is derived from these declarations
    /// (`ReadModels.routing`, printed into docs/events.md).
    var handlers: EventHandlers { get }
}

extension Projection {
    /// Folds in an event: its type's handler, if the projection has one.
    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws { try handlers.fold(envelope, txn) }
}

/// A projection's handlers, one per event type it handles, each given the event's payload.
struct EventHandlers: Sendable {
    typealias Handler = @Sendable (EventEnvelope, Transaction) throws -> Void
    private var byType: [EventType: Handler] = [:]

    /// The event types handled.
    var types: Set<EventType> { Set(byType.keys) }

    /// Runs the handler of `envelope`'s type, if any.
    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws { try byType[envelope.type]?(envelope, txn) }

    /// Handles the events of `types`, each with the payload `Payload` (it must be theirs: a
    /// mismatch stops the process when the projection is made, in every test run).
    mutating func on<Payload: EventPayload>(
        _ types: EventType..., body: @escaping @Sendable (Payload, EventEnvelope, Transaction) throws -> Void
    ) {
        for type in types {
            precondition(
                ObjectIdentifier(type.payloadType) == ObjectIdentifier(Payload.self),
                "\(type.rawValue) does not carry a \(Payload.self)")
            precondition(byType[type] == nil, "\(type.rawValue) is handled twice")
            byType[type] = { envelope, txn in
                // The payload's type is checked above: the cast holds for every event of `type`.
                guard let payload = envelope.event.payload as? Payload else { return }
                try body(payload, envelope, txn)
            }
        }
    }

    /// Handles the events of `types` whatever their payload (a projection that reads only the
    /// envelope, or events of several payload types alike).
    mutating func onEnvelope(_ types: some Sequence<EventType>, body: @escaping Handler) {
        for type in types {
            precondition(byType[type] == nil, "\(type.rawValue) is handled twice")
            byType[type] = body
        }
    }
}

extension Transaction {
    /// Visits entries whose key starts with `prefix`, ascending; `body` returns `false` to stop.
    func scan(_ db: Database, prefix: [UInt8], _ body: ([UInt8], [UInt8]) throws -> Bool) throws {
        try withCursor(db) { cursor in
            var entry = prefix.isEmpty ? try cursor.first() : try cursor.seek(atLeast: prefix)
            while let (key, value) = entry, key.hasPrefix(prefix) {
                guard try body(key, value) else { return }
                entry = try cursor.next()
            }
        }
    }

    /// Visits entries whose key starts with `prefix` and is below `prefix ‖ before` (or all of
    /// them when `before` is nil), descending; `body` returns `false` to stop.
    func scanDescending(_ db: Database, prefix: [UInt8], before: String?, _ body: ([UInt8], [UInt8]) throws -> Bool)
        throws
    {
        try withCursor(db) { cursor in
            var entry: Cursor.Entry?
            if let before {
                entry = try cursor.seek(below: prefix + Array(before.utf8))
            } else if let last = prefix.last {
                // Just past every key with this prefix: the prefix with its last byte raised.
                entry = try cursor.seek(below: prefix.dropLast() + [last + 1])
            } else {
                entry = try cursor.last()
            }
            while let (key, value) = entry, key.hasPrefix(prefix) {
                guard try body(key, value) else { return }
                entry = try cursor.previous()
            }
        }
    }

    /// Deletes every entry whose key starts with `prefix`; returns the deleted keys (whole).
    @discardableResult
    func deleteAll(_ db: Database, prefix: [UInt8]) throws -> [[UInt8]] {
        var keys: [[UInt8]] = []
        try scan(db, prefix: prefix) { key, _ in
            keys.append(key)
            return true
        }
        for key in keys { try delete(db, key) }
        return keys
    }
}
