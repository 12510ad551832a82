import Foundation
import LMDB
import Sodium
import TimelineDomain

/// The query side, over one snapshot.
extension ReadView {
    func profile(_ id: UserID, viewer: UserID? = nil) throws -> Profile {
        guard let user = try user(id) else { throw TimelineError.notFound("user", id.rawValue) }
        return try Presenter(self, viewer: viewer).profile(user)
    }

    /// Throws `not_found` unless `id` is a user.
    func requireUser(_ id: UserID) throws {
        guard try models.profiles.users.contains(id, txn) else { throw TimelineError.notFound("user", id.rawValue) }
    }

    /// Whether reports hide `post` from `viewer` (`DecisionState.hides` at this view's
    /// `ReportPolicy`). Hiding is decided when reading, from the reports the read models
    /// keep: the thresholds are settings, not part of the models.
    func hides(_ post: PostRecord, from viewer: UserID?) throws -> Bool {
        try hides(post, from: viewer, threshold: reports.hideAfter)
    }

    /// `not_found` unless `viewer` may see post `id` (`isShown`).
    func requireVisiblePost(_ id: PostID, viewer: UserID?) throws {
        guard let stored = try storedPost(Array(id.rawValue.utf8)), try isShown(stored, to: viewer)
        else { throw TimelineError.notFound("post", id.rawValue) }
    }

    /// Whether `viewer` may see the stored post: reports do not hide it from them (read only for
    /// a post with enough standing reports to reach the threshold) and, when `checkingBlocks`,
    /// no block stands between its author and them. Its author always may.
    func isShown(_ stored: PostReadings, to viewer: UserID?, checkingBlocks: Bool = true) throws -> Bool {
        if let viewer, stored.isAuthor(viewer) { return true }
        let threshold = reports.hideAfter
        if stored.fields.standingReports >= threshold, try countedReports(stored.id, upTo: threshold) >= threshold { return false }
        return try !checkingBlocks || !hidden(stored.author, from: viewer)
    }

    /// The stored record of post `id` (its key's bytes), with where its fields lie.
    func storedPost(_ id: some ContiguousBytes) throws -> PostReadings? {
        guard let bytes = try txn.get(models.posts.posts.database, id) else { return nil }
        return PostReadings(bytes: bytes, fields: try PostFields(bytes.span))
    }

    func materialise(_ outcome: Outcome, viewer: UserID?) throws -> CommandResult {
        let present = Presenter(self, viewer: viewer)
        switch outcome {
        case .user(let id): return .user(try profile(id))
        case .ownProfile(let id):
            guard let user = try user(id) else { throw TimelineError.notFound("user", id.rawValue) }
            return .user(Profile(user, own: true))
        case let .session(token, user): return .session(token: token, user: try profile(user))
        case .token(let token): return .token(token)
        case .post(let id): return .post(try present.post(id))
        case .comment(let id):
            guard let comment = try comment(id) else { throw TimelineError.notFound("comment", id.rawValue) }
            return .comment(try present.comment(comment))
        case .changed(let changed): return .changed(changed)
        case .done: return .done
        }
    }

    /// Newest-first page over `group`'s entries in `table`: `item` maps an entry's member (the
    /// page's cursor) and value to its item, or `nil` to skip it.
    func pageDescending<Layout: GroupedLayout, Item>(_ table: Table<Layout>, in group: Layout.Group, _ request: PageRequest,
                                                     _ item: (Layout.Member, Layout.Value) throws -> Item?) throws -> Page<Item> {
        try pageDescending(table.database, prefix: Layout.prefix(group), request) { id, value in
            try item(Layout.Member(keyText: id), try Layout.decode(value))
        }
    }

    /// Newest-first page over the keys `prefix ‖ id`; `item` maps an id to its item, or `nil`
    /// to skip it. `next` is set only when an item follows the page (one skipped is none).
    func pageDescending<Item>(_ db: Database, prefix: [UInt8], _ request: PageRequest,
                              _ item: (String, [UInt8]) throws -> Item?) throws -> Page<Item> {
        var items: [Item] = []
        var next: String?
        var last: String?
        try txn.scanDescending(db, prefix: prefix, before: request.before) { key, value in
            let id = Key.suffix(key, after: prefix)
            guard let value = try item(id, value) else { return true }
            if items.count == request.limit {
                next = last
                return false
            }
            items.append(value)
            last = id
            return true
        }
        return Page(items: items, next: next)
    }

