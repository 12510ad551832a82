import Curl
import Foundation
import OpenSSL
import Synchronization
import Timeline
import WebPush

/// Web Push deliveries (RFC 8030): a planner thread follows the log as the live streams do and
/// turns each notification into one delivery per matching subscription of its user (the alert
/// wanted, the policy, blocks and mutes as the activity feed applies them), queued durably in
/// the `PushOutbox` before anything is sent; `concurrency` sender threads, each with its own
/// libcurl handle (connections and HTTP/2 reused), encrypt them (aes128gcm, or the legacy aesgcm
/// for a subscription that is not `standard`) and send them with `TTL`,
/// `Urgency`, `Topic` and VAPID. 429 and 5xx (or no answer) are retried with backoff, and
/// dropped after a day; 404 and 410 end the subscription. Nothing here runs on a command's or a
/// read's path: a slow push service only delays pushes.
public final class PushWorker: @unchecked Sendable {
    /// What the operator chose (`timeline serve --push-…`).
    public struct Options: Sendable {
        /// A certificate authority to trust besides the system's (private push services, tests).
        public var caFile: String?
        /// Whether endpoints on loopback or private addresses may be pushed to.
        public var allowPrivate = false
        /// Deliveries in flight at once.
        public var concurrency = 4
        /// On a cluster: how nodes share the deliveries they all plan (nil: this node sends all).
        public var claims: (any DeliveryClaims)?
        public init() {}
    }

    /// Counts since start, for `/metrics`.
    public struct Counts: Sendable, Equatable {
        public var sent = 0, retried = 0, failed = 0, dropped = 0
        /// Log events not yet turned into deliveries.
        public var lag: UInt64 = 0
    }

    private let service: TimelineService
    private let vapid: VAPID
    private let options: Options
    private let outbox: PushOutbox
    private let state = Mutex<(stopped: Bool, inFlight: Set<String>, counts: Counts)>((false, [], Counts()))
    private let wake = NSCondition()
    /// The running threads: `stop` waits for them (no read after the service closes).
    private let running = DispatchGroup()
    /// This server's URL, for the notifications' icons (known once it listens).
    private let baseURL = Mutex("")

    /// Tells the worker where the server listens (its notifications' icons are there).
    public func serve(at url: String) { baseURL.withLock { $0 = url } }

    /// A worker keeping its outbox in `directory` (created 0700).
    public init(service: TimelineService, directory: String, vapid: VAPID, options: Options = Options()) throws {
        self.service = service
        self.vapid = vapid
        self.options = options
        outbox = try PushOutbox(directory: directory, start: try service.appliedSequence())
    }

    /// The VAPID key pair in `directory/vapid.key` (0600), made on first use.
    public static func vapidKeys(in directory: String) throws -> P256KeyPair {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory + "/vapid.key"
        if let data = FileManager.default.contents(atPath: path), data.count == 97 {
            return P256KeyPair(privateKey: Array(data.prefix(32)), publicKey: Array(data.suffix(65)))
        }
        let keys = try P256KeyPair.generate()
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(keys.privateKey + keys.publicKey),
                                             attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return keys
    }

    public var counts: Counts { state.withLock { $0.counts } }

    /// The counts in Prometheus' text format (for `GET /metrics`).
    public var metricsText: String {
        let counts = self.counts
        return """
            # HELP timeline_push_deliveries_total Web Push deliveries by outcome since start.
            # TYPE timeline_push_deliveries_total counter
            timeline_push_deliveries_total{outcome="sent"} \(counts.sent)
            timeline_push_deliveries_total{outcome="retried"} \(counts.retried)
            timeline_push_deliveries_total{outcome="failed"} \(counts.failed)
            timeline_push_deliveries_total{outcome="dropped"} \(counts.dropped)
            # HELP timeline_push_outbox_lag Log events not yet turned into push deliveries.
            # TYPE timeline_push_outbox_lag gauge
            timeline_push_outbox_lag \(counts.lag)

            """
    }

    /// Starts the planner and the senders.
    public func start() {
        running.enter()
        let planner = Thread { [self] in plan(); running.leave() }
        planner.name = "timeline-push-planner"
        planner.start()
        for index in 0..<max(1, options.concurrency) {
            running.enter()
            let sender = Thread { [self] in send(); running.leave() }
            sender.name = "timeline-push-\(index)"
            sender.start()
        }
    }

