import LMDB
import TimelineDomain

/// Posts with their counts, each user's posts, comments and likes, and uploaded media. A post's
/// record also keeps its author's username (read from `profiles`, applied before this
/// projection), its place and its album, so a page presents it from this one record.
struct PostsProjection: Projection {
    let name = ProjectionName.posts
    let posts: Table<PostRecords>  // postId → StoredPost
    let postsByUser: Table<Members<UserID, PostID>>  // an author's posts
    let comments: Table<PostComments>
    let commentPosts: Table<CommentPosts>
    let likes: Table<TimedMembers<PostID, UserID>>  // a post's likers (cursor empty before `likers` existed)
    let likers: Table<InOrder<PostID, UserID>>  // a post's likers, the latest like last
    let likesByUser: Table<Members<UserID, PostID>>
    let commentsByUser: Table<Members<UserID, CommentID>>
    let bookmarks: Table<TimedMembers<UserID, PostID>>  // private to the user
    let bookmarkList: Table<InOrder<UserID, PostID>>  // a user's bookmarks, the latest saved last
    let bookmarkers: Table<Members<PostID, UserID>>  // whose lists a deleted post leaves
    let reports: Table<PostReports>
    let reportsByUser: Table<Members<UserID, PostID>>  // what an erased reporter's reports were
    let media: Table<MediaRecords>  // mediaId → StoredMedia, attached or not
    let unattachedMedia: Table<UnattachedMedia>  // uploadedAt ‖ mediaId → uploader, until attached
    let processingVideos: Table<ProcessingVideos>  // mediaId → upload, until transcoded
    let storyVideos: Table<StoryVideos>  // author ‖ story → the video it shows
    var databases: [Database] {
        [
            posts.database, postsByUser.database, comments.database, commentPosts.database, likes.database,
            likers.database,
            likesByUser.database, commentsByUser.database, bookmarks.database, bookmarkList.database,
            bookmarkers.database,
            reports.database, reportsByUser.database, media.database, unattachedMedia.database,
            processingVideos.database, storyVideos.database
        ]
    }

