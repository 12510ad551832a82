import Foundation
import JSONModel
import Timeline
import TimelineFederation

/// Finding other servers' accounts and posts (#43), as a search with `resolve=true` does: a
/// handle (`@name@host`) through WebFinger, an actor's or a `Note`'s URL by fetching it. What
/// is found is recorded here (`recordRemoteAccount`, `receiveRemotePost`), so that it can be
/// followed, liked and answered like a local one. A blocked server is not asked.
extension TimelineAPI {
    /// The account the fetched actor is here: recorded now when it is new or changed.
    func record(_ fetched: RemoteActor) async throws(TimelineError) -> RemoteAccountSeen {
        _ = try await service.execute(
            .recordRemoteAccount(
                actor: fetched.id, username: fetched.username, inbox: fetched.inbox, sharedInbox: fetched.sharedInbox,
                keyId: fetched.keyId, publicKey: fetched.publicKey, locked: fetched.locked), as: .operator)
        guard let recorded = try service.remoteAccount(actor: fetched.id) else {
            throw TimelineError(.internal, "the remote account was not recorded")
        }
        await refreshProfile(of: recorded.userId, from: fetched)
        return recorded
    }

    /// The account's bio and profile photo as its actor shows them: the bio as text, the photo
    /// fetched and made into this server's squares by the photo pipeline (never linked to the
    /// other server). Best effort: a photo that cannot be fetched or decoded leaves the old one.
    private func refreshProfile(of account: UserID, from fetched: RemoteActor) async {
        let me = Caller.user(account.rawValue)
        // Each on its own: a bio refused (or unchanged) does not keep the photo out.
        let bio = String(RemoteHTML.text(fetched.summary ?? "").prefix(Validation.maxBio))
        _ = try? await service.execute(.updateProfile(username: nil, bio: bio, url: nil), as: me)
        if let icon = fetched.icon, let federation = options.federation,
            let bytes = try? await federation.fetchMedia(icon, limit: ImageUpload.maxBytes)
        {
            let avatar = AvatarUpdate.set(Data(bytes).base64EncodedString())
            _ = try? await service.execute(.updateProfile(username: nil, bio: nil, url: nil, avatar: avatar), as: me)
        }
    }

    /// The remote account of the actor `actor`: as recorded, or fetched and recorded now.
    func remoteAccount(resolving actor: String, _ federation: FederationClient) async throws(TimelineError)
        -> RemoteAccountSeen
    {
        if let known = try service.remoteAccount(actor: actor) { return known }
        try requireFederating(with: actor)
        let fetched: RemoteActor
        do { fetched = try await federation.fetchActor(actor) } catch {
            throw TimelineError.notFound("account", String(actor.prefix(200)))
        }
        return try await record(fetched)
    }

    /// The most handles one post or comment has looked up before it is decided.
    static let maxHandlesLookedUp = 5

    /// Before a signed-in user's post or comment is decided: the handles it mentions that are not
    /// known here yet (`@bob@photos.example`) are looked up (WebFinger, then the actor) and
    /// recorded, at most `maxHandlesLookedUp`, all at once, so that the mention names them and a
    /// direct message reaches them, as Mastodon resolves mentions when posting. A handle that
    /// cannot be found stays text.
    func resolveMentionedHandles(in text: String, _ urls: FederationURLs) async {
        guard options.federation != nil else { return }
        let unknown = Validation.mentions(in: text).filter { name in
            name.contains("@") && (try? service.userID(named: name)) == nil
        }
        await withTaskGroup(of: Void.self) { group in
            for handle in unknown.prefix(Self.maxHandlesLookedUp) {
                group.addTask { _ = try? await self.resolveRemote("@" + handle, urls) }
            }
        }
    }

