import Foundation
import JSONModel
import OpenSSL
import Timeline
import TimelineFederation

/// What the inbox does with other servers' posts (#43): a `Create` of a `Note` with photos or
/// videos by an account somebody here follows becomes that account's post here
/// (`receiveRemotePost`), its photos fetched from its server and re-encoded by the photo pipeline
/// as the account's media, its videos transcoded as uploads are (never served from the remote
/// URL; the post waits for its videos in `AwaitedVideoPosts`); a direct one (addressed to no collection) to users here
/// is a direct message to them; a reply to a post here is a comment when it is for everyone who
/// sees that post, or a direct message in its conversation when that post is one. Its `Update`
/// edits the caption, its `Delete` deletes it; an `Announce` of a post known here is the
/// account's boost. A `Note` without a photo that is no message, or by an account nobody here
/// follows, is acknowledged and not kept: this is a photo network, and nobody here asked for it.
extension TimelineAPI {
    /// A `Create` of a `Note` (`forFollowersOnly`: a post of its own is kept only when somebody
    /// here follows its author; a search that resolves it keeps it anyway).
    func receiveNote(
        _ note: JSONValue, from account: RemoteAccountSeen, _ urls: FederationURLs, forFollowersOnly: Bool = true
    ) async throws(TimelineError) {
        guard Self.id(of: note["attributedTo"]) == account.actor, let object = note["id"]?.string else { return }
        let text = Self.text(of: note, urls)
        let visibility = Self.visibility(of: note)
        let addressees = Self.audience(of: note).compactMap(urls.user(ofActor:))
        if let answered = note["inReplyTo"].flatMap(Self.id(of:)) {
            guard let (post, comment) = try knownPostOrComment(answered, seenBy: account.userId, urls),
                let audience = try service.audience(ofPost: post)
            else {
                // An answer to something not known here: only its words to users here are kept.
                if visibility == nil, !addressees.isEmpty {
                    try await receivePost(note, object, text, by: account, .direct, to: addressees, urls)
                }
                return
            }
            // The post author's followers collection (Mastodon's, GoToSocial's, Pixelfed's and
            // Timeline's are the actor's id and `/followers`).
            let toAuthorsFollowers = Self.audience(of: note).contains(
                try actorID(of: audience.author, urls) + "/followers")
            if audience.visibility == .direct {
                // An answer in a conversation of direct messages.
                try await receivePost(note, object, text, by: account, .direct, to: addressees, answering: post, urls)
            } else if visibility == .public || (audience.visibility == .followers && toAuthorsFollowers) {
                // A comment, which shows to whoever sees the post: one for everyone, or, on a post
                // for followers, one addressed to the post author's followers (as Timeline sends a
                // comment on one). A reply to fewer people — its author alone, or the replier's
                // own followers — is not made one that all the post's readers see.
                _ = try await service.execute(
                    .receiveRemoteComment(
                        author: account.userId.rawValue, object: object, post: post.rawValue,
                        text: String(text.unicodeScalars.prefix(Validation.maxComment)), replyTo: comment?.rawValue),
                    as: .operator)
            } else if !addressees.isEmpty {
                // Words for a few, in answer to a public post: a direct message to those here.
                try await receivePost(note, object, text, by: account, .direct, to: addressees, urls)
            }
            return
        }
        guard let visibility else {
            if !addressees.isEmpty {
                try await receivePost(note, object, text, by: account, .direct, to: addressees, urls)
            }
            return
        }
        if forFollowersOnly, try service.user(account.userId, countingUnread: false).followerCount == 0 { return }
        try await receivePost(note, object, text, by: account, visibility, urls)
    }

