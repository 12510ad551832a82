import Foundation
import JSONModel
import Synchronization
import Timeline
import TimelineFederation

/// Federation's outbox worker (#43), run by `timeline serve`: it follows the log, as Web Push's
/// does, turning each local action a remote account must know of into deliveries
/// (`FederationOutbox`, synced before any is sent), and sends them signed with the acting
/// user's key, each on its own task (a slow or dead server holds up no other), retrying a failure
/// after (n⁴ + 15) seconds, as Mastodon does, 16 times. A restart resumes from the journal.
///
/// What it delivers now: a new post (`Create`), an edited one (`Update`) and a deleted or removed
/// one (`Delete`) to the author's remote followers, or a direct one's remote addressees, once per
/// server (the shared inbox, else the account's own); a local user's comment and its deletion
/// (to the remote accounts it answers, and a public post's remote followers); follows, likes,
/// boosts and blocks of remote accounts and their posts; a changed profile; and the answer to a remote account's
/// follow of a local user, `Accept` when it is followed (at once, or when its request is
/// approved) or `Reject`.
public final class DeliveryWorker: Sendable {
    /// How the worker paces itself.
    public struct Options: Sendable {
        /// The unit of the retry backoff, (n⁴ + 15) units (a second; tests shorten it).
        public var retryUnit: Duration = .seconds(1)
        /// The attempts before a delivery is given up (Mastodon's 16).
        public var maxAttempts = 16
        /// Deliveries sent at once.
        public var concurrency = 8
        /// How long a server fails (no answer, or a 5xx, every time) before it is set aside: its
        /// deliveries wait, are never given up, and one of them probes it every `probeEvery`.
        public var setAsideAfter: Duration = .seconds(7 * 24 * 3600)
        /// How often a server set aside is tried again.
        public var probeEvery: Duration = .seconds(24 * 3600)
        /// On a cluster, who sends each delivery (every node plans the same ones from the same
        /// log; ids are the same on every node): only the node whose claim answered `mine`.
        public var claims: (any DeliveryClaims)?
        /// Default options.
        public init() {}
    }

    private let api: TimelineAPI
    private let client: FederationClient
    private let outbox: FederationOutbox
    private let urls: FederationURLs
    private let options: Options
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// Deliveries by outcome since start: sent, retried, refused (a 4xx), given up.
    private let counts = Mutex<(sent: Int, retried: Int, refused: Int, givenUp: Int)>((0, 0, 0, 0))
    /// The deliveries being sent now.
    private let inFlight = Mutex<Set<String>>([])
    /// How many deliveries ended since the loop last looked for due ones (a free slot).
    private let ended = Mutex(0)

    /// A worker for `api`'s service, its journal in `directory`, its ids under `origin` (the
    /// server's public origin); it starts planning at the log's head when the journal is new.
    public init(
        api: TimelineAPI, client: FederationClient, directory: String, origin: String, options: Options = .init()
    )
        throws
    {
        self.api = api
        self.client = client
        self.options = options
        urls = FederationURLs(origin: origin)
        outbox = try FederationOutbox(directory: directory, start: try api.service.appliedSequence())
    }

    /// Starts planning and sending.
    public func start() {
        task.withLock { running in
            guard running == nil else { return }
            running = Task.detached { [self] in await run() }
        }
    }

    /// Stops; what is queued stays in the journal for the next start.
    public func stop() async {
        let running = task.withLock { running in
            defer { running = nil }
            return running
        }
        running?.cancel()
        await running?.value
    }