    let profiles: ProfilesProjection

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String, profiles: ProfilesProjection) throws {
        self.profiles = profiles
        posts = try Table(env, prefix + "posts")
        postsByUser = try Table(env, prefix + "postsByUser")
        comments = try Table(env, prefix + "comments")
        commentPosts = try Table(env, prefix + "commentPosts")
        likes = try Table(env, prefix + "likes")
        likers = try Table(env, prefix + "likers")
        likesByUser = try Table(env, prefix + "likesByUser")
        commentsByUser = try Table(env, prefix + "commentsByUser")
        bookmarks = try Table(env, prefix + "bookmarks")
        bookmarkList = try Table(env, prefix + "bookmarkList")
        bookmarkers = try Table(env, prefix + "bookmarkers")
        reports = try Table(env, prefix + "reports")
        reportsByUser = try Table(env, prefix + "reportsByUser")
        media = try Table(env, prefix + "media")
        unattachedMedia = try Table(env, prefix + "unattachedMedia")
        processingVideos = try Table(env, prefix + "processingVideos")
        storyVideos = try Table(env, prefix + "storyVideos")
        handlers = Self.handlers(of: self)
    }

    /// Every video upload not transcoded yet, with its upload's name, in media id order (oldest first).
    func videosProcessing(_ txn: Transaction) throws -> [(media: MediaID, upload: String)] {
        var pending: [(media: MediaID, upload: String)] = []
        try txn.withCursor(processingVideos.database) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                pending.append((MediaID(String(decoding: key, as: UTF8.self)), ProcessingVideos.decode(Array(value))))
                entry = try cursor.next()
            }
        }
        return pending
    }

    /// Up to `limit` media no post holds, uploaded before `time` (ms), oldest first.
    func unattached(
        uploadedBefore time: Int64, limit: Int, _ txn: Transaction,
        skipping held: (MediaID) throws -> Bool = { _ in false }
    ) throws -> [MediaRecord] {
        var due: [MediaRecord] = []
        try txn.withCursor(unattachedMedia.database) { cursor in
            var entry = try cursor.first()
            while let (key, _) = entry, due.count < limit {
                guard let at = BigEndian.uint64(key[..<8]), Int64(at) < time else { return }
                let id = MediaID(String(decoding: key[8...], as: UTF8.self))
                if try !held(id), let stored = try media.get(id, txn) {
                    due.append(stored.record)
                }
                entry = try cursor.next()
            }
        }
        return due
    }

    func post(_ id: PostID, _ txn: Transaction) throws -> PostRecord? {
        try posts.get(id, txn)?.record
    }

    func comment(_ id: CommentID, _ txn: Transaction) throws -> CommentRecord? {
        guard let post = try commentPosts.get(id, txn) else { return nil }
        return try comments.get((post, id), txn)
    }

    func likes(_ user: UserID, _ post: PostID, _ txn: Transaction) throws -> Bool {
        try likes.contains((post, user), txn)
    }

    func bookmarks(_ user: UserID, _ post: PostID, _ txn: Transaction) throws -> Bool {
        try bookmarks.contains((user, post), txn)
    }

    func reported(_ user: UserID, _ post: PostID, _ txn: Transaction) throws -> Bool {
        try reports.contains((post, user), txn)
    }

    /// Whether `user`'s report of `post` stands (made, and not dismissed since).
    func reportStands(_ user: UserID, _ post: PostID, _ txn: Transaction) throws -> Bool {
        try reports.get((post, user), txn).map { !$0.dismissed } ?? false
    }

    /// How many reports of `post` stand and `count` accepts, counting at most `limit` (and,
    /// when `oncePerOrigin`, reports from one origin once).
    func standingReports(
        _ post: PostID, upTo limit: Int, _ txn: Transaction,
        counting count: (UserID, Report) throws -> Bool, oncePerOrigin: Bool = true
    ) throws -> Int {
        guard limit > 0 else { return 0 }
        var counted = 0
        var origins: Set<String> = []
        try reports.forEach(in: post, txn) { reporter, report in
            guard !report.dismissed, try count(reporter, report) else { return true }
            if oncePerOrigin, let origin = report.origin, !origins.insert(origin).inserted { return true }
            counted += 1
            return counted < limit
        }
        return counted
    }

    /// How many posts and comments `user` has, counting at most `limit`.
    func contributions(of user: UserID, upTo limit: Int, _ txn: Transaction) throws -> Int {
        guard limit > 0 else { return 0 }
        var counted = 0
        try postsByUser.forEach(in: user, txn) { _, _ in
            counted += 1
            return counted < limit
        }
        if counted < limit {
            try commentsByUser.forEach(in: user, txn) { _, _ in
                counted += 1
                return counted < limit
            }
        }
        return counted
    }

    /// Marks every report of `post` dismissed: they no longer count, and their reporters
    /// cannot report it again.
    private func dismissReports(_ post: PostID, _ txn: Transaction) throws {
        var standing: [(UserID, Report)] = []
        try reports.forEach(in: post, txn) { reporter, report in
            if !report.dismissed { standing.append((reporter, report)) }
            return true
        }
        for (reporter, var report) in standing {
            report.dismissed = true
            try reports.put((post, reporter), report, txn)
        }
    }

    /// Takes `post` out of `user`'s bookmarks (nothing if it is not there).
    private func removeBookmark(_ user: UserID, _ post: PostID, _ txn: Transaction) throws {
        guard let cursor = try bookmarks.get((user, post), txn) else { return }
        try bookmarkList.delete((user, cursor), txn)
        try bookmarks.delete((user, post), txn)
        try bookmarkers.delete((post, user), txn)
    }

    private func update(_ id: PostID, _ txn: Transaction, _ change: (inout PostRecord) -> Void) throws {
        try updateStored(id, txn) { change(&$0.record) }
    }

    private func updateStored(_ id: PostID, _ txn: Transaction, _ change: (inout StoredPost) -> Void) throws {
        guard var post = try posts.get(id, txn) else { return }
        change(&post)
        try posts.put(id, post, txn)
    }

    /// Records in `post`'s record how many of its reports stand (after any change to them).
    private func recountReports(_ post: PostID, _ txn: Transaction) throws {
        let standing = try standingReports(post, upTo: .max, txn, counting: { _, _ in true }, oncePerOrigin: false)
        try updateStored(post, txn) { $0.standingReports = standing }
    }

    /// Takes a deleted or removed post out of every table: its comments, likes, bookmarks and
    /// reports go with it.
    private func remove(_ post: PostID, author: UserID, _ txn: Transaction) throws {
        // Its photos go with it.
        for item in try posts.get(post, txn)?.album ?? [] { try media.delete(item.id, txn) }
        try posts.delete(post, txn)
        try postsByUser.delete((author, post), txn)
        var removed: [CommentRecord] = []
        try comments.forEach(in: post, txn) { _, comment in
            removed.append(comment)
            return true
        }
        for comment in removed {
            try comments.delete((post, comment.id), txn)
            try commentPosts.delete(comment.id, txn)
            try commentsByUser.delete((comment.author, comment.id), txn)
        }
        for user in try likes.deleteAll(in: post, txn) { try likesByUser.delete((user, post), txn) }
        try likers.deleteAll(in: post, txn)
        // It leaves every bookmark list.
        for user in try bookmarkers.members(of: post, txn) { try removeBookmark(user, post, txn) }
        // And its reports go with it.
        for reporter in try reports.deleteAll(in: post, txn) { try reportsByUser.delete((reporter, post), txn) }
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.postAdded) { (e: PostAdded, envelope, txn) in
            let post = PostRecord(
                id: e.postId, author: e.authorId, image: e.imageId, caption: e.caption,
                hashtags: e.hashtags, createdAt: envelope.timestamp,
                width: e.width, height: e.height, variants: e.variants, visibility: e.visibility,
                addressees: e.addressees)
            let username = try projection.profiles.user(e.authorId, txn)?.username ?? ""
            var stored = StoredPost(record: post, authorUsername: username)
            stored.blurhash = e.blurhash
            stored.inReplyTo = e.inReplyTo
            // Its photos are attached: they leave the unattached list, and the post keeps a copy.
            for id in e.media {
                guard var photo = try projection.media.get(id, txn) else { continue }
                try projection.unattachedMedia.delete((photo.record.uploadedAt, id), txn)
                photo.record.post = e.postId
                try projection.media.put(id, photo, txn)
                stored.album.append(photo.albumItem)
            }
            try projection.posts.put(e.postId, stored, txn)
            try projection.postsByUser.put((e.authorId, e.postId), (), txn)
        }
        handlers.on(.postImageProcessed) { (e: PostImageProcessed, _, txn) in
            // From now on the post shows its processed image; the one it was made from stays stored.
            try projection.update(e.postId, txn) { post in
                post.image = e.variants.full
                post.width = e.width
                post.height = e.height
                post.variants = e.variants
            }
        }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in
            try projection.remove(e.postId, author: e.authorId, txn)
        }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in
            try projection.remove(e.postId, author: e.authorId, txn)
        }
        handlers.on(.postPlaced) { (e: PostPlaced, _, txn) in
            try projection.updateStored(e.postId, txn) { $0.place = e.place }
        }
        handlers.on(.postMarkedSensitive) { (e: PostMarkedSensitive, _, txn) in
            try projection.updateStored(e.postId, txn) { stored in
                stored.sensitive = true
                stored.warning = e.warning
            }
        }
        handlers.on(.postEdited) { (e: PostEdited, envelope, txn) in
            try projection.updateStored(e.postId, txn) { stored in
                stored.record.caption = e.caption
                stored.record.hashtags = e.hashtags
                stored.editedAt = envelope.timestamp
            }
        }
        handlers.on(.profileUpdated) { (e: ProfileUpdated, _, txn) in
            // The author's posts show their username now.
            guard let username = e.username else { return }
            for post in try projection.postsByUser.members(of: e.userId, txn) {
                try projection.updateStored(post, txn) { $0.authorUsername = username }
            }
        }
        // The record holds what presenting the post reads of its boosts and its poll.
        handlers.on(.postBoosted) { (e: Boost, _, txn) in
            try projection.updateStored(e.postId, txn) { $0.boostCount += 1 }
        }
        handlers.on(.boostRemoved) { (e: Boost, _, txn) in
            try projection.updateStored(e.postId, txn) { $0.boostCount = max(0, $0.boostCount - 1) }
        }
        handlers.on(.pollSet) { (e: PollSet, _, txn) in
            try projection.updateStored(e.postId, txn) { $0.poll = e.pollId }
        }
        handlers.on(.pollRemoved) { (e: PollRemoved, _, txn) in
            try projection.updateStored(e.postId, txn) { if $0.poll == e.pollId { $0.poll = nil } }
        }
        handlers.on(.reportsDismissed) { (e: ReportsDismissed, _, txn) in
            try projection.dismissReports(e.postId, txn)
            try projection.recountReports(e.postId, txn)
        }
        handlers.on(.commentAdded) { (e: CommentAdded, envelope, txn) in
            let comment = CommentRecord(
                id: e.commentId, post: e.postId, author: e.authorId, text: e.text,
                createdAt: envelope.timestamp, replyTo: e.replyTo)
            try projection.comments.put((e.postId, e.commentId), comment, txn)
            try projection.commentPosts.put(e.commentId, e.postId, txn)
            try projection.commentsByUser.put((e.authorId, e.commentId), (), txn)
            try projection.update(e.postId, txn) { $0.commentCount += 1 }
        }
        handlers.on(.commentDeleted) { (e: CommentDeleted, _, txn) in
            if let comment = try projection.comment(e.commentId, txn) {
                try projection.commentsByUser.delete((comment.author, e.commentId), txn)
            }
            try projection.comments.delete((e.postId, e.commentId), txn)
            try projection.commentPosts.delete(e.commentId, txn)
            try projection.update(e.postId, txn) { $0.commentCount -= 1 }
        }
        handlers.on(.likeAdded) { (e: Like, envelope, txn) in
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.likes.put((e.postId, e.userId), cursor, txn)
            try projection.likers.put((e.postId, cursor), e.userId, txn)
            try projection.likesByUser.put((e.userId, e.postId), (), txn)
            try projection.update(e.postId, txn) { $0.likeCount += 1 }
        }
        handlers.on(.likeRemoved) { (e: Like, _, txn) in
            if let cursor = try projection.likes.get((e.postId, e.userId), txn), !cursor.isEmpty {
                try projection.likers.delete((e.postId, cursor), txn)
            }
            try projection.likes.delete((e.postId, e.userId), txn)
            try projection.likesByUser.delete((e.userId, e.postId), txn)
            try projection.update(e.postId, txn) { $0.likeCount -= 1 }
        }
        handlers.on(.bookmarked) { (e: Bookmark, envelope, txn) in
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.removeBookmark(e.userId, e.postId, txn)
            try projection.bookmarks.put((e.userId, e.postId), cursor, txn)
            try projection.bookmarkList.put((e.userId, cursor), e.postId, txn)
            try projection.bookmarkers.put((e.postId, e.userId), (), txn)
        }
        handlers.on(.unbookmarked) { (e: Bookmark, _, txn) in try projection.removeBookmark(e.userId, e.postId, txn) }
        handlers.on(.postReported) { (e: PostReported, envelope, txn) in
            // The reporter's activity as it was when they reported: what they do later does not
            // change whether this report counts.
            let activity = try projection.contributions(of: e.reporterId, upTo: Report.maxActivity, txn)
            let report = Report(dismissed: false, at: envelope.timestamp, origin: e.origin, activity: activity)
            try projection.reports.put((e.postId, e.reporterId), report, txn)
            try projection.reportsByUser.put((e.reporterId, e.postId), (), txn)
            try projection.recountReports(e.postId, txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            // An erased reporter's reports no longer count.
            for post in try projection.reportsByUser.deleteAll(in: e.userId, txn) {
                try projection.reports.delete((post, e.userId), txn)
                try projection.recountReports(post, txn)
            }
            // Their stories end: the videos they showed go.
            for media in try projection.storyVideos.deleteAll(withPrefix: StoryVideos.prefix(e.userId), txn) {
                try projection.media.delete(media, txn)
            }
        }
        // A video story holds its video as a post would; the video goes when the story ends.
        handlers.on(.storyPosted) { (e: StoryPosted, _, txn) in
            guard let video = e.video, var stored = try projection.media.get(video.media, txn) else { return }
            try projection.unattachedMedia.delete((stored.record.uploadedAt, video.media), txn)
            stored.record.story = e.storyId
            try projection.media.put(video.media, stored, txn)
            try projection.storyVideos.put((e.authorId, e.storyId), video.media, txn)
        }
        for type in [EventType.storyDeleted, .storyExpired] {
            handlers.on(type) { (e: StoryChange, _, txn) in
                guard let media = try projection.storyVideos.get((e.authorId, e.storyId), txn) else { return }
                try projection.storyVideos.delete((e.authorId, e.storyId), txn)
                try projection.media.delete(media, txn)
            }
        }
        handlers.on(.mediaUploaded) { (e: MediaUploaded, envelope, txn) in
            let record = MediaRecord(
                id: e.mediaId, uploader: e.uploaderId, uploadedAt: envelope.timestamp, post: nil,
                width: e.width, height: e.height, variants: e.variants, alt: e.alt)
            try projection.media.put(e.mediaId, StoredMedia(record: record, blurhash: e.blurhash), txn)
            try projection.unattachedMedia.put((envelope.timestamp, e.mediaId), e.uploaderId, txn)
        }
        handlers.on(.videoUploaded) { (e: VideoUploaded, envelope, txn) in
            // Until transcoded it has no size and no poster: nothing of it is shown to anyone.
            let record = MediaRecord(
                id: e.mediaId, uploader: e.uploaderId, uploadedAt: envelope.timestamp, post: nil, width: 0, height: 0,
                variants: ImageVariants(full: ImageID(""), feed: ImageID(""), thumb: ImageID("")), alt: e.alt,
                video: .processing)
            try projection.media.put(e.mediaId, StoredMedia(record: record, blurhash: ""), txn)
            try projection.unattachedMedia.put((envelope.timestamp, e.mediaId), e.uploaderId, txn)
            try projection.processingVideos.put(e.mediaId, e.upload, txn)
        }
        handlers.on(.videoProcessed) { (e: VideoProcessed, _, txn) in
            try projection.processingVideos.delete(e.mediaId, txn)
            guard var video = try projection.media.get(e.mediaId, txn) else { return }
            video.record.width = e.width
            video.record.height = e.height
            video.record.variants = e.poster
            video.record.video = .ready(e.video)
            video.blurhash = e.blurhash
            try projection.media.put(e.mediaId, video, txn)
        }
        handlers.on(.videoFailed) { (e: VideoFailed, _, txn) in
            try projection.processingVideos.delete(e.mediaId, txn)
            guard var video = try projection.media.get(e.mediaId, txn) else { return }
            video.record.video = .failed(e.reason)
            try projection.media.put(e.mediaId, video, txn)
        }
        handlers.on(.mediaUpdated) { (e: MediaUpdated, _, txn) in
            guard var photo = try projection.media.get(e.mediaId, txn) else { return }
            photo.record.alt = e.alt
            try projection.media.put(e.mediaId, photo, txn)
            if let post = photo.record.post {
                try projection.updateStored(post, txn) { stored in
                    for index in stored.album.indices where stored.album[index].id == e.mediaId {
                        stored.album[index].alt = e.alt
                    }
                }
            }
        }
        handlers.on(.mediaDeleted) { (e: MediaDeleted, _, txn) in
            guard let photo = try projection.media.get(e.mediaId, txn) else { return }
            try projection.unattachedMedia.delete((photo.record.uploadedAt, e.mediaId), txn)
            try projection.processingVideos.delete(e.mediaId, txn)
            try projection.media.delete(e.mediaId, txn)
        }
        return handlers
    }
}

