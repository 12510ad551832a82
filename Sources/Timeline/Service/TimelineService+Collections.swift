import TimelineDomain

/// Collections (Mastodon's featured collections): one collection, a user's collections, and
/// the collections an account is featured in, each as the viewer may see it (the
/// `collections` surface of the one privacy policy).
extension TimelineService {
    /// The collection `id` as `viewer` sees it (`not_found` when none, or when its owner is out
    /// of `viewer`'s sight).
    public func collection(_ id: CollectionID, viewer: UserID?) throws(TimelineError) -> CollectionView {
        try read { try $0.viewCollection(id, viewer: viewer) }
    }

    /// `owner`'s collections `viewer` may see, the newest first, `limit` from `offset`: all of
    /// them for the owner, only the discoverable ones for others, none across a block.
    public func collections(of owner: UserID, viewer: UserID?, offset: Int = 0, limit: Int = 40)
        throws(TimelineError) -> [CollectionView]
    {
        try read { try $0.collections(by: owner, viewer: viewer, offset: max(0, offset), limit: max(0, limit)) }
    }

    /// The collections `account` is featured in, `limit` from `offset`: only `account` may ask
    /// (`forbidden` otherwise, as Mastodon answers).
    public func collections(featuring account: UserID, viewer: UserID?, offset: Int = 0, limit: Int = 40)
        throws(TimelineError) -> [CollectionView]
    {
        try read {
            try $0.collections(featuring: account, viewer: viewer, offset: max(0, offset), limit: max(0, limit))
        }
    }
}
