import Foundation
import TimelineDomain

/// The commands and queries by their public names, and the fields each takes: `timeline exec`
/// (fields from a JSON line) and the HTTP API (fields from the body, the path and the query
/// string) both decode requests here, and both answer with `JSONOutput`. A command's fields are
/// read by its `CommandDefinition`, in its feature's file in the domain; a query is one entry of
/// `queries` below, which reads its fields and asks the library's public method for it.
package enum Catalogue {
    /// Decodes the command `name` from `input` (reading, and so accepting, only its fields).
    package static func command(named name: String, _ input: JSONInput) throws(TimelineError) -> Command {
        try Command.decode(named: name, input)
    }

    /// Decodes the query `name` from `input` (reading, and so accepting, only its fields) into
    /// the work that answers it.
    package static func query(named name: String, _ input: JSONInput) throws(TimelineError) -> QueryCall {
        guard let definition = queriesByName[name] else {
            throw TimelineError.invalid("query", "unknown query \(name.prefix(64))")
        }
        return QueryCall(name: name, answer: try definition.read(input))
    }

    /// The public names of the queries, in the catalogue's order.
    package static var queryNames: [String] { queries.map(\.name) }

    /// Whether the query `name` answers only for the acting user (`as` or `session` in `exec`,
    /// the bearer over HTTP) and so takes no `user` parameter.
    package static func isPrivate(_ name: String) -> Bool { queriesByName[name]?.isPrivate ?? false }

    private static let queriesByName = Dictionary(uniqueKeysWithValues: queries.map { ($0.name, $0) })

    /// Every query: its name, and how its fields become the library's call.
    private static let queries: [QueryDefinition] = [
        QueryDefinition("user") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user")
            return { service, viewer throws(TimelineError) in .user(try service.user(user, viewer: viewer)) }
        },
        QueryDefinition("userByName") { input throws(TimelineError) in
            let name = try input.string("username")
            return { service, viewer throws(TimelineError) in .user(try service.user(named: name, viewer: viewer)) }
        },
        QueryDefinition("users") { input throws(TimelineError) in
            let page = try input.page()
            return { service, viewer throws(TimelineError) in .users(try service.users(page, viewer: viewer)) }
        },
        QueryDefinition("searchUsers") { input throws(TimelineError) in
            let prefix = try input.optionalString("prefix") ?? "", page = try input.page()
            return { service, viewer throws(TimelineError) in
                .users(try service.searchUsers(prefix: prefix, page, viewer: viewer))
            }
        },
        QueryDefinition("followers") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user"), page = try input.page()
            return { service, viewer throws(TimelineError) in
                .users(try service.followers(of: user, page, viewer: viewer))
            }
        },
        QueryDefinition("following") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user"), page = try input.page()
            return { service, viewer throws(TimelineError) in
                .users(try service.following(of: user, page, viewer: viewer))
            }
        },
        QueryDefinition("follows") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user"), target: UserID = try input.identifier("target")
            return { service, _ throws(TimelineError) in .follows(try service.follows(user, target)) }
        },
        QueryDefinition("mastodonId") { input throws(TimelineError) in
            let kind = try input.string("kind"), id = try input.string("id")
            guard IdentifierSyntax.isValid(id) else {
                throw TimelineError.invalid("id", "id is not an identifier")
            }
            guard let object = NumberedObject(kind: kind, id: id) else {
                throw TimelineError.invalid(
                    "kind", "kind must be one of \(NumberedObject.kinds.joined(separator: ", "))")
            }
            return { service, _ throws(TimelineError) in .mastodonID(try service.numericID(of: object)) }
        },
        QueryDefinition("posts") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user"), page = try input.page()
            return { service, viewer throws(TimelineError) in .posts(try service.posts(by: user, page, viewer: viewer))
            }
        },
        QueryDefinition("post") { input throws(TimelineError) in
            let post: PostID = try input.identifier("post"), page = try input.page()
            return { service, viewer throws(TimelineError) in
                .post(try service.post(post, viewer: viewer, comments: page))
            }
        },
        QueryDefinition("postHistory") { input throws(TimelineError) in
            let post: PostID = try input.identifier("post")
            return { service, viewer throws(TimelineError) in .history(try service.history(of: post, viewer: viewer)) }
        },
        QueryDefinition("comments") { input throws(TimelineError) in
            let post: PostID = try input.identifier("post"), page = try input.page()
            return { service, viewer throws(TimelineError) in
                .comments(try service.comments(of: post, page, viewer: viewer))
            }
        },
        QueryDefinition("likes") { input throws(TimelineError) in
            let post: PostID = try input.identifier("post"), page = try input.page()
            return { service, viewer throws(TimelineError) in .users(try service.likes(of: post, page, viewer: viewer))
            }
        },
        QueryDefinition("poll") { input throws(TimelineError) in
            let poll: PollID = try input.identifier("poll")
            return { service, viewer throws(TimelineError) in .poll(try service.poll(poll, viewer: viewer)) }
        },
        QueryDefinition("postPoll") { input throws(TimelineError) in
            let post: PostID = try input.identifier("post")
            return { service, viewer throws(TimelineError) in
                guard let poll = try service.poll(of: post, viewer: viewer) else {
                    throw TimelineError.notFound("poll", post.rawValue)
                }
                return .poll(poll)
            }
        },
        QueryDefinition("boosts") { input throws(TimelineError) in
            let post: PostID = try input.identifier("post"), page = try input.page()
            return { service, viewer throws(TimelineError) in
                .users(try service.boosters(of: post, page, viewer: viewer))
            }
        },
        QueryDefinition("timeline") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user"), page = try input.page()
            return { service, _ throws(TimelineError) in .posts(try service.timeline(of: user, page)) }
        },
        QueryDefinition("tags") { input throws(TimelineError) in
            let prefix = try input.optionalString("prefix") ?? "", page = try input.page()
            return { service, viewer throws(TimelineError) in
                .tags(try service.tags(prefix: prefix, page, viewer: viewer))
            }
        },
        QueryDefinition("hashtag") { input throws(TimelineError) in
            let tag = try input.string("tag"), page = try input.page()
            return { service, viewer throws(TimelineError) in .posts(try service.hashtag(tag, page, viewer: viewer)) }
        },
        QueryDefinition("activity") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user"), page = try input.page()
            var kinds: Set<ActivityItem.Kind>?
            if let types = try input.optionalList("types") {
                kinds = []
                for type in types {
                    guard let kind = ActivityItem.Kind(rawValue: type) else {
                        throw TimelineError.invalid(
                            "types", "types are \(ActivityItem.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    kinds?.insert(kind)
                }
            }
            return { [kinds] service, _ throws(TimelineError) in
                .activity(try service.activity(of: user, page, kinds: kinds))
            }
        },
        QueryDefinition("image") { input throws(TimelineError) in
            let image: ImageID = try input.identifier("image")
            var variant: ImageVariant?
            if let raw = try input.optionalString("variant") {
                guard let known = ImageVariant(rawValue: raw) else {
                    throw TimelineError.invalid("variant", "variant must be full, feed or thumb")
                }
                variant = known
            }
            return { [variant] service, viewer throws(TimelineError) in
                .image(try service.image(image, variant: variant, viewer: viewer))
            }
        },
        QueryDefinition("nearby") { input throws(TimelineError) in
            guard let latitude = try input.optionalNumber("latitude") else {
                throw .invalid("latitude", "latitude is required")
            }
            guard let longitude = try input.optionalNumber("longitude") else {
                throw .invalid("longitude", "longitude is required")
            }
            let radiusKm = try input.optionalNumber("radiusKm") ?? TimelineService.defaultRadiusKm,
                page = try input.page()
            return { service, viewer throws(TimelineError) in
                .posts(
                    try service.nearby(
                        latitude: latitude, longitude: longitude, radiusKm: radiusKm, page, viewer: viewer))
            }
        },
        QueryDefinition("trendingTags") { input throws(TimelineError) in
            let page = try input.page()
            return { service, _ throws(TimelineError) in .trendingTags(try service.trendingTags(page)) }
        },
        QueryDefinition("trendingPosts") { input throws(TimelineError) in
            let page = try input.page()
            return { service, viewer throws(TimelineError) in .posts(try service.trendingPosts(page, viewer: viewer)) }
        },
        QueryDefinition("directory") { input throws(TimelineError) in
            let order = try input.optionalString("order"), page = try input.page()
            guard let order = DirectoryOrder(rawValue: order ?? "active") else {
                throw .invalid("order", "order must be active or new")
            }
            return { service, viewer throws(TimelineError) in .users(try service.directory(order, page, viewer: viewer))
            }
        },
        // Profile extras (#41): pinned posts, endorsed accounts, familiar followers.
        QueryDefinition("pinnedPosts") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user")
            return { service, viewer throws(TimelineError) in
                .posts(Page(items: try service.pinnedPosts(of: user, viewer: viewer), next: nil))
            }
        },
        QueryDefinition("endorsements") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user")
            return { service, viewer throws(TimelineError) in
                .users(Page(items: try service.endorsements(of: user, viewer: viewer), next: nil))
            }
        },
        QueryDefinition("featuredTags") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user")
            return { service, viewer throws(TimelineError) in
                .tags(Page(items: try service.featuredTags(of: user, viewer: viewer).map(\.tag), next: nil))
            }
        },
        QueryDefinition("familiarFollowers") { input throws(TimelineError) in
            let target: UserID = try input.identifier("user")
            return { service, viewer throws(TimelineError) in
                guard let viewer else { throw TimelineError(.unauthenticated, "familiarFollowers needs a viewer") }
                return .users(Page(items: try service.familiarFollowers(of: target, viewer: viewer), next: nil))
            }
        },
        QueryDefinition(actingUser: "bookmarks") { input throws(TimelineError) in
            let page = try input.page()
            return { service, user throws(TimelineError) in .posts(try service.bookmarks(of: user, page)) }
        },
        QueryDefinition(actingUser: "blocked") { input throws(TimelineError) in
            let page = try input.page()
            return { service, user throws(TimelineError) in .users(try service.blocked(by: user, page)) }
        },
        QueryDefinition(actingUser: "blockedServers") { _ throws(TimelineError) in
            { service, user throws(TimelineError) in .servers(try service.serversBlocked(by: user)) }
        },
        // Stories (#42): the acting user's row, one story, who saw one's own, a profile's highlights.
        QueryDefinition(actingUser: "stories") { _ throws(TimelineError) in
            { service, user throws(TimelineError) in .stories(try service.stories(for: user)) }
        },
        // One of the acting user's uploads, with a video's state (while it is transcoded).
        QueryDefinition(actingUser: "media") { input throws(TimelineError) in
            let media: MediaID = try input.identifier("media")
            return { service, user throws(TimelineError) in .media(try service.media(media, viewer: user)) }
        },
        QueryDefinition("story") { input throws(TimelineError) in
            let story: StoryID = try input.identifier("story")
            return { service, viewer throws(TimelineError) in .story(try service.story(story, viewer: viewer)) }
        },
        QueryDefinition(actingUser: "storyViewers") { input throws(TimelineError) in
            let story: StoryID = try input.identifier("story"), page = try input.page()
            return { service, user throws(TimelineError) in .users(try service.storyViewers(of: story, by: user, page))
            }
        },
        QueryDefinition("highlights") { input throws(TimelineError) in
            let user: UserID = try input.identifier("user")
            return { service, viewer throws(TimelineError) in
                .highlights(try service.highlights(of: user, viewer: viewer))
            }
        },
        // Followed hashtags (#41): the acting user's, and whether they follow one.
        QueryDefinition(actingUser: "followedTags") { input throws(TimelineError) in
            let page = try input.page()
            return { service, user throws(TimelineError) in .tags(try service.followedTags(of: user, page)) }
        },
        QueryDefinition(actingUser: "followsTag") { input throws(TimelineError) in
            let tag = try input.string("tag")
            return { service, user throws(TimelineError) in .follows(try service.followsTag(user, tag)) }
        },
        QueryDefinition(actingUser: "followRequests") { input throws(TimelineError) in
            let page = try input.page()
            return { service, user throws(TimelineError) in .users(try service.followRequests(to: user, page)) }
        },
        QueryDefinition(actingUser: "moderationQueue") { _ throws(TimelineError) in
            { service, user throws(TimelineError) in .moderation(try service.moderationQueue(for: user)) }
        },
        QueryDefinition(actingUser: "filters") { _ throws(TimelineError) in
            { service, user throws(TimelineError) in .filters(try service.filters(of: user)) }
        },
        QueryDefinition(actingUser: "notificationPolicy") { _ throws(TimelineError) in
            { service, user throws(TimelineError) in .notificationPolicy(try service.notificationPolicy(of: user)) }
        },
        QueryDefinition(actingUser: "notificationRequests") { input throws(TimelineError) in
            let page = try input.page()
            return { service, user throws(TimelineError) in
                .notificationRequests(try service.notificationRequests(of: user, page))
            }
        },
        QueryDefinition(actingUser: "notificationRequest") { input throws(TimelineError) in
            let account: UserID = try input.identifier("account")
            return { service, user throws(TimelineError) in
                .notificationRequest(try service.notificationRequest(of: user, from: account))
            }
        },
        QueryDefinition(actingUser: "muted") { input throws(TimelineError) in
            let page = try input.page()
            return { service, user throws(TimelineError) in .users(try service.muted(by: user, page)) }
        },
        QueryDefinition(actingUser: "lists") { _ throws(TimelineError) in
            { service, user throws(TimelineError) in .lists(try service.lists(of: user)) }
        },
        QueryDefinition(actingUser: "list") { input throws(TimelineError) in
            let list: ListID = try input.identifier("list")
            return { service, user throws(TimelineError) in .list(try service.list(list, viewer: user)) }
        },
        QueryDefinition(actingUser: "listAccounts") { input throws(TimelineError) in
            let list: ListID = try input.identifier("list"), page = try input.page()
            return { service, user throws(TimelineError) in
                .users(try service.listAccounts(list, page, viewer: user))
            }
        },
        QueryDefinition(actingUser: "listTimeline") { input throws(TimelineError) in
            let list: ListID = try input.identifier("list"), page = try input.page()
            return { service, user throws(TimelineError) in
                .posts(try service.listTimeline(list, page, viewer: user))
            }
        },
        QueryDefinition(actingUser: "conversations") { input throws(TimelineError) in
            let page = try input.page()
            return { service, user throws(TimelineError) in .conversations(try service.conversations(of: user, page)) }
        },
        QueryDefinition(actingUser: "directPosts") { input throws(TimelineError) in
            let page = try input.page()
            return { service, user throws(TimelineError) in .posts(try service.directPosts(of: user, page)) }
        },
        QueryDefinition(actingUser: "listsWith") { input throws(TimelineError) in
            let account: UserID = try input.identifier("user")
            return { service, user throws(TimelineError) in
                .lists(try service.lists(containing: account, viewer: user))
            }
        },
        QueryDefinition("collection") { input throws(TimelineError) in
            let id: CollectionID = try input.identifier("collection")
            return { service, viewer throws(TimelineError) in .collection(try service.collection(id, viewer: viewer)) }
        },
        QueryDefinition("userCollections") { input throws(TimelineError) in
            let owner: UserID = try input.identifier("user"), window = try collectionWindow(input)
            return { service, viewer throws(TimelineError) in
                .collections(
                    try service.collections(of: owner, viewer: viewer, offset: window.offset, limit: window.limit))
            }
        },
        QueryDefinition(actingUser: "inCollections") { input throws(TimelineError) in
            let window = try collectionWindow(input)
            return { service, user throws(TimelineError) in
                .collections(
                    try service.collections(featuring: user, viewer: user, offset: window.offset, limit: window.limit))
            }
        },
        QueryDefinition(actingUser: "scheduledPosts") { input throws(TimelineError) in
            let page = try input.page()
            return { service, user throws(TimelineError) in .scheduledPosts(try service.scheduledPosts(of: user, page))
            }
        },
        QueryDefinition(actingUser: "scheduledPost") { input throws(TimelineError) in
            let id: ScheduledPostID = try input.identifier("scheduledPost")
            return { service, user throws(TimelineError) in .scheduledPost(try service.scheduledPost(id, viewer: user))
            }
        },
        QueryDefinition(actingUser: "annualReport") { input throws(TimelineError) in
            let year = try AnnualReportMark.year(try input.string("year"))
            return { service, user throws(TimelineError) in
                .annualReport(try service.annualReportAnswer(user, year: year))
            }
        },
        QueryDefinition(actingUser: "suggestions") { input throws(TimelineError) in
            let page = try input.page()
            return { service, user throws(TimelineError) in .suggestions(try service.suggestions(for: user, page)) }
        },
        QueryDefinition(actingUser: "findContacts") { input throws(TimelineError) in
            let emails = try input.strings("emails")
            return { service, user throws(TimelineError) in .contacts(try service.findContacts(emails, viewer: user)) }
        }
    ]
}

