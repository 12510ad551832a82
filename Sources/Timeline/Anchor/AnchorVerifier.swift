import LMDB

/// What the log is checked against: heads recorded outside the database.
public enum Anchor: Sendable, Equatable {
    /// One head recorded elsewhere (printed by `timeline audit head`).
    case head(LogHead)
    /// An anchor file of checkpoints that `publicKey`'s secret half must have signed.
    case file(path: String, publicKey: [UInt8])
}

/// The result of checking that the log extends an anchor.
public struct AnchorReport: Sendable, Equatable {
    /// How many anchored heads were compared with the log.
    public var headsChecked = 0
    /// The newest anchored head the log extends.
    public var latest: LogHead?
    /// The first sequence number at which the log does not extend the anchor.
    public var divergesAt: UInt64?
    /// What is wrong (`nil` when the log extends every anchored head).
    public var problem: String?
    /// Lines of the anchor file that do not parse (a torn write, or damage), skipped.
    public var unreadableLines: [Int] = []
    /// Whether the log extends every checkpoint.
    public var isValid: Bool { problem == nil }
}

extension EventLog {
    /// The stored hash of the event at `sequence` (the genesis hash for 0); `nil` if there is none.
    func hash(at sequence: UInt64, _ txn: Transaction) throws -> [UInt8]? {
        guard sequence > 0 else { return EventEnvelope.genesisHash }
        guard let stored = try txn.get(log, BigEndian.bytes(sequence)) else { return nil }
        guard stored.count > 2 * EventEnvelope.hashLength else {
            throw EventStoreError.corrupt(sequence: sequence, reason: "record too short")
        }
        return Array(stored.suffix(EventEnvelope.hashLength))
    }

    /// Checks that the log extends every one of `heads`: each anchored event is in the log with
    /// the anchored hash. Names the first anchored sequence where it does not, and the
    /// range of events the change lies in (after the last head that still matches).
    /// (Whether the stored hashes match the events is `verify`'s part.)
    func check(extends heads: [LogHead], _ txn: Transaction) throws -> AnchorReport {
        var report = AnchorReport()
        let end = try head(txn).sequence
        for anchored in Set(heads).sorted(by: { $0.sequence < $1.sequence }) {
            report.headsChecked += 1
            guard anchored.sequence <= end else {
                let furthest = heads.map(\.sequence).max() ?? anchored.sequence
                report.divergesAt = end + 1
                report.problem =
                    "the log ends at \(end) but the anchor says \(furthest): events were dropped (or the anchor is of another database)"
                return report
            }
            let stored = try hash(at: anchored.sequence, txn) ?? []
            guard stored == anchored.hash else {
                let from = (report.latest?.sequence ?? 0) + 1
                let range =
                    from == anchored.sequence
                    ? "event \(from) was changed" : "the change is in events \(from)–\(anchored.sequence)"
                report.divergesAt = anchored.sequence
                report.problem =
                    "the log diverges from the anchor at sequence \(anchored.sequence): anchored hash \(anchored.hashHex), log hash \(hex(stored)) (\(range))"
                return report
            }
            report.latest = anchored
        }
        return report
    }
}

extension TimelineService {
    /// The log's head: the last event's sequence number and hash (0 and the genesis hash when
    /// empty). Recorded outside the database, it lets `verifyAnchor` prove later that the log
    /// was not rewritten up to it.
    public func head() throws(TimelineError) -> LogHead {
        let log = self.log
        do {
            let (sequence, hash) = try environment.read { txn in try log.head(txn) }
            return LogHead(sequence: sequence, hash: hash)
        } catch {
            throw Self.translate(error)
        }
    }

    /// Checks that the log extends `anchor`. For an anchor file every checkpoint's signature is
    /// checked first (one that does not verify fails the check), then every checkpoint's head.
    /// Does not walk the chain: run `verifyLog()` too.
    public func verifyAnchor(_ anchor: Anchor) throws(TimelineError) -> AnchorReport {
        var heads: [LogHead]
        var unreadable: [Int] = []
        switch anchor {
        case .head(let head):
            heads = [head]
        case let .file(path, publicKey):
            let (entries, skipped) = try AnchorFile(path: path).entries()
            unreadable = skipped
            if let forged = entries.first(where: { !$0.checkpoint.isSigned(by: publicKey) }) {
                return AnchorReport(
                    divergesAt: nil,
                    problem:
                        "the checkpoint on line \(forged.line) of \(path) (\(forged.checkpoint.head)) has a bad signature: forged, or signed by another key",
                    unreadableLines: unreadable)
            }
            guard !entries.isEmpty else {
                return AnchorReport(problem: "\(path) holds no checkpoint", unreadableLines: unreadable)
            }
            heads = entries.map(\.checkpoint.head)
        }
        let log = self.log
        do {
            var report = try environment.read { txn in try log.check(extends: heads, txn) }
            report.unreadableLines = unreadable
            return report
        } catch {
            throw Self.translate(error)
        }
    }
}