    /// Records `note` as `account`'s post `visibility` (a direct one `to` users here, perhaps
    /// `answering` a direct post here), its photos and videos fetched and uploaded as the
    /// account's. A post that is no message needs a photo or video that could be fetched. One
    /// with a video waits (`AwaitedVideoPosts`) until the video is transcoded.
    private func receivePost(
        _ note: JSONValue, _ object: String, _ text: String, by account: RemoteAccountSeen,
        _ visibility: PostVisibility, to addressees: [UserID] = [], answering: PostID? = nil, _ urls: FederationURLs
    ) async throws(TimelineError) {
        guard let federation = options.federation else { return }
        // Known already, waiting for its videos, or being fetched by another delivery of it (sent
        // again while the first is under way): nothing is fetched again.
        guard try service.remotePost(object: object) == nil else { return }
        let awaited = options.awaitedVideoPosts
        if let awaited {
            guard !awaited.isAwaited(object), awaited.claimFetching(object) else { return }
        }
        defer { awaited?.endFetching(object) }
        let attachments = Array(Self.attachments(of: note).prefix(MediaPolicy.maxPerPost))
        let fetchesVideos = attachments.contains(where: \.isVideo) && awaited != nil
        if fetchesVideos { try awaited?.startFetchingVideos() }
        defer { if fetchesVideos { awaited?.endFetchingVideos() } }
        let me = Caller.user(account.userId.rawValue)
        // Fetched as one who may see it here (a follower of the author, or an addressee) only from
        // the author's own server: a media URL elsewhere, signed so, could fetch what that user may
        // see there for the author to show here. Elsewhere, the server's own actor signs.
        let signer = try await localSigner(of: account, addressees: addressees, urls)
        var media: [MediaID] = []
        var videos = false
        for attachment in attachments {
            let alt = attachment.alt.map { String($0.prefix(MediaPolicy.maxAlt)) }
            let signedBy = Validation.host(of: attachment.url) == Validation.host(of: account.actor) ? signer : nil
            // A video needs somewhere to wait for its transcoding (a server without one leaves it out).
            if attachment.isVideo, awaited == nil { continue }
            // One that cannot be fetched, or is no image or video, is left out, as a broken one would be.
            guard
                let id = attachment.isVideo
                    ? await fetchVideo(attachment.url, alt: alt, as: me, signer: signedBy, federation)
                    : await fetchPhoto(attachment.url, alt: alt, as: me, signer: signedBy, federation)
            else { continue }
            media.append(id)
            videos = videos || attachment.isVideo
        }
        // Deleted by its author while its media were fetched: not recorded (they expire unattached).
        if awaited?.wasDeleted(object) == true { return }
        let caption = String(text.unicodeScalars.prefix(Validation.maxCaption))
        guard !media.isEmpty || (visibility == .direct && !caption.isEmpty) else { return }
        let post = AwaitedVideoPosts.Post(
            author: account.userId, object: object, caption: caption, media: media, visibility: visibility,
            sensitive: note["sensitive"] == .bool(true),
            warning: note["summary"]?.string.flatMap { $0.isEmpty ? nil : String($0.prefix(Validation.maxWarning)) },
            addressees: addressees, inReplyTo: answering)
        if videos, let awaited {
            try awaited.keep(post)
        } else {
            _ = try await service.execute(post.command(media: media), as: .operator)
        }
    }

    /// The photo at `url` fetched and uploaded as `me`'s media (re-encoded by the photo pipeline).
    private func fetchPhoto(
        _ url: String, alt: String?, as me: Caller, signer: (keyId: String, key: RSAKey)?,
        _ federation: FederationClient
    ) async -> MediaID? {
        guard let bytes = try? await federation.fetchMedia(url, limit: ImageUpload.maxBytes, signer: signer),
            case .media(let uploaded)? = try? await service.execute(
                .uploadMedia(image: Data(bytes).base64EncodedString(), alt: alt), as: me)
        else { return nil }
        return MediaID(uploaded.id)
    }

