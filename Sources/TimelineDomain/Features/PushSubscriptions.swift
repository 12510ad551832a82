import JSONModel

// Push subscriptions (Web Push, RFC 8030): `subscribePush` records `PushSubscribed` for the
// token it comes with — one per token, as Mastodon keeps them: a second replaces the first —
// with the push service's endpoint and the browser's keys sealed with the user's key, the alerts
// wanted per notification type and the policy (whose actions may push). `unsubscribePush`
// records `PushUnsubscribed`, as does the delivery worker when the push service answers 404 or
// 410. A subscription ends with its token (it is looked up through the live session) and is
// erased with its user.

/// The notification types a subscription may want pushed (Mastodon's alerts).
public enum PushAlert {
    /// Mastodon's alert names that Timeline's notifications map to.
    public static let all = ["mention", "favourite", "follow", "follow_request", "reblog", "poll", "status", "update"]
}

/// Whose actions may push to a subscription (Mastodon's `data[policy]`).
public enum PushPolicy: String, Sendable, CaseIterable, Codable, SchemaEnumeration {
    /// Anyone's.
    case all
    /// Only those of accounts the subscriber follows.
    case followed
    /// Only those of accounts that follow the subscriber.
    case follower
    /// Nobody's: nothing is pushed.
    case none
}

/// The payload of `PushSubscribed`.
public struct PushSubscribed: Equatable, Sendable {
    /// The subscriber.
    public var userId: UserID
    /// The hash of the token it belongs to (it ends with it).
    public var sessionHash: String
    /// The push service's URL (sealed with the user's key; nil once they are erased).
    public var endpoint: String?
    /// The browser's P-256 public key, base64url (sealed).
    public var p256dh: String?
    /// The browser's authentication secret, base64url (sealed).
    public var auth: String?
    /// Whether it wants RFC 8291's `aes128gcm` (else the legacy `aesgcm`).
    public var standard: Bool
    /// The alert types wanted.
    public var alerts: [String]
    /// Whose actions push.
    public var policy: PushPolicy
    /// A `PushSubscribed` payload.
    public init(
        userId: UserID, sessionHash: String, endpoint: String?, p256dh: String?, auth: String?, standard: Bool,
        alerts: [String], policy: PushPolicy
    ) {
        self.userId = userId
        self.sessionHash = sessionHash
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.standard = standard
        self.alerts = alerts
        self.policy = policy
    }
}

extension PushSubscribed: EventPayload {
    /// The aggregate `PushSubscribed` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `PushSubscribed` payload names: `userId`.
    package var users: [UserID] { [userId] }

    /// Writes a `PushSubscribed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(sessionHash)
        try sealer.seal(userId, into: &w) {
            $0.string(endpoint ?? "")
            $0.string(p256dh ?? "")
            $0.string(auth ?? "")
        }
        w.u8(standard ? 1 : 0)
        w.strings(alerts)
        w.string(policy.rawValue)
    }

    /// Reads a stored `PushSubscribed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let user = UserID(try r.string()), session = try r.string()
        let keys = try opener.personal(user, from: &r) { (try $0.string(), try $0.string(), try $0.string()) }
        let standard = try r.u8() == 1, alerts = try r.strings()
        guard let policy = PushPolicy(rawValue: try r.string()) else {
            throw CorruptRecord(message: "unknown push policy")
        }
        self.init(
            userId: user, sessionHash: session, endpoint: keys?.0, p256dh: keys?.1, auth: keys?.2, standard: standard,
            alerts: alerts, policy: policy)
    }

    /// A one-line human summary of a `PushSubscribed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) subscribed to push notifications"
    }
}

/// The payload of `PushUnsubscribed`: a token's subscription ended (by its user, or because the
/// push service said it is gone).
public struct PushUnsubscribed: Equatable, Sendable {
    /// The subscriber.
    public var userId: UserID
    /// The hash of the token it belonged to.
    public var sessionHash: String
    /// A `PushUnsubscribed` payload.
    public init(userId: UserID, sessionHash: String) {
        self.userId = userId
        self.sessionHash = sessionHash
    }
}

extension PushUnsubscribed: EventPayload {
    /// The aggregate `PushUnsubscribed` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `PushUnsubscribed` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `PushUnsubscribed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(sessionHash)
    }
    /// Reads a stored `PushUnsubscribed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), sessionHash: try r.string())
    }
    /// A one-line human summary of a `PushUnsubscribed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId))'s push subscription ended"
    }
}

