import LMDB
import TimelineDomain

/// Profiles with their counts and roles, the unique username and email indexes, the suspended
/// accounts and the reports against accounts. Emails are kept only as their keyed hash
/// (`hashEmail`, the key store's): the read models never hold one in clear.
struct ProfilesProjection: Projection {
    let name = ProjectionName.profiles
    let users: Table<UserRecords>         // userId → UserRecord
    let usernames: Table<UniqueUserIndex> // username → userId
    let emails: Table<UniqueUserIndex>    // the email's keyed hash → userId
    let suspended: Table<Members<String, UserID>>  // "s" ‖ 0 ‖ userId: the suspended accounts
    let userReports: Table<UserReports>   // reported ‖ 0 ‖ reporter → the standing report
    /// The keyed hash of a (normalised) email.
    let hashEmail: @Sendable (String) -> String
    var databases: [Database] { [users.database, usernames.database, emails.database, suspended.database, userReports.database] }

    init(_ env: Environment, prefix: String, hashEmail: @escaping @Sendable (String) -> String) throws {
        users = try Table(env, prefix + "users")
        usernames = try Table(env, prefix + "usernames")
        emails = try Table(env, prefix + "emails")
        suspended = try Table(env, prefix + "suspendedUsers")
        userReports = try Table(env, prefix + "userReports")
        self.hashEmail = hashEmail
    }

    /// The user holding `email`, if any.
    func userID(email: String, _ txn: Transaction) throws -> UserID? { try emails.get(hashEmail(email), txn) }

    func user(_ id: UserID, _ txn: Transaction) throws -> UserRecord? { try users.get(id, txn) }

    /// The accounts suspended now (few: read whole for a page that must leave them out).
    func suspendedUsers(_ txn: Transaction) throws -> Set<UserID> { Set(try suspended.members(of: "s", txn)) }

    func isSuspended(_ id: UserID, _ txn: Transaction) throws -> Bool { try suspended.contains(("s", id), txn) }

    private func update(_ id: UserID, _ txn: Transaction, _ change: (inout UserRecord) -> Void) throws {
        guard var user = try user(id, txn) else { return }
        change(&user)
        try users.put(id, user, txn)
    }

