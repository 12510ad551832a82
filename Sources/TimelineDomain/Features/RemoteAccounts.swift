import Foundation
import JSONModel

// Remote accounts (#43): an actor of another server that acts here (follows a local user,
// likes a post) becomes an account of this server's, with a local id and the handle
// `name@host` as its username, so that every command, projection and privacy rule works for
// it as for a local one: a remote follower is a follower. `recordRemoteAccount` (the operator's:
// the inbox runs it with what it fetched from the actor's server) records `RemoteAccountSeen`
// the first time, and again when the actor's key, inbox or name changed. A remote account has
// no email and no password: nobody signs in as it.

/// What this server knows of another server's actor, as `RemoteAccountSeen` records it.
public struct RemoteAccountSeen: Equatable, Sendable {
    /// The account's local id (made the first time the actor is seen).
    public var userId: UserID
    /// The actor's id (its URL on its server).
    public var actor: String
    /// Its handle, `name@host`, lower case: the account's username here.
    public var username: String
    /// Where activities for it are delivered.
    public var inbox: String
    /// Its server's shared inbox, if it has one (one delivery per server).
    public var sharedInbox: String?
    /// The id of its public key (`…#main-key`), which signs its requests.
    public var keyId: String
    /// Its public key, PEM.
    public var publicKey: String
    /// Whether it approves its followers (`manuallyApprovesFollowers`).
    public var locked: Bool
    /// A `RemoteAccountSeen` payload.
    public init(
        userId: UserID, actor: String, username: String, inbox: String, sharedInbox: String?, keyId: String,
        publicKey: String, locked: Bool
    ) {
        self.userId = userId
        self.actor = actor
        self.username = username
        self.inbox = inbox
        self.sharedInbox = sharedInbox
        self.keyId = keyId
        self.publicKey = publicKey
        self.locked = locked
    }
}

extension RemoteAccountSeen: EventPayload {
    /// The aggregate `RemoteAccountSeen` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `RemoteAccountSeen` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `RemoteAccountSeen` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(actor)
        w.string(username)
        w.string(inbox)
        w.optionalString(sharedInbox)
        w.string(keyId)
        w.string(publicKey)
        w.u8(locked ? 1 : 0)
    }
    /// Reads a stored `RemoteAccountSeen` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(
            userId: UserID(try r.string()), actor: try r.string(), username: try r.string(), inbox: try r.string(),
            sharedInbox: try r.optionalString(), keyId: try r.string(), publicKey: try r.string(),
            locked: try r.u8() == 1)
    }
    /// A one-line human summary of a `RemoteAccountSeen` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the remote account \(username) (\(actor)) was seen"
    }
}

extension RemoteAccountSeen {
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "actor": "The actor's id: its URL on its own server.",
        "username": "Its handle, name@host, lower case: its username here.",
        "inbox": "Where activities for it are delivered.",
        "sharedInbox": "Its server's shared inbox, if any.",
        "keyId": "The id of its public key, which signs its requests.",
        "publicKey": "Its public key, PEM.",
        "locked": "Whether it approves its followers."
    ]
}

/// A remote account as deciding reads it.
public struct RemoteAccountRecord: Equatable, Sendable {
    /// The account's local id.
    public var userId: UserID
    /// What was last seen of it.
    public var seen: RemoteAccountSeen
    /// A record of `seen`.
    public init(_ seen: RemoteAccountSeen) {
        userId = seen.userId
        self.seen = seen
    }
}

extension Validation {
    /// The longest URL kept of a remote actor (an id is a key in the read models: LMDB's keys are
    /// at most 511 bytes).
    public static let maxActorURL = 400

    /// `raw` as an https URL of at most `maxActorURL` bytes, with a host; its host (and port).
    public static func actorURL(_ raw: String, field: String) throws(TimelineError) -> String {
        guard raw.utf8.count <= maxActorURL, let url = URLComponents(string: raw), url.scheme == "https",
            url.user == nil, url.password == nil, raw.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let host = host(of: raw)
        else { throw .invalid(field, "\(field) must be an https URL of at most \(maxActorURL) bytes") }
        return host
    }

    /// The server a URL names, as federation names servers (handles, domain blocks, peers): its
    /// host, lower case, with its port when it has one; `nil` for a URL without a host.
    public static func host(of url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else { return nil }
        return host.lowercased() + (components.port.map { ":\($0)" } ?? "")
    }

