import Foundation
import JSONModel
import OpenSSL
import Timeline
import TimelineFederation

/// What the inbox does with other servers' posts (#43): a `Create` of a `Note` with photos by an
/// account somebody here follows becomes that account's post here (`receiveRemotePost`), its
/// photos fetched from its server and re-encoded by the photo pipeline as the account's media
/// (never served from the remote URL); its `Update` edits the caption, its `Delete` deletes it;
/// an `Announce` of a post known here is the account's boost. A `Note` without a photo, a direct
/// one (addressed to no collection), or by an account nobody here follows is acknowledged and
/// not kept: this is a photo network, and nobody here asked for it.
extension TimelineAPI {
    /// A `Create` of a `Note`: a comment when it answers a post here, else a post of its own
    /// (`forFollowersOnly`: only when somebody here follows its author; a search that resolves
    /// it keeps it anyway).
    func receiveNote(
        _ note: JSONValue, from account: RemoteAccountSeen, _ urls: FederationURLs, forFollowersOnly: Bool = true
    ) async throws(TimelineError) {
        let me = Caller.user(account.userId.rawValue)
        let text = RemoteHTML.text(note["content"]?.string ?? "")
        guard let federation = options.federation else { return }
        if let answered = note["inReplyTo"]?.string {
            // An answer to a post here (local, or another server's that came in): a comment.
            guard let post = try knownPost(.string(answered), urls) else { return }
            _ = try await service.execute(
                .addComment(post: post.rawValue, text: String(text.unicodeScalars.prefix(Validation.maxComment))),
                as: me)
            return
        }
        guard Self.id(of: note["attributedTo"]) == account.actor, let object = note["id"]?.string,
            let visibility = Self.visibility(of: note)
        else { return }
        if forFollowersOnly, try service.user(account.userId, countingUnread: false).followerCount == 0 { return }
        // Fetched as one of the author's followers here: a followers-only post's photos are theirs to see.
        let signer = try await followerKey(of: account, urls)
        var media: [String] = []
        for (url, alt) in Self.photos(of: note).prefix(MediaPolicy.maxPerPost) {
            // A photo that cannot be fetched or is no image is left out, as a broken one would be.
            guard let bytes = try? await federation.fetchMedia(url, limit: ImageUpload.maxBytes, signer: signer),
                case .media(let uploaded)? = try? await service.execute(
                    .uploadMedia(
                        image: Data(bytes).base64EncodedString(),
                        alt: alt.map { String($0.prefix(MediaPolicy.maxAlt)) }),
                    as: me)
            else { continue }
            media.append(uploaded.id)
        }
        guard !media.isEmpty else { return }
        _ = try await service.execute(
            .receiveRemotePost(
                author: account.userId.rawValue, object: object,
                caption: String(text.unicodeScalars.prefix(Validation.maxCaption)), media: media,
                visibility: visibility, sensitive: note["sensitive"] == .bool(true),
                warning: note["summary"]?.string.flatMap { $0.isEmpty ? nil : String($0.prefix(Validation.maxWarning)) }
            ),
            as: .operator)
    }

    /// The signing key of a local follower of `account` (one, the first found), if it has any.
    private func followerKey(of account: RemoteAccountSeen, _ urls: FederationURLs) async throws(TimelineError)
        -> (keyId: String, key: RSAKey)?
    {
        let followers = try service.followers(of: account.userId, PageRequest(limit: PageRequest.maxLimit)).items
        guard let local = followers.first(where: { !$0.username.contains("@") }) else { return nil }
        return (urls.key(local.id), try await service.actorSigningKey(of: local.id))
    }

    /// An `Update` of a `Note` that came in: its caption as it now is.
    func receiveNoteUpdate(_ note: JSONValue, from account: RemoteAccountSeen) async throws(TimelineError) {
        guard let object = note["id"]?.string, let post = try service.remotePost(object: object) else { return }
        let text = RemoteHTML.text(note["content"]?.string ?? "")
        _ = try await service.execute(
            .editPost(post: post.rawValue, caption: .some(String(text.unicodeScalars.prefix(Validation.maxCaption)))),
            as: .user(account.userId.rawValue))
    }

    /// A `Delete` of a `Note` that came in (its id, or its `Tombstone`).
    func receiveNoteDeletion(_ object: String, from account: RemoteAccountSeen) async throws(TimelineError) {
        guard let post = try service.remotePost(object: object) else { return }
        _ = try await service.execute(.deletePost(post: post.rawValue), as: .user(account.userId.rawValue))
    }

    /// Who sees a `Note`: everyone when it addresses the public (Mastodon's public and unlisted),
    /// its author's followers when it addresses a collection, `nil` for a direct one.
    static func visibility(of note: JSONValue) -> PostVisibility? {
        let audience = ["to", "cc"].flatMap { member -> [String] in
            switch note[member] {
            case .array(let items)?: items.compactMap(\.string)
            case .string(let one)?: [one]
            default: []
            }
        }
        let publicNames: Set<String> = [ActivityStreams.publicAudience, "as:Public", "Public"]
        if audience.contains(where: publicNames.contains) { return .public }
        return audience.contains { $0.hasSuffix("/followers") } ? .followers : nil
    }

    /// A `Note`'s photos: each attachment that is an image, its URL and its alt text (`name`).
    static func photos(of note: JSONValue) -> [(url: String, alt: String?)] {
        let attachments: [JSONValue] =
            switch note["attachment"] {
            case .array(let items)?: items
            case let one?: [one]
            case nil: []
            }
        return attachments.compactMap { attachment in
            let mediaType = attachment["mediaType"]?.string ?? ""
            guard mediaType.hasPrefix("image/") || (mediaType.isEmpty && attachment["type"]?.string == "Image") else {
                return nil
            }
            let url: String? =
                switch attachment["url"] {
                case .string(let url)?: url
                case .array(let links)?: links.first.flatMap { $0.string ?? $0["href"]?.string }
                case let link?: link["href"]?.string
                case nil: nil
                }
            guard let url, url.hasPrefix("https://") else { return nil }
            return (url, attachment["name"]?.string.flatMap { $0.isEmpty ? nil : $0 })
        }
    }
}