    /// Moves the user's entry in the email index (freeing the old email) and sets the email.
    private func changeEmail(of user: inout UserRecord, to email: String, _ txn: Transaction) throws {
        if let old = user.emailHash { try emails.delete(old, txn) }
        let hash = hashEmail(email)
        try emails.put(hash, user.id, txn)
        user.emailHash = hash
    }

    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .userCreated(let e):
            let user = UserRecord(id: e.userId, username: e.username, emailHash: e.email.map(hashEmail), passwordHash: e.passwordHash,
                                  bio: e.bio, url: e.url, createdAt: envelope.timestamp)
            try users.put(e.userId, user, txn)
            try usernames.put(e.username, e.userId, txn)
            if let hash = user.emailHash { try emails.put(hash, e.userId, txn) }
        case .profileUpdated(let e):
            guard var user = try user(e.userId, txn) else { return }
            if let name = e.username {
                try usernames.delete(user.username, txn)
                try usernames.put(name, e.userId, txn)
                user.username = name
            }
            if let bio = e.bio { user.bio = bio.isEmpty ? nil : bio }
            if let url = e.url { user.url = url.isEmpty ? nil : url }
            switch e.avatar {
            case nil: break
            case .removed?: user.avatar = nil
            case .set(let avatar)?: user.avatar = avatar
            }
            if let discoverable = e.discoverable { user.discoverable = discoverable }
            if let locked = e.locked { user.locked = locked }
            try users.put(e.userId, user, txn)
        case .postAdded(let e):
            try update(e.authorId, txn) { $0.postCount += 1 }
        case .postDeleted(let e):
            try update(e.authorId, txn) { $0.postCount -= 1 }
        case .postRemoved(let e):
            try update(e.authorId, txn) { $0.postCount -= 1 }
        case .followed(let e):
            try update(e.followerId, txn) { $0.followingCount += 1 }
            try update(e.followeeId, txn) { $0.followerCount += 1 }
        case .unfollowed(let e):
            try update(e.followerId, txn) { $0.followingCount -= 1 }
            try update(e.followeeId, txn) { $0.followerCount -= 1 }
        case .passwordChanged(let e):
            guard var user = try user(e.userId, txn) else { return }
            user.passwordHash = e.passwordHash
            if let email = e.email { try changeEmail(of: &user, to: email, txn) }
            try users.put(e.userId, user, txn)
        case .emailChanged(let e):
            guard var user = try user(e.userId, txn), let email = e.email else { return }
            try changeEmail(of: &user, to: email, txn)
            try users.put(e.userId, user, txn)
        case .roleGranted(let e):
            try update(e.userId, txn) { $0.moderator = true }
        case .roleRevoked(let e):
            try update(e.userId, txn) { $0.moderator = false }
        case .userSuspended(let e):
            try update(e.userId, txn) { $0.suspended = true }
            try suspended.put(("s", e.userId), (), txn)
        case .userUnsuspended(let e):
            try update(e.userId, txn) { $0.suspended = false }
            try suspended.delete(("s", e.userId), txn)
        case .userReported(let e):
            try userReports.put((e.userId, e.reporterId), UserReportRecord(reason: e.reason, posts: e.posts, at: envelope.timestamp), txn)
        case .userReportsDismissed(let e):
            try userReports.deleteAll(in: e.userId, txn)
        case .userErased(let e):
            // The reports against them go; theirs against others go too (their reasons are erased).
            try userReports.deleteAll(in: e.userId, txn)
            var made: [UserID] = []
            try txn.scan(userReports.database, prefix: []) { key, _ in
                if Key.split(key).1 == e.userId.rawValue { made.append(UserID(Key.split(key).0)) }
                return true
            }
            for reported in made { try userReports.delete((reported, e.userId), txn) }
            try suspended.delete(("s", e.userId), txn)
            guard let user = try user(e.userId, txn) else { return }
            try users.delete(e.userId, txn)
            try usernames.delete(user.username, txn)
            if let hash = user.emailHash { try emails.delete(hash, txn) }
        case .signedIn, .signedOut, .signedOutEverywhere, .signInFailed, .postPlaced, .postImageProcessed, .commentAdded,
             .commentDeleted, .likeAdded, .likeRemoved, .postReported, .reportsDismissed,
             .passwordResetRequested, .bookmarked, .unbookmarked, .blocked, .unblocked, .muted, .unmuted, .activityRead, .postEdited, .postMarkedSensitive,
             .followRequested, .followRequestRejected, .followRequestWithdrawn, .postNotificationsOn, .postNotificationsOff, .mediaUploaded, .mediaUpdated, .mediaDeleted,
             .appRegistered, .appAuthorized, .appTokenIssued, .activityDismissed, .pushSubscribed, .pushUnsubscribed: break
        }
    }
}

/// A report against an account, as the read models keep it.
struct UserReportRecord: Equatable, Sendable {
    var reason: String
    var posts: [PostID]
    /// When it was made (ms since 1970).
    var at: Int64
}

/// `reported ‖ 0 ‖ reporter` → the standing report (dismissed ones are deleted: their reporters may report again).
enum UserReports: GroupedLayout {
    typealias Group = UserID
    typealias Member = UserID
    static func encode(_ report: UserReportRecord) -> [UInt8] {
        var w = ByteWriter()
        w.string(report.reason); w.strings(report.posts.map(\.rawValue)); w.int64(report.at)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> UserReportRecord {
        var r = ByteReader(bytes)
        return UserReportRecord(reason: try r.string(), posts: try r.strings().map(PostID.init), at: try r.int64())
    }
}