/// A subscription as the service keeps it.
package struct PushSubscriptionRecord: Equatable, Sendable {
    /// The subscribed user.
    package var user: UserID
    /// The push service's endpoint URL.
    package var endpoint: String
    /// The browser's P-256 public key, base64url.
    package var p256dh: String
    /// The browser's authentication secret, base64url.
    package var auth: String
    /// Whether it wants RFC 8291's `aes128gcm` (else the legacy `aesgcm`).
    package var standard: Bool
    /// The alert types wanted.
    package var alerts: [String]
    /// Whose actions push.
    package var policy: PushPolicy

    /// A subscription record.
    package init(
        user: UserID, endpoint: String, p256dh: String, auth: String, standard: Bool, alerts: [String],
        policy: PushPolicy
    ) {
        self.user = user
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.standard = standard
        self.alerts = alerts
        self.policy = policy
    }
}

/// What a push endpoint's authority may be. Push services are named by DNS; the worker refuses
/// private addresses when it connects (after DNS, so this is not what stops a rebinding name), and
/// this refuses, before anything is recorded, an endpoint that names its host by an IP address —
/// bracketed IPv6 in any spelling, or IPv4 in any form curl reads (`127.1`, `0x7f.1`,
/// `2130706433`, `0177.0.0.1`, a trailing dot): by WHATWG's rule, a host whose last label is a
/// number is an IPv4 address — or `localhost`, unless the operator allows private push services.
/// A user name or password, a percent-escape or any character outside a DNS name, and an empty
/// host or port, are refused always: no parser may read another host in it than this one.
enum PushEndpoint {
    static func check(_ endpoint: String, allowingAddresses: Bool) throws(TimelineError) {
        let rest = endpoint.utf8.dropFirst("https://".utf8.count)
        let authority = rest.prefix { !"/?#".utf8.contains($0) }
        guard !authority.contains(UInt8(ascii: "@")) else {
            throw TimelineError.invalid("endpoint", "the endpoint must not hold a user name or password")
        }
        let host: Substring.UTF8View, port: Substring.UTF8View?
        if authority.first == UInt8(ascii: "[") {
            // An IPv6 literal: a push service is never named so.
            guard allowingAddresses, let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw TimelineError.invalid("endpoint", "the endpoint's host must be a name, not an IP address")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.first == UInt8(ascii: ":") else {
                throw TimelineError.invalid("endpoint", "the endpoint's host is malformed")
            }
            port = after.isEmpty ? nil : after.dropFirst()
            guard host.allSatisfy({ Self.isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                throw TimelineError.invalid("endpoint", "the endpoint's host is malformed")
            }
        } else {
            let colon = authority.firstIndex(of: UInt8(ascii: ":"))
            host = authority[..<(colon ?? authority.endIndex)]
            port = colon.map { authority[authority.index(after: $0)...] }
            guard host.allSatisfy({ Self.isLetterOrDigit($0) || "-._".utf8.contains($0) }) else {
                throw TimelineError.invalid("endpoint", "the endpoint's host must be a DNS name")
            }
            if !allowingAddresses, Self.isAddress(host) || Self.isLocalhost(host) {
                throw TimelineError.invalid(
                    "endpoint",
                    "the endpoint's host must be a name, not an IP address or "
                        + "localhost")
            }
        }
        guard !host.isEmpty, !host.allSatisfy({ $0 == UInt8(ascii: ".") }) else {
            throw TimelineError.invalid("endpoint", "the endpoint has no host")
        }
        if let port {
            guard (1...5).contains(port.count), port.allSatisfy(Self.isDigit),
                let number = Int(String(decoding: port, as: UTF8.self)), (1...65535).contains(number)
            else {
                throw TimelineError.invalid("endpoint", "the endpoint's port must be a number from 1 to 65535")
            }
        }
    }

    /// WHATWG URL's "ends in a number": the last label (a trailing dot aside) is decimal digits
    /// or `0x` and hex digits, so a URL parser reads the host as an IPv4 address.
    private static func isAddress(_ host: Substring.UTF8View) -> Bool {
        var labels = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.allSatisfy(isDigit) { return true }
        let lower = last.map { $0 | 0x20 }
        return lower.count >= 2 && lower[0] == UInt8(ascii: "0") && lower[1] == UInt8(ascii: "x")
            && lower.dropFirst(2).allSatisfy(isHex)
    }

    /// `localhost` and its subdomains (RFC 6761: always loopback).
    private static func isLocalhost(_ host: Substring.UTF8View) -> Bool {
        let name = String(decoding: host, as: UTF8.self).lowercased()
        let bare = name.hasSuffix(".") ? String(name.dropLast()) : name
        return bare == "localhost" || bare.hasSuffix(".localhost")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isHex(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}

extension Decider {
    /// Subscribes the session `sessionHash` of `me` (replacing its subscription, if any).
    func subscribePush(
        endpoint: String, p256dh: String, auth: String, standard: Bool, alerts: [String], policy: String?,
        sessionHash: String, by me: UserRecord
    ) throws -> Decision {
        guard endpoint.utf8.count <= 2048, let scheme = endpoint.split(separator: ":").first, scheme == "https",
            endpoint.hasPrefix("https://"), !endpoint.contains(where: { $0.isWhitespace })
        else {
            throw TimelineError.invalid("endpoint", "the endpoint must be an https URL")
        }
        try PushEndpoint.check(endpoint, allowingAddresses: context.privatePushEndpoints)
        guard Self.base64URLLength(p256dh) == 65 else {
            throw TimelineError.invalid("p256dh", "p256dh must be a P-256 public key (base64url, 65 bytes)")
        }
        guard Self.base64URLLength(auth) == 16 else {
            throw TimelineError.invalid("auth", "auth must be 16 bytes, base64url")
        }
        let policy =
            try policy.map { raw throws(TimelineError) in
                guard let value = PushPolicy(rawValue: raw) else {
                    throw TimelineError.invalid("policy", "policy must be all, followed, follower or none")
                }
                return value
            } ?? .all
        for alert in alerts where !PushAlert.all.contains(alert) {
            throw TimelineError.invalid("alerts", "unknown alert \(alert.prefix(32))")
        }
        let event = PushSubscribed(
            userId: me.id, sessionHash: sessionHash, endpoint: endpoint, p256dh: p256dh, auth: auth,
            standard: standard, alerts: alerts, policy: policy)
        return Decision(events: [.pushSubscribed(event)], outcome: .success(.done))
    }

    /// Ends the subscription of the session `sessionHash` of `user` (nothing if there is none).
    func unsubscribePush(sessionHash: String, user: UserID) throws -> Decision {
        guard try state.pushSubscription(sessionHash: sessionHash) != nil else {
            return Decision(outcome: .success(.changed(false)))
        }
        return Decision(
            events: [.pushUnsubscribed(PushUnsubscribed(userId: user, sessionHash: sessionHash))],
            outcome: .success(.changed(true)))
    }

    /// How many bytes a base64url (or standard base64, as some clients send keys) text holds,
    /// or nil when it is neither.
    static func base64URLLength(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 200,
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_+/=".contains($0)) })
        else { return nil }
        let unpadded = text.filter { $0 != "=" }.count
        guard unpadded % 4 != 1 else { return nil }
        return unpadded * 3 / 4
    }
}

// MARK: - Commands

/// `subscribePush`: the acting session subscribes to push notifications (one per token).
package struct SubscribePushCommand: CommandDefinition {
    /// The command's public name, `subscribePush`.
    package static let name = "subscribePush"
    /// The `endpoint` field.
    package let endpoint: String
    /// The `p256dh` field.
    package let p256dh: String
    /// The `auth` field.
    package let auth: String
    /// The `standard` field.
    package let standard: Bool
    /// The `alerts` field.
    package let alerts: [String]
    /// The `policy` field.
    package let policy: String?

    /// A `subscribePush` command with these fields.
    package init(endpoint: String, p256dh: String, auth: String, standard: Bool, alerts: [String], policy: String?) {
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.standard = standard
        self.alerts = alerts
        self.policy = policy
    }

    /// Reads `subscribePush`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        endpoint = try fields.string("endpoint")
        p256dh = try fields.string("p256dh")
        auth = try fields.string("auth")
        standard = try fields.optionalBool("standard") ?? true
        alerts = try fields.optionalList("alerts") ?? []
        policy = try fields.optionalString("policy")
    }

    /// Writes `subscribePush`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("endpoint", endpoint)
        fields.set("p256dh", p256dh)
        fields.set("auth", auth)
        fields.set("standard", standard)
        fields.set("alerts", strings: alerts)
        fields.set("policy", policy)
    }

    /// Decides `subscribePush` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        guard case .session(let hash) = actor else {
            throw TimelineError(.unauthenticated, "a push subscription belongs to a session token")
        }
        return try decider.acting(actor) {
            try decider.subscribePush(
                endpoint: endpoint, p256dh: p256dh, auth: auth, standard: standard, alerts: alerts, policy: policy,
                sessionHash: hash, by: $0)
        }
    }
}

