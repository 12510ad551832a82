import Foundation
import Timeline

/// One push to make: a notification for one subscription, kept as references only — the
/// subscription (its token's hash), the subscriber, the actor, the event and the activity item —
/// never the endpoint, the browser's keys or what the notification says. The message is made when
/// the delivery is sent, from the state then: a subscription that has ended, an actor erased or
/// suspended, an item blocked, muted or taken back, and the delivery is dropped. Its `id` is
/// stable (the notification and the subscription), so a push service or receiver can drop a
/// repeat.
struct PushDelivery: Codable, Equatable, Sendable {
    var id: String
    /// The subscription's token hash (its name in the read models).
    var subscription: String
    /// The subscriber (their erasure, suspension or sign-out everywhere ends it).
    var user: String
    /// Whose action it tells of (their erasure or suspension ends it).
    var actor: String
    /// The log event that made the notification, and the activity item it made for `user`.
    var sequence: UInt64
    var item: String
    /// Mastodon's alert type (`mention`, `favourite`, …).
    var type: String
    /// When it was queued (s since 1970): dropped a day later.
    var queuedAt: TimeInterval
    /// Attempts so far, and when the next may be made.
    var attempts = 0
    var notBefore: TimeInterval = 0
}

/// The deliveries a stretch of the log ended: those of ended subscriptions (a sign-out, an
/// unsubscription, the push service's 410), of subscribers whose sessions all ended or who were
/// erased or suspended, and those telling of an erased or suspended actor.
struct PushPurge: Sendable, Equatable {
    var subscriptions: Set<String> = []
    var users: Set<String> = []
    var actors: Set<String> = []

    var isEmpty: Bool { subscriptions.isEmpty && users.isEmpty && actors.isEmpty }

    func covers(_ delivery: PushDelivery) -> Bool {
        subscriptions.contains(delivery.subscription) || users.contains(delivery.user)
            || actors.contains(delivery.actor)
    }

    mutating func formUnion(_ other: PushPurge) {
        subscriptions.formUnion(other.subscriptions)
        users.formUnion(other.users)
        actors.formUnion(other.actors)
    }
}

