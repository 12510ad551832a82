import Curl
import Foundation
import Synchronization
import Timeline

/// Password-reset mail ("Forgot password?"): a thread follows the log as `PushWorker`'s planner
/// does and queues each reset asked for by email (`PasswordResetRequested` with a nonce) in a
/// journal beside the database — as references only (the event's sequence), never the address
/// or the token — durably before sending; the sender reads the event again when it sends (an
/// erased user's address and nonce no longer open: dropped), recomputes the token from the
/// nonce under the key store's secret, and mails the one-hour link by SMTP through libcurl.
/// A failure is retried with backoff until the link expires; what the server took is recorded
/// done, so a restart never sends it again.
public final class MailWorker: @unchecked Sendable {
    /// What the operator chose (`timeline serve --smtp-url … --smtp-from …`).
    public struct Options: Sendable {
        /// The SMTP server (`smtp://HOST:PORT`).
        public var url: String
        /// The sender's address.
        public var from: String
        /// A certificate authority to trust besides the system's.
        public var caFile: String?
        /// Options for this server and sender.
        public init(url: String, from: String, caFile: String? = nil) {
            self.url = url
            self.from = from
            self.caFile = caFile
        }
    }

    /// Counts since start.
    public struct Counts: Sendable, Equatable {
        /// Mails the server took.
        public var sent = 0
        /// Attempts that failed and will be tried again.
        public var retried = 0
        /// Mails dropped unsent (erased user, spent or expired link).
        public var dropped = 0
    }

    private struct Pending: Codable {
        var sequence: UInt64
        var attempts = 0
        var notBefore: TimeInterval = 0
    }

    private enum Record: Codable {
        case queued(UInt64)
        case done(UInt64)
        case through(UInt64)
    }

    private let service: TimelineService
    private let client: SMTPClient
    private let path: String
    private let handle: FileHandle
    private let state = Mutex<(stopped: Bool, through: UInt64, pending: [UInt64: Pending], counts: Counts)>(
        (false, 0, [:], Counts()))
    private let wake = NSCondition()
    private let running = DispatchGroup()
    private let baseURL = Mutex("")

    /// A worker keeping its journal in `directory` (created 0700), starting at the log's end the
    /// first time.
    public init(service: TimelineService, directory: String, options: Options) throws {
        self.service = service
        client = SMTPClient(url: options.url, from: options.from, caFile: options.caFile)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        path = directory + "/outbox.jsonl"
        var through = try service.appliedSequence()
        var pending: [UInt64: Pending] = [:]
        if let data = FileManager.default.contents(atPath: path) {
            for line in data.split(separator: 0x0A) {
                // A line cut short by a crash is the last one: what it said did not happen.
                guard let record = try? JSONDecoder().decode(Record.self, from: Data(line)) else { continue }
                switch record {
                case .queued(let sequence): pending[sequence] = Pending(sequence: sequence)
                case .done(let sequence): pending[sequence] = nil
                case .through(let sequence): through = sequence
                }
            }
        } else {
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        // Rewritten short at start: only what is still pending, and how far the log was read.
        var compact = Data()
        for record in pending.keys.sorted().map(Record.queued) + [.through(through)] {
            compact += try JSONEncoder().encode(record)
            compact.append(0x0A)
        }
        let temporary = path + ".tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: compact, attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else { throw CocoaError(.fileWriteUnknown) }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        state.withLock {
            $0.through = through
            $0.pending = pending
        }
    }

    /// When `through` was last written without a mail queued with it.
    private var throughWrittenAt = Date.distantPast

    /// Tells the worker the origin its links name (the public URL, else where it listens).
    public func serve(at url: String) { baseURL.withLock { $0 = url } }

    /// The counts so far.
    public var counts: Counts { state.withLock { $0.counts } }

    /// Starts the follower and the sender.
    public func start() {
        for (name, body) in [("timeline-mail-planner", plan), ("timeline-mail-sender", send)] {
            running.enter()
            let thread = Thread { [self] in
                body()
                running.leave()
            }
            thread.name = name
            thread.start()
        }
    }

