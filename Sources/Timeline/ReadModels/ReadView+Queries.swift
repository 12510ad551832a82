import Foundation
import LMDB
import TimelineDomain

/// The query side, over one snapshot.
extension ReadView {
    /// `id`'s profile as `viewer` sees it (a suspended account's is `not_found` to everyone else).
    func profile(_ id: UserID, viewer: UserID? = nil, countingUnread: Bool = true) throws -> Profile {
        let privacy = try privacy(for: viewer)
        guard let user = try user(id), try privacy.mayShow(account: id, on: .profile) else {
            throw TimelineError.notFound("user", id.rawValue)
        }
        return try Presenter(privacy).profile(user, countingUnread: countingUnread)
    }

    /// Throws `not_found` unless `id` is a user.
    func requireUser(_ id: UserID) throws {
        guard try models.profiles.users.contains(id, txn) else { throw TimelineError.notFound("user", id.rawValue) }
    }

    /// The stored record of post `id` (its key's bytes), with where its fields lie.
    func storedPost(_ id: some ContiguousBytes) throws -> PostReadings? {
        guard let bytes = try txn.get(models.posts.posts.database, id) else { return nil }
        return PostReadings(bytes: bytes, fields: try PostFields(bytes.span))
    }

    /// `keys`: the accounts' keys (an enrolment's secret is derived from its account's).
    func materialise(_ outcome: Outcome, viewer: UserID?, keys: any PayloadKeys) throws -> CommandResult {
        let present = Presenter(try privacy(for: viewer))
        switch outcome {
        case .user(let id): return .user(try profile(id))
        case .ownProfile(let id):
            guard let user = try user(id) else { throw TimelineError.notFound("user", id.rawValue) }
            return .user(Profile(user, own: true))
        case let .session(token, user): return .session(token: token, user: try profile(user))
        case .token(let token): return .token(token)
        case .post(let id): return .post(try present.post(id))
        case let .app(id, secret):
            guard let app = try models.sessions.apps.get(id, txn) else { throw TimelineError.notFound("app", id) }
            return .app(OAuthApp(app, clientSecret: secret))
        case .media(let id):
            guard let media = try models.posts.media.get(id, txn) else {
                throw TimelineError.notFound("media", id.rawValue)
            }
            return .media(media.attachment)
        case .comment(let id):
            guard let comment = try comment(id) else { throw TimelineError.notFound("comment", id.rawValue) }
            return .comment(try present.comment(comment))
        case .changed(let changed): return .changed(changed)
        case .done: return .done
        case .created(let id): return .created(id)
        case .twoFactorEnrollment(let user): return .twoFactorEnrollment(try twoFactorEnrollment(of: user, keys: keys))
        case .recoveryCodes(let codes): return .recoveryCodes(codes)
        case .story(let id):
            guard let story = try story(id) else { throw TimelineError.notFound("story", id.rawValue) }
            return .story(try presentStory(story, to: viewer))
        }
    }

    /// `id`'s profile as `viewer` sees it in a list, or `nil` when a block hides it (or it is gone).
    func listed(_ id: UserID, viewer: UserID?) throws -> Profile? {
        guard try !hidden(id, from: viewer), let user = try user(id) else { return nil }
        return try Presenter(try privacy(for: viewer)).profile(user)
    }

    func users(_ request: PageRequest, viewer: UserID?) throws -> Page<Profile> {
        let present = Presenter(try privacy(for: viewer))
        return try pageDescending(models.profiles.users.database, prefix: [], request) { _, value in
            let user = try UserRecords.decode(value)
            return try hidden(user.id, from: viewer) ? nil : try present.profile(user)
        }
    }

    /// The users `user` mutes now, the latest mute first (ended mutes are left out).
    func muted(by user: UserID, _ request: PageRequest) throws -> Page<Profile> {
        try requireUser(user)
        return try pageDescending(models.follows.mutingInOrder, in: user, request) { _, muted in
            guard try mute(user, muted)?.isActive(at: now) == true else { return nil }
            return try self.user(muted).map { try Presenter(try privacy(for: user)).profile($0) }
        }
    }

    /// Who awaits `user`'s answer to their request to follow, the latest request first.
    func followRequests(to user: UserID, _ request: PageRequest) throws -> Page<Profile> {
        try requireUser(user)
        return try pageDescending(models.follows.requestsInOrder, in: user, request) { _, follower in
            try listed(follower, viewer: user)
        }
    }

