import LMDB
import TimelineDomain

/// Profiles with their counts, and the unique username and email indexes. Emails are kept only
/// as their keyed hash (`hashEmail`, the key store's): the read models never hold one in clear.
struct ProfilesProjection: Projection {
    let name = ProjectionName.profiles
    let users: Table<UserRecords>         // userId → UserRecord
    let usernames: Table<UniqueUserIndex> // username → userId
    let emails: Table<UniqueUserIndex>    // the email's keyed hash → userId
    /// The keyed hash of a (normalised) email.
    let hashEmail: @Sendable (String) -> String
    var databases: [Database] { [users.database, usernames.database, emails.database] }

    init(_ env: Environment, prefix: String, hashEmail: @escaping @Sendable (String) -> String) throws {
        users = try Table(env, prefix + "users")
        usernames = try Table(env, prefix + "usernames")
        emails = try Table(env, prefix + "emails")
        self.hashEmail = hashEmail
    }

    /// The user holding `email`, if any.
    func userID(email: String, _ txn: Transaction) throws -> UserID? { try emails.get(hashEmail(email), txn) }

    func user(_ id: UserID, _ txn: Transaction) throws -> UserRecord? { try users.get(id, txn) }

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
        case .userErased(let e):
            guard let user = try user(e.userId, txn) else { return }
            try users.delete(e.userId, txn)
            try usernames.delete(user.username, txn)
            if let hash = user.emailHash { try emails.delete(hash, txn) }
        case .signedIn, .signedOut, .signedOutEverywhere, .signInFailed, .postPlaced, .postImageProcessed, .commentAdded,
             .commentDeleted, .likeAdded, .likeRemoved, .postReported, .reportsDismissed,
             .passwordResetRequested, .bookmarked, .unbookmarked, .blocked, .unblocked, .muted, .unmuted, .activityRead, .postEdited, .postMarkedSensitive,
             .followRequested, .followRequestRejected, .followRequestWithdrawn, .mediaUploaded, .mediaUpdated, .mediaDeleted: break
        }
    }
}
