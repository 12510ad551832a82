import Foundation
import JSONModel

// Signing up and erasure: `createUser` records `UserCreated`; `eraseUser` undoes everything
// the user did, as events of their own, then records `UserErased`.

/// The payload of `UserCreated`. Version 2 seals the personal fields (email, password hash,
/// bio, url) with the user's key; version 1 held them in clear.
public struct UserCreated: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// The username (normalised).
    public var username: String
    /// Lowercased; `nil` for imported accounts without an email.
    public var email: String?
    /// argon2id string; `nil` for accounts that must set a password first.
    public var passwordHash: String?
    /// The bio ("" clears it).
    public var bio: String?
    /// The url ("" clears it).
    public var url: String?
    /// A `UserCreated` payload.
    public init(
        userId: UserID, username: String, email: String?, passwordHash: String?, bio: String? = nil, url: String? = nil
    ) {
        self.userId = userId
        self.username = username
        self.email = email
        self.passwordHash = passwordHash
        self.bio = bio
        self.url = url
    }
}

extension UserCreated: EventPayload {
    /// New `UserCreated` events are written at version 2.
    package static var currentVersion: UInt8 { 2 }
    /// Version 1 of `UserCreated` held its personal fields in clear (version 2 seals them).
    package static var legacyPlainV1: Bool { true }
    /// The aggregate `UserCreated` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `UserCreated` payload names: `userId`.
    package var users: [UserID] { [userId] }

    /// Writes an `UserCreated` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(username)
        try sealer.seal(userId, into: &w) {
            $0.optionalString(email)
            $0.optionalString(passwordHash)
            $0.optionalString(bio)
            $0.optionalString(url)
        }
    }

    /// Reads a stored `UserCreated` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let id = UserID(try r.string()), username = try r.string()
        let personal = try opener.personal(id, from: &r) {
            (
                email: try $0.optionalString(), hash: try $0.optionalString(), bio: try $0.optionalString(),
                url: try $0.optionalString()
            )
        }
        self.init(
            userId: id, username: username, email: personal?.email, passwordHash: personal?.hash, bio: personal?.bio,
            url: personal?.url)
    }

    /// A one-line human summary of an `UserCreated` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String { "\(name(userId)) signed up" }

    /// The password hash is left out once the user is erased.
    package static var erasedMembers: [String] { ["passwordHash"] }

    /// The JSON form: the fields as they are, but the password hash always `Event.redacted`
    /// (or null when there is none).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userId, forKey: .userId)
        try c.encode(username, forKey: .username)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encode(Nullable(passwordHash.map { _ in Event.redacted }), forKey: .passwordHash)
        try c.encodeIfPresent(bio, forKey: .bio)
        try c.encodeIfPresent(url, forKey: .url)
    }
}

/// A user's personal data was erased: the key that sealed it is destroyed.
public struct UserErased: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// A `UserErased` payload.
    public init(userId: UserID) { self.userId = userId }
}

extension UserErased: EventPayload {
    /// The aggregate `UserErased` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `UserErased` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes an `UserErased` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws { w.string(userId.rawValue) }
    /// Reads a stored `UserErased` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()))
    }
    /// A one-line human summary of an `UserErased` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String { "\(name(userId)) was erased" }
}

extension Decider {
    /// The normalised fields of a new user, or why `createUser` fails.
    func newUser(username: String, email: String, password: String, bio: String?, url: String?) throws
        -> (username: String, email: String, bio: String?, url: String?)
    {
        let username = try Validation.username(username)
        let email = try Validation.email(email)
        try Validation.password(password)
        let bio = try bio.map(Validation.bio).flatMap(nonEmpty)
        let url = try url.map(Validation.url).flatMap(nonEmpty)
        guard try state.userID(username: username) == nil else {
            throw TimelineError(.usernameTaken, "username \(username) is taken", field: "username")
        }
        guard try state.userID(email: email) == nil else {
            throw TimelineError(.emailTaken, "email is already registered", field: "email")
        }
        return (username, email, bio, url)
    }

    func createUser(username: String, email: String, password: String, bio: String?, url: String?) throws -> Decision {
        let (username, email, bio, url) = try newUser(
            username: username, email: email, password: password, bio: bio, url: url)
        guard let hash = context.prepared.passwordHash else {
            throw TimelineError(.internal, "password was not hashed")
        }
        let id = UserID(context.newID())
        let event = UserCreated(userId: id, username: username, email: email, passwordHash: hash, bio: bio, url: url)
        return Decision(events: [.userCreated(event)], outcome: .success(.user(id)), actor: id)
    }