/// A post's comments, `postId ‖ 0 ‖ commentId` → CommentRecord: a prefix scan lists them
/// oldest first (comment ids are push ids).
enum PostComments: GroupedLayout {
    typealias Group = PostID
    typealias Member = CommentID
    static func encode(_ comment: CommentRecord) -> [UInt8] { RecordCodec.encode(comment) }
    static func decode(_ bytes: [UInt8]) throws -> CommentRecord { try RecordCodec.comment(bytes) }
}

/// One report of a post, as the read models keep it.
struct Report: Equatable, Sendable {
    /// The operator dismissed it: it no longer counts, and its reporter cannot report again.
    var dismissed: Bool
    /// When it was made (ms since 1970).
    var at: Int64
    /// `PostReported.origin`: where it came from (a keyed hash), if known.
    var origin: String?
    /// The reporter's posts and comments when they reported, counted up to `maxActivity`.
    var activity: Int

    /// How far a reporter's activity is counted (a higher threshold is taken as this).
    static let maxActivity = 100
}

/// A post's reports, `postId ‖ 0 ‖ reporterId` → dismissed (0 or 1) ‖ time ‖ origin ‖
/// activity: one report per reporter and post.
enum PostReports: GroupedLayout {
    typealias Group = PostID
    typealias Member = UserID
    static func encode(_ report: Report) -> [UInt8] {
        var w = ByteWriter()
        w.u8(report.dismissed ? 1 : 0)
        w.int64(report.at)
        w.optionalString(report.origin)
        w.int(report.activity)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> Report {
        var r = ByteReader(bytes)
        return Report(
            dismissed: try r.u8() == 1, at: try r.int64(), origin: try r.optionalString(), activity: try r.int())
    }
}
