import Foundation
import JSONModel

/// What an event's payload type says about itself, in the one file of its feature
/// (`Features/`): its stream, its stored form (per schema version), its JSON form and its line
/// in the audit log. Its JSON form is its `Codable` conformance, and the schema of
/// `schemas/events/<type>.v<currentVersion>.schema.json` is read from the same conformance
/// (`JSONSchema.of`, with what its `SchemaDocumented` conformance adds). `Event` reaches every
/// payload through `Event.payload`, so none of these concerns switches over the event's cases. The read models do (the projections' folds and
/// the live stream, in the library): what they make of an event is theirs to say, and the
/// domain does not know them.
///
/// Two event types may share a payload type (`LikeAdded` and `LikeRemoved` carry `Like`):
/// they then share its stream and versions, and `summary` tells them apart.
package protocol EventPayload: Sendable, Codable, SchemaDocumented {
    /// The schema version new events of this type are written with; `init(from:_:)` reads every
    /// older one, upcasting it to the current shape.
    static var currentVersion: UInt8 { get }
    /// Whether version 1 held the personal fields in clear (version 2 seals them).
    static var legacyPlainV1: Bool { get }
    /// The aggregate the event belongs to: `user-<id>`, `post-<id>` or `signin-<email hash>`.
    var stream: String { get }
    /// The images stored with the event (a cluster node ships them with it).
    var storedImages: [ImageID] { get }
    /// Every user the payload names (the audit log's `--user` filter).
    var users: [UserID] { get }
    /// The post the event is about, if any.
    var post: PostID? { get }

    /// Writes the payload's stored form at `currentVersion`: personal fields go through
    /// `sealer`, in one section sealed with their owner's key.
    func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws
    /// Reads a stored payload of version `opener.version`.
    init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws
    /// The JSON members that are left out once the owner of the personal fields is erased
    /// (fields that read back as `""` rather than `nil`); the schema does not require them.
    /// The JSON form itself is `encode(to:)` (valid against
    /// `schemas/events/<type>.v<version>.schema.json`): absent optionals are omitted, and
    /// password hashes are always `Event.redacted`.
    static var erasedMembers: [String] { get }
    /// What each event type carrying the payload records, when the payload type is shared by
    /// several (`Follow`: `Followed`, `FollowRequested`, …); otherwise `schemaDescription` says it.
    static var eventDescriptions: [EventType: String] { get }
    /// A one-line human summary for an event of `type` (payloads shared by two types, such as
    /// `Like`, say which); `name` renders a user id (e.g. as `@username`).
    func summary(_ type: EventType, _ name: (UserID) -> String) -> String
}

extension EventPayload {
    /// Version 1, unless the payload type says otherwise.
    package static var currentVersion: UInt8 { 1 }
    /// Version 1 sealed its personal fields, unless the payload type says otherwise.
    package static var legacyPlainV1: Bool { false }
    /// No images, unless the payload type stores some.
    package var storedImages: [ImageID] { [] }
    /// No post, unless the payload type is about one.
    package var post: PostID? { nil }
    /// Nothing is left out once the owner is erased, unless the payload type says otherwise.
    package static var erasedMembers: [String] { [] }
    /// `schemaDescription` describes every event type of the payload, unless the type says otherwise.
    package static var eventDescriptions: [EventType: String] { [:] }

    /// The JSON form: the `Encodable` form, without `erasedMembers` when `erased`.
    func json(erased: Bool) -> JSONValue {
        // Every member is a string, a number, a boolean or a list or object of them: encoding
        // into a `JSONValue` cannot fail.
        guard case .object(let members) = try! JSONValueEncoder.encode(self) else { return .object([]) }
        let dropped = erased ? Set(Self.erasedMembers) : []
        return .object(members.filter { !dropped.contains($0.key) })
    }

    /// The schema of the JSON form of an event of `type`
    /// (`schemas/events/<type>.v<currentVersion>.schema.json` without its `$schema`, `$id` and
    /// `title`): read from the `Decodable` conformance, with `erasedMembers` not required.
    static func jsonSchema(of type: EventType) throws -> JSONSchema {
        let schema = try JSONSchema.of(Self.self)
        let required = schema.json["required"]?.elements.filter { !erasedMembers.contains($0.string ?? "") }
        return schema.with("required", .array(required ?? [])).described(eventDescriptions[type])
    }
}

