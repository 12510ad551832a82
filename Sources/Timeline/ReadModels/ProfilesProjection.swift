import LMDB
import TimelineDomain

/// Profiles with their counts, and the unique username and email indexes.
struct ProfilesProjection: Projection {
    let name = ProjectionName.profiles
    let users: Database       // userId → UserRecord
    let usernames: Database   // username → userId
    let emails: Database      // email → userId
    var databases: [Database] { [users, usernames, emails] }

    init(_ env: Environment, prefix: String) throws {
        users = try env.database(prefix + "users", placement: .derived)
        usernames = try env.database(prefix + "usernames", placement: .derived)
        emails = try env.database(prefix + "emails", placement: .derived)
    }

    func user(_ id: UserID, _ txn: Transaction) throws -> UserRecord? {
        try txn.get(users, Array(id.rawValue.utf8)).map(RecordCodec.user)
    }

    private func update(_ id: UserID, _ txn: Transaction, _ change: (inout UserRecord) -> Void) throws {
        guard var user = try user(id, txn) else { return }
        change(&user)
        try txn.put(users, Array(id.rawValue.utf8), RecordCodec.encode(user))
    }

    /// Moves the user's entry in the email index (freeing the old email) and sets the email.
    private func changeEmail(of user: inout UserRecord, to email: String, _ txn: Transaction) throws {
        if let old = user.email { try txn.delete(emails, Array(old.utf8)) }
        try txn.put(emails, Array(email.utf8), Array(user.id.rawValue.utf8))
        user.email = email
    }

    func apply(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .userCreated(let e):
            let user = UserRecord(id: e.userId, username: e.username, email: e.email, passwordHash: e.passwordHash,
                                  bio: e.bio, url: e.url, createdAt: envelope.timestamp)
            try txn.put(users, Array(e.userId.rawValue.utf8), RecordCodec.encode(user))
            try txn.put(usernames, Array(e.username.utf8), Array(e.userId.rawValue.utf8))
            if let email = e.email { try txn.put(emails, Array(email.utf8), Array(e.userId.rawValue.utf8)) }
        case .profileUpdated(let e):
            guard var user = try user(e.userId, txn) else { return }
            if let name = e.username {
                try txn.delete(usernames, Array(user.username.utf8))
                try txn.put(usernames, Array(name.utf8), Array(e.userId.rawValue.utf8))
                user.username = name
            }
            if let bio = e.bio { user.bio = bio.isEmpty ? nil : bio }
            if let url = e.url { user.url = url.isEmpty ? nil : url }
            try txn.put(users, Array(e.userId.rawValue.utf8), RecordCodec.encode(user))
        case .postAdded(let e):
            try update(e.authorId, txn) { $0.postCount += 1 }
        case .postDeleted(let e):
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
            try txn.put(users, Array(e.userId.rawValue.utf8), RecordCodec.encode(user))
        case .emailChanged(let e):
            guard var user = try user(e.userId, txn), let email = e.email else { return }
            try changeEmail(of: &user, to: email, txn)
            try txn.put(users, Array(e.userId.rawValue.utf8), RecordCodec.encode(user))
        case .userErased(let e):
            guard let user = try user(e.userId, txn) else { return }
            try txn.delete(users, Array(e.userId.rawValue.utf8))
            try txn.delete(usernames, Array(user.username.utf8))
            if let email = user.email { try txn.delete(emails, Array(email.utf8)) }
        case .signedIn, .signedOut, .signInFailed, .commentAdded, .commentDeleted, .likeAdded, .likeRemoved, .postReported,
             .passwordResetRequested:
            break
        }
    }
}
