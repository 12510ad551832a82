import LMDB
import TimelineDomain

/// Posts with their counts, each user's posts, comments and likes.
struct PostsProjection: Projection {
    let name = ProjectionName.posts
    let posts: Table<PostRecords>         // postId → PostRecord
    let postsByUser: Database   // author ‖ 0 ‖ postId → ()
    let comments: Database      // postId ‖ 0 ‖ commentId → CommentRecord
    let commentPosts: Table<CommentPosts>  // commentId → postId
    let likes: Database         // postId ‖ 0 ‖ userId → the like's cursor (empty before likers existed)
    let likers: Database        // postId ‖ 0 ‖ the like's cursor → userId; the cursor is the like's
                                // log sequence, 16 hex digits (so it sorts, and pages by it as text)
    let likesByUser: Database   // userId ‖ 0 ‖ postId → ()
    let commentsByUser: Database  // userId ‖ 0 ‖ commentId → ()
    let bookmarks: Database     // userId ‖ 0 ‖ postId → the bookmark's cursor (`Key.sequenceCursor` of its log sequence)
    let bookmarkList: Database  // userId ‖ 0 ‖ the bookmark's cursor → postId: a user's bookmarks, newest first
    let bookmarkers: Database   // postId ‖ 0 ‖ userId → (): whose lists a deleted post leaves
    let reports: Database       // postId ‖ 0 ‖ reporterId → () while the report stands, [1] once dismissed:
                                // one report per reporter and post
    let reportsByUser: Database // reporterId ‖ 0 ‖ postId → (): what an erased reporter's reports were
    var databases: [Database] {
        [posts.database, postsByUser, comments, commentPosts.database, likes, likers, likesByUser, commentsByUser,
         bookmarks, bookmarkList, bookmarkers, reports, reportsByUser]
    }

    init(_ env: Environment, prefix: String) throws {
        posts = try Table(env, prefix + "posts")
        postsByUser = try env.database(prefix + "postsByUser", placement: .derived)
        comments = try env.database(prefix + "comments", placement: .derived)
        commentPosts = try Table(env, prefix + "commentPosts")
        likes = try env.database(prefix + "likes", placement: .derived)
        likers = try env.database(prefix + "likers", placement: .derived)
        likesByUser = try env.database(prefix + "likesByUser", placement: .derived)
        commentsByUser = try env.database(prefix + "commentsByUser", placement: .derived)
        bookmarks = try env.database(prefix + "bookmarks", placement: .derived)
        bookmarkList = try env.database(prefix + "bookmarkList", placement: .derived)
        bookmarkers = try env.database(prefix + "bookmarkers", placement: .derived)
        reports = try env.database(prefix + "reports", placement: .derived)
        reportsByUser = try env.database(prefix + "reportsByUser", placement: .derived)
    }

    func post(_ id: PostID, _ txn: Transaction) throws -> PostRecord? {
        try posts.get(id, txn)
    }

    func comment(_ id: CommentID, _ txn: Transaction) throws -> CommentRecord? {
        guard let post = try commentPosts.get(id, txn) else { return nil }
        return try txn.get(comments, Key.make(post.rawValue, id.rawValue)).map(RecordCodec.comment)
    }

    func likes(_ user: UserID, _ post: PostID, _ txn: Transaction) throws -> Bool {
        try txn.contains(likes, Key.make(post.rawValue, user.rawValue))
    }

    func bookmarks(_ user: UserID, _ post: PostID, _ txn: Transaction) throws -> Bool {
        try txn.contains(bookmarks, Key.make(user.rawValue, post.rawValue))
    }

    func reported(_ user: UserID, _ post: PostID, _ txn: Transaction) throws -> Bool {
        try txn.contains(reports, Key.make(post.rawValue, user.rawValue))
    }

    /// Whether `user`'s report of `post` stands (made, and not dismissed since).
    func reportStands(_ user: UserID, _ post: PostID, _ txn: Transaction) throws -> Bool {
        try txn.get(reports, Key.make(post.rawValue, user.rawValue))?.isEmpty ?? false
    }

    /// How many reports of `post` stand, counting at most `limit`.
    func standingReports(_ post: PostID, upTo limit: Int, _ txn: Transaction) throws -> Int {
        guard limit > 0 else { return 0 }
        var count = 0
        try txn.scan(reports, prefix: Key.prefix(post.rawValue)) { _, value in
            if value.isEmpty { count += 1 }
            return count < limit
        }
        return count
    }

    /// Marks every report of `post` dismissed: they no longer count, and their reporters
    /// cannot report it again.
    private func dismissReports(_ post: PostID, _ txn: Transaction) throws {
        var standing: [[UInt8]] = []
        try txn.scan(reports, prefix: Key.prefix(post.rawValue)) { key, value in
            if value.isEmpty { standing.append(key) }
            return true
        }
        for key in standing { try txn.put(reports, key, [1]) }
    }

    /// Takes `post` out of `user`'s bookmarks (nothing if it is not there).
    private func removeBookmark(_ user: UserID, _ post: PostID, _ txn: Transaction) throws {
        let key = Key.make(user.rawValue, post.rawValue)
        guard let cursor = try txn.get(bookmarks, key) else { return }
        try txn.delete(bookmarkList, Key.prefix(user.rawValue) + cursor)
        try txn.delete(bookmarks, key)
        try txn.delete(bookmarkers, Key.make(post.rawValue, user.rawValue))
    }

    /// Calls `body` with each post id of `author`, ascending.
    func forEachPost(of author: UserID, _ txn: Transaction, _ body: (String) throws -> Void) throws {
        try txn.forEachID(in: postsByUser, under: author.rawValue, body)
    }

