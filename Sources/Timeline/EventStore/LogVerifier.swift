import LMDB
import Sodium
import TimelineDomain

/// The result of walking the whole log.
public struct VerificationReport: Sendable, Equatable {
    /// How many events were checked.
    public var eventsChecked: UInt64
    /// The first sequence number at which something is wrong, and what.
    public var firstBadSequence: UInt64?
    /// The first problem found, if any.
    public var problem: String?
    /// The first event the log's indexes do not hold yet, when they are behind the log (their
    /// `through` marker says how far they reach): it and the events after it committed, but
    /// the derived environment's commit did not follow (a full derived map, say), or the
    /// derived data was discarded. Not a problem: the next writer to open the database catches
    /// them up. (An index entry past the marker, or one pointing elsewhere, is a problem.)
    public var indexedBefore: UInt64?
    /// Whether no problem was found.
    public var isValid: Bool { firstBadSequence == nil }
}

extension EventLog {
    /// Checks sequence contiguity, every record's decoding and hash, the chain links, and that
    /// the stream and event-id indexes match the log exactly (up to where they have caught
    /// up: see `VerificationReport.indexedBefore`).
    public func verify(_ txn: Transaction) throws -> VerificationReport {
        var report = VerificationReport(eventsChecked: 0)
        func fail(_ seq: UInt64, _ problem: String) -> Bool {
            report.firstBadSequence = seq
            report.problem = problem
            return false
        }
        var expected: UInt64 = 1
        var previousHash = EventEnvelope.genesisHash
        // How far the indexes say they have caught up (none: no derived data yet, as for
        // `indexUnindexed`).
        let indexedThrough = try txn.get(indexed, Self.indexedKey).flatMap(BigEndian.uint64) ?? 0
        try txn.withCursor(log) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                guard let seq = BigEndian.uint64(key) else {
                    _ = fail(expected, "malformed log key")
                    return
                }
                guard seq == expected else {
                    _ = fail(expected, "sequence \(expected) is missing (next is \(seq))")
                    return
                }
                guard let (body, prev, hash) = try? EnvelopeCodec.split(value) else {
                    _ = fail(seq, "record too short")
                    return
                }
                guard prev == previousHash else {
                    _ = fail(seq, "previous-hash link does not match event \(seq - 1)")
                    return
                }
                guard Sodium.hash(prev, body) == hash else {
                    _ = fail(seq, "hash does not match contents")
                    return
                }
                let envelope: EventEnvelope
                do { envelope = try EnvelopeCodec.decode(value, keys: keys) } catch {
                    _ = fail(seq, "undecodable: \(error)")
                    return
                }
                guard envelope.sequence == seq else {
                    _ = fail(seq, "record carries sequence \(envelope.sequence)")
                    return
                }
                let streamKey = EventLog.streamKey(envelope.stream, version: envelope.streamVersion)
                let byStream = try txn.get(streams, streamKey),
                    byId = try txn.get(eventIds, Array(envelope.id.rawValue.utf8))
                if seq > indexedThrough {
                    // Past where the indexes have caught up: none of these may be indexed.
                    if report.indexedBefore == nil { report.indexedBefore = seq }
                    guard byStream == nil, byId == nil else {
                        _ = fail(seq, "indexed past where the indexes say they reach")
                        return
                    }
                } else {
                    guard byStream == key else {
                        _ = fail(seq, "stream index does not point at this event")
                        return
                    }
                    guard byId == key else {
                        _ = fail(seq, "event-id index does not point at this event")
                        return
                    }
                }
                previousHash = hash
                report.eventsChecked = seq
                expected += 1
                entry = try cursor.next()
            }
        }
        if report.isValid {
            let count = min(report.eventsChecked, indexedThrough)
            let streamEntries = try txn.statistics(streams).entries
            let idEntries = try txn.statistics(eventIds).entries
            if streamEntries != Int(count) {
                _ = fail(count + 1, "stream index has \(streamEntries) entries for \(count) events")
            } else if idEntries != Int(count) {
                _ = fail(count + 1, "event-id index has \(idEntries) entries for \(count) events")
            }
        }
        return report
    }
}