/// The outbox's durable state, an append-only journal (`outbox.jsonl` in the push directory):
/// `queued` deliveries, `done` ones (acknowledged by the push service, or dropped), how far
/// the log has been turned into deliveries (`through`), and up to which time the polls' ends
/// have been (`pollsThrough`: a poll's end is no event, so its pushes are remembered here, as
/// every push's delivery is, never in the log). Replayed at start: what was queued and
/// not done is sent again (with its stable id), what the service acknowledged never is. The
/// journal is rewritten (compacted) short whenever nothing is pending, at start, and whenever a
/// purge took deliveries out: what an ended subscription or an erased person left is then gone
/// from the file, not only marked done. (Its records are references: no words, no endpoint, no
/// key; a journal of the earlier format, which held them, is rewritten without them at start.)
final class PushOutbox: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var handle: FileHandle
    private(set) var through: UInt64
    /// The polls ending at or before this time (ms since 1970) have had their pushes planned.
    private(set) var pollsThrough: Int64
    private(set) var pending: [String: PushDelivery] = [:]
    /// The ids of pending deliveries never tried, in the order they were queued (oldest at
    /// `head`; ids already done are skipped as they are met), and of those waiting to be
    /// retried: a take looks at the few at the front, not at a burst of tens of thousands.
    private var fresh: [String] = [], head = 0
    private var retries: Set<String> = []

    private enum Record: Codable {
        case queued(PushDelivery)
        case done(String)
        case through(UInt64)
        case pollsThrough(Int64)
    }

    /// Opens (or starts at `start`, and the polls' ends at `pollsStart`) the journal in
    /// `directory`; a journal written before polls were pushed starts them at `pollsStart`.
    init(directory: String, start: UInt64, pollsStart: Int64) throws {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        path = directory + "/outbox.jsonl"
        var through = start, pollsThrough = pollsStart
        if let data = FileManager.default.contents(atPath: path) {
            for line in data.split(separator: 0x0A) {
                // A line cut short by a crash is the last one: what it said did not happen.
                guard let record = try? JSONDecoder().decode(Record.self, from: Data(line)) else { continue }
                switch record {
                case .queued(let delivery): pending[delivery.id] = delivery
                case .done(let id): pending[id] = nil
                case .through(let sequence): through = sequence
                case .pollsThrough(let time): pollsThrough = time
                }
            }
            // Replayed oldest first; a delivery tried before waits for its retry.
            for delivery in pending.values.sorted(by: { $0.queuedAt < $1.queuedAt }) {
                if delivery.attempts == 0, delivery.notBefore == 0 {
                    fresh.append(delivery.id)
                } else {
                    retries.insert(delivery.id)
                }
            }
        } else {
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        self.through = through
        self.pollsThrough = pollsThrough
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        // Rewritten at once: lines done, cut short or of the earlier format go.
        try compact()
    }

    /// When `through` was last written without deliveries.
    private var throughWrittenAt = Date.distantPast

    /// Records `deliveries` as queued and the log as turned into deliveries through `sequence`:
    /// durably (fsync) before any of them is sent. Without deliveries the position is written
    /// at most once a second and not synced: replanning events that pushed nothing costs a
    /// restart little, and the log's own commits are not made to wait for this file's. The
    /// pending deliveries `purge` covers (all queued before this stretch of the log) are
    /// forgotten first, and then the journal is rewritten without them, synced, before the
    /// position moves past the events that ended them (a crash before replans those events,
    /// which purge again).
    /// With `pollsThrough`, the polls' ends up to that time are recorded as planned, synced
    /// with the deliveries they made.
    func queue(
        _ deliveries: [PushDelivery], purging purge: PushPurge = PushPurge(), through sequence: UInt64,
        pollsThrough time: Int64? = nil
    ) throws {
        try lock.withLock {
            through = sequence
            if let time {
                pollsThrough = time
                for delivery in deliveries where pending.updateValue(delivery, forKey: delivery.id) == nil {
                    fresh.append(delivery.id)
                }
                return try append(deliveries.map(Record.queued) + [.through(sequence), .pollsThrough(time)])
            }
            if !purge.isEmpty {
                for (id, delivery) in pending where purge.covers(delivery) {
                    pending[id] = nil
                    retries.remove(id)
                }
                // Rewritten even when nothing pending was covered: a sender may have dropped a
                // delivery of what ended already, and its records (naming its subscription, its
                // subscriber) are still in the file until it is rewritten.
                for delivery in deliveries where pending.updateValue(delivery, forKey: delivery.id) == nil {
                    fresh.append(delivery.id)
                }
                return try compact()
            }
            if deliveries.isEmpty {
                guard Date().timeIntervalSince(throughWrittenAt) >= 1 else { return }
                throughWrittenAt = Date()
                // Nothing pending: the journal is rewritten as this one line (it never grows idle).
                if pending.isEmpty { try compact() } else { try append([.through(sequence)], sync: false) }
                return
            }
            for delivery in deliveries where pending.updateValue(delivery, forKey: delivery.id) == nil {
                fresh.append(delivery.id)
            }
            try append(deliveries.map(Record.queued) + [.through(sequence)])
        }
    }

    /// When the journal was last synced, and whether it holds records written since.
    private var syncedAt = Date.distantPast
    private var unsynced = false

    /// Records a delivery as done (acknowledged, or dropped): it is never sent again. Done
    /// records are synced in groups, at most every 5 ms (one fsync per delivery would cap the
    /// deliveries at the disk's fsync rate): a crash in that window sends those again, with
    /// their stable id, as a crash between the service's answer and this record always could.
    func finish(_ id: String) throws {
        try lock.withLock {
            guard pending.removeValue(forKey: id) != nil else { return }
            retries.remove(id)
            if pending.isEmpty { return try compact() }
            try append([.done(id)], sync: false)
            unsynced = true
            if Date().timeIntervalSince(syncedAt) >= 0.005 { try syncLocked() }
        }
    }

    /// Syncs what `finish` wrote since the last sync (senders call it when idle).
    func flush() throws { try lock.withLock { if unsynced { try syncLocked() } } }

    private func syncLocked() throws {
        try handle.synchronize()
        syncedAt = Date()
        unsynced = false
    }

    /// Records a failed attempt and when the next may be made.
    func postpone(_ delivery: PushDelivery) throws {
        try lock.withLock {
            guard pending[delivery.id] != nil else { return }
            pending[delivery.id] = delivery
            retries.insert(delivery.id)
            try append([.queued(delivery)])
        }
    }

    /// A pending delivery due at `now` that `skipping` does not hold: a retry that is due
    /// first (they are the older), else the oldest never tried.
    func next(dueAt now: TimeInterval, skipping: Set<String>) -> PushDelivery? {
        lock.withLock {
            var due: PushDelivery?
            for id in retries {
                guard let delivery = pending[id] else { continue }
                if delivery.notBefore <= now, !skipping.contains(id),
                    due.map({ delivery.queuedAt < $0.queuedAt }) ?? true
                {
                    due = delivery
                }
            }
            if let due { return due }
            // Done (or moved to the retries) ids at the front go; the few in flight are passed.
            while head < fresh.count, pending[fresh[head]] == nil || retries.contains(fresh[head]) { head += 1 }
            if head > 4_096, head * 2 > fresh.count {
                fresh.removeFirst(head)
                head = 0
            }
            var index = head
            while index < fresh.count {
                let id = fresh[index]
                if let delivery = pending[id], !retries.contains(id), !skipping.contains(id) { return delivery }
                index += 1
            }
            return nil
        }
    }

    private func append(_ records: [Record], sync: Bool = true) throws {
        var bytes = Data()
        for record in records { bytes += try JSONEncoder().encode(record) + [0x0A] }
        try handle.write(contentsOf: bytes)
        if sync { try syncLocked() }
    }

    /// Rewrites the journal as the pending deliveries (oldest first) and the position, through
    /// a synced file renamed over it.
    private func compact() throws {
        let temporary = path + ".tmp"
        var lines = Data()
        for delivery in pending.values.sorted(by: { $0.queuedAt < $1.queuedAt }) {
            lines += try JSONEncoder().encode(Record.queued(delivery)) + [0x0A]
        }
        lines += try JSONEncoder().encode(Record.through(through)) + [0x0A]
        lines += try JSONEncoder().encode(Record.pollsThrough(pollsThrough)) + [0x0A]
        FileManager.default.createFile(atPath: temporary, contents: lines, attributes: [.posixPermissions: 0o600])
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        try file.synchronize()
        try file.close()
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        try handle.close()
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        (syncedAt, unsynced) = (Date(), false)
        if pending.isEmpty { (fresh, head, retries) = ([], 0, []) }
    }
}
