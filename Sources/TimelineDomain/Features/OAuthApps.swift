import JSONModel

// OAuth apps (the Mastodon client API's `POST /api/v1/apps`): `registerApp` records
// `AppRegistered` — the app's name, redirect URIs and scopes, and only a hash of its client
// secret, which is shown once. A token an app gets is a session (`SignedIn` v2) that names the
// app and its scopes, so whatever ends sessions (signing out, a password change, a suspension,
// an erasure) ends it too.

import Foundation

/// The scopes an app may ask for (Mastodon's, top-level and granular).
public enum OAuthScope {
    /// The top-level scopes; a granular one (`read:statuses`) is covered by its top level.
    public static let topLevel: Set<String> = ["read", "write", "follow", "push", "profile"]

    /// Mastodon's granular scopes (what discovery lists; any `read:…`/`write:…` is accepted).
    public static let granular = [
        "read:accounts", "read:blocks", "read:bookmarks", "read:collections", "read:favourites", "read:filters",
        "read:follows", "read:lists", "read:mutes", "read:notifications", "read:search", "read:statuses",
        "write:accounts", "write:blocks", "write:bookmarks", "write:collections", "write:conversations",
        "write:favourites", "write:filters", "write:follows", "write:lists", "write:media", "write:mutes",
        "write:notifications", "write:reports", "write:statuses"
    ]

    /// Whether `scope` is one Mastodon defines: a top-level scope, or `read:…`, `write:…`,
    /// `admin:read…`/`admin:write…` granular ones.
    public static func isKnown(_ scope: String) -> Bool {
        if topLevel.contains(scope) { return true }
        let parts = scope.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, !parts[1].isEmpty, parts[1].allSatisfy({ $0.isLetter || $0 == "_" || $0 == ":" }) else {
            return false
        }
        return ["read", "write", "admin"].contains(String(parts[0]))
    }

    /// Whether `granted` allows `needed`, as Mastodon reads scopes: a top level covers its granular
    /// scopes (`read` allows `read:statuses`), `admin:read` covers `admin:read:accounts` (and `read`
    /// covers no `admin:` scope), the older `follow` covers the follows, blocks and mutes, and
    /// `profile` (what `verify_credentials` needs) is allowed by `read:accounts` or `read` too.
    public static func allows(_ granted: Set<String>, _ needed: String) -> Bool {
        if granted.contains(needed) { return true }
        if needed == "profile" { return granted.contains("read") || granted.contains("read:accounts") }
        let parts = needed.split(separator: ":").map(String.init)
        guard parts.count >= 2 else { return false }
        if parts[0] == "admin" { return parts.count >= 3 && granted.contains("admin:" + parts[1]) }
        if granted.contains(parts[0]) { return true }
        return ["follows", "blocks", "mutes"].contains(parts[1]) && granted.contains("follow")
    }

    /// The scopes of a space-separated list (`read write`), checked.
    public static func parse(_ text: String, field: String) throws(TimelineError) -> [String] {
        let scopes = text.split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init)
        for scope in scopes where !isKnown(scope) {
            throw TimelineError.invalid(field, "unknown scope \(scope.prefix(64))")
        }
        return scopes
    }
}

/// The redirect URIs an app may register, and the authorize page sends a code to.
public enum OAuthRedirect {
    /// The redirect URI that shows the code to the person instead of sending it.
    public static let outOfBand = "urn:ietf:wg:oauth:2.0:oob"

    /// Schemes whose "redirect" runs or shows something in the browser that follows it
    /// (script, a document made of the URI, a local file) instead of reaching an app.
    static let refusedSchemes: Set<String> = ["javascript", "data", "vbscript", "file", "blob", "about", "filesystem"]

    /// Whether `uri` may be a redirect URI: the out-of-band one, or an absolute URI that
    /// parses — RFC 3986's characters only, each `%` a byte, a scheme, a host for `http(s)` —
    /// and is not of a scheme that runs or shows something in the browser; with no fragment
    /// (RFC 6749 §3.1.2).
    public static func isAllowed(_ uri: String) -> Bool {
        if uri == outOfBand { return true }
        let bytes = Array(uri.utf8)
        guard bytes.count <= 2048, !bytes.contains(UInt8(ascii: "#")), isURISyntax(bytes),
            let components = URLComponents(string: uri),
            let scheme = components.scheme?.lowercased(), !scheme.isEmpty, !refusedSchemes.contains(scheme)
        else { return false }
        if scheme == "http" || scheme == "https" { return !(components.host ?? "").isEmpty }
        return true
    }

