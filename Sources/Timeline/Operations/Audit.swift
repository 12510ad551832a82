import Foundation
import LMDB
import TimelineDomain

/// Which events `audit list` shows. Every set criterion must match.
public struct AuditFilter: Sendable, Equatable {
    /// Only these event types (`nil`: all).
    public var types: Set<EventType>?
    /// The acting user's id (or `system`, or `operator`).
    public var actor: String?
    /// Only this stream.
    public var stream: String?
    /// Events by this user or about them (any user field of the payload).
    public var user: UserID?
    /// Only events about this post.
    public var post: PostID?
    /// Timestamps in ms, inclusive.
    public var since: Int64?
    /// Only events at or before this time (ms since 1970).
    public var until: Int64?
    /// Sequence numbers, inclusive.
    public var from: UInt64?
    /// Only events up to this sequence.
    public var to: UInt64?

    /// No filter: every event.
    public init() {}

    /// Whether `envelope` passes the filter.
    public func matches(_ e: EventEnvelope) -> Bool {
        if let types, !types.contains(e.type) { return false }
        if let actor, e.actor != actor { return false }
        if let stream, e.stream != stream { return false }
        if let since, e.timestamp < since { return false }
        if let until, e.timestamp > until { return false }
        if let from, e.sequence < from { return false }
        if let to, e.sequence > to { return false }
        if let user, e.actor != user.rawValue, !e.event.users.contains(user) { return false }
        if let post, e.event.post != post { return false }
        return true
    }
}

/// Counts over the whole log.
public struct LogStatistics: Sendable {
    /// Events in the log.
    public var events: UInt64
    /// Events per type.
    public var byType: [EventType: Int]
    /// `yyyy-MM-dd` (UTC) → events.
    public var byDay: [String: Int]
    /// Bytes of the log's envelopes.
    public var logBytes: Int
    /// Bytes of the database files.
    public var databaseBytes: Int
    /// The first event, if any.
    public var first: EventEnvelope?
    /// The last event, if any.
    public var last: EventEnvelope?
    /// How many events each projection is behind the log.
    public var lag: [ProjectionName: UInt64]
}

extension TimelineService {
    /// Calls `body` with each event matching `filter`, ascending (or descending with
    /// `reverse`), until it returns `false`. Reads one snapshot; memory stays flat.
    public func auditEvents(_ filter: AuditFilter, reverse: Bool = false, _ body: (EventEnvelope) throws -> Bool)
        throws(TimelineError)
    {
        let log = self.log
        // A forward listing walks the log from `from` on: read ahead (a reverse one reads the tail).
        func walk<R>(_ body: () throws -> R) throws -> R {
            reverse ? try body() : try environment.readingSequentially(body)
        }
        do {
            try walk {
                try environment.read { txn in
                    if reverse {
                        try log.forEachReversed(from: filter.to ?? UInt64.max, txn) { envelope in
                            if let from = filter.from, envelope.sequence < from { return false }
                            return try !filter.matches(envelope) || body(envelope)
                        }
                    } else {
                        try log.forEach(from: filter.from ?? 1, txn) { envelope in
                            if let to = filter.to, envelope.sequence > to { return false }
                            return try !filter.matches(envelope) || body(envelope)
                        }
                    }
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The event with this sequence number or event id.
    public func event(_ reference: String) throws(TimelineError) -> EventEnvelope {
        let log = self.log
        do {
            let found = try environment.read { txn -> EventEnvelope? in
                if let sequence = UInt64(reference) { return try log.envelope(at: sequence, txn) }
                return try log.envelope(id: EventID(reference), txn)
            }
            guard let found else { throw TimelineError(.notFound, "no event \(reference)") }
            return found
        } catch {
            throw Self.translate(error)
        }
    }

    /// Counts per type and per day, sizes, first and last event, and projection lag.
    public func logStatistics() throws(TimelineError) -> LogStatistics {
        let log = self.log
        let days = DateFormatter()
        days.dateFormat = "yyyy-MM-dd"
        days.timeZone = TimeZone(identifier: "UTC")
        days.locale = Locale(identifier: "en_US_POSIX")
        // Asked outside the read: the size enters the environment's gate, which a writer
        // growing the map may be waiting to hold alone.
        let databaseBytes = environment.usedBytes
        return try environment.readingSequentially { () throws(TimelineError) in
            try read { view in
                var stats = LogStatistics(
                    events: 0, byType: [:], byDay: [:], logBytes: 0, databaseBytes: databaseBytes,
                    first: nil, last: nil, lag: [:])
                try log.forEach(view.txn) { envelope in
                    stats.events += 1
                    stats.byType[envelope.type, default: 0] += 1
                    stats.byDay[
                        days.string(from: Date(timeIntervalSince1970: Double(envelope.timestamp) / 1000)), default: 0] +=
                        1
                    if stats.first == nil { stats.first = envelope }
                    stats.last = envelope
                    return true
                }
                let logStats = try view.txn.statistics(log.log)
                stats.logBytes = logStats.pages * logStats.pageSize
                let head = stats.last?.sequence ?? 0
                for name in ProjectionName.allCases {
                    stats.lag[name] = head - min(head, try view.models.checkpoint(name, view.txn))
                }
                return stats
            }
        }
    }

    /// A consistent, compacted hot copy of the whole database into the directory `path`
    /// (created; must not already hold a database), with the per-user keys beside it (without
    /// them the copy's personal fields could not be read). Safe while commands run. Keys are
    /// copied after the snapshot: a user erased in between stays erased in the copy.
    public func backup(to path: String) throws(TimelineError) {
        let dataFile = URL(fileURLWithPath: path).appendingPathComponent("data.mdb").path
        guard !FileManager.default.fileExists(atPath: dataFile) else {
            throw TimelineError(.conflict, "\(path) already holds a database")
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try environment.copy(to: path, compact: true)
            if let files = log.keys.backend as? FileKeyBackend {
                try Self.copyKeys(from: files.directory, to: URL(fileURLWithPath: path).appendingPathComponent("keys"))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Copies every key file of `source` into `destination` (created, owner-only). Any file
    /// that cannot be listed or copied fails the whole copy: a backup without its keys would
    /// have shredded every user.
    public static func copyKeys(from source: URL, to destination: URL) throws(TimelineError) {
        let manager = FileManager.default
        do {
            try manager.createDirectory(
                at: destination, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for name in try manager.contentsOfDirectory(atPath: source.path) where FileKeyBackend.isKeyFile(name) {
                let target = destination.appendingPathComponent(name)
                guard !manager.fileExists(atPath: target.path) else { continue }
                try manager.copyItem(at: source.appendingPathComponent(name), to: target)
            }
        } catch {
            throw TimelineError(.internal, "cannot copy the keys from \(source.path) to \(destination.path): \(error)")
        }
    }
}
