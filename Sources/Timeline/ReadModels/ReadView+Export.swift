import TimelineDomain

/// What a user's export holds besides photos and events, read in one transaction.
struct ExportData {
    var profile: Profile
    var posts: [Post]
    var comments: [Comment]
    var likes: [PostID]
    var bookmarks: [Post]
    var following: [Profile]
    var followers: [Profile]
    var blocks: [Profile]
    var mutes: [Profile]
    /// The accounts they wrote a private note on, each with it (`noteByViewer`).
    var notes: [Profile]
    /// The accounts they feature, the posts they pinned and the hashtags they feature.
    var endorsements: [Profile]
    var pinned: [PostID]
    var featuredTags: [String]
}

extension ReadView {
    /// `user`'s own data, as they see it: every post of theirs, every comment they wrote, what
    /// they liked and saved, whom they follow, who follows them, whom they block and mute.
    func exportData(of user: UserID) throws -> ExportData {
        guard let record = try self.user(user) else { throw TimelineError.notFound("user", user.rawValue) }
        let present = Presenter(try privacy(for: user))
        let posts = models.posts, follows = models.follows
        func profiles(_ ids: [UserID]) throws -> [Profile] {
            try ids.compactMap { id in try self.user(id).map { try present.profile($0) } }
        }
        return ExportData(
            profile: try present.profile(record),  // their own: with their settings
            posts: try posts.postsByUser.members(of: user, txn).reversed().compactMap {
                try storedPost(Array($0.rawValue.utf8))
            }
            .map { Post($0, likedByViewer: try likes(user, $0.id), bookmarkedByViewer: try bookmarks(user, $0.id)) },
            comments: try posts.commentsByUser.members(of: user, txn).compactMap(comment).map(present.comment),
            likes: try posts.likesByUser.members(of: user, txn),
            bookmarks: try posts.bookmarks.members(of: user, txn)
                .compactMap { try present.listedPost($0, on: .export) },
            following: try profiles(follows.following.members(of: user, txn)),
            followers: try profiles(follows.followers.members(of: user, txn)),
            blocks: try profiles(follows.blocking.members(of: user, txn)),
            mutes: try profiles(try activeMutes(of: user).sorted()),
            notes: try profiles(models.profileExtras.notes.members(of: user, txn)),
            endorsements: try profiles(models.profileExtras.endorsed(by: user, txn)),
            pinned: try models.profileExtras.pinned(by: user, txn),
            featuredTags: try models.profileExtras.featured(by: user, txn)
        )
    }
}
