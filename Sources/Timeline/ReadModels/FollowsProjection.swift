import LMDB
import TimelineDomain

/// The follow graph in both directions, each side also in follow order (newest first); pending
/// follow requests, blocks and mutes likewise; and who is notified of whose posts.
struct FollowsProjection: Projection {
    let name = ProjectionName.follows
    let followers: Table<TimedUserEdges>  // followee ‖ 0 ‖ follower → the follow's cursor
    let following: Table<TimedUserEdges>  // follower ‖ 0 ‖ followee → the follow's cursor
    let followersInOrder: Table<UserEdgeOrder>  // followee ‖ 0 ‖ cursor → follower
    let followingInOrder: Table<UserEdgeOrder>  // follower ‖ 0 ‖ cursor → followee
    let blocking: Table<TimedUserEdges>  // blocker ‖ 0 ‖ blocked → the block's cursor
    let blockedBy: Table<TimedUserEdges>  // blocked ‖ 0 ‖ blocker → the block's cursor
    let blockingInOrder: Table<UserEdgeOrder>  // blocker ‖ 0 ‖ cursor → blocked
    let muting: Table<MuteEdges>  // muter ‖ 0 ‖ muted → the mute's cursor and end
    let mutedBy: Table<TimedUserEdges>  // muted ‖ 0 ‖ muter → the mute's cursor
    let mutingInOrder: Table<UserEdgeOrder>  // muter ‖ 0 ‖ cursor → muted
    let requests: Table<TimedUserEdges>  // followee ‖ 0 ‖ follower → the request's cursor
    let requested: Table<TimedUserEdges>  // follower ‖ 0 ‖ followee → the request's cursor
    let requestsInOrder: Table<UserEdgeOrder>  // followee ‖ 0 ‖ cursor → follower
    let notified: Table<Members<UserID, UserID>>  // followee ‖ 0 ‖ follower: told of each post
    var databases: [Database] {
        [
            followers.database, following.database, followersInOrder.database, followingInOrder.database,
            blocking.database, blockedBy.database, blockingInOrder.database, muting.database, mutedBy.database,
            mutingInOrder.database,
            requests.database, requested.database, requestsInOrder.database, notified.database
        ]
    }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        followers = try Table(env, prefix + "followers")
        following = try Table(env, prefix + "following")
        followersInOrder = try Table(env, prefix + "followersInOrder")
        followingInOrder = try Table(env, prefix + "followingInOrder")
        blocking = try Table(env, prefix + "blocking")
        blockedBy = try Table(env, prefix + "blockedBy")
        blockingInOrder = try Table(env, prefix + "blockingInOrder")
        muting = try Table(env, prefix + "muting")
        mutedBy = try Table(env, prefix + "mutedBy")
        mutingInOrder = try Table(env, prefix + "mutingInOrder")
        requests = try Table(env, prefix + "followRequests")
        requested = try Table(env, prefix + "followRequested")
        requestsInOrder = try Table(env, prefix + "followRequestsInOrder")
        notified = try Table(env, prefix + "postNotifications")
        handlers = Self.handlers(of: self)
    }

    /// Whether `follower` awaits `followee`'s answer to their request.
    func requestPending(_ follower: UserID, _ followee: UserID, _ txn: Transaction) throws -> Bool {
        try requests.contains((followee, follower), txn)
    }

    /// Forgets the request `follower → followee` (answered or withdrawn; nothing if absent).
    private func removeRequest(_ follower: UserID, _ followee: UserID, _ txn: Transaction) throws {
        if let cursor = try requests.get((followee, follower), txn) {
            try requestsInOrder.delete((followee, cursor), txn)
        }
        try requests.delete((followee, follower), txn)
        try requested.delete((follower, followee), txn)
    }

    /// Whether `follower` asked to be notified of `followee`'s posts.
    func notifies(_ follower: UserID, _ followee: UserID, _ txn: Transaction) throws -> Bool {
        try notified.contains((followee, follower), txn)
    }

    /// `muter`'s mute of `muted`, ended or not.
    func mute(_ muter: UserID, _ muted: UserID, _ txn: Transaction) throws -> MuteRecord? {
        try muting.get((muter, muted), txn).map { MuteRecord(until: $0.until) }
    }

    /// The users `muter` mutes at `now` (ended mutes left out).
    func activeMutes(of muter: UserID, at now: Int64, _ txn: Transaction) throws -> Set<UserID> {
        var muted = Set<UserID>()
        try muting.forEach(in: muter, txn) { user, entry in
            if MuteRecord(until: entry.until).isActive(at: now) { muted.insert(user) }
            return true
        }
        return muted
    }

    private func removeMute(_ muter: UserID, _ muted: UserID, _ txn: Transaction) throws {
        if let entry = try muting.get((muter, muted), txn) { try mutingInOrder.delete((muter, entry.cursor), txn) }
        try muting.delete((muter, muted), txn)
        try mutedBy.delete((muted, muter), txn)
    }

    func follows(_ follower: UserID, _ followee: UserID, _ txn: Transaction) throws -> Bool {
        try following.contains((follower, followee), txn)
    }

    func blocks(_ blocker: UserID, _ blocked: UserID, _ txn: Transaction) throws -> Bool {
        try blocking.contains((blocker, blocked), txn)
    }

    /// Whether one of `a` and `b` blocks the other.
    func blockedEitherWay(_ a: UserID, _ b: UserID, _ txn: Transaction) throws -> Bool {
        try blocks(a, b, txn) || blocks(b, a, txn)
    }

    /// The users `user` blocks or is blocked by, when they are at most `limit` (`nil`: more, to
    /// be asked one by one): read once for a page that meets many strangers' posts.
    func blockedEitherWay(of user: UserID, atMost limit: Int, _ txn: Transaction) throws -> Set<UserID>? {
        var users = Set<UserID>()
        for table in [blocking, blockedBy] {
            try table.forEach(in: user, txn) { other, _ in
                users.insert(other)
                return users.count <= limit
            }
            if users.count > limit { return nil }
        }
        return users
    }

    private func removeBlock(_ blocker: UserID, _ blocked: UserID, _ txn: Transaction) throws {
        if let cursor = try blocking.get((blocker, blocked), txn) { try blockingInOrder.delete((blocker, cursor), txn) }
        try blocking.delete((blocker, blocked), txn)
        try blockedBy.delete((blocked, blocker), txn)
    }

    /// Calls `body` with each follower of `user`.
    func forEachFollower(of user: UserID, _ txn: Transaction, _ body: (UserID) throws -> Void) throws {
        try followers.forEachMember(in: user, txn, body)
    }

    /// Removes the edge `follower → followee` from all four tables (nothing if absent).
    private func removeEdge(_ follower: UserID, _ followee: UserID, _ txn: Transaction) throws {
        if let cursor = try following.get((follower, followee), txn), !cursor.isEmpty {
            try followingInOrder.delete((follower, cursor), txn)
            try followersInOrder.delete((followee, cursor), txn)
        }
        try followers.delete((followee, follower), txn)
        try following.delete((follower, followee), txn)
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.followed) { (e: Follow, envelope, txn) in
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.removeRequest(e.followerId, e.followeeId, txn)
            try projection.removeEdge(e.followerId, e.followeeId, txn)
            try projection.followers.put((e.followeeId, e.followerId), cursor, txn)
            try projection.following.put((e.followerId, e.followeeId), cursor, txn)
            try projection.followersInOrder.put((e.followeeId, cursor), e.followerId, txn)
            try projection.followingInOrder.put((e.followerId, cursor), e.followeeId, txn)
        }
        handlers.on(.unfollowed) { (e: Follow, _, txn) in
            try projection.removeEdge(e.followerId, e.followeeId, txn)
            try projection.notified.delete((e.followeeId, e.followerId), txn)
        }
        handlers.on(.postNotificationsOn) { (e: Follow, _, txn) in
            try projection.notified.put((e.followeeId, e.followerId), (), txn)
        }
        handlers.on(.postNotificationsOff) { (e: Follow, _, txn) in
            try projection.notified.delete((e.followeeId, e.followerId), txn)
        }
        handlers.on(.blocked) { (e: Block, envelope, txn) in
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.removeBlock(e.blockerId, e.blockedId, txn)
            try projection.blocking.put((e.blockerId, e.blockedId), cursor, txn)
            try projection.blockedBy.put((e.blockedId, e.blockerId), cursor, txn)
            try projection.blockingInOrder.put((e.blockerId, cursor), e.blockedId, txn)
        }
        handlers.on(.unblocked) { (e: Block, _, txn) in try projection.removeBlock(e.blockerId, e.blockedId, txn) }
        handlers.on(.muted) { (e: Mute, envelope, txn) in
            // Muting again sets a new end, and moves the mute to the front of the list.
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.removeMute(e.muterId, e.mutedId, txn)
            try projection.muting.put((e.muterId, e.mutedId), (cursor, e.until), txn)
            try projection.mutedBy.put((e.mutedId, e.muterId), cursor, txn)
            try projection.mutingInOrder.put((e.muterId, cursor), e.mutedId, txn)
        }
        handlers.on(.unmuted) { (e: Unmute, _, txn) in try projection.removeMute(e.muterId, e.mutedId, txn) }
        handlers.on(.followRequested) { (e: Follow, envelope, txn) in
            let cursor = Key.sequenceCursor(envelope.sequence)
            try projection.removeRequest(e.followerId, e.followeeId, txn)
            try projection.requests.put((e.followeeId, e.followerId), cursor, txn)
            try projection.requested.put((e.followerId, e.followeeId), cursor, txn)
            try projection.requestsInOrder.put((e.followeeId, cursor), e.followerId, txn)
        }
        handlers.on(.followRequestRejected, .followRequestWithdrawn) { (e: Follow, _, txn) in
            try projection.removeRequest(e.followerId, e.followeeId, txn)
            try projection.notified.delete((e.followeeId, e.followerId), txn)
        }
        return handlers
    }
}