    /// Ascending page over the keys that start with `prefix`, from the first key ≥ `start`;
    /// an item's cursor is `cursorOf(key)`; `item` maps an entry to its item, or `nil` to skip it.
    func pageAscending<Item>(_ db: Database, prefix: [UInt8], from start: [UInt8], _ request: PageRequest,
                             cursorOf: ([UInt8]) -> String, _ item: ([UInt8], [UInt8]) throws -> Item?) throws -> Page<Item> {
        var items: [Item] = []
        var next: String?
        var last: String?
        try txn.withCursor(db) { cursor in
            // LMDB refuses an empty key: from nothing is from the first key.
            var entry = start.isEmpty ? try cursor.first() : try cursor.seek(atLeast: start)
            while let (key, value) = entry, key.hasPrefix(prefix) {
                if let value = try item(key, value) {
                    // Full, and another item follows: the page has a next (never an empty one).
                    if items.count == request.limit {
                        next = last
                        return
                    }
                    items.append(value)
                    last = cursorOf(key)
                }
                entry = try cursor.next()
            }
        }
        return Page(items: items, next: next)
    }

    /// Whether `user` is kept out of `viewer`'s lists, search and activity: one of them blocks the other.
    func hidden(_ user: UserID, from viewer: UserID?) throws -> Bool {
        guard let viewer, viewer != user else { return false }
        return try models.follows.blockedEitherWay(viewer, user, txn)
    }

    /// `id`'s profile as `viewer` sees it in a list, or `nil` when a block hides it (or it is gone).
    func listed(_ id: UserID, viewer: UserID?) throws -> Profile? {
        guard try !hidden(id, from: viewer), let user = try user(id) else { return nil }
        return try Presenter(self, viewer: viewer).profile(user)
    }

    func users(_ request: PageRequest, viewer: UserID?) throws -> Page<Profile> {
        let present = Presenter(self, viewer: viewer)
        return try pageDescending(models.profiles.users.database, prefix: [], request) { _, value in
            let user = try UserRecords.decode(value)
            return try hidden(user.id, from: viewer) ? nil : try present.profile(user)
        }
    }

    /// The users `user` blocks, the latest block first.
    func blocked(by user: UserID, _ request: PageRequest) throws -> Page<Profile> {
        try requireUser(user)
        return try pageDescending(models.follows.blockingInOrder, in: user, request) { _, blocked in
            try self.user(blocked).map { try Presenter(self, viewer: user).profile($0) }
        }
    }

    func searchUsers(prefix raw: String, _ request: PageRequest, viewer: UserID?) throws -> Page<Profile> {
        let prefix = Array(raw.precomposedStringWithCompatibilityMapping.lowercased().utf8)
        let start = request.before.map { Array($0.utf8) + [0] } ?? prefix
        return try pageAscending(models.profiles.usernames.database, prefix: prefix, from: start.lexicographicallyPrecedes(prefix) ? prefix : start,
                                 request, cursorOf: { String(decoding: $0, as: UTF8.self) }) { _, value in
            try listed(UserID(String(decoding: value, as: UTF8.self)), viewer: viewer)
        }
    }

    func followers(of user: UserID, _ request: PageRequest, viewer: UserID?) throws -> Page<Profile> {
        try requireUser(user)
        return try pageDescending(models.follows.followersInOrder, in: user, request) { _, follower in
            try listed(follower, viewer: viewer)
        }
    }

    func following(of user: UserID, _ request: PageRequest, viewer: UserID?) throws -> Page<Profile> {
        try requireUser(user)
        return try pageDescending(models.follows.followingInOrder, in: user, request) { _, followee in
            try listed(followee, viewer: viewer)
        }
    }

    /// Who liked `post`, the latest like first.
    func likers(of post: PostID, _ request: PageRequest, viewer: UserID?) throws -> Page<Profile> {
        try requireVisiblePost(post, viewer: viewer)
        return try pageDescending(models.posts.likers, in: post, request) { _, liker in
            try listed(liker, viewer: viewer)
        }
    }

    /// `user`'s bookmarks, the latest saved first.
    func bookmarks(of user: UserID, _ request: PageRequest) throws -> Page<Post> {
        try requireUser(user)
        let present = Presenter(self, viewer: user)
        return try pageDescending(models.posts.bookmarkList, in: user, request) { _, post in
            try present.listedPost(post)
        }
    }

    func posts(by user: UserID, _ request: PageRequest, viewer: UserID?) throws -> Page<Post> {
        try requireUser(user)
        let present = Presenter(self, viewer: viewer)
        return try pageDescending(models.posts.postsByUser, in: user, request) { post, _ in
            try present.listedPost(post)
        }
    }