    /// The video at `url` fetched into the upload spool (never held in memory) and uploaded as
    /// `me`'s: the video worker transcodes it as a local upload.
    private func fetchVideo(
        _ url: String, alt: String?, as me: Caller, signer: (keyId: String, key: RSAKey)?,
        _ federation: FederationClient
    ) async -> MediaID? {
        let path = service.uploadSpoolDirectory + "/remote-" + UUID().uuidString
        do {
            try await federation.fetchMediaFile(url, to: path, limit: service.maxVideoBytes, signer: signer)
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
        guard case .media(let uploaded)? = try? await service.uploadVideo(file: path, alt: alt, as: me) else {
            return nil
        }
        return MediaID(uploaded.id)
    }

    /// The post here that the `Note` `id` is or is a comment on, and the comment, if it is one:
    /// a local post's or comment's `Note`, or another server's that came in (`viewer` must see
    /// a local comment's post).
    private func knownPostOrComment(_ id: String, seenBy viewer: UserID, _ urls: FederationURLs)
        throws(TimelineError) -> (post: PostID, comment: CommentID?)?
    {
        if let post = try knownPost(.string(id), urls) { return (post, nil) }
        if let remote = try service.remoteComment(object: id) { return (remote.post, remote.comment) }
        guard let local = urls.comment(ofNote: id) else { return nil }
        let comment = try mastodonFind { () throws(TimelineError) in try service.comment(local, viewer: viewer) }
        return comment.map { ($0.post, $0.id) }
    }

    /// The actor id of `user`: a remote account's own, a local user's here.
    private func actorID(of user: UserID, _ urls: FederationURLs) throws(TimelineError) -> String {
        try service.remoteAccount(user)?.actor ?? urls.actor(user)
    }

    /// The signing key of a local user who may see `account`'s post: the first of `addressees`,
    /// else a local follower of the account (one, the first found), if there is one.
    private func localSigner(of account: RemoteAccountSeen, addressees: [UserID], _ urls: FederationURLs)
        async throws(TimelineError) -> (keyId: String, key: RSAKey)?
    {
        let follower = addressees.isEmpty ? try service.localFollowers(of: account.userId, limit: 1).first : nil
        guard let local = addressees.first ?? follower else { return nil }
        return (urls.key(local), try await service.actorSigningKey(of: local))
    }

    /// An `Update` of a `Note` that came in: its caption as it now is.
    func receiveNoteUpdate(_ note: JSONValue, from account: RemoteAccountSeen, _ urls: FederationURLs)
        async throws(TimelineError)
    {
        guard let object = note["id"]?.string else { return }
        let text = Self.text(of: note, urls)
        // One still waiting for its video is recorded with its new caption.
        if let awaited = options.awaitedVideoPosts, var waiting = awaited.post(object), waiting.author == account.userId
        {
            waiting.caption = String(text.unicodeScalars.prefix(Validation.maxCaption))
            try awaited.keep(waiting)
            return
        }
        guard let post = try service.remotePost(object: object) else { return }
        _ = try await service.execute(
            .editPost(post: post.rawValue, caption: .some(String(text.unicodeScalars.prefix(Validation.maxCaption)))),
            as: .user(account.userId.rawValue))
    }

    /// A `Delete` of a `Note` that came in (its id, or its `Tombstone`): a post's, or a comment's.
    func receiveNoteDeletion(_ object: String, from account: RemoteAccountSeen) async throws(TimelineError) {
        let me = Caller.user(account.userId.rawValue)
        // Waiting for its videos, or being fetched or recorded now: it never shows. Only a `Note`
        // of the deleter's own server is remembered so (no server deletes another's).
        if Validation.host(of: object) == Validation.host(of: account.actor) {
            options.awaitedVideoPosts?.noteDeleted(object)
        }
        if let post = try service.remotePost(object: object) {
            _ = try await service.execute(.deletePost(post: post.rawValue), as: me)
        } else if let comment = try service.remoteComment(object: object) {
            _ = try await service.execute(.deleteComment(comment: comment.comment.rawValue), as: me)
        }
    }

    /// Who sees a `Note`: everyone when it addresses the public (Mastodon's public and unlisted),
    /// its author's followers when it addresses a collection, `nil` for a direct one.
    static func visibility(of note: JSONValue) -> PostVisibility? {
        let audience = audience(of: note)
        if audience.contains(where: ActivityStreams.isPublic) { return .public }
        return audience.contains { $0.hasSuffix("/followers") } ? .followers : nil
    }

    /// Whom a `Note` is addressed to: its `to` and `cc`.
    static func audience(of note: JSONValue) -> [String] {
        (note.all("to") + note.all("cc")).compactMap(\.string)
    }

    /// A `Note`'s text: its HTML as plain text, each mention as it reads here. Mastodon writes a
    /// mention of another server's account by its name alone (`@carol`), which here would be the
    /// local carol: it is written out as the handle its `Mention` tag names (`@carol@three.example`);
    /// a handle of this server's (`@alice@this.example`) is its local name, `@alice`.
    static func text(of note: JSONValue, _ urls: FederationURLs) -> String {
        let text = RemoteHTML.text(note["content"]?.string ?? "")
        var handles: [String: String] = [:]
        for tag in note.all("tag") where tag["type"]?.string == "Mention" {
            guard let handle = tag["name"]?.string.map({ String($0.drop { $0 == "@" }).lowercased() }),
                let at = handle.firstIndex(of: "@")
            else { continue }
            handles[String(handle[..<at])] = handle
        }
        var out = ""
        for token in TextTokens.tokens(in: text) {
            guard token.kind == .mention else {
                out += token.text
                continue
            }
            let name = token.name.lowercased()
            let handle = name.contains("@") ? name : handles[name] ?? name
            let parts = handle.split(separator: "@", maxSplits: 1)
            if parts.count == 2, parts[1] == urls.domain.lowercased() {
                out += "@\(parts[0])"
            } else {
                out += handle == name ? String(token.text) : "@\(handle)"
            }
        }
        return out
    }

    /// A `Note`'s photos and videos: each attachment that is an image or a video (by its
    /// `mediaType`, else its `type`), its URL and its alt text (`name`).
    static func attachments(of note: JSONValue) -> [(url: String, alt: String?, isVideo: Bool)] {
        note.all("attachment").compactMap { attachment in
            let mediaType = attachment["mediaType"]?.string ?? "", type = attachment["type"]?.string
            let isImage = mediaType.hasPrefix("image/") || (mediaType.isEmpty && type == "Image")
            let isVideo = mediaType.hasPrefix("video/") || (mediaType.isEmpty && type == "Video")
            guard isImage || isVideo else { return nil }
            let url = attachment.all("url").first.flatMap { $0.string ?? $0["href"]?.string }
            guard let url, url.hasPrefix("https://") else { return nil }
            return (url, attachment["name"]?.string.flatMap { $0.isEmpty ? nil : $0 }, isVideo)
        }
    }
}