    /// Only the characters RFC 3986 allows in a URI, and `%` always followed by two hex digits.
    private static func isURISyntax(_ bytes: [UInt8]) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8)
        func isHex(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
        }
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else { return false }
                index += 3
                continue
            }
            guard allowed.contains(bytes[index]) else { return false }
            index += 1
        }
        return true
    }
}

/// The payload of `AppRegistered`.
public struct AppRegistered: Equatable, Sendable {
    /// The app's id: its `client_id`.
    public var appId: String
    /// Its name, as people see it when they authorize it.
    public var name: String
    /// Its website, if any.
    public var website: String?
    /// Where an authorization may send its code (exact match), or `urn:ietf:wg:oauth:2.0:oob`.
    public var redirectURIs: [String]
    /// The scopes it may ask for.
    public var scopes: [String]
    /// Hex BLAKE2b-256 of its client secret; the secret itself is never recorded.
    public var secretHash: String
    /// An `AppRegistered` payload.
    public init(
        appId: String, name: String, website: String?, redirectURIs: [String], scopes: [String], secretHash: String
    ) {
        self.appId = appId
        self.name = name
        self.website = website
        self.redirectURIs = redirectURIs
        self.scopes = scopes
        self.secretHash = secretHash
    }
}

extension AppRegistered: EventPayload {
    /// The JSON keys: the properties' names, but `redirectUris`.
    enum CodingKeys: String, CodingKey {
        case appId, name, website, redirectURIs = "redirectUris", scopes, secretHash
    }

    /// The aggregate `AppRegistered` events belong to: the app stream of `appId`.
    package var stream: String { StreamName.app(appId) }
    /// An `AppRegistered` payload names no user.
    package var users: [UserID] { [] }

    /// Writes an `AppRegistered` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(appId)
        w.string(name)
        w.optionalString(website)
        w.strings(redirectURIs)
        w.strings(scopes)
        w.string(secretHash)
    }

    /// Reads a stored `AppRegistered` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(
            appId: try r.string(), name: try r.string(), website: try r.optionalString(), redirectURIs: try r.strings(),
            scopes: try r.strings(), secretHash: try r.string())
    }

    /// A one-line human summary of an `AppRegistered` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "app \(appId) registered: \(clip(self.name))"
    }
}

/// An app as deciding sees it.
package struct AppRecord: Equatable, Sendable {
    /// The app's id (its `client_id`).
    package var id: String
    /// The app's name.
    package var name: String
    /// Its website, if any.
    package var website: String?
    /// Where an authorization may send its code (exact match).
    package var redirectURIs: [String]
    /// The scopes the app may be granted.
    package var scopes: [String]
    /// Hex BLAKE2b-256 of its client secret.
    package var secretHash: String

    /// The app `AppRegistered` recorded.
    package init(_ e: AppRegistered) {
        id = e.appId
        name = e.name
        website = e.website
        redirectURIs = e.redirectURIs
        scopes = e.scopes
        secretHash = e.secretHash
    }
}

extension Decider {
    func registerApp(name raw: String, redirectURIs: [String], scopes: String?, website: String?) throws -> Decision {
        let name = try Validation.text(raw, field: "client_name", max: 100, allowEmpty: false)
        guard !redirectURIs.isEmpty, redirectURIs.count <= 10 else {
            throw TimelineError.invalid("redirect_uris", "give 1–10 redirect URIs")
        }
        // A code must reach an app: never a URI a browser would run (`javascript:`) or show
        // (`data:`), nor one that does not parse (a redirect to it would go who knows where).
        for uri in redirectURIs where !OAuthRedirect.isAllowed(uri) {
            throw TimelineError.invalid(
                "redirect_uris",
                "\(uri.prefix(64)) is not an absolute URI an app can receive a code at")
        }
        let scopes = try OAuthScope.parse(scopes ?? "read", field: "scopes")
        let website = try website.flatMap { $0.isEmpty ? nil : try Validation.url($0) }
        guard let secret = context.prepared.newToken else {
            throw TimelineError(.internal, "no client secret was made")
        }
        let event = AppRegistered(
            appId: context.newID(), name: name, website: website, redirectURIs: redirectURIs,
            scopes: scopes.isEmpty ? ["read"] : scopes, secretHash: context.hashToken(secret))
        return Decision(events: [.appRegistered(event)], outcome: .success(.app(id: event.appId, secret: secret)))
    }