    /// A remote handle, `name@host`: a name of at most 64 of `[A-Za-z0-9._-]`, lowercased, and
    /// the actor's host.
    public static func remoteUsername(_ name: String, host: String) throws(TimelineError) -> String {
        let folded = name.lowercased()
        guard (1...64).contains(folded.utf8.count),
            folded.utf8.allSatisfy({
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
            })
        else { throw .invalid("username", "a remote username must be 1–64 of a–z, 0–9, '.', '_' and '-'") }
        return folded + "@" + host
    }
}

extension Decider {
    /// `recordRemoteAccount`: records what was fetched of a remote actor, the first time (a new
    /// local id) or when it changed; nothing when it is as recorded.
    func recordRemoteAccount(_ c: RecordRemoteAccountCommand, actor: Actor) throws -> Decision {
        try requireOperator(actor, "record a remote account")
        let host = try Validation.actorURL(c.actor, field: "actor")
        for (url, field) in [(c.inbox, "inbox"), (c.keyId, "keyId")]
            + (c.sharedInbox.map { [($0, "sharedInbox")] } ?? [])
        where try Validation.actorURL(url, field: field) != host {
            throw TimelineError.invalid(field, "\(field) must be on the actor's host, \(host)")
        }
        let username = try Validation.remoteUsername(c.username, host: host)
        guard c.publicKey.utf8.count <= 16 * 1024, c.publicKey.hasPrefix("-----BEGIN ") else {
            throw TimelineError.invalid("publicKey", "publicKey must be a PEM public key")
        }
        let known = try state.remoteAccount(actor: c.actor)
        if let holder = try state.userID(username: username), holder != known?.userId {
            throw TimelineError(.conflict, "another account is \(username) here")
        }
        let id = known?.userId ?? UserID(context.newID())
        let seen = RemoteAccountSeen(
            userId: id, actor: c.actor, username: username, inbox: c.inbox, sharedInbox: c.sharedInbox,
            keyId: c.keyId, publicKey: c.publicKey, locked: c.locked)
        guard known?.seen != seen else { return Decision(outcome: .success(.user(id))) }
        return Decision(events: [.remoteAccountSeen(seen)], outcome: .success(.user(id)))
    }
}

/// `recordRemoteAccount`: records what was fetched of another server's actor (the operator's:
/// the inbox runs it); answers the account.
package struct RecordRemoteAccountCommand: CommandDefinition {
    /// The command's public name, `recordRemoteAccount`.
    package static let name = "recordRemoteAccount"
    /// The actor's id (an https URL).
    package let actor: String
    /// Its `preferredUsername`.
    package let username: String
    /// Its inbox.
    package let inbox: String
    /// Its server's shared inbox.
    package let sharedInbox: String?
    /// Its key's id.
    package let keyId: String
    /// Its public key, PEM.
    package let publicKey: String
    /// Whether it approves its followers.
    package let locked: Bool

    /// A `recordRemoteAccount` command with these fields.
    package init(
        actor: String, username: String, inbox: String, sharedInbox: String?, keyId: String, publicKey: String,
        locked: Bool
    ) {
        self.actor = actor
        self.username = username
        self.inbox = inbox
        self.sharedInbox = sharedInbox
        self.keyId = keyId
        self.publicKey = publicKey
        self.locked = locked
    }
    /// Reads the fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        self.init(
            actor: try fields.string("actor"), username: try fields.string("username"),
            inbox: try fields.string("inbox"), sharedInbox: try fields.optionalString("sharedInbox"),
            keyId: try fields.string("keyId"), publicKey: try fields.string("publicKey"),
            locked: try fields.optionalBool("locked") ?? false)
    }
    /// Writes the fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("actor", actor)
        fields.set("username", username)
        fields.set("inbox", inbox)
        if let sharedInbox { fields.set("sharedInbox", sharedInbox) }
        fields.set("keyId", keyId)
        fields.set("publicKey", publicKey)
        fields.set("locked", locked)
    }
    /// Decides `recordRemoteAccount` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.recordRemoteAccount(self, actor: actor)
    }
}

extension Command {
    /// Records what was fetched of another server's actor (the operator's).
    public static func recordRemoteAccount(
        actor: String, username: String, inbox: String, sharedInbox: String?, keyId: String, publicKey: String,
        locked: Bool
    ) -> Command {
        Command(
            RecordRemoteAccountCommand(
                actor: actor, username: username, inbox: inbox, sharedInbox: sharedInbox, keyId: keyId,
                publicKey: publicKey, locked: locked))
    }
}
