import JSONModel

/// Another server's actor, as its document (fetched from its id) says: what this server keeps
/// of it (`recordRemoteAccount`) and checks its signatures with.
public struct RemoteActor: Equatable, Sendable {
    /// Its id.
    public var id: String
    /// Its `preferredUsername`.
    public var username: String
    /// Its inbox.
    public var inbox: String
    /// Its server's shared inbox (`endpoints.sharedInbox`).
    public var sharedInbox: String?
    /// Its key's id (`publicKey.id`).
    public var keyId: String
    /// Its key (`publicKey.publicKeyPem`).
    public var publicKey: String
    /// `manuallyApprovesFollowers`.
    public var locked: Bool
    /// Its bio (`summary`), HTML.
    public var summary: String?
    /// Its profile photo's URL (`icon`), when it is an https one.
    public var icon: String?
    /// The actors it says it also is (`alsoKnownAs`): a `Move` to it is taken only from one of them.
    public var alsoKnownAs: [String]

    /// The actor `document` describes, fetched from `url`; `nil` unless it is an actor whose id
    /// is `url` (a document must not speak for another id) with an inbox and a key it owns.
    public init?(_ document: JSONValue, fetchedFrom url: String) {
        let actorTypes: Set<String> = ["Person", "Service", "Application", "Group", "Organization"]
        guard let type = document["type"]?.string, actorTypes.contains(type), let id = document["id"]?.string,
            id == url, let username = document["preferredUsername"]?.string, let inbox = document["inbox"]?.string,
            let key = document["publicKey"], let keyId = key["id"]?.string, let pem = key["publicKeyPem"]?.string,
            key["owner"]?.string == id
        else { return nil }
        self.id = id
        self.username = username
        self.inbox = inbox
        sharedInbox = document["endpoints"]?["sharedInbox"]?.string
        self.keyId = keyId
        publicKey = pem
        locked = document["manuallyApprovesFollowers"] == .bool(true)
        summary = document["summary"]?.string
        let icon = document.all("icon").first.flatMap { $0.string ?? $0["url"]?.string }
        self.icon = icon.flatMap { $0.hasPrefix("https://") ? $0 : nil }
        alsoKnownAs = document.all("alsoKnownAs").compactMap(\.string)
    }
}
