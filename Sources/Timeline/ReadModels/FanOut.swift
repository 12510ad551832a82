import LMDB
import TimelineDomain

/// How the home timelines are fanned out: fixed when the database is created and recorded in
/// its metadata, so every process and every rebuild projects the same way.
struct FanOut: Equatable, Sendable {
    /// Followers at which an author's posts stop being pushed (`TimelineProjection`).
    var threshold: UInt64
    /// How many of a hashtag's newest posts a follow of it writes into the follower's timeline;
    /// its older ones are merged from the tag's list when reading (`TimelineProjection`).
    var tagBackfill: UInt64

    private static let thresholdKey = Array("fanoutThreshold".utf8)
    private static let tagBackfillKey = Array("tagBackfill".utf8)

    /// The settings recorded in `logMeta`, or `defaults` recorded there when there are none (a
    /// database created before the tag backfill was recorded gets today's default).
    static func recorded(in logMeta: Database, _ txn: Transaction, defaults: FanOut) throws -> FanOut {
        func value(_ key: [UInt8], _ fallback: UInt64) throws -> UInt64 {
            if let stored = try txn.get(logMeta, key).flatMap(BigEndian.uint64) { return stored }
            try txn.put(logMeta, key, BigEndian.bytes(fallback))
            return fallback
        }
        return FanOut(
            threshold: try value(thresholdKey, defaults.threshold),
            tagBackfill: try value(tagBackfillKey, defaults.tagBackfill))
    }
}