    /// The materialised timeline merged with the posts of the pulled authors `user` follows
    /// (each only above its boundary, so the sources never overlap), newest first.
    func timeline(of user: UserID, _ request: PageRequest) throws -> Page<Post> {
        try requireUser(user)
        let present = Presenter(self, viewer: user)
        let projection = models.timeline
        let pulled = try projection.pulledAuthors(of: user, txn)
        var sources = [MergeSource(prefix: projection.timelines.prefix(user), floor: nil, ownsValues: true)]
        sources += pulled.map { MergeSource(prefix: models.posts.postsByUser.prefix($0.author), floor: $0.boundary) }
        let posts = models.posts
        let databases = [projection.timelines.database] + Array(repeating: posts.postsByUser.database, count: pulled.count)
            + (pulled.isEmpty ? [] : [posts.likesByUser.database, posts.bookmarks.database])
        return try txn.withCursors(databases) { cursors in
            let merged = Array(cursors.prefix(sources.count))
            let marks = pulled.isEmpty ? nil : PulledMarks(viewer: user, posts: posts, likes: cursors[sources.count], bookmarks: cursors[sources.count + 1])
            // Looked up by the key's own bytes; the viewer's like and bookmark come with a
            // materialised entry (a pulled author's post reads them from the viewer's own
            // likes and bookmarks). A post hidden by reports is skipped (the page fills past
            // it); blocks end follows, so none is checked.
            return try MergeSource.page(sources, merged, request) { id, entry in
                try present.listedPost(id, marks: try entry.map(TimelineEntries.decode) ?? marks?.of(id), checkingBlocks: false)
            }
        }
    }

    func hashtag(_ raw: String, _ request: PageRequest, viewer: UserID?) throws -> Page<Post> {
        let tag = Validation.hashtag(raw.hasPrefix("#") ? String(raw.dropFirst()) : raw)
        guard !tag.isEmpty, tag.utf8.count <= Validation.maxHashtagBytes, !tag.utf8.contains(0) else {
            return Page(items: [], next: nil)
        }
        let present = Presenter(self, viewer: viewer)
        return try pageDescending(models.hashtags.hashtags, in: tag, request) { post, _ in
            try present.listedPost(post)
        }
    }

    /// Posts placed within `radiusKm` of `centre`, newest first: the cells the circle touches
    /// (`PlaceGrid`) merged in post id order, each candidate kept only when its great-circle
    /// distance is within the radius, its post is there (and not hidden by reports from `viewer`)
    /// and no block stands between its author and `viewer`. `next` is set only when another
    /// such post follows.
    func nearby(_ centre: Place, radiusKm: Double, _ request: PageRequest, viewer: UserID?) throws -> Page<Post> {
        let present = Presenter(self, viewer: viewer)
        let places = models.places
        let sources = PlaceGrid.cells(around: centre, radiusKm: radiusKm).map { MergeSource(prefix: places.cells.prefix($0), floor: nil) }
        return try txn.withCursors(Array(repeating: places.cells.database, count: sources.count)) { cursors in
            try MergeSource.page(sources, cursors, request) { id, _ in
                // Within the radius first: a cell's candidates beyond it are neither checked nor presented.
                try present.listedPost(id, keeping: { $0.place.map { $0.distance(to: centre) <= radiusKm } ?? false })
            }
        }
    }

    func activity(of user: UserID, _ request: PageRequest) throws -> Page<ActivityItem> {
        try requireUser(user)
        let present = Presenter(self, viewer: nil)
        // (Every item's post is the user's own, so none is hidden from them by reports.)
        return try pageDescending(models.activity.activity, in: user, request) { id, record in
            if let actor = record.actor, try hidden(actor, from: user) { return nil }
            return try present.activity(id: id, record)
        }
    }

    func postDetail(_ id: PostID, viewer: UserID?, _ request: PageRequest) throws -> PostDetail {
        if let viewer { try requireUser(viewer) }  // an unknown viewer is not_found, not "no likes"
        let present = Presenter(self, viewer: viewer)
        guard let post = try present.listedPost(id) else { throw TimelineError.notFound("post", id.rawValue) }
        return PostDetail(post: post, comments: try comments(of: id, request, viewer: viewer, present), likedByViewer: post.likedByViewer ?? false)
    }

