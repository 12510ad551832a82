import TimelineDomain

/// The library's reads of followed hashtags (#41): which tags a user follows, and whether
/// they follow one. Following is the commands `followTag` and `unfollowTag`; the posts of a
/// followed tag come into the follower's home timeline (`timeline(of:_:)`).
extension TimelineService {
    /// The hashtags `user` follows, the latest followed first (private: the HTTP layers ask it
    /// for the bearer alone).
    public func followedTags(of user: UserID, _ page: PageRequest = PageRequest()) throws(TimelineError)
        -> Page<String>
    {
        let page = try page.validated()
        return try read { try $0.followedTags(of: user, page) }
    }

    /// Whether `user` follows the hashtag `tag` (with or without `#`, any case; `false` for
    /// what is not one hashtag).
    public func followsTag(_ user: UserID, _ tag: String) throws(TimelineError) -> Bool {
        guard let tag = try? Validation.singleHashtag(tag) else { return false }
        return try read { try $0.followsTag(user, tag) }
    }

    /// Whether `user` features the hashtag `tag` on their profile (with or without `#`, any case).
    public func featuresTag(_ user: UserID, _ tag: String) throws(TimelineError) -> Bool {
        guard let tag = try? Validation.singleHashtag(tag) else { return false }
        return try read { try $0.featuresTag(user, tag) }
    }
}

extension TimelineService {
    /// The live updates `envelope` causes on `viewer`'s public stream (Mastodon's `public`), or
    /// on one hashtag's (`tag`: with or without `#`, any case): a new or edited post anyone may
    /// see (never a followers-only post or a locked account's, as `Privacy` says for nobody
    /// signed in), that the viewer's own policy shows on `hashtag` (their blocks and mutes) and
    /// their `public` filters leave (a warned one marked); and a deleted or removed post that
    /// showed there: as it was posted, one anyone and the viewer may see (of the tag, on a
    /// hashtag's stream) — a followers-only or direct post's id is never told. Every post here
    /// is local.
    public func publicLiveUpdates(for envelope: EventEnvelope, viewer: UserID, tag: String? = nil)
        throws(TimelineError) -> [LiveUpdate]
    {
        let tag = tag.map { Validation.hashtag($0.hasPrefix("#") ? String($0.dropFirst()) : $0) }
        return try read { view in
            let privacy = try view.privacy(for: viewer)
            let everyone = Privacy(viewer: nil, mutes: [], reportThreshold: view.reports.hideAfter, state: view)
            func shown(_ id: PostID) throws -> Post? {
                guard let stored = try view.storedPost(Array(id.rawValue.utf8)) else { return nil }
                if let tag, !stored.hashtags.contains(tag) { return nil }
                guard try everyone.mayShow(post: stored, on: .hashtag),
                    let post = try Presenter(privacy).listed(stored, on: .hashtag)
                else { return nil }
                let filters = try view.filterMatching(viewer, .public)
                return filters.isEmpty ? post : filters.apply([post], viewer: viewer).first
            }
            // A post gone is told gone where it showed: public as posted (not followers-only, not
            // direct, its author not locked), of the tag, its author in the viewer's sight.
            func showed(_ id: PostID) throws -> Bool {
                guard let post = try gonePost(id, view), tag.map(post.hashtags.contains) ?? true else { return false }
                return try everyone.mayShow(post: post, on: .hashtag) && privacy.mayShow(post: post, on: .hashtag)
            }
            switch envelope.event {
            case .postAdded(let e): return try shown(e.postId).map { [.post($0)] } ?? []
            case .postEdited(let e): return try shown(e.postId).map { [.edited($0)] } ?? []
            case .postDeleted(let e): return try showed(e.postId) ? [.removed(e.postId)] : []
            case .postRemoved(let e): return try showed(e.postId) ? [.removed(e.postId)] : []
            default: return []
            }
        }
    }
}