    private func update(_ id: PostID, _ txn: Transaction, _ change: (inout PostRecord) -> Void) throws {
        guard var post = try post(id, txn) else { return }
        change(&post)
        try posts.put(id, post, txn)
    }

    /// Takes a deleted or removed post out of every table: its comments, likes, bookmarks and
    /// reports go with it.
    private func remove(_ post: PostID, author: UserID, _ txn: Transaction) throws {
        try posts.delete(post, txn)
        try txn.delete(postsByUser, Key.make(author.rawValue, post.rawValue))
        let prefix = Key.prefix(post.rawValue)
        var removed: [CommentRecord] = []
        try txn.scan(comments, prefix: prefix) { _, value in removed.append(try RecordCodec.comment(value)); return true }
        for comment in removed {
            try txn.delete(comments, Key.make(post.rawValue, comment.id.rawValue))
            try commentPosts.delete(comment.id, txn)
            try txn.delete(commentsByUser, Key.make(comment.author.rawValue, comment.id.rawValue))
        }
        for key in try txn.deleteAll(likes, prefix: prefix) {
            try txn.delete(likesByUser, Key.make(Key.suffix(key, after: prefix), post.rawValue))
        }
        _ = try txn.deleteAll(likers, prefix: prefix)
        // It leaves every bookmark list.
        var savers: [UserID] = []
        try txn.forEachID(in: bookmarkers, under: post.rawValue) { savers.append(UserID($0)) }
        for user in savers { try removeBookmark(user, post, txn) }
        // And its reports go with it.
        for key in try txn.deleteAll(reports, prefix: prefix) {
            try txn.delete(reportsByUser, Key.make(Key.suffix(key, after: prefix), post.rawValue))
        }
    }

    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .postAdded(let e):
            let post = PostRecord(id: e.postId, author: e.authorId, image: e.imageId, caption: e.caption,
                                  hashtags: e.hashtags, createdAt: envelope.timestamp,
                                  width: e.width, height: e.height, variants: e.variants)
            try posts.put(e.postId, post, txn)
            try txn.put(postsByUser, Key.make(e.authorId.rawValue, e.postId.rawValue), [])
        case .postImageProcessed(let e):
            // From now on the post shows its processed image; the one it was made from stays stored.
            try update(e.postId, txn) { post in
                post.image = e.variants.full
                post.width = e.width; post.height = e.height; post.variants = e.variants
            }
        case .postDeleted(let e):
            try remove(e.postId, author: e.authorId, txn)
        case .postRemoved(let e):
            try remove(e.postId, author: e.authorId, txn)
        case .reportsDismissed(let e):
            try dismissReports(e.postId, txn)
        case .commentAdded(let e):
            let comment = CommentRecord(id: e.commentId, post: e.postId, author: e.authorId, text: e.text, createdAt: envelope.timestamp)
            try txn.put(comments, Key.make(e.postId.rawValue, e.commentId.rawValue), RecordCodec.encode(comment))
            try commentPosts.put(e.commentId, e.postId, txn)
            try txn.put(commentsByUser, Key.make(e.authorId.rawValue, e.commentId.rawValue), [])
            try update(e.postId, txn) { $0.commentCount += 1 }
        case .commentDeleted(let e):
            if let comment = try comment(e.commentId, txn) {
                try txn.delete(commentsByUser, Key.make(comment.author.rawValue, e.commentId.rawValue))
            }
            try txn.delete(comments, Key.make(e.postId.rawValue, e.commentId.rawValue))
            try commentPosts.delete(e.commentId, txn)
            try update(e.postId, txn) { $0.commentCount -= 1 }
        case .likeAdded(let e):
            let sequence = Array(Key.sequenceCursor(envelope.sequence).utf8)
            try txn.put(likes, Key.make(e.postId.rawValue, e.userId.rawValue), sequence)
            try txn.put(likers, Key.prefix(e.postId.rawValue) + sequence, Array(e.userId.rawValue.utf8))
            try txn.put(likesByUser, Key.make(e.userId.rawValue, e.postId.rawValue), [])
            try update(e.postId, txn) { $0.likeCount += 1 }
        case .likeRemoved(let e):
            let like = Key.make(e.postId.rawValue, e.userId.rawValue)
            if let sequence = try txn.get(likes, like), !sequence.isEmpty {
                try txn.delete(likers, Key.prefix(e.postId.rawValue) + sequence)
            }
            try txn.delete(likes, like)
            try txn.delete(likesByUser, Key.make(e.userId.rawValue, e.postId.rawValue))
            try update(e.postId, txn) { $0.likeCount -= 1 }
        case .bookmarked(let e):
            let cursor = Array(Key.sequenceCursor(envelope.sequence).utf8)
            try removeBookmark(e.userId, e.postId, txn)
            try txn.put(bookmarks, Key.make(e.userId.rawValue, e.postId.rawValue), cursor)
            try txn.put(bookmarkList, Key.prefix(e.userId.rawValue) + cursor, Array(e.postId.rawValue.utf8))
            try txn.put(bookmarkers, Key.make(e.postId.rawValue, e.userId.rawValue), [])
        case .unbookmarked(let e):
            try removeBookmark(e.userId, e.postId, txn)
        case .postReported(let e):
            try txn.put(reports, Key.make(e.postId.rawValue, e.reporterId.rawValue), [])
            try txn.put(reportsByUser, Key.make(e.reporterId.rawValue, e.postId.rawValue), [])
        case .userErased(let e):
            // An erased reporter's reports no longer count.
            let prefix = Key.prefix(e.userId.rawValue)
            for key in try txn.deleteAll(reportsByUser, prefix: prefix) {
                try txn.delete(reports, Key.make(Key.suffix(key, after: prefix), e.userId.rawValue))
            }
        default:
            throw UnroutedEvent(projection: name, type: envelope.type)
        }
    }
}