/// `unsubscribePush`: the acting session's push subscription ends.
package struct UnsubscribePushCommand: CommandDefinition {
    /// The command's public name, `unsubscribePush`.
    package static let name = "unsubscribePush"

    /// A `unsubscribePush` command with these fields.
    package init() {}
    /// Reads `unsubscribePush`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {}
    /// Writes `unsubscribePush`'s fields.
    package func encode(to fields: inout CommandJSON) {}

    /// Decides `unsubscribePush` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        guard case .session(let hash) = actor else {
            throw TimelineError(.unauthenticated, "a push subscription belongs to a session token")
        }
        return try decider.acting(actor) { try decider.unsubscribePush(sessionHash: hash, user: $0.id) }
    }
}

/// `endPushSubscription`: the operator (the delivery worker) ends a subscription its push
/// service says is gone (404, 410).
package struct EndPushSubscriptionCommand: OneFieldCommand {
    /// The command's public name, `endPushSubscription`, and its one field, `sessionHash`.
    package static let name = "endPushSubscription", field = "sessionHash"
    /// The `needsActor` field.
    package static let needsActor = false
    /// The `sessionHash` field, raw user input.
    package let value: String

    /// A `endPushSubscription` command naming `sessionHash` `value`.
    package init(value: String) { self.value = value }

    /// Decides `endPushSubscription` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        guard actor == .operator else {
            throw TimelineError(.forbidden, "only the operator ends others' push subscriptions")
        }
        guard let subscription = try decider.state.pushSubscription(sessionHash: value) else {
            return Decision(outcome: .success(.changed(false)))
        }
        return try decider.unsubscribePush(sessionHash: value, user: subscription.user)
    }
}

