import TimelineDomain

/// One stored event with its metadata and its link in the hash chain.
public struct EventEnvelope: Sendable, Equatable {
    /// Global position in the log: gapless, starting at 1.
    public var sequence: UInt64
    /// The event's unique id.
    public var id: EventID
    /// The stable type name.
    public var type: EventType
    /// The schema version the payload was written with (before upcasting).
    public var schemaVersion: UInt8
    /// The aggregate stream (`user-<id>`, `post-<id>`, …).
    public var stream: String
    /// Position within the stream, starting at 1.
    public var streamVersion: UInt64
    /// Milliseconds since 1970.
    public var timestamp: Int64
    /// The acting user's id, or `system`.
    public var actor: String
    /// The command (or import) the event belongs to.
    public var correlationId: String?
    /// The event that caused this one, if any.
    public var causationId: String?
    /// The event itself.
    public var event: Event
    /// Hash of the previous event (32 zero bytes for the first).
    public var previousHash: [UInt8]
    /// BLAKE2b-256 over `previousHash` and this event's encoded body.
    public var hash: [UInt8]
    /// Set when the event's personal fields could not be opened because their owner was erased
    /// (they are absent from `event`).
    public var erased = false
    /// The payload as stored (personal fields sealed): what replication ships to other nodes.
    package var encodedPayload: [UInt8] = []

    /// The actor recorded for events no user caused (an operator's tools included). Logs
    /// written before SPEC's wording was followed may also hold `operator`.
    public static let systemActor = "system"
    /// Bytes of a BLAKE2b-256 hash.
    public static let hashLength = 32
    /// The `previousHash` of the first event.
    public static let genesisHash = [UInt8](repeating: 0, count: hashLength)
}

/// The stored form of an envelope: `body ‖ previousHash ‖ hash`, where the body is
/// `format(1) seq id type schemaVersion stream streamVersion timestamp actor correlation?
/// causation? payload`.
enum EnvelopeCodec {
    static let formatTag: UInt8 = 1

    /// Encodes everything but the hashes.
    static func body(of e: EventEnvelope) -> [UInt8] {
        var w = ByteWriter(capacity: 256)
        w.u8(formatTag)
        w.varint(e.sequence)
        w.string(e.id.rawValue)
        w.string(e.type.rawValue)
        w.u8(e.schemaVersion)
        w.string(e.stream)
        w.varint(e.streamVersion)
        w.int64(e.timestamp)
        w.string(e.actor)
        w.optionalString(e.correlationId)
        w.optionalString(e.causationId)
        w.blob(e.encodedPayload)
        return w.bytes
    }

    static func encode(body: [UInt8], previousHash: [UInt8], hash: [UInt8]) -> [UInt8] {
        body + previousHash + hash
    }

    /// Splits a stored record into body, previous hash and hash.
    static func split(_ stored: [UInt8]) throws(CorruptRecord) -> (body: [UInt8], previousHash: [UInt8], hash: [UInt8])
    {
        let n = EventEnvelope.hashLength
        guard stored.count > 2 * n else { throw CorruptRecord(message: "event record too short") }
        let bodyEnd = stored.count - 2 * n
        return (Array(stored[..<bodyEnd]), Array(stored[bodyEnd..<bodyEnd + n]), Array(stored[(bodyEnd + n)...]))
    }

    /// The type of a stored event, read from its head without decoding the rest (nil when the
    /// head is not readable: the full decode then says why).
    static func type(of stored: [UInt8]) -> EventType? {
        var r = ByteReader(stored)
        guard (try? r.u8()) == formatTag, (try? r.varint()) != nil, (try? r.string()) != nil, let name = try? r.string()
        else { return nil }
        return EventType(rawValue: name)
    }

    static func decode(_ stored: [UInt8], keys: any PayloadKeys) throws -> EventEnvelope {
        let (body, previousHash, hash) = try split(stored)
        var r = ByteReader(body)
        guard try r.u8() == formatTag else { throw CorruptRecord(message: "unknown event format") }
        let sequence = try r.varint()
        let id = try r.string()
        let typeName = try r.string()
        guard let type = EventType(rawValue: typeName) else {
            throw CorruptRecord(message: "unknown event type \(typeName)")
        }
        let version = try r.u8()
        let stream = try r.string()
        let streamVersion = try r.varint()
        let timestamp = try r.int64()
        let actor = try r.string()
        let correlation = try r.optionalString()
        let causation = try r.optionalString()
        let payload = try r.blob()
        try r.expectEnd()
        let (event, erased) = try PayloadCodec.decode(type: type, version: version, payload, keys: keys)
        return EventEnvelope(
            sequence: sequence, id: EventID(id), type: type, schemaVersion: version, stream: stream,
            streamVersion: streamVersion, timestamp: timestamp, actor: actor, correlationId: correlation,
            causationId: causation, event: event, previousHash: previousHash, hash: hash, erased: erased,
            encodedPayload: payload)
    }
}
