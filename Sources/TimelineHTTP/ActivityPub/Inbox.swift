import Foundation
import HTTPSignatures
import JSONModel
import MicroHTTPD
import OpenSSL
import Timeline
import TimelineFederation

/// The inboxes (#43): the shared one (`/inbox`) and each actor's. Every POST must carry an
/// HTTP Signature (draft-cavage or RFC 9421) that covers its target, host, time and digest
/// (`ReceivedSignature`), made with the key of the activity's own actor, on the actor's host.
/// The key is the one recorded for that actor; when it does not verify (the actor rotated its
/// key) or the actor is new, the actor is fetched once from its server and recorded
/// (`recordRemoteAccount`). A refused request appends nothing. What an accepted activity does is
/// a command run as its actor's account here, decided as a local user's would be: a `Follow`
/// of a local actor is `follow` (a follow request for a locked account; `DeliveryWorker` sends the
/// `Accept` once it is recorded), a `Like` of a local
/// post `like`, a `Create` of a `Note` answering a local post `addComment` (its HTML as text),
/// a `Block` `block`, a `Flag` a report, each `Undo` the command's undoing, and a `Delete` of the
/// actor itself erases its account here. Other activities are acknowledged and ignored, as
/// ActivityPub servers do with what they do not handle (202).
extension ActivityPubAPI {
    /// The largest activity taken (Mastodon's limit).
    static let maxActivityBytes = 1 << 20

    static let inboxRoutes: [Route] = [
        Route(
            "POST", "/inbox", .anyone, scope: .none, .later { api, request in try await api.receiveActivity(request) },
            nil),
        Route(
            "POST", "/users/{user}/inbox", .anyone, scope: .none,
            .later { api, request in
                _ = try api.federatedProfile(id: request.parameters["user"] ?? "")
                return try await api.receiveActivity(request)
            }, nil)
    ]
}

extension TimelineAPI {
    /// Checks and handles one activity POSTed to an inbox.
    func receiveActivity(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        guard let federation = options.federation else {
            throw TimelineError(.internal, "federation is not configured on this server")
        }
        let body = request.http.body
        guard body.count <= ActivityPubAPI.maxActivityBytes else {
            throw TimelineError(.payloadTooLarge, "an activity may be at most 1 MiB")
        }
        let message = Self.signedMessage(request.http, origin: request.origin)
        let signature: ReceivedSignature
        do { signature = try ReceivedSignature.parse(message, now: Date()) } catch {
            throw TimelineError(.unauthenticated, "\(error)")
        }
        guard let activity = try? JSONDecoder().decode(JSONValue.self, from: Data(body)),
            let type = activity["type"]?.string,
            let actor = Self.id(of: activity["actor"])
        else { throw TimelineError.invalid("body", "an activity is a JSON object with a type and an actor") }
        // The signer speaks only for its own host's actors, and an activity only for its actor.
        let keyOwner = String(signature.keyId.prefix { $0 != "#" })
        guard Validation.host(of: keyOwner) != nil,
            Validation.host(of: keyOwner) == Validation.host(of: actor),
            activity["id"]?.string.map({ Validation.host(of: $0) == Validation.host(of: actor) }) ?? true
        else { throw TimelineError(.unauthenticated, "the activity's actor is not on the signer's host") }
        // A blocked server is refused before anything is fetched from it.
        guard try !service.isBlocked(serverOf: actor) else {
            throw TimelineError(
                .forbidden, "this server does not federate with \(Validation.host(of: actor) ?? "")")
        }
        let account = try await verifiedAccount(signature, actor: actor, owner: keyOwner, federation)
        guard seenSignatures.claim(signature) else {
            throw TimelineError(.unauthenticated, "this signed request was taken already (a replay)")
        }
        do { try await handle(activity, type: type, from: account, FederationURLs(origin: request.origin)) } catch {
            seenSignatures.release(signature)  // not taken: it may come again as it was
            throw error
        }
        return Responses.empty(202)
    }

