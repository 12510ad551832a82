import LMDB
import TimelineDomain

/// Stories (`StoryPosted`; `StoryDeleted` and `StoryExpired` end one): each story, each author's,
/// who viewed each, each author's highlights, and the stories whose photo the server's sweep
/// will let go, by when their day ends (`TimelineService.nextStoryExpiry`). A story past its day
/// stays here until the sweep's `StoryExpired` (reads leave it out: `StoryRecord.isShown`).
/// Erasing a user ends their stories and their views of others'.
struct StoriesProjection: Projection {
    let name = ProjectionName.stories
    /// storyId → the story.
    let stories: Table<StoryRecords>
    /// `author ‖ 0 ‖ storyId`: each author's stories, oldest first (ids grow with time).
    let byAuthor: Table<Members<UserID, StoryID>>
    /// `storyId ‖ 0 ‖ viewer` → when they viewed it (its cursor): who saw each story.
    let views: Table<TimedMembers<StoryID, UserID>>
    /// `storyId ‖ 0 ‖ cursor` → viewer: who saw each story, in the order they saw it.
    let viewsInOrder: Table<InOrder<StoryID, UserID>>
    /// `viewer ‖ 0 ‖ storyId`: what each user saw (to forget it when they are erased).
    let viewed: Table<Members<UserID, StoryID>>
    /// `author ‖ 0 ‖ storyId`: each author's highlights.
    let highlights: Table<Members<UserID, StoryID>>
    /// BE(expiresAt) ‖ storyId → nothing: the stories not highlighted, by when their day ends.
    let expiring: Table<DueTimes<StoryID>>
    /// `imageId ‖ 0 ‖ storyId`: the stories whose photo each image is (images are addressed by
    /// their bytes per owner: one photo posted twice is one image).
    let images: Table<Members<ImageID, StoryID>>
    var databases: [Database] {
        [
            stories.database, byAuthor.database, views.database, viewsInOrder.database, viewed.database,
            highlights.database,
            expiring.database, images.database
        ]
    }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        stories = try Table(env, prefix + "stories")
        byAuthor = try Table(env, prefix + "storiesByAuthor")
        views = try Table(env, prefix + "storyViews")
        viewsInOrder = try Table(env, prefix + "storyViewsInOrder")
        viewed = try Table(env, prefix + "storiesViewed")
        highlights = try Table(env, prefix + "storyHighlights")
        expiring = try Table(env, prefix + "expiringStories")
        images = try Table(env, prefix + "storyImages")
        handlers = Self.handlers(of: self)
    }

    /// Ends story `id`: its entries, its views and its photos' hold.
    private func end(_ id: StoryID, _ txn: Transaction) throws {
        guard let story = try stories.get(id, txn) else { return }
        try stories.delete(id, txn)
        try byAuthor.delete((story.author, id), txn)
        try highlights.delete((story.author, id), txn)
        try expiring.delete((story.expiresAt, id), txn)
        for image in Set(story.variants.all) { try images.delete((image, id), txn) }
        for viewer in try views.deleteAll(in: id, txn) { try viewed.delete((viewer, id), txn) }
        try viewsInOrder.deleteAll(in: id, txn)
    }

    private func setHighlighted(_ id: StoryID, _ keep: Bool, _ txn: Transaction) throws {
        guard var story = try stories.get(id, txn) else { return }
        story.highlighted = keep
        try stories.put(id, story, txn)
        if keep {
            try highlights.put((story.author, id), (), txn)
            try expiring.delete((story.expiresAt, id), txn)
        } else {
            try highlights.delete((story.author, id), txn)
            try expiring.put((story.expiresAt, id), (), txn)
        }
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.storyPosted) { (e: StoryPosted, envelope, txn) in
            let story = StoryRecord(
                id: e.storyId, author: e.authorId, postedAt: envelope.timestamp, width: e.width, height: e.height,
                variants: e.variants, blurhash: e.blurhash, video: e.video)
            try projection.stories.put(e.storyId, story, txn)
            try projection.byAuthor.put((e.authorId, e.storyId), (), txn)
            try projection.expiring.put((story.expiresAt, e.storyId), (), txn)
            for image in Set(e.variants.all) { try projection.images.put((image, e.storyId), (), txn) }
        }
        handlers.on(.storyViewed) { (e: StoryViewed, envelope, txn) in
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.views.put((e.storyId, e.viewerId), cursor, txn)
            try projection.viewsInOrder.put((e.storyId, cursor), e.viewerId, txn)
            try projection.viewed.put((e.viewerId, e.storyId), (), txn)
        }
        handlers.on(.storyHighlighted) { (e: StoryChange, _, txn) in try projection.setHighlighted(e.storyId, true, txn)
        }
        handlers.on(.storyUnhighlighted) { (e: StoryChange, _, txn) in
            try projection.setHighlighted(e.storyId, false, txn)
        }
        handlers.on(.storyDeleted) { (e: StoryChange, _, txn) in try projection.end(e.storyId, txn) }
        handlers.on(.storyExpired) { (e: StoryChange, _, txn) in try projection.end(e.storyId, txn) }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            for id in try projection.byAuthor.members(of: e.userId, txn) { try projection.end(id, txn) }
            for id in try projection.viewed.deleteAll(in: e.userId, txn) {
                if let cursor = try projection.views.get((id, e.userId), txn) {
                    try projection.viewsInOrder.delete((id, cursor), txn)
                }
                try projection.views.delete((id, e.userId), txn)
            }
        }
        return handlers
    }
}

extension StoryID: KeyPart {}

/// storyId → the story: a version byte, then its fields (version 2: and its video, if any).
enum StoryRecords: TableLayout {
    static func key(_ id: StoryID) -> [UInt8] { Array(id.rawValue.utf8) }
    static func encode(_ story: StoryRecord) -> [UInt8] {
        var w = ByteWriter()
        w.u8(2)
        w.string(story.id.rawValue)
        w.string(story.author.rawValue)
        w.int64(story.postedAt)
        w.int(story.width)
        w.int(story.height)
        w.variants(story.variants)
        w.string(story.blurhash)
        w.u8(story.highlighted ? 1 : 0)
        StoryVideo.encode(story.video, to: &w)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> StoryRecord {
        var r = ByteReader(bytes)
        let version = try r.u8()
        guard version == 1 || version == 2 else { throw CorruptRecord(message: "unknown story record version") }
        let id = StoryID(try r.string()), author = UserID(try r.string()), postedAt = try r.int64()
        let width = try r.int(), height = try r.int()
        let variants = try r.variants()
        var story = StoryRecord(
            id: id, author: author, postedAt: postedAt, width: width, height: height, variants: variants,
            blurhash: try r.string(), highlighted: try r.u8() == 1)
        if version == 2 { story.video = try StoryVideo.decode(from: &r) }
        return story
    }
}