    /// The users `user` blocks, the latest block first.
    func blocked(by user: UserID, _ request: PageRequest) throws -> Page<Profile> {
        try requireUser(user)
        return try pageDescending(models.follows.blockingInOrder, in: user, request) { _, blocked in
            try self.user(blocked).map { try Presenter(try privacy(for: user)).profile($0) }
        }
    }

    func searchUsers(prefix raw: String, _ request: PageRequest, viewer: UserID?) throws -> Page<Profile> {
        let prefix = Array(raw.precomposedStringWithCompatibilityMapping.lowercased().utf8)
        let start = request.before.map { Array($0.utf8) + [0] } ?? prefix
        return try pageAscending(
            models.profiles.usernames.database, prefix: prefix,
            from: start.lexicographicallyPrecedes(prefix) ? prefix : start,
            request, cursorOf: { String(decoding: $0, as: UTF8.self) }
        ) { _, value in
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
        let present = Presenter(try privacy(for: user))
        return try pageDescending(models.posts.bookmarkList, in: user, request) { _, post in
            try present.listedPost(post, on: .bookmarks)
        }
    }

    /// The posts `user` likes, by post id, newest first.
    func liked(by user: UserID, _ request: PageRequest) throws -> Page<Post> {
        try requireUser(user)
        let present = Presenter(try privacy(for: user))
        return try pageDescending(models.posts.likesByUser, in: user, request) { post, _ in
            try present.listedPost(post, on: .favourites)
        }
    }

    /// Every public post `viewer` may see, newest first (post ids sort as they were made).
    func publicPosts(_ request: PageRequest, viewer: UserID?) throws -> Page<Post> {
        let present = Presenter(try privacy(for: viewer))
        return try pageDescending(models.posts.posts.database, prefix: [], request) { id, _ in
            try present.listedPost(PostID(id), on: .search).flatMap { $0.visibility == .public ? $0 : nil }
        }
    }

    func posts(by user: UserID, _ request: PageRequest, viewer: UserID?) throws -> Page<Post> {
        try requireUser(user)
        let present = Presenter(try privacy(for: viewer))
        return try pageDescending(models.posts.postsByUser, in: user, request) { post, _ in
            try present.listedPost(post, on: .profile)
        }
    }

    /// The materialised timeline merged with the posts and boosts of the pulled authors `user`
    /// follows (each only above its boundary, so the sources never overlap) and the posts of
    /// the hashtags they follow, newest first. A boost's entry shows its post only when it is
    /// the first way the post came in (`homeBoost`), and a tagged post comes in by its tag only
    /// when it comes in no other way (`mayComeInByTag`; a post of several followed tags meets
    /// the merge once per tag, one after the other): each post once.
    func timeline(of user: UserID, _ request: PageRequest) throws -> Page<Post> {
        try requireUser(user)
        // Muted and suspended authors are left out (a timeline checks no relation per post):
        // the suspended users are read once for the page.
        let privacy = try privacy(for: user).knowingSuspended(models.profiles.suspendedUsers(txn))
        let projection = models.timeline
        // The members of the user's exclusive lists leave it (their posts are read in the list).
        let excluded = try models.lists.exclusiveMembers(of: user, txn)
        let allPulled = try projection.pulledAuthors(of: user, txn)
        let pulled = try allPulled.filter {
            try !excluded.contains($0.author) && privacy.mayShow(postsBy: $0.author, on: .home)
        }
        let following = try tagFollowing(of: user, excluded: excluded)
        // Each followed tag's older posts, below what its follow wrote into the timeline.
        let tagLists = try following.map { try tagListsToMerge($0) } ?? []
        let present = Presenter(privacy)
        // Followed tags bring strangers' posts, each asked for blocks: the viewer's are read once.
        if following != nil { try present.knowBlocks() }
        let boosts = models.boosts.byUser
        var sources = [MergeSource(prefix: projection.timelines.prefix(user), floor: nil, ownsValues: true)]
        sources += pulled.map { MergeSource(prefix: models.posts.postsByUser.prefix($0.author), floor: $0.boundary) }
        // A pulled author's boosts: their entries' values say `boost`.
        sources += pulled.map { MergeSource(prefix: boosts.prefix($0.author), floor: $0.boundary, ownsValues: true) }
        // The followed tags' older posts: last, so a post met twice is met first by its follow.
        sources += tagLists.map {
            MergeSource(prefix: models.hashtags.hashtags.prefix($0.tag), floor: nil, ceiling: $0.newest)
        }
        let posts = models.posts
        let databases =
            [projection.timelines.database] + Array(repeating: posts.postsByUser.database, count: pulled.count)
            + Array(repeating: boosts.database, count: pulled.count)
            + Array(repeating: models.hashtags.hashtags.database, count: tagLists.count)
            + (pulled.isEmpty && tagLists.isEmpty ? [] : [posts.likesByUser.database, posts.bookmarks.database])
        let pulledAuthors = Set(pulled.map(\.author))
        let unmerged = Set(allPulled.map(\.author)).subtracting(pulledAuthors)
        return try txn.withCursors(databases) { cursors in
            let merged = Array(cursors.prefix(sources.count))
            // A pulled author's post, or a followed tag's, reads the viewer's marks by cursor.
            var marks =
                pulled.isEmpty && tagLists.isEmpty
                ? nil
                : PulledMarks(
                    viewer: user, posts: posts, likes: cursors[sources.count], bookmarks: cursors[sources.count + 1])
            // With followed tags, one id may come from several sources, one after the other.
            var previous: [UInt8] = []
            // Looked up by the key's own bytes; the viewer's like and bookmark come with a
            // materialised entry (a pulled author's post reads them from the viewer's own
            // likes and bookmarks). A post hidden by reports, or by a muted author, is skipped
            // (the page fills past it); a timeline holds only the posts of whom its owner
            // follows (blocks end follows), so no relation is checked.
            return try MergeSource.page(sources, merged, request) { id, entry in
                let entryMarks = entry.map(TimelineEntries.decode)
                if let following {
                    guard !id.elementsEqual(previous) else { return nil }
                    previous.removeAll(keepingCapacity: true)
                    previous.append(contentsOf: id)
                    // Written by a followed tag alone: a stranger's post (its author was not
                    // followed when it was written, and a follow since rewrote the entry), or a
                    // pulled followee's, which their list brings next.
                    if let entryMarks, entryMarks.contains(.tagOnly) {
                        guard let stored = try storedPost(id) else { return nil }
                        guard !pulledAuthors.contains(stored.author) else {
                            previous.removeAll(keepingCapacity: true)
                            return nil
                        }
                        guard following.mayComeInFromItsList(by: stored.author, unmerged: unmerged) else { return nil }
                        return try present.listed(stored, on: .hashtag, marks: entryMarks.subtracting(.tagOnly))
                    }
                    if entry == nil {
                        guard let stored = try storedPost(id) else { return nil }
                        let author = stored.author
                        // Not a pulled author's: it comes from a followed tag's list alone.
                        guard pulledAuthors.contains(author) else {
                            guard following.mayComeInFromItsList(by: author, unmerged: unmerged) else { return nil }
                            return try present.listed(stored, on: .hashtag, marks: try marks?.of(id))
                        }
                        return try present.listed(
                            stored, on: .home, marks: try marks?.of(id),
                            keeping: { excluded.isEmpty || !excluded.contains($0.author) })
                    }
                }
                // Nothing comes by a tag when none is followed.
                if entryMarks?.contains(.tagOnly) == true { return nil }
                if entryMarks?.contains(.boost) == true {
                    return try homeBoost(
                        PostID(String(decoding: id, as: UTF8.self)), of: user, present, excluding: excluded,
                        following: following)
                }
                return try present.listedPost(
                    id, on: .home, marks: try entryMarks ?? marks?.of(id),
                    keeping: { excluded.isEmpty || !excluded.contains($0.author) })
            }
        }
    }

    func hashtag(_ raw: String, _ request: PageRequest, viewer: UserID?) throws -> Page<Post> {
        let tag = Validation.hashtag(raw.hasPrefix("#") ? String(raw.dropFirst()) : raw)
        guard !tag.isEmpty, tag.utf8.count <= Validation.maxHashtagBytes, !tag.utf8.contains(0) else {
            return Page(items: [], next: nil)
        }
        let present = Presenter(try privacy(for: viewer))
        return try pageDescending(models.hashtags.hashtags, in: tag, request) { post, _ in
            try present.listedPost(post, on: .hashtag)
        }
    }

    /// Hashtags starting with `prefix` (with or without `#`, any case), in tag order, each kept
    /// only when the viewer may see one of its posts (a followers-only post's tag is no clue to a
    /// stranger). The cursor is a tag. A prefix scan of distinct tags: it seeks past each tag's
    /// posts (`tag ‖ 0 ‖ postId` → the next key at least `tag ‖ 1`), and looks at most
    /// `maxTagsScanned` tags per page, so a page may come back short with a `next`.
    func tags(prefix raw: String, _ request: PageRequest, viewer: UserID?) throws -> Page<String> {
        guard request.after == nil else { throw TimelineError.invalid("after", "this list is not paged by after") }
        let prefix = Array(Validation.hashtag(raw.hasPrefix("#") ? String(raw.dropFirst()) : raw).utf8)
        guard prefix.count <= Validation.maxHashtagBytes, !prefix.contains(0) else { return Page(items: [], next: nil) }
        var start = request.before.map { Array($0.utf8) + [1] } ?? prefix
        if start.lexicographicallyPrecedes(prefix) { start = prefix }
        var candidates: [String] = []
        var more = false
        try txn.withCursor(models.hashtags.hashtags.database) { cursor in
            var entry = start.isEmpty ? try cursor.first() : try cursor.seek(atLeast: start)
            while let (key, _) = entry, key.hasPrefix(prefix) {
                let tag = Array(key.prefix { $0 != 0 })
                if candidates.count == Self.maxTagsScanned {
                    more = true
                    return
                }
                candidates.append(String(decoding: tag, as: UTF8.self))
                entry = try cursor.seek(atLeast: tag + [1])
            }
        }
        var items: [String] = []
        for tag in candidates {
            guard try !hashtag(tag, PageRequest(limit: 1), viewer: viewer).items.isEmpty else { continue }
            // Full, and another tag follows: the page has a next (never an empty one).
            if items.count == request.limit { return Page(items: items, next: items.last) }
            items.append(tag)
        }
        return Page(items: items, next: more ? candidates.last : nil)
    }

    /// The most distinct tags `tags(prefix:)` looks at for one page.
    static let maxTagsScanned = 500

    /// Posts placed within `radiusKm` of `centre`, newest first: the cells the circle touches
    /// (`PlaceGrid`) merged in post id order, each candidate kept only when its great-circle
    /// distance is within the radius, its post is there (and not hidden by reports from `viewer`)
    /// and no block stands between its author and `viewer`. `next` is set only when another
    /// such post follows.
    func nearby(_ centre: Place, radiusKm: Double, _ request: PageRequest, viewer: UserID?) throws -> Page<Post> {
        let present = Presenter(try privacy(for: viewer))
        let places = models.places
        let sources = PlaceGrid.cells(around: centre, radiusKm: radiusKm).map {
            MergeSource(prefix: places.cells.prefix($0), floor: nil)
        }
        return try txn.withCursors(Array(repeating: places.cells.database, count: sources.count)) { cursors in
            try MergeSource.page(sources, cursors, request) { id, _ in
                // Within the radius first: a cell's candidates beyond it are neither checked nor presented.
                try present.listedPost(
                    id, on: .search,
                    keeping: { $0.place.map { $0.distance(to: centre) <= radiusKm } ?? false })
            }
        }
    }

    /// `user`'s activity; with `actor`, only that user's doings, those a notification request
    /// holds too (as Mastodon's notifications of one account).
    func activity(
        of user: UserID, _ request: PageRequest, kinds: Set<ActivityItem.Kind>? = nil, from actor: UserID? = nil
    ) throws -> Page<ActivityItem> {
        try requireUser(user)
        let present = Presenter(try privacy(for: nil))
        let left = leftOut(try privacy(for: user), includingHeld: actor != nil)
        let page: Page<ActivityItem> = try pageDescending(models.activity.activity, in: user, request) { id, record in
            if let actor, record.actor != actor { return nil }
            guard try !left(record) else { return nil }
            let item = try present.activity(id: id, record)
            return kinds.map { $0.contains(item.kind) } ?? true ? item : nil
        }
        guard kinds?.contains(.poll) ?? true else { return page }
        return try withPollEnds(of: user, page, request, from: actor)
    }

    /// `page` of `user`'s activity with the `poll` notifications due now merged in, by id (the
    /// ends' ids sort by time as the items' do): those after the request's cursor, of polls whose
    /// post the user may still see (`Privacy` on `notifications`), by `actor` when given.
    func withPollEnds(of user: UserID, _ page: Page<ActivityItem>, _ request: PageRequest, from actor: UserID?)
        throws -> Page<ActivityItem>
    {
        let ends = try models.polls.endedPolls(
            of: user, before: request.before, now: now, limit: request.limit, txn)
        guard !ends.isEmpty else { return page }
        let privacy = try privacy(for: user)
        var items = page.items
        for end in ends {
            guard let item = try pollEndItem(end.item, of: end.poll, privacy, from: actor) else { continue }
            items.append(item)
        }
        items.sort { $0.id > $1.id }
        let more = items.count > request.limit || page.next != nil || ends.count == request.limit
        items = Array(items.prefix(request.limit))
        return Page(items: items, next: more ? items.last?.id : nil)
    }

    /// The `poll` notification `item` (the end of `poll`) as the activity of `privacy`'s viewer
    /// shows it: `nil` when the poll is gone, is not by `actor` (when given), or its post is out
    /// of the viewer's sight (`Privacy` on `notifications`: a block either way, a followers-only
    /// post after an unfollow, …). The feed's and the push's one rule.
    func pollEndItem(_ item: String, of id: PollID, _ privacy: Privacy<ReadView>, from actor: UserID? = nil) throws
        -> ActivityItem?
    {
        guard let poll = try models.polls.polls.get(id, txn)?.record,
            actor == nil || poll.author == actor,
            let stored = try storedPost(Array(poll.post.rawValue.utf8)),
            try privacy.mayShow(post: stored, on: .notifications)
        else { return nil }
        return ActivityItem(
            id: item, kind: .poll, actor: poll.author, actorUsername: try self.user(poll.author)?.username,
            post: poll.post, at: poll.expiresAt)
    }

    /// How many of `user`'s activity items are unread (after their read marker), counting at
    /// most `limit`: those a read of their activity shows.
    func unreadActivity(of user: UserID, upTo limit: Int) throws -> Int {
        try models.activity.unread(of: user, upTo: limit, txn, skipping: leftOut(try privacy(for: user)))
    }

    /// Whether an item of the activity of `privacy`'s viewer is left out on `surface`
    /// (`Privacy.mayShowActivity`): its actor is one they mute, suspended, or blocked either
    /// way; or, for a mention, a reply (whose post may be someone else's) or a post they asked
    /// to be told of, the post is gone or one they may not see (now: a followers-only post
    /// after they unfollowed) or its author one they mute.
    func leftOut(
        _ privacy: Privacy<ReadView>,
        on surface: Surface = .notifications, includingHeld: Bool = false
    ) -> (ActivityRecord) throws -> Bool {
        { record in
            let aboutPost = [.mention, .reply, .post].contains(record.kind) && record.post != nil
            let stored = try aboutPost ? record.post.flatMap { try storedPost(Array($0.rawValue.utf8)) } : nil
            return try !privacy.mayShowActivity(
                actor: record.actor, aboutPost: aboutPost, post: stored, filtered: record.filtered && !includingHeld,
                on: surface)
        }
    }

    func postDetail(_ id: PostID, viewer: UserID?, _ request: PageRequest) throws -> PostDetail {
        if let viewer { try requireUser(viewer) }  // an unknown viewer is not_found, not "no likes"
        let present = Presenter(try privacy(for: viewer))
        guard let post = try present.listedPost(id, on: .post) else {
            throw TimelineError.notFound("post", id.rawValue)
        }
        return PostDetail(
            post: post, comments: try comments(of: id, request, viewer: viewer, present),
            likedByViewer: post.likedByViewer ?? false)
    }

    /// A post's comments, oldest first, without those of anyone blocked either way by `viewer`.
    func comments(of id: PostID, _ request: PageRequest, viewer: UserID?, _ present: Presenter) throws -> Page<Comment>
    {
        try requireVisiblePost(id, viewer: viewer)
        let prefix = PostComments.prefix(id)
        let start = request.before.map { prefix + Array($0.utf8) + [0] } ?? prefix
        let privacy = try privacy(for: viewer)
        return try pageAscending(
            models.posts.comments.database, prefix: prefix, from: start, request,
            cursorOf: { CompositeKey.suffix($0, after: prefix) }
        ) { _, value in
            let comment = try PostComments.decode(value)
            return try privacy.mayShow(comment: comment, on: .comments) ? try present.comment(comment) : nil
        }
    }
}
