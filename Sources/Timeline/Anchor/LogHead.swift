/// A position in the hash chain: an event's sequence number and its hash. Recorded outside the
/// database (printed by `timeline audit head`, or signed into anchor checkpoints), it pins the
/// whole history up to that event: a log that still holds the same hash at that sequence has
/// every earlier event unchanged.
public struct LogHead: Sendable, Hashable, CustomStringConvertible {
    /// The last sequence number (0: an empty log).
    public var sequence: UInt64
    /// BLAKE2b-256 of the event at `sequence` (the genesis hash, 32 zero bytes, for 0).
    public var hash: [UInt8]

    /// The head at `sequence`, whose envelope hash is `hash`.
    public init(sequence: UInt64, hash: [UInt8]) {
        self.sequence = sequence
        self.hash = hash
    }

    /// `SEQ:HASH`, the hash in lower-case hex.
    public var description: String { "\(sequence):\(hashHex)" }

    /// The hash in lower-case hex.
    public var hashHex: String { hex(hash) }

    /// Parses `SEQ:HASH` (a decimal sequence number and 64 hex digits); `nil` otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && $0.isNumber }),
            let sequence = UInt64(parts[0]),
            parts[1].count == 2 * EventEnvelope.hashLength, let hash = unhex(parts[1])
        else { return nil }
        self.init(sequence: sequence, hash: hash)
    }
}