    private func run() async {
        while !Task.isCancelled {
            do {
                let applied = try api.service.appliedSequence()
                if applied > outbox.through { try plan(through: applied) }
                // Each delivery on its own task: a slow server's (up to its timeout) holds up no
                // other, and at most `concurrency` are in flight.
                let started = inFlight.withLock { running -> [FederationDelivery] in
                    let room = options.concurrency - running.count
                    guard room > 0 else { return [] }
                    let now = Date().timeIntervalSince1970
                    let due = outbox.due(
                        at: now, limit: options.concurrency + running.count,
                        setAsideBefore: now - Self.seconds(options.setAsideAfter)
                    )
                    .filter { !running.contains($0.id) }.prefix(room)
                    running.formUnion(due.map(\.id))
                    return Array(due)
                }
                for delivery in started {
                    Task.detached { [self] in
                        await send(delivery)
                        inFlight.withLock { _ = $0.remove(delivery.id) }
                        ended.withLock { $0 += 1 }
                    }
                }
                if started.isEmpty && applied <= outbox.through {
                    // Look again when a delivery ends (its slot is free) or after 50 ms, whichever
                    // comes first: a counter read every 2 ms costs nothing, and the due deliveries
                    // are picked only then (measured: looking every 50 ms held 8 in flight to 160/s).
                    for _ in 0..<25 where ended.withLock({ $0 == 0 }) { try await Task.sleep(for: .milliseconds(2)) }
                    ended.withLock { $0 = 0 }
                }
            } catch is CancellationError {
                return
            } catch {
                FileHandle.standardError.write(Data("timeline serve: federation paused: \(error)\n".utf8))
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    // MARK: - Planning

    private func plan(through applied: UInt64) throws {
        let events = try api.service.events(from: outbox.through + 1, limit: Int(min(256, applied - outbox.through)))
        guard let last = events.last else { return }
        var deliveries: [FederationDelivery] = []
        for event in events { deliveries += try self.deliveries(for: event) }
        try outbox.queue(deliveries, through: last.sequence)
    }

    private func deliveries(for event: EventEnvelope) throws -> [FederationDelivery] {
        let service = api.service
        func delivery(
            _ kind: FederationDelivery.Kind, actor: UserID, post: PostID? = nil, follower: UserID? = nil,
            remote: UserID? = nil, subject: String? = nil, inbox: String
        ) -> FederationDelivery {
            FederationDelivery(
                id: "\(event.sequence)/\(kind.rawValue)/\(inbox)", kind: kind, sequence: event.sequence,
                actor: actor.rawValue, post: post?.rawValue, follower: follower?.rawValue, remote: remote?.rawValue,
                subject: subject, inbox: inbox, queuedAt: Date().timeIntervalSince1970)
        }
        // A local user's action on a remote account (or its post) goes to that account's inbox.
        func toRemote(
            _ kind: FederationDelivery.Kind, by actor: UserID, about remote: UserID, post: PostID? = nil,
            subject: String? = nil
        ) throws -> [FederationDelivery] {
            guard try service.remoteAccount(actor) == nil, let account = try service.remoteAccount(remote),
                try !service.isBlocked(serverOf: account.inbox)
            else { return [] }
            return [delivery(kind, actor: actor, post: post, remote: remote, subject: subject, inbox: account.inbox)]
        }

        // A local post's news goes to whom it is for: its author's remote followers, or a direct
        // post's remote addressees (as it was posted, when it is gone since). A follow's answer
        // goes to the follower.
        func toAudience(_ kind: FederationDelivery.Kind, of author: UserID, _ post: PostID) throws
            -> [FederationDelivery]
        {
            guard try service.remoteAccount(author) == nil, let audience = try service.audience(ofPost: post) else {
                return []
            }
            let inboxes =
                audience.visibility == .direct
                ? try remoteInboxes(of: audience.addressees) : try remoteInboxes(following: author)
            return inboxes.map { delivery(kind, actor: author, post: post, inbox: $0) }
        }
        func answer(_ kind: FederationDelivery.Kind, _ follow: Follow) throws -> [FederationDelivery] {
            guard let remote = try service.remoteAccount(follow.followerId),
                try !service.isBlocked(serverOf: remote.inbox)
            else { return [] }
            return [delivery(kind, actor: follow.followeeId, follower: follow.followerId, inbox: remote.inbox)]
        }
        switch event.event {
        case .postAdded(let e): return try toAudience(.create, of: e.authorId, e.postId)
        case .postEdited(let e): return try toAudience(.update, of: e.authorId, e.postId)
        case .postDeleted(let e): return try toAudience(.delete, of: e.authorId, e.postId)
        case .postRemoved(let e): return try toAudience(.delete, of: e.authorId, e.postId)
        case .followed(let e): return try answer(.accept, e)
        case .followRequestRejected(let e): return try answer(.reject, e)
        case .followRequested(let e): return try toRemote(.follow, by: e.followerId, about: e.followeeId)
        case .unfollowed(let e), .followRequestWithdrawn(let e):
            return try toRemote(.undoFollow, by: e.followerId, about: e.followeeId)
        case .likeAdded(let e):
            guard let author = try service.remoteObject(of: e.postId)?.author else { return [] }
            return try toRemote(.like, by: e.userId, about: author, post: e.postId)
        case .likeRemoved(let e):
            guard let author = try service.remoteObject(of: e.postId)?.author else { return [] }
            return try toRemote(.undoLike, by: e.userId, about: author, post: e.postId)
        case .postBoosted(let e), .boostRemoved(let e):
            // A local boost goes to the booster's remote followers, and to a remote author,
            // addressed as its visibility says (a followers-only one to the followers alone).
            guard try service.remoteAccount(e.userId) == nil else { return [] }
            let kind: FederationDelivery.Kind = if case .postBoosted = event.event { .announce } else { .undoAnnounce }
            var inboxes = try remoteInboxes(following: e.userId)
            if let author = try service.remoteAccount(e.authorId), try !service.isBlocked(serverOf: author.inbox),
                !inboxes.contains(author.sharedInbox ?? author.inbox)
            {
                inboxes.append(author.inbox)
            }
            return inboxes.map {
                var announce = delivery(
                    kind, actor: e.userId, post: e.postId, remote: e.authorId, subject: e.boostId.rawValue, inbox: $0)
                announce.audience = e.visibility
                return announce
            }
        case .profileUpdated(let e):
            // A changed name, bio or photo: the remote followers' servers refresh the actor.
            guard try service.remoteAccount(e.userId) == nil else { return [] }
            return try remoteInboxes(following: e.userId).map { delivery(.updateActor, actor: e.userId, inbox: $0) }
        case .blocked(let e): return try toRemote(.block, by: e.blockerId, about: e.blockedId)
        case .unblocked(let e): return try toRemote(.undoBlock, by: e.blockerId, about: e.blockedId)
        case .commentAdded(let e):
            return try commentInboxes(by: e.authorId, on: e.postId, replyingTo: e.replyTo).map {
                delivery(.reply, actor: e.authorId, post: e.postId, subject: e.commentId.rawValue, inbox: $0)
            }
        case .commentDeleted(let e):
            // Its deletion goes where it went (the comment as the log recorded it).
            guard let comment = try service.recordedComment(e.commentId, on: e.postId) else { return [] }
            return try commentInboxes(by: comment.author, on: e.postId, replyingTo: comment.replyTo).map {
                delivery(.deleteReply, actor: comment.author, post: e.postId, subject: e.commentId.rawValue, inbox: $0)
            }
        default: return []
        }
    }

    /// Where a local user's comment on `post` goes: to the remote accounts it answers (the post's
    /// author, the author of the comment it replies to) and, on a local post for everyone or for
    /// followers, to the post author's remote followers, who see the post; once per server. A
    /// remote author's: nowhere.
    private func commentInboxes(by author: UserID, on post: PostID, replyingTo replied: CommentID?) throws
        -> [String]
    {
        let service = api.service
        guard try service.remoteAccount(author) == nil, let audience = try service.audience(ofPost: post) else {
            return []
        }
        var answered = [audience.author]
        if let replied, let other = try service.recordedComment(replied, on: post)?.author { answered.append(other) }
        var inboxes = try remoteInboxes(of: answered)
        if audience.visibility != .direct, try service.remoteAccount(audience.author) == nil {
            inboxes += try remoteInboxes(following: audience.author).filter { !inboxes.contains($0) }
        }
        // Never to a server the commenter blocks (its accounts are as if blocked by them).
        return try inboxes.filter { inbox throws(TimelineError) in
            guard let host = Validation.host(of: inbox) else { return false }
            return try !service.blocksServer(host, user: author)
        }
    }

    /// The inboxes of `user`'s remote followers, one per server (its shared inbox, when it has one).
    private func remoteInboxes(following user: UserID) throws -> [String] {
        try remoteInboxes(of: api.service.remoteFollowers(of: user))
    }

    /// The inboxes of the remote accounts among `users`, one per server.
    private func remoteInboxes(of users: [UserID]) throws -> [String] {
        try remoteInboxes(of: users.compactMap { try api.service.remoteAccount($0) })
    }

    /// The inboxes of `accounts`, one per server (its shared inbox, when it has one), less the
    /// blocked servers'.
    private func remoteInboxes(of accounts: [RemoteAccountSeen]) throws -> [String] {
        var inboxes: [String] = [], seen = Set<String>()
        for remote in accounts {
            let inbox = remote.sharedInbox ?? remote.inbox
            if seen.insert(inbox).inserted, try !api.service.isBlocked(serverOf: inbox) { inboxes.append(inbox) }
        }
        return inboxes
    }

    // MARK: - Sending

    private func send(_ delivery: FederationDelivery) async {
        do {
            if let claims = options.claims {
                switch try claims.claim(delivery.id) {
                case .mine: break
                case .done: return try outbox.done(delivery.id)  // another node finished it
                case .taken:
                    // Another node sends it; if that node dies, its claim lapses and this one will.
                    var later = delivery
                    later.notBefore = Date().timeIntervalSince1970 + claims.claimLifetime
                    return try outbox.retry(later)
                }
            }
            // Blocked since it was queued: dropped, as everything for that server is.
            guard try !api.service.isBlocked(serverOf: delivery.inbox), let body = try await activity(for: delivery)
            else {
                return try finish(delivery)
            }
            let actor = UserID(delivery.actor)
            let status: Int
            if let signed = delivery.signed {
                status = try await client.deliver(body, to: delivery.inbox, headers: signed.headers)
            } else {
                // An actor gone since (erased) has no key any more: nothing can be sent for it.
                guard (try? api.service.user(actor, countingUnread: false)) != nil else {
                    return try finish(delivery)
                }
                let key = try await api.service.actorSigningKey(of: actor)
                status = try await client.deliver(body, to: delivery.inbox, keyId: urls.key(actor), key: key)
            }
            switch status {
            case 200..<300:
                try answered(delivery)
                counts.withLock { $0.sent += 1 }
                try finish(delivery)
            case 400..<500 where status != 408 && status != 429:
                // Refused for good (Mastodon does not retry a 4xx either); the server is up.
                FileHandle.standardError.write(
                    Data("timeline serve: \(delivery.inbox) refused \(delivery.kind.rawValue) (\(status))\n".utf8))
                try answered(delivery)
                counts.withLock { $0.refused += 1 }
                try finish(delivery)
            default:
                try failed(delivery, "answered \(status)")
            }
        } catch {
            try? failed(delivery, "\(error)")
        }
    }

    /// `delivery` is sent, refused for good or given up: no node sends it again.
    private func finish(_ delivery: FederationDelivery) throws {
        try options.claims?.finished(delivery.id)
        try outbox.done(delivery.id)
    }

    /// The server of `delivery` answered: it is failing no more.
    private func answered(_ delivery: FederationDelivery) throws {
        if let host = Validation.host(of: delivery.inbox) { try outbox.answered(host) }
    }

    private func failed(_ delivery: FederationDelivery, _ why: String) throws {
        // Tried again by whichever node claims it next.
        try options.claims?.release(delivery.id)
        let now = Date().timeIntervalSince1970
        var next = delivery
        // A server failing for longer than `setAsideAfter` is set aside: what waits for it is kept
        // (never given up) and it is probed every `probeEvery`; the first answer brings it back.
        if let host = Validation.host(of: delivery.inbox) {
            let since = try outbox.failed(host, at: now)
            if now - since >= Self.seconds(options.setAsideAfter) {
                next.notBefore = now + Self.seconds(options.probeEvery)
                counts.withLock { $0.retried += 1 }
                return try outbox.retry(next)
            }
        }
        next.attempts += 1
        guard next.attempts < options.maxAttempts else {
            FileHandle.standardError.write(
                Data("timeline serve: gave up delivering to \(delivery.inbox): \(why)\n".utf8))
            counts.withLock { $0.givenUp += 1 }
            return try finish(delivery)
        }
        let units = Double(next.attempts * next.attempts * next.attempts * next.attempts + 15)
        next.notBefore = now + units * Self.seconds(options.retryUnit)
        counts.withLock { $0.retried += 1 }
        try outbox.retry(next)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The deliveries' counts and state in Prometheus' text format (for `GET /metrics`).
    public var metricsText: String {
        let counts = self.counts.withLock { $0 }
        let setAside = outbox.failingCount(since: Date().timeIntervalSince1970 - Self.seconds(options.setAsideAfter))
        return """
            # HELP timeline_federation_deliveries_total ActivityPub deliveries by outcome since start.
            # TYPE timeline_federation_deliveries_total counter
            timeline_federation_deliveries_total{outcome="sent"} \(counts.sent)
            timeline_federation_deliveries_total{outcome="retried"} \(counts.retried)
            timeline_federation_deliveries_total{outcome="refused"} \(counts.refused)
            timeline_federation_deliveries_total{outcome="given_up"} \(counts.givenUp)
            # HELP timeline_federation_pending_deliveries ActivityPub deliveries waiting to be sent.
            # TYPE timeline_federation_pending_deliveries gauge
            timeline_federation_pending_deliveries \(outbox.pendingCount)
            # HELP timeline_federation_servers_set_aside Servers failing for longer than the set-aside time.
            # TYPE timeline_federation_servers_set_aside gauge
            timeline_federation_servers_set_aside \(setAside)

            """
    }

    /// The activity `delivery` sends, made now; nil when there is nothing to send any more (the
    /// post is gone before its `Create` went out, the follower's account is gone).
    private func activity(for delivery: FederationDelivery) async throws -> [UInt8]? {
        let service = api.service
        let actor = UserID(delivery.actor)
        switch delivery.kind {
        case .updateActor:
            guard let profile = try? service.user(actor, countingUnread: false) else { return nil }
            let person = try await api.person(profile, urls)
            let update: JSONValue = [
                "@context": ActivityStreams.context, "id": .string(urls.actor(actor) + "#updates/\(delivery.sequence)"),
                "type": "Update", "actor": .string(urls.actor(actor)), "to": [.string(ActivityStreams.publicAudience)],
                "object": try JSONValueEncoder.encode(person).removing("@context")
            ]
            return JSONWriter.bytes(update)
        case .deleteActor:
            return delivery.signed.map { Array($0.body.utf8) }
        case .create, .update:
            guard let id = delivery.post.map(PostID.init),
                let post = try? service.post(id, viewer: actor, comments: PageRequest(limit: 1)).post
            else { return nil }
            var activity = try api.create(post, urls, withContext: true)
            if delivery.kind == .update {
                activity.type = "Update"
                activity.id = urls.note(id, by: actor) + "#updates/\(delivery.sequence)"
                activity.published = activity.object.updated
            }
            return try JSONValueEncoder.bytes(activity)
        case .delete, .deleteReply:
            guard let id = delivery.post.map(PostID.init) else { return nil }
            let note =
                delivery.kind == .delete
                ? urls.note(id, by: actor) : urls.comment(CommentID(delivery.subject ?? ""), by: actor)
            let delete: JSONValue = [
                "@context": "https://www.w3.org/ns/activitystreams", "id": .string(note + "#delete"), "type": "Delete",
                "actor": .string(urls.actor(actor)), "to": [.string(ActivityStreams.publicAudience)],
                "object": ["id": .string(note), "type": "Tombstone"]
            ]
            return JSONWriter.bytes(delete)
        case .accept, .reject:
            guard let follower = delivery.follower.map(UserID.init), let remote = try service.remoteAccount(follower)
            else { return nil }
            let answer = ActivityStreams.Answer(
                id: urls.actor(actor)
                    + "#\(delivery.kind == .accept ? "accepts" : "rejects")/follows/\(delivery.sequence)",
                type: delivery.kind == .accept ? "Accept" : "Reject", actor: urls.actor(actor),
                object: ["type": "Follow", "actor": .string(remote.actor), "object": .string(urls.actor(actor))])
            return try JSONValueEncoder.bytes(answer)
        case .reply:
            guard let post = delivery.post.map(PostID.init),
                let comment = try? service.comment(CommentID(delivery.subject ?? ""), viewer: actor),
                let answered = try? service.post(post, viewer: actor, comments: PageRequest(limit: 1)).post
            else { return nil }
            return try JSONValueEncoder.bytes(
                api.reply(try api.commentNote(comment, on: answered, seenBy: actor, urls, withContext: false)))
        case .announce, .undoAnnounce:
            return try announce(delivery, actor: actor).map { JSONWriter.bytes($0) }
        case .follow, .undoFollow, .like, .undoLike, .block, .undoBlock:
            guard let remote = try delivery.remote.map(UserID.init).flatMap(service.remoteAccount) else { return nil }
            return try toRemote(delivery, actor: actor, remote).map { JSONWriter.bytes($0) }
        }
    }

    /// The activity of a local user's follow or like of a remote account or its post; nil when
    /// the post is gone.
    private func toRemote(_ delivery: FederationDelivery, actor: UserID, _ remote: RemoteAccountSeen) throws
        -> JSONValue?
    {
        let me = urls.actor(actor)
        let object = try delivery.post.map(PostID.init).flatMap(api.service.remoteObject(of:))?.object
        func activity(_ type: String, _ id: String, _ object: JSONValue) -> JSONValue {
            [
                "@context": "https://www.w3.org/ns/activitystreams", "id": .string(id), "type": .string(type),
                "actor": .string(me), "object": object
            ]
        }
        func undo(_ undone: JSONValue) -> JSONValue {
            activity("Undo", (undone["id"]?.string ?? me) + "/undo", undone)
        }
        let follow = activity("Follow", me + "#follows/\(delivery.sequence)", .string(remote.actor))
        switch delivery.kind {
        case .follow: return follow
        case .undoFollow: return undo(follow)
        case .like, .undoLike:
            guard let object else { return nil }
            let like = activity("Like", me + "#likes/\(delivery.sequence)", .string(object))
            return delivery.kind == .like ? like : undo(like)
        case .block, .undoBlock:
            let block = activity("Block", me + "#blocks/\(delivery.sequence)", .string(remote.actor))
            return delivery.kind == .block ? block : undo(block)
        case .create, .update, .delete, .accept, .reject, .reply, .deleteReply, .announce, .undoAnnounce, .deleteActor,
            .updateActor:
            return nil
        }
    }

    /// The `Announce` of a local user's boost (the post's `Note`, local or another server's), or
    /// its `Undo`; nil when the post is gone before an `Announce` went out.
    private func announce(_ delivery: FederationDelivery, actor: UserID) throws -> JSONValue? {
        let service = api.service
        guard let post = delivery.post.map(PostID.init), let boost = delivery.subject.map(PostID.init),
            let author = delivery.remote.map(UserID.init)
        else { return nil }
        let object: String
        if let remote = try service.remoteObject(of: post) {
            object = remote.object
        } else if delivery.kind == .undoAnnounce || (try? service.post(post, viewer: nil)) != nil {
            object = urls.note(post, by: author)
        } else {
            return nil
        }
        let authorActor = JSONValue.string(try service.remoteAccount(author)?.actor ?? urls.actor(author))
        let everyone = JSONValue.string(ActivityStreams.publicAudience),
            followers = JSONValue.string(urls.followers(actor))
        // Addressed as Mastodon addresses a reblog of each visibility.
        let (to, cc): ([JSONValue], [JSONValue]) =
            switch delivery.audience ?? .public {
            case .public: ([everyone], [authorActor, followers])
            case .unlisted: ([followers], [everyone, authorActor])
            case .private: ([followers], [authorActor])
            }
        let announce: JSONValue = [
            "@context": "https://www.w3.org/ns/activitystreams",
            "id": .string(urls.note(boost, by: actor) + "/activity"),
            "type": "Announce", "actor": .string(urls.actor(actor)), "object": .string(object),
            "to": .array(to), "cc": .array(cc)
        ]
        guard delivery.kind == .undoAnnounce else { return announce }
        return [
            "@context": "https://www.w3.org/ns/activitystreams", "id": .string(urls.note(boost, by: actor) + "/undo"),
            "type": "Undo", "actor": .string(urls.actor(actor)), "object": announce.removing("@context")
        ]
    }
}

extension DeliveryWorker: ErasureWitness {
    /// Before a local user's erasure: the `Delete` of their actor, signed now with the key the
    /// erasure shreds, for each server of their remote followers (read now: erasure ends the
    /// follows); queued once the erasure committed.
    public func prepare(erasing user: UserID) async -> (@Sendable () -> Void)? {
        let service = api.service
        guard (try? service.hasActorKey(user)) == true, (try? service.remoteAccount(user)) == nil,
            let inboxes = try? remoteInboxes(following: user), !inboxes.isEmpty,
            let key = try? await service.actorSigningKey(of: user)
        else { return nil }
        let actor = urls.actor(user)
        let delete: JSONValue = [
            "@context": "https://www.w3.org/ns/activitystreams", "id": .string(actor + "#delete"), "type": "Delete",
            "actor": .string(actor), "object": .string(actor), "to": [.string(ActivityStreams.publicAudience)]
        ]
        let body = JSONWriter.bytes(delete)
        let now = Date().timeIntervalSince1970
        let deliveries = inboxes.compactMap { inbox -> FederationDelivery? in
            guard let headers = try? FederationClient.signedHeaders(body, to: inbox, keyId: urls.key(user), key: key)
            else { return nil }
            return FederationDelivery(
                id: "erasure/\(user.rawValue)/\(inbox)", kind: .deleteActor, sequence: 0, actor: user.rawValue,
                signed: .init(body: String(decoding: body, as: UTF8.self), headers: headers), inbox: inbox,
                queuedAt: now)
        }
        return { [outbox] in
            service.forgetSigningKey(of: user)
            do { try outbox.queue(deliveries) } catch {
                FileHandle.standardError.write(
                    Data("timeline serve: the erased actor's Delete was not queued: \(error)\n".utf8))
            }
        }
    }
}