    /// The signer's account, once its signature verifies: with the key recorded for it, or else
    /// with the key its server gives now (the actor fetched and recorded).
    private func verifiedAccount(
        _ signature: ReceivedSignature, actor: String, owner: String, _ federation: FederationClient
    ) async throws(TimelineError) -> RemoteAccountSeen {
        if let known = try service.remoteAccount(actor: actor) {
            if known.keyId == signature.keyId, let key = try? RSAKey(publicPEM: known.publicKey),
                (try? signature.verify(with: key)) != nil
            {
                return known
            }
            // A rotated key, or a forgery: the actor is fetched again, at most once a minute.
            guard keyRefetches.noteUnlessRecent(actor) else {
                throw TimelineError(.unauthenticated, "the signature does not verify with the actor's key")
            }
        }
        let fetched: RemoteActor
        do { fetched = try await federation.fetchActor(owner) } catch {
            throw TimelineError(.unauthenticated, "the signer's actor could not be fetched: \(error)")
        }
        guard fetched.id == actor, fetched.keyId == signature.keyId else {
            throw TimelineError(.unauthenticated, "the key is not the activity's actor's")
        }
        do { try signature.verify(with: try RSAKey(publicPEM: fetched.publicKey)) } catch {
            throw TimelineError(.unauthenticated, "the signature does not verify with the actor's key")
        }
        return try await record(fetched)
    }

    /// What an activity does here, run as its actor's account.
    private func handle(
        _ activity: JSONValue, type: String, from account: RemoteAccountSeen, _ urls: FederationURLs
    ) async throws(TimelineError) {
        let me = Caller.user(account.userId.rawValue)
        switch type {
        case "Follow":
            // Accepted by the delivery worker once it is recorded (`Followed`): at once for an
            // open account, when its owner approves the request for a locked one.
            _ = try await service.execute(.follow(user: try localActor(activity["object"], urls).rawValue), as: me)
        case "Undo":
            let undone = activity["object"]
            switch undone?["type"]?.string {
            case "Follow":
                _ = try await service.execute(.unfollow(user: try localActor(undone?["object"], urls).rawValue), as: me)
            case "Like":
                _ = try await service.execute(.unlike(post: try localPost(undone?["object"], urls).rawValue), as: me)
            case "Block":
                _ = try await service.execute(.unblock(user: try localActor(undone?["object"], urls).rawValue), as: me)
            case "Announce":
                guard let post = try knownPost(undone?["object"], urls) else { break }
                _ = try await service.execute(.unreblog(post: post.rawValue), as: me)
            default: break
            }
        case "Accept", "Reject":
            // The answer to a local user's follow (`Follow` from `DeliveryWorker`): embedded, or
            // by the id it was sent with (`{actor}#follows/…`).
            let follow = activity["object"]
            let follower = follow?["actor"]?.string ?? Self.id(of: follow).map { String($0.prefix { $0 != "#" }) }
            guard let local = follower.flatMap(urls.user(ofActor:)) else { break }
            let answer: Command =
                type == "Accept"
                ? .approveFollowRequest(user: local.rawValue) : .rejectFollowRequest(user: local.rawValue)
            // An answer to no pending request (sent twice, or withdrawn since) changes nothing.
            do { _ = try await service.execute(answer, as: me) } catch  where error.code == .notFound {}
        case "Announce":
            // A post not known here (a third server's) is fetched first, as a search resolves it.
            let object = Self.id(of: activity["object"]) ?? ""
            var post = try knownPost(.string(object), urls)
            if post == nil, !object.isEmpty { post = try await resolveRemote(object, urls).post }
            guard let post else { break }
            _ = try await service.execute(
                .reblog(post: post.rawValue, visibility: Self.boostVisibility(of: activity).rawValue), as: me)
        case "Like":
            _ = try await service.execute(.like(post: try localPost(activity["object"], urls).rawValue), as: me)
        case "Block":
            _ = try await service.execute(.block(user: try localActor(activity["object"], urls).rawValue), as: me)
        case "Flag":
            // Mastodon's report: the objects are the account reported and the posts it names.
            let reason = String((activity["content"]?.string ?? "").prefix(500))
            let objects = activity.all("object")
            let posts = objects.compactMap { (try? localPost($0, urls))?.rawValue }
            let accounts = objects.compactMap { (try? localActor($0, urls))?.rawValue }
            if let account = accounts.first {
                _ = try await service.execute(
                    .reportUser(
                        user: account, reason: reason.isEmpty ? "reported from another server" : reason, posts: posts),
                    as: me)
            } else if let post = posts.first {
                _ = try await service.execute(
                    .reportPost(post: post, reason: reason.isEmpty ? "reported from another server" : reason), as: me)
            }
        case "Create" where activity["object"]?["type"]?.string == "Note":
            try await receiveNote(activity["object"] ?? .null, from: account, urls)
        case "Update" where activity["object"]?["type"]?.string == "Note":
            try await receiveNoteUpdate(activity["object"] ?? .null, from: account, urls)
        case "Update" where Self.id(of: activity["object"]) == account.actor:
            // The actor changed (its bio, photo, key): fetched again from its server, not taken
            // from the activity, and recorded with its profile.
            if let federation = options.federation, let fetched = try? await federation.fetchActor(account.actor) {
                _ = try await record(fetched)
            }
        case "Delete" where Self.id(of: activity["object"]) == account.actor:
            // The actor is gone from its server: its account here goes, as an erasure does.
            _ = try await service.execute(.eraseUser(user: account.userId.rawValue), as: .operator)
        case "Delete":
            try await receiveNoteDeletion(Self.id(of: activity["object"]) ?? "", from: account)
        case "Move" where Self.id(of: activity["object"]) == account.actor:
            try await receiveMove(to: Self.id(of: activity["target"]) ?? "", from: account)
        default:
            break  // acknowledged, not handled (as other servers do with what they do not know)
        }
    }