    /// A post's comments, oldest first, without those of anyone blocked either way by `viewer`.
    func comments(of id: PostID, _ request: PageRequest, viewer: UserID?, _ present: Presenter) throws -> Page<Comment> {
        try requireVisiblePost(id, viewer: viewer)
        let prefix = PostComments.prefix(id)
        let start = request.before.map { prefix + Array($0.utf8) + [0] } ?? prefix
        return try pageAscending(models.posts.comments.database, prefix: prefix, from: start, request,
                                 cursorOf: { CompositeKey.suffix($0, after: prefix) }) { _, value in
            let comment = try PostComments.decode(value)
            return try hidden(comment.author, from: viewer) ? nil : try present.comment(comment)
        }
    }

    /// The id of `variant` of the post image `id` (`id` itself when it has no variants).
    func variant(_ variant: ImageVariant, of id: ImageID) throws -> ImageID {
        guard let post = try models.postImages.post(of: id, txn), let variants = try self.post(post)?.variants else { return id }
        return variants[variant]
    }

    /// An image of a live post or profile photo, opened with its owner's key (`not_found` once
    /// nothing live shows it, or the owner is erased).
    func image(_ id: ImageID, keys: KeyStore) throws -> StoredImage {
        guard let stored = try models.images.get(id, txn), try models.isInUse(id, owner: stored.owner, txn),
              let mediaType = stored.mediaType, let secret = try keys.key(for: stored.owner),
              let bytes = Sodium.open(stored.sealed, key: secret, context: StoredImages.key(id))
        else { throw TimelineError.notFound("image", id.rawValue) }
        return StoredImage(id: id, mediaType: mediaType, bytes: bytes)
    }
}

/// The viewer's like and bookmark of a pulled author's post, read with one cursor over the
/// viewer's likes and one over their bookmarks: the page's posts come newest first and the
/// viewer's entries lie together, so after the first seek LMDB finds the next on the same
/// leaf page instead of descending the tree again for each post.
struct PulledMarks {
    let likesPrefix: [UInt8]
    let bookmarksPrefix: [UInt8]
    let likes: Cursor
    let bookmarks: Cursor

    init(viewer: UserID, posts: PostsProjection, likes: Cursor, bookmarks: Cursor) {
        likesPrefix = posts.likesByUser.prefix(viewer)
        bookmarksPrefix = posts.bookmarks.prefix(viewer)
        self.likes = likes
        self.bookmarks = bookmarks
    }

    func of(_ post: ArraySlice<UInt8>) throws -> ViewerMarks {
        var marks: ViewerMarks = []
        if try Self.holds(likes, likesPrefix, post) { marks.insert(.liked) }
        if try Self.holds(bookmarks, bookmarksPrefix, post) { marks.insert(.bookmarked) }
        return marks
    }

    private static func holds(_ cursor: Cursor, _ prefix: [UInt8], _ post: ArraySlice<UInt8>) throws -> Bool {
        var key = prefix
        key.append(contentsOf: post)
        return try cursor.seek(atLeast: key)?.key == key
    }
}

/// One descending source of post ids for the timeline merge: the keys `prefix ‖ id` of a
/// cursor, stopping at `floor` (exclusive) when set.
struct MergeSource {
    let prefix: [UInt8]
    let floor: [UInt8]?
    /// Whether its entries' values are the page's to read (a materialised timeline's marks),
    /// not another table's (a pulled author's post list).
    let ownsValues: Bool
    /// The current post id's bytes (a slice of the cursor's key: no copy).
    private(set) var current: ArraySlice<UInt8>?
    /// The current entry's value.
    private(set) var value: [UInt8] = []

    init(prefix: [UInt8], floor: String?, ownsValues: Bool = false) {
        self.prefix = prefix
        self.floor = floor.map { Array($0.utf8) }
        self.ownsValues = ownsValues
    }

    mutating func start(_ cursor: Cursor, before: String?) throws {
        let entry: Cursor.Entry?
        if let before {
            entry = try cursor.seek(below: prefix + Array(before.utf8))
        } else {
            entry = try cursor.seek(below: prefix.dropLast() + [prefix.last! + 1])
        }
        accept(entry)
    }

    mutating func advance(_ cursor: Cursor) throws { accept(try cursor.previous()) }

