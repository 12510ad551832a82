import Foundation
import LMDB
import TimelineDomain

/// Turns read-model records into the results a query answers, with what a client needs to
/// draw them without another request: authors' usernames (looked up once per page) and, when
/// there is a viewer, whether they follow the user or liked the post.
final class Presenter {
    private let view: ReadView
    private let viewer: UserID?
    /// The viewer's privacy policy: what `listedPost` may show them, and where.
    private(set) var privacy: Privacy<ReadView>
    /// The usernames looked up so far (a page names a few users: a short list searched in
    /// order costs less than a dictionary's hashing and storage).
    private var usernames: [(user: UserID, name: String)] = []
    /// What each post shown reads besides its record, held once (a projection is a struct of
    /// tables: reached through the view per post, it was copied per post).
    private let boosts: BoostsProjection
    private let profiles: ProfilesProjection
    /// Whether `knowBlocks` read the viewer's blocks (past its limit, the policy asks per user).
    private var blocksRead = false
    /// The viewer's id's bytes, made once for the keys of their likes, bookmarks and boosts.
    private let viewerBytes: [UInt8]
    /// The key of a post's lookup, made in one buffer for every post (a key made per lookup
    /// was an allocation each, several a post).
    private var key: [UInt8] = []

    /// A presenter for `privacy`'s viewer (made by `ReadView.privacy(for:)`, with their mutes).
    init(_ privacy: Privacy<ReadView>) {
        self.view = privacy.state
        self.viewer = privacy.viewer
        self.privacy = privacy
        boosts = view.models.boosts
        profiles = view.models.profiles
        viewerBytes = privacy.viewer.map { Array($0.rawValue.utf8) } ?? []
        key.reserveCapacity(64)
    }

    /// Has the policy answer blocks from the viewer's blocks read once (`Privacy.knowingBlocks`),
    /// unless it does already: for a page that meets strangers' posts (boosts, followed tags),
    /// each asking of blocks both ways, when the viewer has few blocks (most have none).
    func knowBlocks() throws {
        guard let viewer, privacy.blockedUsers == nil, !blocksRead else { return }
        blocksRead = true
        // A viewer who blocks a server is asked per user (its accounts are not listed as blocks).
        let blocksServers = try view.models.federation.accountDomainBlocks.last(in: viewer, view.txn) != nil
        privacy = privacy.knowingBlocks(
            blocksServers ? nil : try view.models.follows.blockedEitherWay(of: viewer, atMost: 256, view.txn))
    }

    /// `user`'s username ("" for a user who is gone).
    func username(_ user: UserID) throws -> String {
        if let known = usernames.first(where: { $0.user == user }) { return known.name }
        let name = try profiles.username(user, view.txn) ?? ""
        // Past a page's worth, the list stops growing (a longer one would cost more than a lookup).
        if usernames.count < 32 { usernames.append((user, name)) }
        return name
    }

    func profile(_ user: UserRecord, countingUnread: Bool = true) throws -> Profile {
        var profile = Profile(
            user, followedByViewer: try viewer.map { try view.follows($0, user.id) },
            blockedByViewer: try viewer.map { try view.blocks($0, user.id) }, own: viewer == user.id)
        if viewer == user.id, countingUnread {
            profile.unreadActivity = try view.unreadActivity(of: user.id, upTo: Profile.unreadActivityLimit)
        }
        if let viewer {
            // The viewer's own mute only: nobody learns who mutes them.
            let mute = try view.mute(viewer, user.id).flatMap { $0.isActive(at: view.now) ? $0 : nil }
            profile.mutedByViewer = mute != nil
            profile.mutedUntil = mute?.until
            profile.requestedByViewer = try view.followRequested(viewer, user.id)
            profile.notifiesViewer = try view.notifies(viewer, user.id)
            profile.noteByViewer = try view.accountNote(viewer, user.id) ?? ""
            profile.endorsedByViewer = try view.endorses(viewer, user.id)
        }
        return profile
    }

