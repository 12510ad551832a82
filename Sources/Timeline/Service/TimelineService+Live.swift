import LMDB
import TimelineDomain

/// What one event of the log means for one user's live view (the HTTP API's event stream).
public enum LiveUpdate: Sendable, Equatable {
    /// A post entered the user's home timeline.
    case post(Post)
    /// A comment, like, follow, mention or reply concerning the user, or the removal of one of their posts.
    case activity(ActivityItem)
    /// A post left the user's home timeline.
    case removed(PostID)
    /// A post in the user's home timeline was edited (its caption or alt texts).
    case edited(Post)
    /// A direct message came into one of the user's conversations (Mastodon's `conversation`).
    case conversation(Conversation)
    /// A boost (`boost`, its own id) of a post by `author` was taken back (or ended with a block
    /// or an erasure): it leaves where its `post` update showed (a list's stream judges both by
    /// `author`, as it does a boost's update).
    case unboosted(boost: PostID, author: UserID)
}

extension TimelineService {
    /// How many of a followee's latest posts an unfollow reports as removed (what a client
    /// has likely loaded; the rest it no longer pages to).
    public static let removedOnUnfollow = 20

    /// The last event the read models have applied (at most the log's last): live updates are
    /// read from the read models, so they follow this, not the log's head.
    public func appliedSequence() throws(TimelineError) -> UInt64 {
        try read { view in try view.models.checkpoint(.activity, view.txn) }
    }

    /// The live updates `envelope` causes for `viewer`, read from the read models (so call it
    /// once they have applied the event: see `appliedSequence`).
    public func liveUpdates(for envelope: EventEnvelope, viewer: UserID) throws(TimelineError) -> [LiveUpdate] {
        let updates = try unfilteredLiveUpdates(for: envelope, viewer: viewer)
        guard !updates.isEmpty else { return updates }
        return try applyingFilters(to: updates, viewer: viewer)
    }

    /// `updates` as `viewer`'s filters leave them: a post a home filter hides, or an activity
    /// item whose comment or post a notifications filter hides, is left out; a warned or
    /// blurred post is marked (`Post.filtered`). The live streams' (and Mastodon's) one place.
    private func applyingFilters(to updates: [LiveUpdate], viewer: UserID) throws(TimelineError) -> [LiveUpdate] {
        try read { view in
            let home = try view.filterMatching(viewer, .home)
            let notifications = try view.filterMatching(viewer, .notifications)
            if home.isEmpty && notifications.isEmpty { return updates }
            let present = Presenter(try view.privacy(for: viewer))
            return try updates.compactMap { update -> LiveUpdate? in
                switch update {
                case .post(let post): return home.apply([post], viewer: viewer).first.map(LiveUpdate.post)
                case .edited(let post): return home.apply([post], viewer: viewer).first.map(LiveUpdate.edited)
                case .removed, .conversation, .unboosted: return update
                case .activity(let item):
                    guard !notifications.isEmpty else { return update }
                    var verdict = FilterVerdict(matches: [])
                    if let id = item.comment, let record = try view.comment(id) {
                        let comment = try present.comment(record)
                        verdict = notifications.verdict(on: comment, viewer: viewer)
                    } else if let id = item.post, try view.post(id) != nil {
                        verdict = notifications.verdict(on: try present.post(id), viewer: viewer)
                    }
                    return verdict.hidden ? nil : update
                }
            }
        }
    }