    /// Merges `sources` (one cursor each) newest id first into a page of `request`: `item`
    /// makes an id's item from it and its entry's value (`nil` for a source whose values are
    /// not its own, a pulled author's), or answers `nil` to skip it. `next` is set only when a
    /// kept item follows the page (never a cursor to an empty one).
    static func page<Item>(_ sources: [MergeSource], _ cursors: [Cursor], _ request: PageRequest,
                           item: (ArraySlice<UInt8>, [UInt8]?) throws -> Item?) throws -> Page<Item> {
        var sources = sources
        for index in sources.indices { try sources[index].start(cursors[index], before: request.before) }
        var items: [Item] = []
        items.reserveCapacity(request.limit)
        var last: ArraySlice<UInt8>?
        // k is small: one source per pulled author, or per cell.
        while let best = greatest(sources) {
            let id = sources[best].current!
            let value = sources[best].ownsValues ? sources[best].value : nil
            try sources[best].advance(cursors[best])
            guard let kept = try item(id, value) else { continue }
            if items.count == request.limit { return Page(items: items, next: last.map { String(decoding: $0, as: UTF8.self) }) }
            items.append(kept)
            last = id
        }
        return Page(items: items, next: nil)
    }

    /// The index of the source with the greatest current id, or `nil` when every one is done.
    private static func greatest(_ sources: [MergeSource]) -> Int? {
        var best: Int?
        for index in sources.indices {
            guard let id = sources[index].current else { continue }
            if best == nil || sources[best!].current!.lexicographicallyPrecedes(id) { best = index }
        }
        return best
    }

    private mutating func accept(_ entry: Cursor.Entry?) {
        guard let (key, value) = entry, key.hasPrefix(prefix) else { current = nil; return }
        let id = key[prefix.count...]
        if let floor, !floor.lexicographicallyPrecedes(id) { current = nil; return }
        current = id
        self.value = value
    }
}

/// Turns read-model records into the results a query answers, with what a client needs to
/// draw them without another request: authors' usernames (looked up once per page) and, when
/// there is a viewer, whether they follow the user or liked the post.
final class Presenter {
    private let view: ReadView
    private let viewer: UserID?
    private var usernames: [UserID: String] = [:]

    init(_ view: ReadView, viewer: UserID?) {
        self.view = view
        self.viewer = viewer
    }

    /// `user`'s username ("" for a user who is gone).
    func username(_ user: UserID) throws -> String {
        if let known = usernames[user] { return known }
        let name = try view.user(user)?.username ?? ""
        usernames[user] = name
        return name
    }

    func profile(_ user: UserRecord) throws -> Profile {
        Profile(user, followedByViewer: try viewer.map { try view.follows($0, user.id) },
                blockedByViewer: try viewer.map { try view.blocks($0, user.id) }, own: viewer == user.id)
    }

    /// Post `id` for a command's answer or a detail (`not_found` when it is gone; reports do
    /// not hide it here: see `listedPost`).
    func post(_ id: PostID) throws -> Post {
        guard let stored = try view.storedPost(Array(id.rawValue.utf8)) else { throw TimelineError.notFound("post", id.rawValue) }
        return try present(stored, marks: nil)
    }

    /// Post `id` (its key's bytes) as the viewer may see it in a list, or `nil` when it is gone,
    /// `keeping` refuses it, or the viewer may not see it (`ReadView.isShown`). `marks`: the
    /// viewer's like and bookmark, when the caller has them.
    func listedPost(_ id: some ContiguousBytes, marks: ViewerMarks? = nil, checkingBlocks: Bool = true,
                    keeping: (PostReadings) -> Bool = { _ in true }) throws -> Post? {
        guard let stored = try view.storedPost(id), keeping(stored), try view.isShown(stored, to: viewer, checkingBlocks: checkingBlocks)
        else { return nil }
        return try present(stored, marks: marks)
    }

    func listedPost(_ id: PostID) throws -> Post? { try listedPost(Array(id.rawValue.utf8)) }

    private func present(_ stored: PostReadings, marks: ViewerMarks?) throws -> Post {
        guard let viewer else { return Post(stored, likedByViewer: nil, bookmarkedByViewer: nil) }
        if let marks { return Post(stored, likedByViewer: marks.contains(.liked), bookmarkedByViewer: marks.contains(.bookmarked)) }
        let id = stored.id
        return Post(stored, likedByViewer: try view.likes(viewer, id), bookmarkedByViewer: try view.bookmarks(viewer, id))
    }

    func comment(_ comment: CommentRecord) throws -> Comment {
        Comment(comment, authorUsername: try username(comment.author))
    }

    func activity(id: String, _ record: ActivityRecord) throws -> ActivityItem {
        let kind: ActivityItem.Kind = switch record.kind {
        case .comment: .comment
        case .like: .like
        case .follow: .follow
        case .removed: .removed
        }
        return ActivityItem(id: id, kind: kind, actor: record.actor, actorUsername: try record.actor.map(username),
                            post: record.post, comment: record.comment, at: record.at, reason: record.reason)
    }
}