/// The `offset` (0 by default) and `limit` (as a page's: 1 to `PageRequest.maxLimit`, 20 by
/// default) of a collections query.
private func collectionWindow(_ input: JSONInput) throws(TimelineError) -> (offset: Int, limit: Int) {
    let offset = try input.optionalInteger("offset") ?? 0, limit = try input.page().validated().limit
    guard offset >= 0 else { throw TimelineError.invalid("offset", "offset must not be negative") }
    return (offset, limit)
}

/// A query of the catalogue: its public name, and how it reads its fields into the call that
/// answers it.
private struct QueryDefinition: Sendable {
    let name: String
    let isPrivate: Bool
    let read: @Sendable (JSONInput) throws(TimelineError) -> QueryAnswer

    /// A query answered as its viewer sees it.
    init(_ name: String, read: @escaping @Sendable (JSONInput) throws(TimelineError) -> QueryAnswer.ForViewer) {
        self.name = name
        isPrivate = false
        self.read = { input throws(TimelineError) in .forViewer(try read(input)) }
    }

    /// A query answered only for the acting user.
    init(
        actingUser name: String,
        read: @escaping @Sendable (JSONInput) throws(TimelineError) -> QueryAnswer.ForActingUser
    ) {
        self.name = name
        isPrivate = true
        self.read = { input throws(TimelineError) in .forActingUser(try read(input)) }
    }
}