    /// Whom an `Announce` is for, as Mastodon addresses a reblog: the public in `to` (public),
    /// in `cc` (unlisted), or neither (its actor's followers).
    static func boostVisibility(of announce: JSONValue) -> BoostVisibility {
        if announce.all("to").contains(where: { $0.string.map(ActivityStreams.isPublic) ?? false }) { return .public }
        if announce.all("cc").contains(where: { $0.string.map(ActivityStreams.isPublic) ?? false }) { return .unlisted }
        return .private
    }

    /// The id an activity's member names: the member itself (a URL), or an object's `id`.
    static func id(of member: JSONValue?) -> String? { member?.string ?? member?["id"]?.string }

    /// The local user an activity's object names (its actor's id, or an object with that id).
    private func localActor(_ object: JSONValue?, _ urls: FederationURLs) throws(TimelineError) -> UserID {
        let id = Self.id(of: object) ?? ""
        guard let user = urls.user(ofActor: id) else { throw TimelineError.notFound("actor", String(id.prefix(200))) }
        return user
    }

    /// The post here an activity's object names: a local one, or another server's that came in.
    func knownPost(_ object: JSONValue?, _ urls: FederationURLs) throws(TimelineError) -> PostID? {
        let id = Self.id(of: object) ?? ""
        if let local = urls.post(ofNote: id) { return local }
        return try service.remotePost(object: id)
    }

    /// The local post an activity's object names (its `Note`'s id or page, or an object with it).
    private func localPost(_ object: JSONValue?, _ urls: FederationURLs) throws(TimelineError) -> PostID {
        let id = Self.id(of: object) ?? ""
        guard let post = urls.post(ofNote: id) else { throw TimelineError.notFound("post", String(id.prefix(200))) }
        return post
    }
}
