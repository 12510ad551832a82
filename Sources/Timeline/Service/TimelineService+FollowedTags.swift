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
        guard let tag = try? Validation.featuredTag(tag) else { return false }
        return try read { try $0.followsTag(user, tag) }
    }

    /// Whether `user` features the hashtag `tag` on their profile (with or without `#`, any case).
    public func featuresTag(_ user: UserID, _ tag: String) throws(TimelineError) -> Bool {
        guard let tag = try? Validation.featuredTag(tag) else { return false }
        return try read { try $0.featuresTag(user, tag) }
    }
}
