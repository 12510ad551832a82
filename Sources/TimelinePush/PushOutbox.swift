import Foundation
import Timeline

/// One push to make: a notification for one subscription. Its `id` is stable (the event, the
/// notification and the subscription), so a push service or receiver can drop a repeat.
struct PushDelivery: Codable, Equatable, Sendable {
    var id: String
    /// The subscription's token hash (its name in the read models).
    var subscription: String
    var endpoint: String
    var p256dh: String
    var auth: String
    /// RFC 8291's aes128gcm, or the legacy aesgcm.
    var standard: Bool
    /// Mastodon's push JSON, as it will be encrypted.
    var payload: String
    var topic: String
    var urgency: String
    /// When it was queued (s since 1970): dropped a day later.
    var queuedAt: TimeInterval
    /// Attempts so far, and when the next may be made.
    var attempts = 0
    var notBefore: TimeInterval = 0
}

/// The outbox's durable state, an append-only journal (`outbox.jsonl` in the push directory):
/// `queued` deliveries, `done` ones (acknowledged by the push service, or dropped), and how far
/// the log has been turned into deliveries (`through`). Replayed at start: what was queued and
/// not done is sent again (with its stable id), what the service acknowledged never is; the
/// journal is rewritten short whenever nothing is pending.
final class PushOutbox: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var handle: FileHandle
    private(set) var through: UInt64
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
    }

    /// Opens (or starts at `start`) the journal in `directory`.
    init(directory: String, start: UInt64) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        path = directory + "/outbox.jsonl"
        var through = start
        if let data = FileManager.default.contents(atPath: path) {
            for line in data.split(separator: 0x0A) {
                // A line cut short by a crash is the last one: what it said did not happen.
                guard let record = try? JSONDecoder().decode(Record.self, from: Data(line)) else { continue }
                switch record {
                case .queued(let delivery): pending[delivery.id] = delivery
                case .done(let id): pending[id] = nil
                case .through(let sequence): through = sequence
                }
            }
            // Replayed oldest first; a delivery tried before waits for its retry.
            for delivery in pending.values.sorted(by: { $0.queuedAt < $1.queuedAt }) {
                if delivery.attempts == 0, delivery.notBefore == 0 { fresh.append(delivery.id) } else { retries.insert(delivery.id) }
            }
        } else {
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        self.through = through
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        if pending.isEmpty { try compact() }
    }

    /// When `through` was last written without deliveries.
    private var throughWrittenAt = Date.distantPast

    /// Records `deliveries` as queued and the log as turned into deliveries through `sequence`:
    /// durably (fsync) before any of them is sent. Without deliveries the position is written
    /// at most once a second and not synced: replanning events that pushed nothing costs a
    /// restart little, and the log's own commits are not made to wait for this file's.
    func queue(_ deliveries: [PushDelivery], through sequence: UInt64) throws {
        try lock.withLock {
            through = sequence
            if deliveries.isEmpty {
                guard Date().timeIntervalSince(throughWrittenAt) >= 1 else { return }
                throughWrittenAt = Date()
                // Nothing pending: the journal is rewritten as this one line (it never grows idle).
                if pending.isEmpty { try compact() } else { try append([.through(sequence)], sync: false) }
                return
            }
            for delivery in deliveries where pending.updateValue(delivery, forKey: delivery.id) == nil { fresh.append(delivery.id) }
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
                if delivery.notBefore <= now, !skipping.contains(id), due.map({ delivery.queuedAt < $0.queuedAt }) ?? true { due = delivery }
            }
            if let due { return due }
            // Done (or moved to the retries) ids at the front go; the few in flight are passed.
            while head < fresh.count, pending[fresh[head]] == nil || retries.contains(fresh[head]) { head += 1 }
            if head > 4_096, head * 2 > fresh.count { fresh.removeFirst(head); head = 0 }
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

    /// Rewrites the journal as one `through` line (nothing is pending).
    private func compact() throws {
        let temporary = path + ".tmp"
        let line = try JSONEncoder().encode(Record.through(through)) + [0x0A]
        FileManager.default.createFile(atPath: temporary, contents: line, attributes: [.posixPermissions: 0o600])
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        try file.synchronize()
        try file.close()
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        try handle.close()
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        (syncedAt, unsynced) = (Date(), false)
        (fresh, head, retries) = ([], 0, [])
    }
}