    private func unfilteredLiveUpdates(for envelope: EventEnvelope, viewer: UserID) throws(TimelineError)
        -> [LiveUpdate]
    {
        try read { view in
            let privacy = try view.privacy(for: viewer)
            let present = Presenter(privacy)
            // The activity items a stream shows are the feed's (`notifications`): only its posts need a follow.
            let told = try activityItems(madeBy: envelope, for: viewer, view, present, on: .notifications)
                .map(LiveUpdate.activity)
            // An unfollowed or muted author's recent posts leave the open timeline.
            func removals(of author: UserID) throws -> [LiveUpdate] {
                try view.posts(by: author, PageRequest(limit: Self.removedOnUnfollow), viewer: author).items.map {
                    .removed($0.id)
                }
            }
            // The stream's rules are `Privacy`'s on `stream`: the viewer's own posts, and those
            // of whom they follow and do not mute (not suspended, not hidden by reports).
            func sees(_ author: UserID) throws -> Bool { try privacy.mayShow(postsBy: author, on: .stream) }
            func sees(_ post: PostRecord) throws -> Bool { try privacy.mayShow(post: post, on: .stream) }
            // A post gone (deleted, removed) is told gone only where it could be seen: as posted.
            func saw(_ id: PostID) throws -> Bool { try gonePost(id, view).map(sees) ?? false }
            switch envelope.event {
            case .postAdded(let e):
                // A direct message addressed to the viewer (or theirs) comes into a conversation.
                var direct: [LiveUpdate] = []
                if e.visibility == .direct, e.authorId == viewer || e.addressees.contains(viewer),
                    let conversation = try view.conversation(holding: e.postId, of: viewer)
                {
                    direct = [.conversation(conversation)]
                }
                guard let post = try view.post(e.postId) else { return told + direct }
                // A followee's, or a public post of a hashtag the viewer follows (`cameInByTag`:
                // as the home timeline takes it in).
                let byTag = {
                    let excluded = try view.models.lists.exclusiveMembers(of: viewer, view.txn)
                    return try view.cameInByTag(post.id, view.tagFollowing(of: viewer, excluded: excluded), privacy)
                }
                guard try sees(post) || byTag() else { return told + direct }
                return [.post(try present.post(post.id))] + told + direct
            case .postEdited(let e):
                guard let post = try view.post(e.postId), try sees(post) else { return told }
                return [.edited(try present.post(post.id))] + told
            case .postDeleted(let e):
                return try saw(e.postId) ? [.removed(e.postId)] : []
            case .postRemoved(let e):
                return (try saw(e.postId) ? [.removed(e.postId)] : []) + told
            case .postReported(let e):
                // Reports that hide a post take it out of the timelines it showed in (all but
                // its author's); a dismissal brings it back.
                guard let post = try view.post(e.postId), post.author != viewer, try sees(post.author), try !sees(post)
                else { return [] }
                return [.removed(post.id)]
            case .reportsDismissed(let e):
                guard let post = try view.post(e.postId), post.author != viewer, try sees(post)
                else { return [] }
                return [.post(try present.post(post.id))]
            case .postBoosted(let e):
                // A boost shows live where it enters the viewer's home timeline (`homeBoost`:
                // the first way its post came in, the booster's and the post's privacy).
                let excluded = try view.models.lists.exclusiveMembers(of: viewer, view.txn)
                let following = try view.tagFollowing(of: viewer, excluded: excluded)
                guard
                    let boosted = try view.homeBoost(
                        e.boostId, of: viewer, present, excluding: excluded, following: following)
                else {
                    return told
                }
                return [.post(boosted)] + told
            case .boostRemoved(let e):
                // Told where the boost could show (as `homeBoost` lets one in): its booster
                // followed (`stream`), the boost theirs to see, its post not the viewer's own nor
                // a followee's (those never come in by a boost), and still one they may see boosted.
                guard e.authorId != viewer, try !view.follows(viewer, e.authorId), try sees(e.userId),
                    try privacy.mayShow(boostBy: e.userId, isPrivate: e.visibility == .private, on: .stream),
                    let post = try view.post(e.postId), try privacy.mayShow(post: post, on: .boosted)
                else { return told }
                return [.unboosted(boost: e.boostId, author: e.authorId)] + told
            case .unfollowed(let e):
                return e.followerId == viewer ? try removals(of: e.followeeId) : []
            case .muted(let e):
                return e.muterId == viewer ? try removals(of: e.mutedId) : []
            // Every other event shows nothing in an open stream but the activity items it made:
            // a stream adds posts and new activity items and removes posts, and takes back
            // nothing else (a deleted comment or a taken-back like shows on the next read). A new
            // event that should show live needs its arm above, or in `activityItems`.
            default:
                return told
            }
        }
    }

    /// The activity items `envelope` added to `viewer`'s feed, as the feed shows them (none
    /// from an actor the viewer mutes or blocks, none about a post hidden from them): what a
    /// push tells. Read from the read models, so call it once they have applied the event.
    public func activityItems(madeBy envelope: EventEnvelope, for viewer: UserID) throws(TimelineError)
        -> [ActivityItem]
    {
        try read { view in
            try activityItems(madeBy: envelope, for: viewer, view, Presenter(try view.privacy(for: viewer)), on: .push)
        }
    }

    /// `present`'s policy is the viewer's: what the feed leaves out (`ReadView.leftOut`), a
    /// stream or a push leaves out on `surface`.
    private func activityItems(
        madeBy envelope: EventEnvelope, for viewer: UserID, _ view: ReadView,
        _ present: Presenter, on surface: Surface
    ) throws -> [ActivityItem] {
        let activity = view.models.activity
        let leftOut = view.leftOut(present.privacy, on: surface)
        // A mention, a reply or a post one asked to be told of is recorded in the viewer's feed
        // under the event's id.
        func underTheEventsID() throws -> [ActivityItem] {
            let key = (viewer, envelope.id.rawValue)
            guard let record = try activity.activity.get(key, view.txn), try !leftOut(record) else { return [] }
            return [try present.activity(id: key.1, record)]
        }
        switch envelope.event {
        case .postAdded, .postEdited:
            return try underTheEventsID()
        case .postRemoved(let e):
            guard e.authorId == viewer,
                let record = try activity.activity.get(activity.removalKey(of: envelope, author: viewer), view.txn)
            else { return [] }
            return [try present.activity(id: envelope.id.rawValue, record)]
        case .commentAdded, .likeAdded, .postBoosted, .followed, .followRequested, .collectionItemAdded:
            guard let (owner, id, record) = try activity.recorded(by: envelope, view.txn), owner == viewer,
                try !leftOut(record)
            else { return try underTheEventsID() }
            return [try present.activity(id: id, record)]
        default:
            return []
        }
    }

    /// The users whose activity `envelope` may have added to (the post's owner of a comment or
    /// like, the followee, the answered comment's author, the users a text mentions, the
    /// followers of a post's author who asked to be notified of their posts): whom its
    /// live updates need asking about, rather than every user. Read once the read models have
    /// applied the event.
    public func usersNotified(by envelope: EventEnvelope) throws(TimelineError) -> Set<UserID> {
        try read { view in
            let activity = view.models.activity
            var users = Set<UserID>()
            if let (owner, _, _) = try activity.recorded(by: envelope, view.txn) { users.insert(owner) }
            var text: String?
            switch envelope.event {
            case .commentAdded(let e):
                text = e.text
                if let answered = try e.replyTo.flatMap({ try view.comment($0) }) { users.insert(answered.author) }
            case .postAdded(let e):
                text = e.caption
                try view.models.follows.notified.forEachMember(in: e.authorId, view.txn) { users.insert($0) }
            case .postEdited(let e): text = e.caption
            case .postRemoved(let e): users.insert(e.authorId)
            case .conversationRead(let e), .conversationRemoved(let e): users.insert(e.userId)
            default: break
            }
            for name in Validation.mentions(in: text ?? "") {
                if let user = try view.models.profiles.usernames.get(name, view.txn) { users.insert(user) }
            }
            return users
        }
    }
}
