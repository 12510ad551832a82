import Curl
import Foundation
import JSONModel
import OpenSSL
import Synchronization
import Timeline
import WebPush

/// Web Push deliveries (RFC 8030): a planner thread follows the log as the live streams do and
/// turns each notification into one delivery per matching subscription of its user (the alert
/// wanted, the policy, blocks and mutes as the activity feed applies them), queued durably in
/// the `PushOutbox` — as references, not words or keys — before anything is sent; the events
/// that end deliveries (a sign-out, an unsubscription, an erasure, a suspension) purge them from
/// it. `concurrency` sender threads, each with its own libcurl handle (connections and HTTP/2
/// reused), make each message from the state when they take it (a delivery whose subscription or
/// notification is gone is dropped), encrypt it (aes128gcm, or the legacy aesgcm for a
/// subscription that is not `standard`) and send it with `TTL`, `Urgency`, `Topic` and VAPID.
/// 429 and 5xx (or no answer) are retried with backoff, and dropped after a day; 404 and 410
/// end the subscription. Nothing here runs on a command's or a read's path: a slow push service
/// only delays pushes.
///
/// A poll's end is no event: `pollEndJob`, run by the server's `DueTimeScheduler` at each end,
/// plans the `poll` pushes of the polls ended since the last it planned (`PushOutbox.pollsThrough`,
/// synced with them), to the author and every voter who may still see the post; a vote the log
/// applies after its poll's end was planned is planned as the planner meets it. So each end is
/// pushed once, also across restarts, and one that came while the server was down is pushed at
/// its start.
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
        /// The defaults: public endpoints only, the system's authorities, one node.
        public init() {}
    }

    /// Counts since start, for `/metrics`.
    public struct Counts: Sendable, Equatable {
        /// Deliveries the push service accepted.
        public var sent = 0
        /// Attempts that failed and will be tried again.
        public var retried = 0
        /// Deliveries given up (refused for good, or past their retries).
        public var failed = 0
        /// Deliveries dropped unsent: their subscription or notification was gone when taken.
        public var dropped = 0
        /// Log events not yet turned into deliveries.
        public var lag: UInt64 = 0
    }

    private let service: TimelineService
    private let vapid: VAPID
    private let options: Options
    private let outbox: PushOutbox
    private let state = Mutex<(stopped: Bool, inFlight: Set<String>, counts: Counts)>((false, [], Counts()))
    private let wake = NSCondition()
    /// Held while planning (from the log, or the polls' ends): the outbox's two positions move together.
    private let planning = NSLock()
    /// The running threads: `stop` waits for them (no read after the service closes).
    private let running = DispatchGroup()
    /// This server's URL, for the notifications' icons (known once it listens).
    private let baseURL = Mutex("")
    /// The events deliveries were made from, and what their notifications say (by event and
    /// item), for the senders: a post tells each of its author's notified followers the same
    /// words, read once. Memory only, bounded, and emptied whenever a purge ends deliveries.
    private let recent = Mutex<(events: [UInt64: EventEnvelope], wordings: [String: Wording])>(([:], [:]))

    /// Tells the worker where the server listens (its notifications' icons are there).
    public func serve(at url: String) { baseURL.withLock { $0 = url } }

    /// A worker keeping its outbox in `directory` (created 0700).
    public init(service: TimelineService, directory: String, vapid: VAPID, options: Options = Options()) throws {
        self.service = service
        self.vapid = vapid
        self.options = options
        outbox = try PushOutbox(
            directory: directory, start: try service.appliedSequence(), pollsStart: service.now())
    }

    /// The VAPID key pair in `directory/vapid.key` (0600), made on first use.
    public static func vapidKeys(in directory: String) throws -> P256KeyPair {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory + "/vapid.key"
        if let data = FileManager.default.contents(atPath: path), data.count == 97 {
            return P256KeyPair(privateKey: Array(data.prefix(32)), publicKey: Array(data.suffix(65)))
        }
        let keys = try P256KeyPair.generate()
        let temporary = path + ".tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(keys.privateKey + keys.publicKey),
                attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else { throw CocoaError(.fileWriteUnknown) }
        return keys
    }

    /// The counts so far.
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
        let planner = Thread { [self] in
            plan()
            running.leave()
        }
        planner.name = "timeline-push-planner"
        planner.start()
        for index in 0..<max(1, options.concurrency) {
            running.enter()
            let sender = Thread { [self] in
                send()
                running.leave()
            }
            sender.name = "timeline-push-\(index)"
            sender.start()
        }
    }

    /// Stops the threads and waits for them (at most 15 s: a delivery in flight times out in
    /// 10); what is queued stays in the outbox for the next start.
    public func stop() {
        state.withLock { $0.stopped = true }
        wake.lock()
        wake.broadcast()
        wake.unlock()
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
                    try planning.withLock { try planLog(through: applied) }
                    continue
                }
            } catch {
                FileHandle.standardError.write(Data("timeline serve: push planning paused: \(error)\n".utf8))
            }
            pause(0.02)
        }
    }

    /// Plans one batch of the log's events after the outbox's position, up to `applied` (under
    /// `planning`).
    private func planLog(through applied: UInt64) throws {
        guard applied > outbox.through else { return }
        let events = try service.events(from: outbox.through + 1, limit: Int(min(256, applied - outbox.through)))
        guard let last = events.last else { return }
        var deliveries: [PushDelivery] = [], purge = PushPurge()
        for event in events {
            // In log order: an event ends what was planned before it, in this batch too.
            let ended = Self.ended(by: event)
            if !ended.isEmpty {
                deliveries.removeAll(where: ended.covers)
                purge.formUnion(ended)
            }
            deliveries += try self.deliveries(for: event)
        }
        if !purge.isEmpty { recent.withLock { $0 = ([:], [:]) } }
        try outbox.queue(deliveries, purging: purge, through: last.sequence)
        if !deliveries.isEmpty { wakeSenders() }
    }

    private func wakeSenders() {
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    // MARK: - Polls' ends

    /// The job the server's `DueTimeScheduler` runs at each poll's end: it plans the `poll`
    /// pushes of the polls ended since the outbox's `pollsThrough` (at once at start, for those
    /// that ended while the server was down).
    public var pollEndJob: DueTimeScheduler.Job {
        DueTimeScheduler.Job(
            name: "poll ends",
            nextDue: { [self] in try service.nextPollEnd(after: outbox.pollsThrough) },
            run: { [self] in try planPollEnds() })
    }

    /// Plans the pushes of the polls ended after `pollsThrough` up to now, from a snapshot of the
    /// read models whose log position is the outbox's (the log is planned up to it first): a
    /// vote or poll in that snapshot is planned here, and one the log applies after it by
    /// `deliveries(for:)`, which finds its poll's end already planned. The deliveries and the
    /// new `pollsThrough` are written (synced) together.
    func planPollEnds() throws {
        guard !stopped else { return }
        try planning.withLock {
            for _ in 0..<64 {
                let now = service.now()
                let (sequence, polls) = try service.pollsEnded(after: outbox.pollsThrough, through: now)
                if sequence > outbox.through {
                    try planLog(through: sequence)
                    continue
                }
                guard sequence == outbox.through else { continue }
                var deliveries: [PushDelivery] = []
                for poll in polls {
                    for user in poll.participants {
                        deliveries += try self.deliveries(telling: user, of: poll, sequence)
                    }
                }
                try outbox.queue(deliveries, through: outbox.through, pollsThrough: now)
                if !deliveries.isEmpty { wakeSenders() }
                return
            }
        }
    }

    /// The `poll` deliveries of `poll`'s end to `user`: one to each of their subscriptions that
    /// wants the alert from its author, when the end is in their activity (`pollEndItem`: the
    /// post still in their sight).
    private func deliveries(telling user: UserID, of poll: EndedPoll, _ sequence: UInt64) throws -> [PushDelivery] {
        let subscriptions = try service.pushSubscriptions(of: user)
        guard !subscriptions.isEmpty, try service.pollEndItem(poll.item, for: user) != nil else { return [] }
        return try subscriptions.filter { try wants($0, "poll", from: poll.author) }.map { subscription in
            PushDelivery(
                id: "\(poll.item).\(subscription.sessionHash.prefix(16))", subscription: subscription.sessionHash,
                user: user.rawValue, actor: poll.author.rawValue, sequence: sequence, item: poll.item, type: "poll",
                queuedAt: Date().timeIntervalSince1970)
        }
    }

    /// The deliveries `event` ends: those of a subscription that ended with it, of a subscriber
    /// whose sessions all ended or who was erased or suspended, and those telling of an actor
    /// erased or suspended. (A session that merely expires, a block or a mute, a comment taken
    /// back: the sender finds it when it takes the delivery, and drops it.)
    static func ended(by event: EventEnvelope) -> PushPurge {
        var purge = PushPurge()
        switch event.event {
        case .signedOut(let e): purge.subscriptions.insert(e.sessionHash)
        case .pushUnsubscribed(let e): purge.subscriptions.insert(e.sessionHash)
        case .signedOutEverywhere(let e): purge.users.insert(e.userId.rawValue)
        case .passwordChanged(let e): purge.users.insert(e.userId.rawValue)
        case .userSuspended(let e): (purge.users, purge.actors) = ([e.userId.rawValue], [e.userId.rawValue])
        case .userErased(let e): (purge.users, purge.actors) = ([e.userId.rawValue], [e.userId.rawValue])
        default: break
        }
        return purge
    }

    /// What `event` pushes: each notification it made for a user it may have told who has
    /// subscriptions, to each of them that wants its type from its actor.
    private func deliveries(for event: EventEnvelope) throws -> [PushDelivery] {
        var out: [PushDelivery] = []
        // A vote (or poll) applied after its poll's end was planned: its participant is told now.
        if let (user, poll) = try service.pollEnd(madeBy: event), poll.at <= outbox.pollsThrough {
            out += try deliveries(telling: user, of: poll, event.sequence)
        }
        for user in try service.usersNotified(by: event) {
            let subscriptions = try service.pushSubscriptions(of: user)
            guard !subscriptions.isEmpty else { continue }
            for item in try service.activityItems(madeBy: event, for: user) {
                guard let type = item.kind.mastodonType, let actor = item.actor else { continue }
                for subscription in subscriptions where try wants(subscription, type, from: actor) {
                    out.append(
                        PushDelivery(
                            id: "\(item.id).\(subscription.sessionHash.prefix(16))",
                            subscription: subscription.sessionHash, user: user.rawValue,
                            actor: actor.rawValue,
                            sequence: event.sequence, item: item.id, type: type,
                            queuedAt: Date().timeIntervalSince1970))
                }
            }
        }
        return out
    }

    /// Whether `subscription` wants a notification of `type` from `actor` (its alerts, its policy).
    private func wants(_ subscription: PushSubscription, _ type: String, from actor: UserID) throws -> Bool {
        guard subscription.alerts.contains(type) else { return false }
        switch subscription.policy {
        case .all: return true
        case .none: return false
        case .followed: return try service.follows(subscription.user, actor)
        case .follower: return try service.follows(actor, subscription.user)
        }
    }

    /// A delivery made ready to send: where, with which keys, and the message.
    private struct Message {
        /// The endpoint as subscribed (what libcurl is given), and parsed (VAPID's audience).
        var address: String
        var endpoint: URL
        var p256dh: [UInt8], auth: [UInt8]
        var standard: Bool
        var payload: String
        var topic: String
        var urgency: String
    }

    /// The log's event at `sequence` (nil if there is none).
    private func event(_ sequence: UInt64) throws -> EventEnvelope? {
        if let known = recent.withLock({ $0.events[sequence] }) { return known }
        guard let event = try service.events(from: sequence, limit: 1).first, event.sequence == sequence else {
            return nil
        }
        recent.withLock {
            if $0.events.count >= 256 { $0.events = [:] }
            $0.events[sequence] = event
        }
        return event
    }

    /// The message `delivery` sends now, from the state now; nil when it is no longer to be sent:
    /// its subscription ended (signed out, expired, unsubscribed, its user erased or suspended)
    /// or no longer wants it, or the notification is no longer in the subscriber's activity (its
    /// actor erased, suspended, blocked or muted, the comment or like taken back).
    private func message(for delivery: PushDelivery) throws -> Message? {
        let user = UserID(delivery.user), actor = UserID(delivery.actor)
        let subscriptions = try service.pushSubscriptions(of: user)
        guard let subscription = subscriptions.first(where: { $0.sessionHash == delivery.subscription }),
            try wants(subscription, delivery.type, from: actor),
            let endpoint = URL(string: subscription.endpoint), let p256dh = Base64URL.decode(subscription.p256dh),
            let auth = Base64URL.decode(subscription.auth),
            // A poll's end is no event's: it is read from the user's activity as it stands.
            let item = delivery.type == "poll"
                ? try service.pollEndItem(delivery.item, for: user)
                : try event(delivery.sequence).flatMap({
                    try service.activityItems(madeBy: $0, for: user).first(where: { $0.id == delivery.item })
                }),
            item.actor == actor
        else { return nil }
        // The user's notification filters: a hidden one is not pushed, a warned one says no text.
        let verdict = try filterVerdict(on: item, for: user)
        if verdict.hidden { return nil }
        // A poll's end says "your poll" to its author: their wording is their own.
        let key = "\(delivery.sequence)/\(item.kind.rawValue)/\(item.id)/\(item.kind == .poll && actor == user)"
        var wording: Wording
        if let known = recent.withLock({ $0.wordings[key] }) {
            wording = known
        } else {
            wording = try self.wording(of: item, for: user)
            recent.withLock {
                if $0.wordings.count >= 256 { $0.wordings = [:] }
                $0.wordings[key] = wording
            }
        }
        if !verdict.matches.isEmpty { wording.body = wording.title }
        // Mastodon's push JSON (its notification's Mastodon id); never the email or a token.
        let payload: JSONValue = [
            "notification_id": .string(try service.numericID(of: .notification(item.id)).description),
            "notification_type": .string(delivery.type),
            "title": .string(wording.title), "body": .string(wording.body), "icon": .string(wording.icon),
            "preferred_locale": "en", "url": .string(wording.url)
        ]
        let data = JSONWriter.bytes(payload)
        return Message(
            address: subscription.endpoint, endpoint: endpoint, p256dh: p256dh, auth: auth,
            standard: subscription.standard, payload: String(decoding: data, as: UTF8.self),
            topic: String(item.id.prefix(32)), urgency: item.kind == .like ? "low" : "normal")
    }

    /// What `user`'s notification filters make of the comment or post `item` names (nothing
    /// when it names neither, or one gone from their sight).
    private func filterVerdict(on item: ActivityItem, for user: UserID) throws -> FilterVerdict {
        let filters = try service.filterMatching(viewer: user, context: .notifications)
        guard !filters.isEmpty else { return FilterVerdict(matches: []) }
        if let id = item.comment, let comment = try? service.comment(id, viewer: user) {
            return filters.verdict(on: comment, viewer: user)
        }
        if let id = item.post, let detail = try? service.post(id, viewer: user, comments: PageRequest(limit: 1)) {
            return filters.verdict(on: detail.post, viewer: user)
        }
        return FilterVerdict(matches: [])
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
        let title =
            switch item.kind {
            case .comment: "\(name) commented on your photo"
            case .reply: "\(name) replied to your comment"
            case .mention: "\(name) mentioned you"
            case .like: "\(name) liked your photo"
            case .boost: "\(name) boosted your photo"
            case .follow: "\(name) followed you"
            case .followRequest: "\(name) asked to follow you"
            case .post: "\(name) posted a photo"
            case .poll: item.actor == user ? "Your poll has ended" : "A poll by \(name) has ended"
            case .addedToCollection: "\(name) added you to a collection"
            case .removed: ""
            }
        // What was written: the comment (a comment, a reply, a mention in one), else the caption
        // (a new post, a mention in one); a like or a follow wrote nothing.
        var text: String?
        switch item.kind {
        case .comment, .reply, .mention, .post, .poll:
            text =
                try item.comment.map { try service.comment($0, viewer: user).text }
                ?? item.post.flatMap {
                    try service.post($0, viewer: user, comments: PageRequest(limit: 1)).post.caption
                }
        case .like, .boost, .follow, .followRequest, .removed, .addedToCollection:
            break
        }
        let base = baseURL.withLock { $0 }
        let icon =
            try item.actor.flatMap { try service.user($0).avatar }.map { "\(base)/v1/images/\($0.small.rawValue)" }
            ?? "\(base)/app/icon-192.png"
        let body = text.map { $0.count > 140 ? $0.prefix(139) + "…" : $0 }.flatMap { $0.isEmpty ? nil : $0 } ?? title
        // The post's page (as the Mastodon API's status `url`), which opens it in the web app.
        let page = try item.post.map { id in
            PublicPages.post(
                id, by: try service.post(id, viewer: user, comments: PageRequest(limit: 1)).post.authorUsername,
                at: base)
        }
        return Wording(title: title, body: body, icon: icon, url: page ?? "\(base)/#/activity")
    }

    // MARK: - Sending

    private static let day: TimeInterval = 24 * 3600

    /// Whether a delivery is young enough to try again (a day after it was queued it is dropped).
    private static func retriable(_ delivery: PushDelivery) -> Bool {
        Date().timeIntervalSince1970 - delivery.queuedAt < day
    }

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
        let message: Message?
        do {
            message = try self.message(for: delivery)
        } catch let error as TimelineError where [.notFound, .forbidden, .unauthenticated].contains(error.code) {
            message = nil  // what it told of is gone, or no longer the subscriber's to read
        } catch {
            // A read that failed: tried again later, as a send without an answer is (not at once,
            // which would spin on it).
            var again = delivery
            again.attempts += 1
            again.notBefore = Date().timeIntervalSince1970 + min(pow(2, Double(again.attempts)) * 0.5, 3600)
            if Self.retriable(delivery) { try outbox.postpone(again) } else { try outbox.finish(delivery.id) }
            throw error
        }
        guard let message else {
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
        if message.standard {
            body = try WebPushEncryption.encrypt(
                Array(message.payload.utf8), p256dh: message.p256dh,
                auth: message.auth)
            coding = ["Content-Encoding: aes128gcm"]
        } else {
            let legacy = try WebPushEncryption.encryptLegacy(
                Array(message.payload.utf8), p256dh: message.p256dh,
                auth: message.auth)
            body = legacy.body
            coding = ["Content-Encoding: aesgcm"] + legacy.headers
        }
        let headers =
            [
                "Content-Type: application/octet-stream", "TTL: 86400", "Urgency: \(message.urgency)",
                "Topic: \(message.topic)",
                "Authorization: \(try vapid.authorization(for: message.endpoint))"
            ] + coding
        let status: Int
        do {
            status = try client.post(message.address, headers: headers, body: body, timeout: .seconds(10))
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
        do { outcome = .success(try await service.execute(command, as: .operator)) } catch {
            outcome = .failure(error as? TimelineError ?? TimelineError(.internal, "\(error)"))
        }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