    /// Stops the threads and waits for them (at most 15 s: a delivery in flight times out in
    /// 10); what is queued stays in the outbox for the next start.
    public func stop() {
        state.withLock { $0.stopped = true }
        wake.lock(); wake.broadcast(); wake.unlock()
        _ = running.wait(timeout: .now() + 15)
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func pause(_ seconds: Double) {
        wake.lock()
        _ = wake.wait(until: Date(timeIntervalSinceNow: seconds))
        wake.unlock()
    }

    // MARK: - Planning

    private func plan() {
        while !stopped {
            do {
                let applied = try service.appliedSequence()
                state.withLock { $0.counts.lag = applied > outbox.through ? applied - outbox.through : 0 }
                if applied > outbox.through {
                    let events = try service.events(from: outbox.through + 1, limit: Int(min(256, applied - outbox.through)))
                    guard let last = events.last else { continue }
                    var deliveries: [PushDelivery] = []
                    for event in events { deliveries += try self.deliveries(for: event) }
                    try outbox.queue(deliveries, through: last.sequence)
                    if !deliveries.isEmpty { wake.lock(); wake.broadcast(); wake.unlock() }
                    continue
                }
            } catch {
                FileHandle.standardError.write(Data("timeline serve: push planning paused: \(error)\n".utf8))
            }
            pause(0.02)
        }
    }

    /// What `event` pushes: each notification it made for a user it may have told who has
    /// subscriptions, to each of them that wants its type from its actor.
    private func deliveries(for event: EventEnvelope) throws -> [PushDelivery] {
        var out: [PushDelivery] = []
        // What a notification says is the same for everyone it tells (a post to each follower
        // who asked): read once per event.
        var wordings: [String: Wording] = [:]
        for user in try service.usersNotified(by: event) {
            let subscriptions = try service.pushSubscriptions(of: user)
            guard !subscriptions.isEmpty else { continue }
            for item in try service.activityItems(madeBy: event, for: user) {
                guard let type = item.kind.mastodonType, let actor = item.actor else { continue }
                let key = "\(item.kind.rawValue)/\(item.id)"
                let wording = try wordings[key] ?? self.wording(of: item, for: user)
                wordings[key] = wording
                for subscription in subscriptions where subscription.alerts.contains(type) {
                    switch subscription.policy {
                    case .all: break
                    case .none: continue
                    case .followed: guard try service.follows(user, actor) else { continue }
                    case .follower: guard try service.follows(actor, user) else { continue }
                    }
                    out.append(try delivery(item, type: type, wording, to: subscription))
                }
            }
        }
        return out
    }

    /// A notification's words and links.
    private struct Wording {
        var title: String
        /// The comment's or the caption's text (at most 140 characters), or the title.
        var body: String
        var icon: String
        /// Beyond Mastodon's fields: what the web app's service worker opens.
        var url: String
    }

    /// What `item` says to `user` (who may read what it names: it is in their activity).
    private func wording(of item: ActivityItem, for user: UserID) throws -> Wording {
        let name = item.actorUsername ?? "someone"
        let title = switch item.kind {
        case .comment: "\(name) commented on your photo"
        case .reply: "\(name) replied to your comment"
        case .mention: "\(name) mentioned you"
        case .like: "\(name) liked your photo"
        case .follow: "\(name) followed you"
        case .followRequest: "\(name) asked to follow you"
        case .post: "\(name) posted a photo"
        case .removed: ""
        }
        // What was written: the comment (a comment, a reply, a mention in one), else the caption
        // (a new post, a mention in one); a like or a follow wrote nothing.
        var text: String?
        switch item.kind {
        case .comment, .reply, .mention, .post:
            text = try item.comment.map { try service.comment($0, viewer: user).text }
                ?? item.post.flatMap { try service.post($0, viewer: user, comments: PageRequest(limit: 1)).post.caption }
        case .like, .follow, .followRequest, .removed:
            break
        }
        let base = baseURL.withLock { $0 }
        let icon = try item.actor.flatMap { try service.user($0).avatar }.map { "\(base)/v1/images/\($0.small.rawValue)" } ?? "\(base)/app/icon-192.png"
        let body = text.map { $0.count > 140 ? $0.prefix(139) + "…" : $0 }.flatMap { $0.isEmpty ? nil : $0 } ?? title
        return Wording(title: title, body: body, icon: icon, url: item.post.map { "\(base)/#/post/\($0.rawValue)" } ?? "\(base)/#/activity")
    }

    private func delivery(_ item: ActivityItem, type: String, _ wording: Wording, to subscription: PushSubscription) throws -> PushDelivery {
        // Mastodon's push JSON; never the email or a token.
        let payload: [String: Any] = ["notification_id": item.id, "notification_type": type, "title": wording.title,
                                      "body": wording.body, "icon": wording.icon, "preferred_locale": "en", "url": wording.url]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys, .withoutEscapingSlashes]),
                          as: UTF8.self)
        return PushDelivery(id: "\(item.id).\(subscription.sessionHash.prefix(16))", subscription: subscription.sessionHash,
                            endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth,
                            standard: subscription.standard, payload: json,
                            topic: String(item.id.prefix(32)), urgency: item.kind == .like ? "low" : "normal",
                            queuedAt: Date().timeIntervalSince1970)
    }

    // MARK: - Sending

    private static let day: TimeInterval = 24 * 3600

    /// Whether a delivery is young enough to try again (a day after it was queued it is dropped).
    private static func retriable(_ delivery: PushDelivery) -> Bool { Date().timeIntervalSince1970 - delivery.queuedAt < day }

    private func send() {
        guard let client = HTTPSClient(caFile: options.caFile, allowPrivate: options.allowPrivate) else { return }
        while !stopped {
            let now = Date().timeIntervalSince1970
            let next = state.withLock { state -> PushDelivery? in
                guard let delivery = outbox.next(dueAt: now, skipping: state.inFlight) else { return nil }
                state.inFlight.insert(delivery.id)
                return delivery
            }
            guard let delivery = next else {
                try? outbox.flush()
                pause(1)  // woken when deliveries are queued; retries come due within a second's wait
                continue
            }
            defer { _ = state.withLock { $0.inFlight.remove(delivery.id) } }
            do {
                try attempt(delivery, client)
            } catch {
                FileHandle.standardError.write(Data("timeline serve: push outbox: \(error)\n".utf8))
            }
        }
    }

    private func attempt(_ delivery: PushDelivery, _ client: HTTPSClient) throws {
        guard let endpoint = URL(string: delivery.endpoint), let p256dh = Base64URL.decode(delivery.p256dh),
              let auth = Base64URL.decode(delivery.auth) else {
            try outbox.finish(delivery.id)
            state.withLock { $0.counts.dropped += 1 }
            return
        }
        if let claims = options.claims {
            switch try claims.claim(delivery.id) {
            case .mine: break
            case .done:
                try outbox.finish(delivery.id)
                return
            case .taken:
                // Another node is sending it; if it dies its claim lapses and this node will.
                var later = delivery
                later.notBefore = Date().timeIntervalSince1970 + claims.claimLifetime
                try outbox.postpone(later)
                return
            }
        }
        let body: [UInt8], coding: [String]
        if delivery.standard {
            body = try WebPushEncryption.encrypt(Array(delivery.payload.utf8), p256dh: p256dh, auth: auth)
            coding = ["Content-Encoding: aes128gcm"]
        } else {
            let legacy = try WebPushEncryption.encryptLegacy(Array(delivery.payload.utf8), p256dh: p256dh, auth: auth)
            body = legacy.body
            coding = ["Content-Encoding: aesgcm"] + legacy.headers
        }
        let headers = ["Content-Type: application/octet-stream", "TTL: 86400", "Urgency: \(delivery.urgency)", "Topic: \(delivery.topic)",
                       "Authorization: \(try vapid.authorization(for: endpoint))"] + coding
        let status: Int
        do {
            status = try client.post(delivery.endpoint, headers: headers, body: body, timeout: .seconds(10))
        } catch {
            status = 0  // no answer: retried as a 5xx is
        }
        switch status {
        case 200..<300:
            try options.claims?.finished(delivery.id)
            try outbox.finish(delivery.id)
            state.withLock { $0.counts.sent += 1 }
        case 404, 410:
            // The push service says the subscription is gone: end it.
            try options.claims?.finished(delivery.id)
            try outbox.finish(delivery.id)
            _ = try? await_(service, .endPushSubscription(sessionHash: delivery.subscription))
            state.withLock { $0.counts.failed += 1 }
        case let code where (code == 0 || code == 429 || (500..<600).contains(code)) && Self.retriable(delivery):
            // Retried by whichever node claims it next.
            try options.claims?.release(delivery.id)
            var again = delivery
            again.attempts += 1
            again.notBefore = Date().timeIntervalSince1970 + min(pow(2, Double(again.attempts)) * 0.5, 3600)
            try outbox.postpone(again)
            state.withLock { $0.counts.retried += 1 }
        default:
            try options.claims?.finished(delivery.id)
            try outbox.finish(delivery.id)
            state.withLock { $0.counts.dropped += 1 }
        }
    }
}

/// Runs `command` as the operator from a thread that is not in the async world, waiting for it.
private func await_(_ service: TimelineService, _ command: Command) throws -> CommandResult {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<CommandResult, TimelineError>?>(nil)
    Task {
        let outcome: Result<CommandResult, TimelineError>
        do { outcome = .success(try await service.execute(command, as: .operator)) } catch { outcome = .failure(error as? TimelineError ?? TimelineError(.internal, "\(error)")) }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
