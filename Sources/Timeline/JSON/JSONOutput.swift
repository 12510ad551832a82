import Foundation
import JSONModel
import TimelineDomain

/// The JSON forms of results, with the field names of docs/spec.md: each result is made into
/// its type of `ResultJSON` and encoded (`JSONValueEncoder`), and written with `JSONWriter`
/// (members sorted as Foundation's `.sortedKeys` sorts them).
package enum JSONOutput {
    /// `value` as a JSON value (the result types encode without fail: strings, numbers,
    /// booleans, arrays and objects of them).
    static func encoded(_ value: some Encodable) -> JSONValue {
        do {
            return try JSONValueEncoder.encode(value)
        } catch {
            preconditionFailure("a result type did not encode: \(error)")
        }
    }

    /// A user's public profile.
    package static func profile(_ p: Profile) -> JSONValue { encoded(ResultJSON.User(p)) }

    /// A post's JSON form.
    package static func post(_ p: Post) -> JSONValue { encoded(ResultJSON.Post(p)) }

    /// A comment's JSON form.
    package static func comment(_ c: Comment) -> JSONValue { encoded(ResultJSON.Comment(c)) }

    /// An activity item's JSON form.
    package static func activity(_ a: ActivityItem) -> JSONValue { encoded(ResultJSON.ActivityItem(a)) }

    /// A live stream's `removed` event: `{post}`.
    package static func removed(_ post: PostID) -> JSONValue { encoded(ResultJSON.Removed(post: post.rawValue)) }
    /// A conversation of direct messages, as `GET /v1/conversations` lists it.
    package static func conversation(_ c: Conversation) -> JSONValue { encoded(ResultJSON.Conversation(c)) }

    /// A ticket for `GET /v1/stream?ticket=`, valid `expiresIn` seconds.
    package static func streamTicket(_ ticket: String, expiresIn: Int) -> JSONValue {
        encoded(ResultJSON.StreamTicket(ticket: ticket, expiresIn: expiresIn))
    }

    /// A token's push subscription as its subscriber sees it, with the server's VAPID key.
    package static func pushSubscription(_ subscription: PushSubscription, serverKey: String) -> JSONValue {
        encoded(ResultJSON.PushSubscription(subscription, serverKey: serverKey))
    }

    /// Whether the user's two-factor sign-in is on (`GET /v1/me/two-factor`).
    package static func twoFactorStatus(_ status: TwoFactorStatus) -> JSONValue {
        encoded(ResultJSON.TwoFactorStatus(enabled: status.enabled, recoveryCodesLeft: status.recoveryCodesLeft))
    }

    /// The answer of `/healthz` and `/readyz`: `ok`, `ready`, or why not, and how many events
    /// the read models are `behind` the log.
    package static func health(_ status: String, behind: UInt64? = nil) -> JSONValue {
        encoded(ResultJSON.Health(status: status, behind: behind.map { Int64(clamping: $0) }))
    }

    /// Milliseconds since 1970 as RFC 3339 in UTC with milliseconds (`2026-12-01T03:04:05.123Z`).
    package static func timestamp(_ ms: Int64) -> String {
        var out: [UInt8] = []
        writeTimestamp(ms, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `timestamp(ms)`'s characters (every post on a page has one: no string is made).
    static func writeTimestamp(_ ms: Int64, into out: inout [UInt8]) {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func digits(_ value: Int, _ width: Int, then separator: Character) {
            CompactJSONWriter.writeInteger(value, into: &out, minimumDigits: width)
            out.append(separator.asciiValue!)
        }
        digits(Int(parts.tm_year) + 1900, 4, then: "-")
        digits(Int(parts.tm_mon) + 1, 2, then: "-")
        digits(Int(parts.tm_mday), 2, then: "T")
        digits(Int(parts.tm_hour), 2, then: ":")
        digits(Int(parts.tm_min), 2, then: ":")
        digits(Int(parts.tm_sec), 2, then: ".")
        digits(Int(ms - seconds * 1000), 3, then: "Z")
    }

    /// A query's answer.
    package static func answer(_ a: QueryResult) -> JSONValue {
        switch a {
        case .user(let p): encoded(ResultJSON.User(p))
        case .users(let users): encoded(ResultJSON.Page(users, ResultJSON.User.init))
        case .suggestions(let suggestions): encoded(ResultJSON.Page(suggestions, ResultJSON.Suggestion.init))
        case .trendingTags(let tags): encoded(ResultJSON.Page(tags, ResultJSON.TrendingTag.init))
        case .contacts(let users): encoded(ResultJSON.Contacts(users: users.map(ResultJSON.User.init)))
        case .servers(let hosts): encoded(ResultJSON.Servers(servers: hosts))
        case .post(let detail): encoded(ResultJSON.PostDetail(detail))
        case .posts(let posts): encoded(ResultJSON.Page(posts, ResultJSON.Post.init))
        case .tags(let tags): encoded(ResultJSON.Page(tags) { ResultJSON.Tag(name: $0) })
        case .comments(let comments): encoded(ResultJSON.Page(comments, ResultJSON.Comment.init))
        case .activity(let items): encoded(ResultJSON.Page(items, ResultJSON.ActivityItem.init))
        case .follows(let follows): encoded(ResultJSON.Follows(follows: follows))
        case .image(let i): encoded(ResultJSON.Image(i))
        case .history(let versions): encoded(ResultJSON.PostHistory(versions))
        case .moderation(let queue): encoded(ResultJSON.ModerationQueue(queue))
        case .mastodonID(let id): encoded(ResultJSON.MastodonID(mastodonId: id.description))
        case .notificationPolicy(let p): encoded(ResultJSON.NotificationPolicy(p))
        case .notificationRequests(let page): encoded(ResultJSON.Page(page, ResultJSON.NotificationRequest.init))
        case .notificationRequest(let r): encoded(ResultJSON.NotificationRequest(r))
        case .filters(let filters): encoded(ResultJSON.Filters(filters: filters.map(ResultJSON.Filter.init)))
        case .poll(let p): encoded(ResultJSON.Poll(p))
        case .list(let list): encoded(ResultJSON.List(list))
        case .lists(let lists): encoded(ResultJSON.Lists(lists: lists.map(ResultJSON.List.init)))
        case .collection(let view): encoded(ResultJSON.Collection(view))
        case .collections(let views):
            encoded(ResultJSON.Collections(collections: views.map(ResultJSON.Collection.init)))
        case .conversations(let page): encoded(ResultJSON.Page(page, ResultJSON.Conversation.init))
        case .scheduledPost(let s): encoded(ResultJSON.ScheduledPost(s))
        case .scheduledPosts(let page): encoded(ResultJSON.Page(page, ResultJSON.ScheduledPost.init))
        case .stories(let row): encoded(ResultJSON.StoriesRow(authors: row.map(ResultJSON.StoryAuthor.init)))
        case .story(let story): encoded(ResultJSON.Story(story))
        case .media(let m): encoded(ResultJSON.Media(m))
        case .highlights(let stories): encoded(ResultJSON.Highlights(stories: stories.map(ResultJSON.Story.init)))
        case .annualReport(let answer): encoded(ResultJSON.AnnualReport(answer))
        }
    }

    /// A command's result as JSON: the record it names, `{"changed": …}`, a new session or token.
    package static func result(_ r: CommandResult) -> JSONValue {
        switch r {
        case .user(let p): encoded(ResultJSON.User(p))
        case let .session(token, user): encoded(ResultJSON.Session(session: token, user: ResultJSON.User(user)))
        case .post(let p): encoded(ResultJSON.Post(p))
        case .media(let m): encoded(ResultJSON.Media(m))
        case .app(let a): encoded(ResultJSON.App(a))
        case .comment(let c): encoded(ResultJSON.Comment(c))
        case .changed(let changed): encoded(ResultJSON.Changed(changed: changed))
        case .token(let token): encoded(ResultJSON.Token(token: token))
        case .done: encoded(ResultJSON.Done())
        case .created(let id): encoded(ResultJSON.Created(id: id))
        case .twoFactorEnrollment(let e): encoded(ResultJSON.TwoFactorEnrollment(e))
        case .recoveryCodes(let codes): encoded(ResultJSON.RecoveryCodes(recoveryCodes: codes))
        case .story(let story): encoded(ResultJSON.Story(story))
        }
    }

    /// An import's progress as JSON (`import.schema.json`).
    package static func importProgress(_ p: ImportProgress) -> JSONValue {
        encoded(
            ResultJSON.ImportJob(
                id: p.id, state: p.state.rawValue, done: p.done, total: p.total,
                report: p.report.map { report in
                    ResultJSON.ImportReportJSON(
                        imported: report.imported, alreadyPresent: report.alreadyPresent,
                        skipped: report.skipped.sorted { $0.key < $1.key }.map {
                            ResultJSON.ImportSkipped(reason: $0.key, count: $0.value.count, examples: $0.value.examples)
                        })
                },
                error: p.error.map(ResultJSON.Failure.Detail.init)))
    }

    /// An error's JSON object, `{code, message, field?}`: the one shape of every error answer
    /// (exec's `error`, and the HTTP body's `error`).
    package static func error(_ e: TimelineError) -> JSONValue { encoded(ResultJSON.Failure.Detail(e)) }

    /// The body of a failure: `{"error": {code, message, field?}}`.
    package static func failure(_ e: TimelineError) -> JSONValue {
        encoded(ResultJSON.Failure(error: ResultJSON.Failure.Detail(e)))
    }

    /// The compact bytes of `value`, members sorted (every JSON answer's form).
    package static func bytes(_ value: JSONValue) -> [UInt8] { JSONWriter.bytes(value) }

    /// One compact line of JSON.
    package static func line(_ value: JSONValue) -> String { String(decoding: JSONWriter.bytes(value), as: UTF8.self) }

    /// `value` indented by two spaces, members sorted (the files of an export, `timeline query`).
    package static func pretty(_ value: JSONValue) -> [UInt8] { Array(JSONWriter.pretty(value, sortedKeys: true).utf8) }
}

extension ResultJSON.User {
    init(_ p: Profile) {
        id = p.id.rawValue
        username = p.username
        bio = Nullable(p.bio)
        url = Nullable(p.url)
        postCount = p.postCount
        followerCount = p.followerCount
        followingCount = p.followingCount
        followedByViewer = p.followedByViewer
        blockedByViewer = p.blockedByViewer
        mutedByViewer = p.mutedByViewer
        mutedUntil = p.mutedUntil
        discoverable = p.discoverable
        avatar = Nullable(p.avatar.map { ResultJSON.Avatar(large: $0.large.rawValue, small: $0.small.rawValue) })
        header = Nullable(p.header.map { ResultJSON.Header(large: $0.large.rawValue, small: $0.small.rawValue) })
        unreadActivity = p.unreadActivity
        locked = p.locked
        requestedByViewer = p.requestedByViewer
        notifiesViewer = p.notifiesViewer
        noteByViewer = p.noteByViewer
        endorsedByViewer = p.endorsedByViewer
        moderator = p.moderator
    }
}

extension ResultJSON.Suggestion {
    init(_ s: Timeline.Suggestion) {
        user = ResultJSON.User(s.user)
        followedByCount = s.followedByCount
        followedBy = s.followedBy
    }
}

extension ResultJSON.Post {
    init(_ p: Timeline.Post) {
        id = p.id.rawValue
        author = p.author.rawValue
        authorUsername = p.authorUsername
        caption = Nullable(p.caption)
        image = Nullable(p.image.rawValue.isEmpty ? nil : p.image.rawValue)
        inReplyTo = p.inReplyTo?.rawValue
        hashtags = p.hashtags
        likeCount = p.likeCount
        commentCount = p.commentCount
        createdAt = JSONOutput.timestamp(p.createdAt)
        editedAt = p.editedAt.map(JSONOutput.timestamp)
        likedByViewer = p.likedByViewer
        width = Nullable(p.width)
        height = Nullable(p.height)
        variants = Nullable(p.variants.map(ResultJSON.Variants.init))
        bookmarkedByViewer = p.bookmarkedByViewer
        location = p.location.map { ResultJSON.Place(latitude: $0.latitude, longitude: $0.longitude, name: $0.name) }
        sensitive = p.sensitive
        warning = p.warning
        visibility = p.visibility.rawValue
        addressees = p.visibility == .direct ? p.addressees.map(\.rawValue) : nil
        media = p.media.map(ResultJSON.Media.init)
        filtered = p.filtered.isEmpty ? nil : p.filtered.map(ResultJSON.FilterResult.init)
        poll = p.poll?.rawValue
        boostCount = p.boostCount
        boostedByViewer = p.boostedByViewer
        boost = p.boost.map {
            ResultJSON.Boost(
                id: $0.id.rawValue, by: $0.by.rawValue, byUsername: $0.byUsername, at: JSONOutput.timestamp($0.at),
                visibility: $0.visibility.rawValue)
        }
    }
}

extension ResultJSON.FilterResult {
    init(_ m: FilterMatch) {
        filter = m.filter.filterId.rawValue
        title = m.filter.title
        action = m.filter.action.rawValue
        keywordMatches = m.keywordMatches
        statusMatches = m.statusMatches
    }
}

extension ResultJSON.Variants {
    init(_ v: ImageVariants) {
        full = v.full.rawValue
        feed = v.feed.rawValue
        thumb = v.thumb.rawValue
    }
}

extension ResultJSON.Media {
    /// A photo: `{id, image, width, height, variants, blurhash, alt}` (the last five null when unknown).
    init(_ m: MediaAttachment) {
        id = m.id
        image = m.image.rawValue
        width = Nullable(m.width)
        height = Nullable(m.height)
        variants = Nullable(m.variants.map(ResultJSON.Variants.init))
        blurhash = Nullable(m.blurhash)
        alt = Nullable(m.alt)
        video = m.video.map(ResultJSON.Video.init)
    }
}

extension ResultJSON.Video {
    /// `{state: processing}`, `{state: ready, duration, fps, bytes, hasAudio}` or `{state: failed, reason}`.
    init(_ state: VideoState) {
        switch state {
        case .processing: self.state = "processing"
        case .ready(let file):
            self.state = "ready"
            (duration, fps, bytes, hasAudio) = (file.seconds, file.fps, file.bytes, file.hasAudio)
        case .failed(let why):
            self.state = "failed"
            reason = why
        }
    }
}

extension ResultJSON.PostDetail {
    init(_ d: Timeline.PostDetail) {
        self.init(
            post: ResultJSON.Post(d.post), comments: ResultJSON.Page(d.comments, ResultJSON.Comment.init),
            likedByViewer: d.likedByViewer)
    }
}

extension ResultJSON.Comment {
    init(_ c: Timeline.Comment) {
        id = c.id.rawValue
        post = c.post.rawValue
        author = c.author.rawValue
        authorUsername = c.authorUsername
        text = c.text
        createdAt = JSONOutput.timestamp(c.createdAt)
        replyTo = c.replyTo?.rawValue
        filtered = c.filtered.isEmpty ? nil : c.filtered.map(ResultJSON.FilterResult.init)
    }
}

extension ResultJSON.ActivityItem {
    init(_ a: Timeline.ActivityItem) {
        id = a.id
        kind = a.kind.rawValue
        actor = a.actor?.rawValue
        actorUsername = a.actorUsername
        post = a.post?.rawValue
        comment = a.comment?.rawValue
        at = a.at
        createdAt = JSONOutput.timestamp(a.at)
        reason = a.reason
        collection = a.collection?.rawValue
    }
}

extension ResultJSON.Page {
    init<Source>(_ page: Timeline.Page<Source>, _ item: (Source) -> Item) {
        items = page.items.map(item)
        next = Nullable(page.next)
    }
}

extension ResultJSON.PostHistory {
    init(_ versions: [PostVersion]) {
        self.versions = versions.map {
            Version(caption: Nullable($0.caption), hashtags: $0.hashtags, createdAt: JSONOutput.timestamp($0.at))
        }
    }
}

extension ResultJSON.Image {
    init(_ i: StoredImage) {
        image = i.id.rawValue
        mediaType = i.mediaType.rawValue
        data = Data(i.bytes).base64EncodedString()
    }
}

extension ResultJSON.ModerationQueue {
    /// The moderators' queue: `{posts: [{post, count, reporters, reasons, newestAt, hidden, preview}], accounts:
    /// [{user, username, count, reporters, reasons, posts, newestAt, suspended}]}`.
    init(_ queue: Timeline.ModerationQueue) {
        posts = queue.posts.map { entry in
            let r = entry.report
            return ReportedPost(
                post: r.post.rawValue, count: r.count, reporters: r.reporters.map(\.rawValue), reasons: r.reasons,
                newestAt: r.newestAt, hidden: r.hidden, preview: Nullable(entry.post.map(ResultJSON.Post.init)))
        }
        accounts = queue.accounts.map { a in
            ReportedAccount(
                user: a.user.rawValue, username: a.username, count: a.count, reporters: a.reporters.map(\.rawValue),
                reasons: a.reasons, posts: a.posts.map(\.rawValue), newestAt: a.newestAt, suspended: a.suspended)
        }
    }
}

extension ResultJSON.App {
    init(_ a: OAuthApp) {
        id = a.id
        name = a.name
        website = Nullable(a.website)
        redirectUris = a.redirectURIs
        scopes = a.scopes
        clientSecret = Nullable(a.clientSecret)
    }
}

extension ResultJSON.Failure.Detail {
    init(_ e: TimelineError) {
        code = e.code.rawValue
        message = e.message
        field = e.field
    }
}