    /// What a search for `query` finds on other servers: the account a handle (`@name@host`) or
    /// an actor's URL names, or the post a `Note`'s URL names (with its author); nothing for a
    /// query that is neither, or a handle of this server's.
    func resolveRemote(_ query: String, _ urls: FederationURLs) async throws(TimelineError)
        -> (account: UserID?, post: PostID?)
    {
        guard let federation = options.federation else { return (nil, nil) }
        let handle = query.hasPrefix("@") ? String(query.dropFirst()) : query
        let parts = handle.split(separator: "@", omittingEmptySubsequences: false)
        if parts.count == 2, !parts[0].isEmpty, !query.hasPrefix("https://") {
            guard parts[1].lowercased() != urls.domain else { return (nil, nil) }
            try requireFederating(with: "https://\(parts[1])/")
            let actor: String
            do { actor = try await federation.webFinger(handle) } catch {
                throw TimelineError.notFound("account", String(handle.prefix(200)))
            }
            return (try await remoteAccount(resolving: actor, federation).userId, nil)
        }
        guard query.hasPrefix("https://"), Validation.host(of: query) != urls.domain else { return (nil, nil) }
        if let post = try service.remotePost(object: query) { return (nil, post) }
        if let account = try service.remoteAccount(actor: query) { return (account.userId, nil) }
        try requireFederating(with: query)
        let document = try await originalDocument(query, federation)
        if document["type"]?.string == "Note", let author = Self.id(of: document["attributedTo"]),
            Validation.host(of: author) == Validation.host(of: query)
        {
            let account = try await remoteAccount(resolving: author, federation)
            try await receiveNote(document, from: account, urls, forFollowersOnly: false)
            return (account.userId, try document["id"]?.string.flatMap(service.remotePost(object:)))
        }
        return (try await remoteAccount(resolving: query, federation).userId, nil)
    }

    /// The document at `url`, as its origin serves it: when its `id` is not `url` (a page's
    /// address, or a file anyone could upload there claiming to be another's `Note`), it is
    /// fetched again from its `id`, on the same host, and must say that `id` there (Mastodon's
    /// origin check). `not_found` otherwise.
    private func originalDocument(_ url: String, _ federation: FederationClient) async throws(TimelineError)
        -> JSONValue
    {
        let refused = TimelineError.notFound("object", String(url.prefix(200)))
        guard var document = try? await federation.fetchDocument(url), let id = document["id"]?.string else {
            throw refused
        }
        if id != url {
            guard Validation.host(of: id) == Validation.host(of: url),
                let original = try? await federation.fetchDocument(id), original["id"]?.string == id
            else { throw refused }
            document = original
        }
        return document
    }

    /// A `Move` of `account` to the actor `target` (Mastodon's account migration): taken only when
    /// the target names the account in its `alsoKnownAs` (fetched now: the mover cannot say it for
    /// the target). Each local follower of the account then follows the target (a request: its
    /// server answers) and no longer follows the account.
    func receiveMove(to target: String, from account: RemoteAccountSeen) async throws(TimelineError) {
        guard let federation = options.federation, !target.isEmpty, target != account.actor else { return }
        try requireFederating(with: target)
        let fetched: RemoteActor
        do { fetched = try await federation.fetchActor(target) } catch {
            throw TimelineError.notFound("account", String(target.prefix(200)))
        }
        guard fetched.alsoKnownAs.contains(account.actor) else {
            throw TimelineError(.forbidden, "the account moved to does not say it is also \(account.username)")
        }
        let moved = try await record(fetched)
        for follower in try service.localFollowers(of: account.userId) {
            let me = Caller.user(follower.rawValue)
            // One follower's refusal (a block of the new account) leaves the others to move.
            _ = try? await service.execute(.follow(user: moved.userId.rawValue), as: me)
            _ = try? await service.execute(.unfollow(user: account.userId.rawValue), as: me)
        }
    }

    /// Refuses a server the operator blocked.
    func requireFederating(with url: String) throws(TimelineError) {
        guard try !service.isBlocked(serverOf: url) else {
            throw TimelineError(.forbidden, "this server does not federate with \(Validation.host(of: url) ?? url)")
        }
    }
}