    /// Undoes everything the user did (so every count and timeline stays right), then records
    /// the erasure; the service destroys their key once it is committed. By the user themself,
    /// with their current password (checked like `changePassword`'s), or an operator.
    func eraseUser(_ raw: String, password: String?, actor: Actor) throws -> Decision {
        let target: UserID = try Validation.identifier(raw, field: "user")
        if actor != .operator {
            let me = try resolve(actor)
            guard me.id == target else { throw TimelineError(.forbidden, "a user can only erase themself") }
            guard password != nil else {
                throw TimelineError.invalid("password", "erasing your account needs your current password")
            }
            if let failure = try checkPassword(of: me) { return failure }
        }
        guard try state.user(target) != nil else { throw TimelineError.notFound("user", target.rawValue) }
        let footprint = try state.footprint(of: target)
        var events: [Event] = []
        events += footprint.blocking.map { .unblocked(Block(blockerId: target, blockedId: $0)) }
        events += footprint.blockedBy.map { .unblocked(Block(blockerId: $0, blockedId: target)) }
        events += footprint.muting.map { .unmuted(Unmute(muterId: target, mutedId: $0)) }
        events += footprint.mutedBy.map { .unmuted(Unmute(muterId: $0, mutedId: target)) }
        events += footprint.bookmarks.map { .unbookmarked(Bookmark(postId: $0, userId: target)) }
        events += footprint.comments.map { .commentDeleted(CommentDeleted(commentId: $0.id, postId: $0.post)) }
        events += footprint.likes.map { .likeRemoved(Like(postId: $0, userId: target)) }
        events += try state.boosts(by: target).map { .boostRemoved($0.payload) }
        events += footprint.posts.map { .postDeleted(PostDeleted(postId: $0, authorId: target)) }
        events += footprint.unattachedMedia.map { .mediaDeleted(MediaDeleted(mediaId: $0, uploaderId: target)) }
        events += footprint.following.map { .unfollowed(Follow(followerId: target, followeeId: $0)) }
        events += footprint.followers.map { .unfollowed(Follow(followerId: $0, followeeId: target)) }
        events += footprint.requested.map { .followRequestWithdrawn(Follow(followerId: target, followeeId: $0)) }
        events += footprint.requestedBy.map { .followRequestWithdrawn(Follow(followerId: $0, followeeId: target)) }
        events.append(.userErased(UserErased(userId: target)))
        return Decision(events: events, outcome: .success(.done), actor: actor == .operator ? nil : target)
    }
}

// MARK: - Commands

/// `createUser`: signs up: a new user with a unique username and email (answers the profile).
package struct CreateUserCommand: CommandDefinition {
    /// The command's public name, `createUser`.
    package static let name = "createUser"
    /// The `needsActor` field.
    package static let needsActor = false
    /// The `username` field.
    package let username: String
    /// The `email` field.
    package let email: String
    /// The `password` field.
    package let password: String
    /// The `bio` field.
    package let bio: String?
    /// The `url` field.
    package let url: String?

    /// A `createUser` command with these fields.
    package init(username: String, email: String, password: String, bio: String?, url: String?) {
        self.username = username
        self.email = email
        self.password = password
        self.bio = bio
        self.url = url
    }

    /// Reads `createUser`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        username = try fields.string("username")
        email = try fields.string("email")
        password = try fields.string("password")
        bio = try fields.optionalString("bio")
        url = try fields.optionalString("url")
    }

    /// Writes `createUser`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("username", username)
        fields.set("email", email)
        fields.set("password", password)
        fields.set("bio", bio)
        fields.set("url", url)
    }

    /// Decides `createUser` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.createUser(username: username, email: email, password: password, bio: bio, url: url)
    }

    /// Checks what deciding `createUser` will check, before argon2id is spent on it.
    package func precheck<State: DecisionState>(_ decider: Decider<State>) throws {
        _ = try decider.newUser(username: username, email: email, password: password, bio: bio, url: url)
    }
}

extension Command {
    /// Signs up: a new user with a unique username and email (answers the profile).
    public static func createUser(username: String, email: String, password: String, bio: String?, url: String?)
        -> Command
    { Command(CreateUserCommand(username: username, email: email, password: password, bio: bio, url: url)) }
}

/// `eraseUser`: erases a user: their posts, comments, likes and follows are removed and their personal data made unrecoverable. By the user themself, giving their current `password` (a stolen session is not the account), or by an operator (no password).
package struct EraseUserCommand: CommandDefinition {
    /// The command's public name, `eraseUser`.
    package static let name = "eraseUser"
    /// The `user` field.
    package let user: String
    /// The `password` field.
    package let password: String?

    /// A `eraseUser` command with these fields.
    package init(user: String, password: String?) {
        self.user = user
        self.password = password
    }

    /// Reads `eraseUser`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        user = try fields.string("user")
        password = try fields.optionalString("password")
    }

    /// Writes `eraseUser`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("user", user)
        fields.set("password", password)
    }

    /// Decides `eraseUser` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.eraseUser(user, password: password, actor: actor)
    }
}

extension Command {
    /// Erases a user: their posts, comments, likes and follows are removed and their personal data made unrecoverable. By the user themself, giving their current `password` (a stolen session is not the account), or by an operator (no password).
    public static func eraseUser(user: String, password: String? = nil) -> Command {
        Command(EraseUserCommand(user: user, password: password))
    }
}

// MARK: - JSON Schemas of the payloads

extension UserCreated {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "Version 2 stores the personal fields sealed with the owner's key; in JSON they appear in clear, or are "
        + "absent once the owner is erased (the envelope then has \"erased\": true)."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "passwordHash": "Always redacted in JSON."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "username": JSONSchema.string(pattern: "^[a-z0-9._]{1,30}$"),
        "email": JSONSchema.string.with("maxLength", 254),
        "passwordHash": JSONSchema(["anyOf": [JSONSchema.constant(.string(Event.redacted)).json, JSONSchema.null.json]]
        ),
        "bio": JSONSchema.string.with("maxLength", 150),
        "url": JSONSchema.string.with("maxLength", 2048)
    ]
}

// MARK: - JSON Schemas of the commands

extension EraseUserCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "password": "The user's current password: required when a user erases themself (an operator gives none)."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "user": .identifier
    ]
}