extension Command {
    /// Ends the push subscription of the token whose hash is `sessionHash` (the operator's: the
    /// delivery worker, when the push service says it is gone).
    public static func endPushSubscription(sessionHash: String) -> Command {
        Command(EndPushSubscriptionCommand(value: sessionHash))
    }

    /// Subscribes the acting session to push notifications: the push service's https
    /// `endpoint`, the browser's `p256dh` and `auth` keys (base64url), `standard` (aes128gcm;
    /// false: the legacy aesgcm), the `alerts` wanted and the `policy` (all, followed, follower, none).
    public static func subscribePush(
        endpoint: String, p256dh: String, auth: String, standard: Bool = true, alerts: [String] = PushAlert.all,
        policy: String? = nil
    ) -> Command {
        Command(
            SubscribePushCommand(
                endpoint: endpoint, p256dh: p256dh, auth: auth, standard: standard, alerts: alerts, policy: policy))
    }

    /// Ends the acting session's push subscription.
    public static var unsubscribePush: Command { Command(UnsubscribePushCommand()) }
}

// MARK: - JSON Schemas of the payloads

extension PushSubscribed {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A token subscribed to push notifications (one per token; a second replaces the first)."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "endpoint": "Sealed with the user's key; absent once they are erased."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "sessionHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$"),
        "policy": JSONSchema.enumeration(["all", "followed", "follower", "none"])
    ]
}

extension PushUnsubscribed {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A token's push subscription ended (by its user, or the push service said it is gone)."
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "sessionHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$")
    ]
}

// MARK: - JSON Schemas of the commands

extension EndPushSubscriptionCommand {
    /// The caller proves itself by the command's own fields: no `as` or `session`.
    package static let schemaTakesCaller = false
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "The operator ends a push subscription whose push service says it is gone."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "sessionHash": JSONSchema.string
    ]
}

extension SubscribePushCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "The acting session subscribes to push notifications (it needs a session token: one subscription per token)."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "endpoint": JSONSchema.string(pattern: "^https://"),
        "policy": JSONSchema.enumeration(["all", "followed", "follower", "none"])
    ]
}

extension UnsubscribePushCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "The acting session's push subscription ends."
}