    /// Stops the threads and waits for them (at most 15 s); what is queued is sent after the next start.
    public func stop() {
        state.withLock { $0.stopped = true }
        signal()
        _ = running.wait(timeout: .now() + 15)
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func signal() {
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    private func pause(_ seconds: Double) {
        wake.lock()
        _ = wake.wait(until: Date(timeIntervalSinceNow: seconds))
        wake.unlock()
    }

    /// Appends `records` to the journal, synced unless `sync` is false.
    private func append(_ records: [Record], sync: Bool = true) throws {
        var data = Data()
        for record in records {
            data += try JSONEncoder().encode(record)
            data.append(0x0A)
        }
        try handle.write(contentsOf: data)
        if sync { try handle.synchronize() }
    }

    private func plan() {
        while !stopped {
            do {
                let through = state.withLock { $0.through }
                let applied = try service.appliedSequence()
                if applied > through {
                    let events = try service.events(from: through + 1, limit: Int(min(256, applied - through)))
                    guard let last = events.last else { continue }
                    let queued = events.compactMap { envelope -> UInt64? in
                        guard case .passwordResetRequested(let e) = envelope.event, e.nonce != nil else { return nil }
                        return envelope.sequence
                    }
                    if !queued.isEmpty {
                        // Durably queued before anything is sent.
                        try append(queued.map(Record.queued) + [.through(last.sequence)])
                    } else if Date().timeIntervalSince(throughWrittenAt) >= 1 {
                        // Without mail the position is written at most once a second, unsynced:
                        // a restart may read a few events again, but never one that queued a mail
                        // (those are written, synced, with the position past them).
                        try append([.through(last.sequence)], sync: false)
                        throughWrittenAt = Date()
                    }
                    state.withLock {
                        $0.through = last.sequence
                        for sequence in queued { $0.pending[sequence] = Pending(sequence: sequence) }
                    }
                    if !queued.isEmpty { signal() }
                    continue
                }
            } catch {
                FileHandle.standardError.write(Data("timeline serve: mail planning paused: \(error)\n".utf8))
            }
            pause(0.05)
        }
    }

    private func send() {
        while !stopped {
            let now = Date().timeIntervalSince1970
            let next = state.withLock { state in
                state.pending.values.filter { $0.notBefore <= now }.min(by: { $0.sequence < $1.sequence })
            }
            guard let next else {
                pause(0.5)
                continue
            }
            let outcome = deliver(next.sequence)
            state.withLock { state in
                switch outcome {
                case .sent: state.counts.sent += 1
                case .dropped: state.counts.dropped += 1
                case .retry:
                    state.counts.retried += 1
                    let attempts = next.attempts + 1
                    state.pending[next.sequence]?.attempts = attempts
                    state.pending[next.sequence]?.notBefore = now + min(300, pow(2, Double(attempts)))
                }
            }
            if outcome != .retry {
                do {
                    try append([.done(next.sequence)])
                    _ = state.withLock { $0.pending.removeValue(forKey: next.sequence) }
                } catch {
                    FileHandle.standardError.write(Data("timeline serve: mail journal: \(error)\n".utf8))
                    pause(1)
                }
            }
        }
    }

    private enum Outcome { case sent, dropped, retry }

    /// Sends the reset mail of the event at `sequence`, read again now.
    private func deliver(_ sequence: UInt64) -> Outcome {
        let event: EventEnvelope
        do {
            guard let found = try service.events(from: sequence, limit: 1).first, found.sequence == sequence else {
                return .dropped
            }
            event = found
        } catch {
            return .retry
        }
        // An erased user's address and nonce no longer open; a spent, revoked or expired link is not mailed.
        guard case .passwordResetRequested(let reset) = event.event, let email = reset.email, let nonce = reset.nonce,
            (try? service.passwordResetIsOpen(tokenHash: reset.tokenHash)) == true
        else { return .dropped }
        let token = service.passwordResetToken(nonce: nonce)
        let link = baseURL.withLock { $0 } + "/#/reset?token=" + token
        let message = Self.message(
            from: client.from, to: email, link: link, id: "reset-\(sequence)", date: Date())
        do {
            try client.send(to: email, message: message, timeout: .seconds(20))
            return .sent
        } catch {
            FileHandle.standardError.write(Data("timeline serve: mail not sent (will retry): \(error)\n".utf8))
            return .retry
        }
    }

    /// The reset mail: plain text, CRLF lines.
    static func message(from: String, to: String, link: String, id: String, date: Date) -> [UInt8] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let host = from.split(separator: "@").last.map(String.init) ?? "localhost"
        let lines = [
            "From: Timeline <\(from)>", "To: <\(to)>", "Subject: Reset your Timeline password",
            "Date: \(formatter.string(from: date))", "Message-ID: <\(id)@\(host)>", "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit", "",
            "Someone asked to reset the password of your Timeline account.",
            "To choose a new one, open this link within the hour:", "", link, "",
            "Setting a new password signs you out everywhere.",
            "If it was not you, ignore this mail: your password stays as it is.", ""
        ]
        return Array(lines.joined(separator: "\r\n").utf8)
    }
}