/// Seals the personal fields of a payload being encoded, with their owner's key
/// (XChaCha20-Poly1305, bound to the owner's id: the event store provides it).
package struct PayloadSealer {
    let sealBytes: (UserID, [UInt8]) throws -> [UInt8]

    /// A sealer that seals with `sealBytes(owner, plaintext)`.
    package init(_ sealBytes: @escaping (UserID, [UInt8]) throws -> [UInt8]) { self.sealBytes = sealBytes }

    /// Appends to `w` the section `fill` writes, sealed with `owner`'s key.
    package func seal(_ owner: UserID, into w: inout ByteWriter, _ fill: (inout ByteWriter) -> Void) throws {
        var inner = ByteWriter()
        fill(&inner)
        w.blob(try sealBytes(owner, inner.bytes))
    }
}

/// What decoding a payload needs besides its bytes: its schema version, and the keys that open
/// its sealed section. When the owner's key has been destroyed the section cannot be opened:
/// the payload decodes with those fields absent and `erased` set (the hash chain, computed
/// over the sealed bytes, still verifies).
package struct PayloadOpener {
    /// The version the payload was written with.
    package let version: UInt8
    /// Version 1 of a type that held its personal fields in clear.
    let plain: Bool
    let openBytes: (UserID, [UInt8]) throws -> [UInt8]?
    /// Keyed hash of an email (upcasts `SignInFailed` v1, which held the email in clear).
    package let emailHash: (String) -> String
    /// Whether a sealed section could not be opened (its owner was erased).
    package private(set) var erased = false

    /// An opener for a payload of `version`; `openBytes(owner, sealed)` answers the section's
    /// plaintext, or `nil` once the owner's key is destroyed.
    package init(
        version: UInt8, plain: Bool, emailHash: @escaping (String) -> String,
        openBytes: @escaping (UserID, [UInt8]) throws -> [UInt8]?
    ) {
        self.version = version
        self.plain = plain
        self.emailHash = emailHash
        self.openBytes = openBytes
    }

    /// Reads the personal fields sealed with `owner`'s key (from `r` itself when they were
    /// written in clear); `nil` when the owner was erased.
    package mutating func personal<T>(_ owner: UserID, from r: inout ByteReader, _ read: (inout ByteReader) throws -> T)
        throws -> T?
    {
        if plain { return try read(&r) }
        guard let inner = try openBytes(owner, try r.blob()) else {
            erased = true
            return nil
        }
        var section = ByteReader(inner)
        return try read(&section)
    }
}

extension Event {
    /// The placeholder that replaces password hashes in every JSON form of the log.
    public static let redacted = "[redacted]"

    /// The aggregate the event belongs to: `user-<id>`, `post-<id>` or `signin-<email hash>`.
    public var stream: String { payload.stream }

    /// The images stored with the event (a cluster node ships them with it): every variant of
    /// a post's photo (and the image of a post from before variants), the squares of a profile
    /// photo.
    public var storedImages: [ImageID] { payload.storedImages }

    /// Every user the payload names.
    public var users: [UserID] { payload.users }

    /// The post the event is about, if any.
    public var post: PostID? { payload.post }

    /// The payload's JSON form; absent optionals are omitted, and so are personal fields whose
    /// owner was erased (`erased`).
    public func payloadJSON(erased: Bool = false) -> JSONValue { payload.json(erased: erased) }

    /// A one-line human summary; `name` renders a user id (e.g. as `@username`).
    public func summary(_ name: (UserID) -> String) -> String { payload.summary(typeName, name) }

    /// Encodes the payload at its type's current version (see `EventPayload.encode`).
    package func encodePayload(_ sealer: PayloadSealer) throws -> [UInt8] {
        var w = ByteWriter(capacity: 96)
        try payload.encode(to: &w, sealer)
        return w.bytes
    }
}

extension EventType {
    /// The schema version new events of this type are written with. Each payload type says
    /// what its versions changed.
    public var currentVersion: UInt8 { payloadType.currentVersion }

    /// Whether version 1 of this type held its personal fields in clear.
    package var legacyPlainV1: Bool { payloadType.legacyPlainV1 }

    /// The schema of the payload's JSON form at `currentVersion`, read from its type.
    package func payloadSchema() throws -> JSONSchema { try payloadType.jsonSchema(of: self) }
}

/// Shortens free text for a one-line summary: on one line, at most 48 characters, quoted.
func clip(_ text: String?) -> String {
    guard let text else { return "" }
    let line = text.replacingOccurrences(of: "\n", with: " ")
    return line.count > 48 ? "\"\(line.prefix(47))…\"" : "\"\(line)\""
}
