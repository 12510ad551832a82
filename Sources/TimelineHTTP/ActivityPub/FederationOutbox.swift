import Foundation
import Timeline

/// One activity to deliver to one inbox, kept as references (the event, who acts, what it is
/// about): the activity is made when it is sent, from the state then — a post deleted before
/// its `Create` went out is not sent. Its `id` (the event and the inbox) is stable.
struct FederationDelivery: Codable, Equatable, Sendable {
    /// What is delivered.
    enum Kind: String, Codable, Sendable {
        /// `Create` of a new post (`post`, by `actor`).
        case create
        /// `Update` of an edited post (`post`, by `actor`): its `Note` as it now is.
        case update
        /// `Delete` of a post gone (`post`, by `actor`): a `Tombstone` of its `Note`.
        case delete
        /// `Accept` of `follower`'s follow of `actor`.
        case accept
        /// `Reject` of `follower`'s follow request to `actor`.
        case reject
        /// `Follow` of the remote account `remote` by `actor` (its server answers).
        case follow
        /// `Undo` of `actor`'s `Follow` of `remote` (unfollowed, or the request withdrawn).
        case undoFollow
        /// `Like` of `remote`'s post `post` by `actor`.
        case like
        /// `Undo` of that `Like`.
        case undoLike
        /// `Create` of `actor`'s comment `subject` on the post `post`: a reply `Note`.
        case reply
        /// `Delete` of that comment, deleted: a `Tombstone` of its `Note`.
        case deleteReply
        /// `Announce` of `post` by `actor` (the boost `subject`), to their remote followers and a
        /// remote author.
        case announce
        /// `Undo` of that `Announce`.
        case undoAnnounce
        /// `Block` of the remote account `remote` by `actor`.
        case block
        /// `Undo` of that `Block`.
        case undoBlock
        /// `Update` of `actor`'s own actor document (its profile changed), to its remote followers.
        case updateActor
        /// `Delete` of `actor` itself, erased: signed before the erasure shredded its key
        /// (`signed`), so retried only while the signature's time is accepted (12 hours).
        case deleteActor
    }

    /// A delivery signed when it was queued: its body and its header lines.
    struct Signed: Codable, Equatable, Sendable {
        var body: String
        var headers: [String]
    }

    var id: String
    var kind: Kind
    /// The log event that made it.
    var sequence: UInt64
    /// The local user who acts (whose key signs).
    var actor: String
    var post: String?
    /// The remote account whose follow is answered.
    var follower: String?
    /// The remote account an action of `actor`'s concerns (the followed, the post's author).
    var remote: String?
    /// The comment a `reply` sends, the boost an `announce` is.
    var subject: String?
    /// Whom an `announce` is for: the boost's visibility (`public`, `unlisted`, `private`; none
    /// in a journal written before it: public).
    var audience: BoostVisibility?
    /// What a `deleteActor` sends, signed already.
    var signed: Signed?
    var inbox: String
    /// When it was queued (s since 1970), its attempts so far, and when the next may be made.
    var queuedAt: TimeInterval
    var attempts = 0
    var notBefore: TimeInterval = 0
}

