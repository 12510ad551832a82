import LMDB
import TimelineDomain

/// Profiles with their counts and roles, the unique username and email indexes, the suspended
/// accounts and the reports against accounts. Emails are kept only as their keyed hash
/// (`hashEmail`, the key store's): the read models never hold one in clear.
struct ProfilesProjection: Projection {
    let name = ProjectionName.profiles
    let users: Table<UserRecords>  // userId → UserRecord
    let usernames: Table<UniqueUserIndex>  // username → userId
    let emails: Table<UniqueUserIndex>  // the email's keyed hash → userId
    let suspended: Table<Members<String, UserID>>  // "s" ‖ 0 ‖ userId: the suspended accounts
    let userReports: Table<UserReports>  // reported ‖ 0 ‖ reporter → the standing report
    /// The keyed hash of a (normalised) email.
    let hashEmail: @Sendable (String) -> String
    var databases: [Database] {
        [users.database, usernames.database, emails.database, suspended.database, userReports.database]
    }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String, hashEmail: @escaping @Sendable (String) -> String) throws {
        users = try Table(env, prefix + "users")
        usernames = try Table(env, prefix + "usernames")
        emails = try Table(env, prefix + "emails")
        suspended = try Table(env, prefix + "suspendedUsers")
        userReports = try Table(env, prefix + "userReports")
        self.hashEmail = hashEmail
        handlers = Self.handlers(of: self)
    }

    /// The user holding `email`, if any.
    func userID(email: String, _ txn: Transaction) throws -> UserID? { try emails.get(hashEmail(email), txn) }

    func user(_ id: UserID, _ txn: Transaction) throws -> UserRecord? { try users.get(id, txn) }

    /// The accounts suspended now (few: read whole for a page that must leave them out).
    func suspendedUsers(_ txn: Transaction) throws -> Set<UserID> { Set(try suspended.members(of: "s", txn)) }

    func isSuspended(_ id: UserID, _ txn: Transaction) throws -> Bool { try suspended.contains(("s", id), txn) }

    /// `id`'s username, read from their record in place (`nil`: no such user).
    func username(_ id: UserID, _ txn: Transaction) throws -> String? {
        try txn.withValue(users.database, UserRecords.key(id)) { try RecordCodec.username($0) }
    }

    /// Whether `id`'s account is locked, read from their record in place.
    func isLocked(_ id: UserID, _ txn: Transaction) throws -> Bool {
        try txn.withValue(users.database, UserRecords.key(id)) { try RecordCodec.userIsLocked($0) } ?? false
    }

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

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.userCreated) { (e: UserCreated, envelope, txn) in
            let user = UserRecord(
                id: e.userId, username: e.username, emailHash: e.email.map(projection.hashEmail),
                passwordHash: e.passwordHash, bio: e.bio, url: e.url, createdAt: envelope.timestamp)
            try projection.users.put(e.userId, user, txn)
            try projection.usernames.put(e.username, e.userId, txn)
            if let hash = user.emailHash { try projection.emails.put(hash, e.userId, txn) }
        }
        // A remote account is an account here: its handle is its username (a local name has no `@`).
        handlers.on(.remoteAccountSeen) { (e: RemoteAccountSeen, envelope, txn) in
            var user =
                try projection.user(e.userId, txn)
                ?? UserRecord(
                    id: e.userId, username: e.username, emailHash: nil, passwordHash: nil, bio: nil, url: nil,
                    createdAt: envelope.timestamp)
            if user.username != e.username { try projection.usernames.delete(user.username, txn) }
            user.username = e.username
            user.locked = e.locked
            try projection.users.put(e.userId, user, txn)
            try projection.usernames.put(e.username, e.userId, txn)
        }
        handlers.on(.profileUpdated) { (e: ProfileUpdated, _, txn) in
            guard var user = try projection.user(e.userId, txn) else { return }
            if let name = e.username {
                try projection.usernames.delete(user.username, txn)
                try projection.usernames.put(name, e.userId, txn)
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
            switch e.header {
            case nil: break
            case .removed?: user.header = nil
            case .set(let header)?: user.header = header
            }
            try projection.users.put(e.userId, user, txn)
        }
        handlers.on(.postAdded) { (e: PostAdded, _, txn) in
            try projection.update(e.authorId, txn) { $0.postCount += 1 }
        }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in
            try projection.update(e.authorId, txn) { $0.postCount -= 1 }
        }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in
            try projection.update(e.authorId, txn) { $0.postCount -= 1 }
        }
        handlers.on(.followed) { (e: Follow, _, txn) in
            try projection.update(e.followerId, txn) { $0.followingCount += 1 }
            try projection.update(e.followeeId, txn) { $0.followerCount += 1 }
        }
        handlers.on(.unfollowed) { (e: Follow, _, txn) in
            try projection.update(e.followerId, txn) { $0.followingCount -= 1 }
            try projection.update(e.followeeId, txn) { $0.followerCount -= 1 }
        }
        handlers.on(.passwordChanged) { (e: PasswordChanged, _, txn) in
            guard var user = try projection.user(e.userId, txn) else { return }
            user.passwordHash = e.passwordHash
            if let email = e.email { try projection.changeEmail(of: &user, to: email, txn) }
            try projection.users.put(e.userId, user, txn)
        }
        handlers.on(.emailChanged) { (e: EmailChanged, _, txn) in
            guard var user = try projection.user(e.userId, txn), let email = e.email else { return }
            try projection.changeEmail(of: &user, to: email, txn)
            try projection.users.put(e.userId, user, txn)
        }
        handlers.on(.roleGranted) { (e: RoleChange, _, txn) in
            try projection.update(e.userId, txn) { $0.moderator = true }
        }
        handlers.on(.roleRevoked) { (e: RoleChange, _, txn) in
            try projection.update(e.userId, txn) { $0.moderator = false }
        }
        handlers.on(.userSuspended) { (e: AccountDecision, _, txn) in
            try projection.update(e.userId, txn) { $0.suspended = true }
            try projection.suspended.put(("s", e.userId), (), txn)
        }
        handlers.on(.userUnsuspended) { (e: AccountDecision, _, txn) in
            try projection.update(e.userId, txn) { $0.suspended = false }
            try projection.suspended.delete(("s", e.userId), txn)
        }
        handlers.on(.userReported) { (e: UserReported, envelope, txn) in
            let report = UserReportRecord(reason: e.reason, posts: e.posts, at: envelope.timestamp)
            try projection.userReports.put((e.userId, e.reporterId), report, txn)
        }
        handlers.on(.userReportsDismissed) { (e: AccountDecision, _, txn) in
            try projection.userReports.deleteAll(in: e.userId, txn)
        }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            // The reports against them go; theirs against others go too (their reasons are erased).
            try projection.userReports.deleteAll(in: e.userId, txn)
            var made: [UserID] = []
            try txn.scan(projection.userReports.database, prefix: []) { key, _ in
                if Key.split(key).1 == e.userId.rawValue { made.append(UserID(Key.split(key).0)) }
                return true
            }
            for reported in made { try projection.userReports.delete((reported, e.userId), txn) }
            try projection.suspended.delete(("s", e.userId), txn)
            guard let user = try projection.user(e.userId, txn) else { return }
            try projection.users.delete(e.userId, txn)
            try projection.usernames.delete(user.username, txn)
            if let hash = user.emailHash { try projection.emails.delete(hash, txn) }
        }
        return handlers
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
        w.string(report.reason)
        w.strings(report.posts.map(\.rawValue))
        w.int64(report.at)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> UserReportRecord {
        var r = ByteReader(bytes)
        return UserReportRecord(reason: try r.string(), posts: try r.strings().map(PostID.init), at: try r.int64())
    }
}