    /// The app `id` whose secret is `secret`, for a token asking for `scopes` (all of the app's
    /// when nil): `invalid_credentials` for an unknown app or a wrong secret, `forbidden` for a
    /// scope the app did not register.
    func authenticatedApp(_ id: String, secret: String, scopes: String?) throws -> (app: AppRecord, scopes: [String]) {
        try authenticatedApp(id, .secret(secret), scopes: scopes)
    }

    /// As `authenticatedApp(_:secret:scopes:)`, the app proving itself with its secret or a live token of its own.
    func authenticatedApp(_ id: String, _ credential: AppCredential, scopes: String?) throws -> (
        app: AppRecord, scopes: [String]
    ) {
        let proven: (AppRecord) throws -> Bool = { app in
            switch credential {
            case .secret(let secret): return context.hashToken(secret) == app.secretHash
            case .token(let token):
                guard let issued = try state.appToken(hash: context.hashToken(token)) else { return false }
                return issued.app == app.id && issued.expiresAt > context.now
            }
        }
        // An app's id is one of ours (a push id): anything else is no app, and is not looked up.
        guard IdentifierSyntax.isValid(id), let app = try state.app(id), try proven(app) else {
            throw TimelineError.unknownClient
        }
        let wanted = try scopes.map { try OAuthScope.parse($0, field: "scope") } ?? app.scopes
        for scope in wanted where !OAuthScope.allows(Set(app.scopes), scope) {
            throw TimelineError(.forbidden, "The requested scope is invalid, unknown, or malformed.", field: "scope")
        }
        return (app, wanted.isEmpty ? app.scopes : wanted)
    }
}

/// How an app proves it is itself: its client secret, or a token of its own (`issueAppToken`).
package enum AppCredential: Sendable {
    /// The app's client secret.
    case secret(String)
    /// A token issued to the app itself (`issueAppToken`).
    case token(String)
}

// MARK: - Commands

/// `registerApp`: registers an OAuth app (its client secret is answered once, never stored).
package struct RegisterAppCommand: CommandDefinition {
    /// The command's public name, `registerApp`.
    package static let name = "registerApp"
    /// The `needsActor` field.
    package static let needsActor = false
    /// The command's public name, `registerApp`.
    package let name: String
    /// The `redirectURIs` field.
    package let redirectURIs: [String]
    /// The `scopes` field.
    package let scopes: String?
    /// The `website` field.
    package let website: String?

    /// A `registerApp` command with these fields.
    package init(name: String, redirectURIs: [String], scopes: String?, website: String?) {
        self.name = name
        self.redirectURIs = redirectURIs
        self.scopes = scopes
        self.website = website
    }

    /// Reads `registerApp`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        name = try fields.string("name")
        redirectURIs = try fields.optionalList("redirectUris") ?? []
        scopes = try fields.optionalString("scopes")
        website = try fields.optionalString("website")
    }

    /// Writes `registerApp`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("name", name)
        fields.set("redirectUris", strings: redirectURIs)
        fields.set("scopes", scopes)
        fields.set("website", website)
    }

    /// Decides `registerApp` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.registerApp(name: name, redirectURIs: redirectURIs, scopes: scopes, website: website)
    }
}

extension Command {
    /// Registers an OAuth app: `scopes` space-separated (default `read`); answers its id and its
    /// client secret (shown once).
    public static func registerApp(name: String, redirectURIs: [String], scopes: String? = nil, website: String? = nil)
        -> Command
    {
        Command(RegisterAppCommand(name: name, redirectURIs: redirectURIs, scopes: scopes, website: website))
    }
}

// MARK: - JSON Schemas of the payloads

extension AppRegistered {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "An OAuth app registered (POST /api/v1/apps): its client secret only as a hash."
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "name": JSONSchema.string.with("minLength", 1).with("maxLength", 100),
        "redirectUris": JSONSchema.array(of: JSONSchema.string).with("minItems", 1).with("maxItems", 10),
        "secretHash": JSONSchema.string(pattern: "^[0-9a-f]{64}$")
    ]
}

// MARK: - JSON Schemas of the commands

extension RegisterAppCommand {
    /// The caller proves itself by the command's own fields: no `as` or `session`.
    package static let schemaTakesCaller = false
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "scopes": "Space-separated (default read)."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "name": JSONSchema.string.with("minLength", 1).with("maxLength", 100),
        "redirectUris": JSONSchema.array(of: JSONSchema.string).with("minItems", 1).with("maxItems", 10)
    ]
    /// Rules across fields.
    package static let schemaKeywords: [String: JSONValue] = [
        "required": ["command", "name", "redirectUris"]
    ]
}