/// The federation outbox's durable state, an append-only journal (`DB/federation/outbox.jsonl`):
/// deliveries `queued` and `done`, and how far the log has been turned into deliveries
/// (`through`). Replayed at start (what was queued and not done is sent again, with its
/// stable id; what a server took never is), and rewritten short then. The same shape as Web
/// Push's journal (`PushOutbox`), for deliveries of another kind.
final class FederationOutbox: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var handle: FileHandle
    private(set) var through: UInt64
    private(set) var pending: [String: FederationDelivery] = [:]
    /// The servers failing now (no answer, or a 5xx), each since its first failure in a row (s since 1970).
    private var failing: [String: TimeInterval] = [:]

    private enum Record: Codable {
        case queued(FederationDelivery)
        case done(String)
        case through(UInt64)
        case failing(String, TimeInterval)
        case answered(String)
    }

    /// Opens the journal in `directory`, or starts one at the log's position `start` (nothing
    /// before it is delivered: a server that begins to federate does not send its history).
    init(directory: String, start: UInt64) throws {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
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
                case .failing(let host, let since): failing[host] = since
                case .answered(let host): failing[host] = nil
                }
            }
        } else {
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        self.through = through
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try compact()
    }

    /// Records `deliveries` as queued and the log as planned through `sequence`, synced before
    /// any of them is sent.
    func queue(_ deliveries: [FederationDelivery], through sequence: UInt64) throws {
        try lock.withLock {
            for delivery in deliveries { pending[delivery.id] = delivery }
            through = sequence
            try append(deliveries.map(Record.queued) + [.through(sequence)], sync: !deliveries.isEmpty)
        }
    }

    /// Records `deliveries`, made outside the log's order (an erased actor's `Delete`), as
    /// queued, synced before any of them is sent.
    func queue(_ deliveries: [FederationDelivery]) throws {
        try lock.withLock {
            for delivery in deliveries { pending[delivery.id] = delivery }
            try append(deliveries.map(Record.queued), sync: true)
        }
    }

    /// The deliveries due now, oldest first (at most `limit`); of a server failing since before
    /// `setAsideBefore`, one at most (the probe of whether it is back).
    func due(at now: TimeInterval, limit: Int, setAsideBefore: TimeInterval) -> [FederationDelivery] {
        lock.withLock {
            let due = pending.values.filter { $0.notBefore <= now }.sorted { $0.queuedAt < $1.queuedAt }
            // The servers set aside, as their inboxes' prefix (no URL is parsed per delivery).
            let setAside = failing.filter { $0.value < setAsideBefore }.map { "https://\($0.key)/" }
            guard !setAside.isEmpty else { return Array(due.prefix(limit)) }
            var probed = Set<String>()
            return Array(
                due.filter { delivery in
                    guard let server = setAside.first(where: delivery.inbox.hasPrefix) else { return true }
                    return probed.insert(server).inserted
                }
                .prefix(limit))
        }
    }

    /// `host` failed at `now`: when it has been failing since (its first failure in a row).
    func failed(_ host: String, at now: TimeInterval) throws -> TimeInterval {
        try lock.withLock {
            if let since = failing[host] { return since }
            failing[host] = now
            try append([.failing(host, now)], sync: false)
            return now
        }
    }

    /// `host` answered: it is failing no more, and what waits for it is due at once.
    func answered(_ host: String) throws {
        try lock.withLock {
            guard failing.removeValue(forKey: host) != nil else { return }
            try append([.answered(host)], sync: false)
            for (id, delivery) in pending where Validation.host(of: delivery.inbox) == host {
                pending[id]?.notBefore = 0
            }
        }
    }

    /// How many servers have been failing since before `time`.
    func failingCount(since time: TimeInterval) -> Int { lock.withLock { failing.values.filter { $0 < time }.count } }

    /// How many deliveries wait.
    var pendingCount: Int { lock.withLock { pending.count } }

    /// `id` is delivered, or given up on.
    func done(_ id: String) throws {
        try lock.withLock {
            guard pending.removeValue(forKey: id) != nil else { return }
            try append([.done(id)], sync: false)
            if pending.isEmpty { try compact() }
        }
    }

    /// `delivery` failed and is tried again after its backoff.
    func retry(_ delivery: FederationDelivery) throws {
        try lock.withLock {
            pending[delivery.id] = delivery
            try append([.queued(delivery)], sync: false)
        }
    }

    private func append(_ records: [Record], sync: Bool) throws {
        var bytes = Data()
        for record in records {
            bytes += try JSONEncoder().encode(record)
            bytes.append(0x0A)
        }
        try handle.write(contentsOf: bytes)
        if sync { try handle.synchronize() }
    }

    /// Rewrites the journal with what is pending, the failing servers and the position alone (a temporary file,
    /// synced, renamed over it).
    private func compact() throws {
        let temporary = path + ".new"
        var bytes = Data()
        for record in pending.values.map(Record.queued) + failing.map(Record.failing) + [.through(through)] {
            bytes += try JSONEncoder().encode(record)
            bytes.append(0x0A)
        }
        FileManager.default.createFile(atPath: temporary, contents: bytes, attributes: [.posixPermissions: 0o600])
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        try file.synchronize()
        try file.close()
        guard rename(temporary, path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        try handle.close()
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
    }
}