/// How a decoded query is answered: for whoever views it, or only for the acting user.
package enum QueryAnswer: Sendable {
    /// Answers as `viewer` sees it (anonymously when nil).
    package typealias ForViewer = @Sendable (TimelineService, UserID?) throws(TimelineError) -> QueryResult
    /// Answers for the acting user.
    package typealias ForActingUser = @Sendable (TimelineService, UserID) throws(TimelineError) -> QueryResult

    /// Answered as the viewer sees it.
    case forViewer(ForViewer)
    /// Answered for the acting user, who must be known (the query takes no `user`).
    case forActingUser(ForActingUser)
}

/// A query read from its fields, ready to be answered.
package struct QueryCall: Sendable {
    /// The query's public name.
    package let name: String
    /// How it is answered.
    package let answer: QueryAnswer

    /// Whether it answers only for the acting user (and so takes no `user` parameter).
    package var isPrivate: Bool {
        if case .forActingUser = answer { return true }
        return false
    }

    /// Answers the query as `viewer` sees it: `unauthenticated` for a private query without one.
    package func answer(_ service: TimelineService, viewer: UserID?) throws(TimelineError) -> QueryResult {
        switch answer {
        case .forViewer(let answer): return try answer(service, viewer)
        case .forActingUser(let answer):
            guard let viewer else { throw TimelineError(.unauthenticated, "\(name) answers only for a signed-in user") }
            return try answer(service, viewer)
        }
    }
}
