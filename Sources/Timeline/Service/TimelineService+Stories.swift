import TimelineDomain

/// A story as a viewer sees it.
public struct Story: Sendable, Equatable {
    /// The story.
    public var id: StoryID
    /// Its author.
    public var author: UserID
    /// Its author's username.
    public var authorUsername: String
    /// When it was posted and when its day ends (ms since 1970).
    public var postedAt: Int64, expiresAt: Int64
    /// Its photo: `full` width and height, variants and BlurHash.
    public var width: Int, height: Int
    /// Its photo's variants (served at `/v1/images/{id}`).
    public var variants: ImageVariants
    /// Its photo's colours as a BlurHash.
    public var blurhash: String
    /// Whether its author keeps it as a highlight.
    public var highlighted: Bool
    /// Whether the viewer has seen it (their own: true).
    public var seen: Bool
    /// How many have seen it: told to its author only.
    public var viewCount: Int?
    /// A video story's video (played at `/v1/videos/{media}`; the photo is its poster frame).
    public var video: StoryVideo?
}

/// One author's live stories in the viewer's stories row, oldest first (the order they play in).
public struct StoryAuthor: Sendable, Equatable {
    /// The author.
    public var user: Profile
    /// Their live stories, oldest first.
    public var stories: [Story]
    /// Whether the viewer has stories of theirs to see still.
    public var hasUnseen: Bool { stories.contains { !$0.seen } }
}

/// Stories: the row, one story, who saw it, a profile's highlights, and the sweep that lets
/// the photos of stories past their day go.
extension TimelineService {
    /// `viewer`'s stories row: their own first (when they have live ones), then each account
    /// they follow with live stories they may see (`Privacy` on `stories`), those with stories
    /// not seen yet first, newest first by their newest unseen story, then the rest, newest first.
    public func stories(for viewer: UserID) throws(TimelineError) -> [StoryAuthor] {
        try read { view in try view.storiesRow(for: viewer) }
    }

    /// Story `id` as `viewer` may see it (`not_found` when gone, past its day and not a
    /// highlight, or out of their sight: its author's posts' rules, as for one post).
    public func story(_ id: StoryID, viewer: UserID?) throws(TimelineError) -> Story {
        try read { view in
            guard let record = try view.story(id), record.isShown(at: view.now),
                try view.privacy(for: viewer).mayShow(postsBy: record.author, on: .post)
            else { throw TimelineError.notFound("story", id.rawValue) }
            return try view.presentStory(record, to: viewer)
        }
    }

    /// Who saw `user`'s story `id`, the latest first (`not_found` for another's story).
    public func storyViewers(of id: StoryID, by user: UserID, _ page: PageRequest = PageRequest())
        throws(TimelineError) -> Page<Profile>
    {
        try read { view in
            guard let story = try view.story(id), story.author == user else {
                throw TimelineError.notFound("story", id.rawValue)
            }
            return try view.pageDescending(view.models.stories.viewsInOrder, in: id, page) { _, viewer in
                try view.listed(viewer, viewer: user)
            }
        }
    }

    /// `user`'s highlights as `viewer` may see them (as their posts on their profile), newest first.
    public func highlights(of user: UserID, viewer: UserID?) throws(TimelineError) -> [Story] {
        try read { view in
            try view.requireUser(user)
            let privacy = try view.privacy(for: viewer)
            guard try privacy.mayShow(postsBy: user, on: .profile) else { return [] }
            return try view.models.stories.highlights.members(of: user, view.txn).reversed().compactMap { id in
                try view.story(id).flatMap { try view.presentStory($0, to: viewer) }
            }
        }
    }

    /// When the soonest story not highlighted ends its day (`nil`: none): the sweep's due time.
    public func nextStoryExpiry() throws(TimelineError) -> Int64? {
        try read { view in try view.models.stories.expiring.soonest(view.txn) }
    }

    /// Lets go of the photos of the stories past their day that are no highlight
    /// (`expireStory`, as the operator), up to `limit` a call; `failed` is told of each one
    /// that could not be (another node's sweep finds it done: `not_found`, not told).
    public func expireDueStories(limit: Int = 100, failed: (StoryID, TimelineError) -> Void = { _, _ in })
        async throws(TimelineError)
    {
        let now = options.clock.nowMilliseconds()
        let due = try read { view in try view.models.stories.expiring.due(at: now, limit: limit, view.txn) }
        for id in due {
            do {
                _ = try await execute(.expireStory(story: id.rawValue), as: .operator)
            } catch  where error.code == .notFound {
                continue
            } catch {
                failed(id, error)
            }
        }
    }
}

extension DueTimeScheduler.Job {
    /// Lets go of the photos of stories past their day (`TimelineService.expireDueStories`);
    /// `log` is told of each one that failed.
    public static func stories(_ service: TimelineService, log: @escaping @Sendable (String) -> Void) -> Self {
        Self(
            name: "stories", nextDue: { try service.nextStoryExpiry() },
            run: { try await service.expireDueStories { id, error in log("expiring story \(id): \(error)") } })
    }
}

extension ReadView {
    /// `record` as `viewer` sees it (whether they saw it; its view count for its author).
    func presentStory(_ record: StoryRecord, to viewer: UserID?) throws -> Story {
        let own = viewer == record.author
        var viewCount: Int?
        if own {
            var count = 0
            try models.stories.views.forEachMember(in: record.id, txn) { _ in count += 1 }
            viewCount = count
        }
        return Story(
            id: record.id, author: record.author, authorUsername: try user(record.author)?.username ?? "",
            postedAt: record.postedAt, expiresAt: record.expiresAt, width: record.width, height: record.height,
            variants: record.variants, blurhash: record.blurhash, highlighted: record.highlighted,
            seen: try own || viewer.map { try hasViewed(record.id, $0) } ?? false, viewCount: viewCount,
            video: record.video)
    }

    /// `author`'s stories live at `now`, oldest first.
    private func liveStories(of author: UserID, now: Int64) throws -> [StoryRecord] {
        var live: [StoryRecord] = []
        // Newest first, until one past its day: the ones before it are older still.
        try models.stories.byAuthor.forEachDescending(in: author, txn) { id, _ in
            guard let story = try story(id), story.isLive(at: now) else { return false }
            live.append(story)
            return true
        }
        return live.reversed()
    }

    /// The stories row (`TimelineService.stories(for:)`).
    func storiesRow(for viewer: UserID) throws -> [StoryAuthor] {
        try requireUser(viewer)
        let privacy = try privacy(for: viewer)
        let present = Presenter(privacy)
        var others: [(entry: StoryAuthor, newest: Int64, newestUnseen: Int64?)] = []
        try models.follows.following.forEachMember(in: viewer, txn) { author in
            let live = try liveStories(of: author, now: now)
            guard !live.isEmpty, try privacy.mayShow(postsBy: author, on: .stories), let user = try user(author)
            else { return }
            let stories = try live.map { try presentStory($0, to: viewer) }
            others.append(
                (
                    StoryAuthor(user: try present.profile(user), stories: stories), stories.last?.postedAt ?? 0,
                    stories.last { !$0.seen }?.postedAt
                ))
        }
        others.sort { a, b in
            switch (a.newestUnseen, b.newestUnseen) {
            case let (x?, y?): x > y
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): a.newest > b.newest
            }
        }
        var row = others.map(\.entry)
        let own = try liveStories(of: viewer, now: now)
        if !own.isEmpty, let me = try user(viewer) {
            row.insert(
                StoryAuthor(user: try present.profile(me), stories: try own.map { try presentStory($0, to: viewer) }),
                at: 0)
        }
        return row
    }
}