    /// Post `id` for a command's answer or a detail (`not_found` when it is gone; reports do
    /// not hide it here: see `listedPost`).
    func post(_ id: PostID) throws -> Post {
        guard let stored = try view.storedPost(Array(id.rawValue.utf8)) else {
            throw TimelineError.notFound("post", id.rawValue)
        }
        return try present(stored, marks: nil)
    }

    /// Post `id` (its key's bytes) as the viewer may see it on `surface`, or `nil` when it is
    /// gone, `keeping` refuses it, or the policy does not let it reach them there
    /// (`Privacy.mayShow(post:on:)`). `marks`: the viewer's like and bookmark, when the caller has them.
    func listedPost(
        _ id: some ContiguousBytes, on surface: Surface, marks: ViewerMarks? = nil,
        keeping: (PostReadings) throws -> Bool = { _ in true }
    ) throws -> Post? {
        guard let stored = try view.storedPost(id) else { return nil }
        return try listed(stored, on: surface, marks: marks, keeping: keeping)
    }

    /// The stored post `stored` as the viewer may see it on `surface` (`listedPost(_:on:)`,
    /// for a caller that read the record already).
    func listed(
        _ stored: PostReadings, on surface: Surface, marks: ViewerMarks? = nil,
        keeping: (PostReadings) throws -> Bool = { _ in true }
    ) throws -> Post? {
        guard try keeping(stored), try privacy.mayShow(post: stored, on: surface) else { return nil }
        return try present(stored, marks: marks)
    }

    /// Post `id` as the viewer may see it on `surface` (`listedPost(_:on:)`).
    func listedPost(_ id: PostID, on surface: Surface) throws -> Post? {
        try listedPost(Array(id.rawValue.utf8), on: surface)
    }

    private func present(_ stored: PostReadings, marks: ViewerMarks?) throws -> Post {
        // Looked up by the record's own id bytes, each key made in one buffer: a page makes no
        // id string nor key per post.
        let id = stored.bytes[stored.fields.id]
        var post: Post
        if viewer != nil, let marks, !marks.contains(.boost) {
            post = Post(stored, likedByViewer: marks.contains(.liked), bookmarkedByViewer: marks.contains(.bookmarked))
        } else if viewer != nil {
            let posts = view.models.posts
            post = Post(
                stored, likedByViewer: try has(posts.likes.database, id, viewerBytes),
                bookmarkedByViewer: try has(posts.bookmarks.database, viewerBytes, id))
        } else {
            post = Post(stored, likedByViewer: nil, bookmarkedByViewer: nil)
        }
        // A post nobody boosted (most) costs no lookup: its record holds its boost count (and
        // its poll's id).
        if viewer != nil {
            post.boostedByViewer = try post.boostCount > 0 && has(boosts.byUserAndPost.database, viewerBytes, id)
        }
        return post
    }

    /// Whether `first ‖ 0 ‖ second` (a grouped table's key, `CompositeKey`) is a key of
    /// `database`, the key made in `key`.
    private func has(_ database: Database, _ first: some Collection<UInt8>, _ second: some Collection<UInt8>)
        throws -> Bool
    {
        key.removeAll(keepingCapacity: true)
        key.append(contentsOf: first)
        key.append(0)
        key.append(contentsOf: second)
        return try view.txn.contains(database, key)
    }

    func comment(_ comment: CommentRecord) throws -> Comment {
        Comment(comment, authorUsername: try username(comment.author))
    }

    func activity(id: String, _ record: ActivityRecord) throws -> ActivityItem {
        let kind: ActivityItem.Kind =
            switch record.kind {
            case .comment: .comment
            case .like: .like
            case .follow: .follow
            case .removed: .removed
            case .mention: .mention
            case .reply: .reply
            case .followRequest: .followRequest
            case .post: .post
            case .boost: .boost
            case .addedToCollection: .addedToCollection
            }
        return ActivityItem(
            id: id, kind: kind, actor: record.actor, actorUsername: try record.actor.map(username),
            post: record.post, comment: record.comment, at: record.at, reason: record.reason,
            collection: record.collection)
    }
}
