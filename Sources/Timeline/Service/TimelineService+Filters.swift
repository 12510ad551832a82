import TimelineDomain

// Filters through the library: a user's own filters, and the one way every surface applies
// them (`FilterMatching`, pure, in the domain). The reads that surface posts apply them here —
// the home timeline (home), an account's posts (account), a hashtag's and a place's posts
// (public), a post's comments (thread) — and the Mastodon API, the live streams and push ask
// `filterMatching(viewer:context:)` for what they render themselves. A filter never reveals
// anything: it only leaves out or marks what the reader already reads, and a reader's own
// posts are never filtered (as Mastodon).

extension Post {
    /// What filters' keywords are matched against: the content warning, the caption and the
    /// photos' descriptions (Mastodon's searchable text).
    public var searchableText: String {
        ([warning, caption] + media.map(\.alt)).compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "\n\n")
    }
}

extension FilterMatching {
    /// The verdict on `post` for `viewer` (none on the viewer's own posts).
    public func verdict(on post: Post, viewer: UserID?) -> FilterVerdict {
        guard !isEmpty, post.author != viewer else { return FilterVerdict(matches: []) }
        return verdict(postId: post.id.rawValue, text: post.searchableText)
    }

    /// The verdict on `comment` for `viewer` (none on the viewer's own comments).
    public func verdict(on comment: Comment, viewer: UserID?) -> FilterVerdict {
        guard !isEmpty, comment.author != viewer else { return FilterVerdict(matches: []) }
        return verdict(postId: comment.id.rawValue, text: comment.text)
    }

    /// `posts` as `viewer` reads them here: those a hide filter matches left out, the others
    /// with the warn and blur filters they match.
    public func apply(_ posts: [Post], viewer: UserID?) -> [Post] {
        guard !isEmpty else { return posts }
        return posts.compactMap { post in
            let verdict = verdict(on: post, viewer: viewer)
            guard !verdict.hidden else { return nil }
            var shown = post
            shown.filtered = verdict.shown
            return shown
        }
    }

    /// `comments` as `viewer` reads them in their thread (see `apply(_:viewer:)`).
    public func apply(_ comments: [Comment], viewer: UserID?) -> [Comment] {
        guard !isEmpty else { return comments }
        return comments.compactMap { comment in
            let verdict = verdict(on: comment, viewer: viewer)
            guard !verdict.hidden else { return nil }
            var shown = comment
            shown.filtered = verdict.shown
            return shown
        }
    }
}

extension ReadView {
    /// `viewer`'s filters that apply in `context` now (none without a viewer).
    func filterMatching(_ viewer: UserID?, _ context: FilterContext) throws -> FilterMatching {
        guard let viewer else { return FilterMatching([], context: context, now: now) }
        return FilterMatching(try filters(of: viewer), context: context, now: now)
    }

    /// `page` as `viewer` reads it in `context` (its cursor kept: a page whose posts are all
    /// hidden still leads on).
    func filtered(_ page: Page<Post>, _ context: FilterContext, viewer: UserID?) throws -> Page<Post> {
        let matching = try filterMatching(viewer, context)
        return Page(items: matching.apply(page.items, viewer: viewer), next: page.next)
    }

    /// `page` of `viewer`'s activity without the items whose comment or post a notifications
    /// filter hides (the cursor kept).
    func filtered(_ page: Page<ActivityItem>, viewer: UserID) throws -> Page<ActivityItem> {
        let matching = try filterMatching(viewer, .notifications)
        guard !matching.isEmpty else { return page }
        let present = Presenter(try privacy(for: viewer))
        let items = try page.items.filter { item in
            if let id = item.comment, let record = try comment(id) {
                return !matching.verdict(on: try present.comment(record), viewer: viewer).hidden
            }
            if let id = item.post, try post(id) != nil {
                return !matching.verdict(on: try present.post(id), viewer: viewer).hidden
            }
            return true
        }
        return Page(items: items, next: page.next)
    }

    /// `page` of comments as `viewer` reads it in the thread.
    func filtered(_ page: Page<Comment>, viewer: UserID?) throws -> Page<Comment> {
        let matching = try filterMatching(viewer, .thread)
        return Page(items: matching.apply(page.items, viewer: viewer), next: page.next)
    }
}

extension TimelineService {
    /// `viewer`'s filters, expired ones too, in the order they were made.
    public func filters(of viewer: UserID) throws(TimelineError) -> [FilterSaved] {
        try read { view in
            try view.requireUser(viewer)
            return try view.filters(of: viewer)
        }
    }

    /// `viewer`'s filter that is, or holds as a keyword or status, `id` (`not_found` for
    /// anyone else's: another user's filter is as unknown as none).
    public func filter(holding id: String, viewer: UserID) throws(TimelineError) -> FilterSaved {
        try read { view in
            guard let filter = try view.filter(holding: id), filter.userId == viewer else {
                throw TimelineError(.notFound, "no filter \(id.prefix(64))")
            }
            return filter
        }
    }

    /// `viewer`'s filters that apply in `context` now: what a surface that renders posts
    /// itself (a list timeline, a stream, a push) matches them with.
    public func filterMatching(viewer: UserID?, context: FilterContext) throws(TimelineError) -> FilterMatching {
        try read { view in try view.filterMatching(viewer, context) }
    }

    /// `page` as `viewer` reads it in `context`: hidden posts left out, warned and blurred
    /// ones marked (`Post.filtered`); the cursor kept. For timelines others build (lists).
    public func applyFilters(_ page: Page<Post>, context: FilterContext, viewer: UserID?) throws(TimelineError)
        -> Page<Post>
    {
        try read { view in try view.filtered(page, context, viewer: viewer) }
    }
}
