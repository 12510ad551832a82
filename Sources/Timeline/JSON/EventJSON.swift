import Foundation
import JSONModel
import TimelineDomain

/// The JSON form of an event (audit output, export): `schemas/envelope.schema.json` is read
/// from this type, and its `payload` is valid against
/// `schemas/events/<type>.v<schemaVersion>.schema.json`. Password hashes are always redacted
/// (`Event.redacted`).
public struct EventJSON: Codable, Equatable, Sendable {
    /// Global position: gapless, from 1.
    public var sequence: UInt64
    /// The event's id.
    public var id: String
    /// The event type's stable name.
    public var type: String
    /// The version of the payload's schema.
    public var schemaVersion: Int
    /// The aggregate the event belongs to.
    public var stream: String
    /// The event's position in its stream, from 1.
    public var streamVersion: UInt64
    /// Milliseconds since 1970.
    public var timestamp: Int64
    /// Who caused it: a user's id, `system` (or `operator`, from earlier versions).
    public var actor: String
    /// The request that led to it, if given.
    public var correlationId: String?
    /// The event that led to it, if any.
    public var causationId: String?
    /// The payload's JSON form (personal fields absent when `erased`).
    public var payload: JSONValue
    /// The hash of the previous event (hex).
    public var previousHash: String
    /// This event's hash (hex).
    public var hash: String
    /// `true` when the personal fields could not be opened (their owner was erased); absent otherwise.
    public var erased: Bool?
}

extension EventJSON: SchemaDocumented {
    /// What the envelope is.
    public static let schemaDescription: String? =
        "One event of the Timeline log in its JSON form (audit output, export)."

    /// The members' descriptions.
    public static let memberDescriptions = [
        "sequence": "Global position: gapless, from 1.",
        "type": "The event type's stable name; the payload is valid against "
            + "schemas/events/<type>.v<schemaVersion>.schema.json (the check looks it up there, and a test checks "
            + "that every type of the code has its schema).",
        "timestamp": "Milliseconds since 1970.",
        "erased": "Present when the personal fields could not be opened: their owner was erased."
    ]

    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = {
        let identifier = JSONSchema.string(pattern: IdentifierSyntax.pattern)
        let hash = JSONSchema.string(pattern: "^[0-9a-f]{64}$")
        let position = JSONSchema.integer.with("minimum", 1)
        return [
            "sequence": position, "id": identifier, "type": .string(pattern: "^[A-Z][A-Za-z]{1,63}$"),
            "schemaVersion": position, "stream": JSONSchema.string.with("minLength", 1).with("maxLength", 300),
            "streamVersion": position, "payload": JSONSchema(["type": "object"]), "previousHash": hash, "hash": hash,
            "erased": .constant(true),
            "actor": JSONSchema([
                "anyOf": [
                    identifier.json, JSONSchema.constant("system").json,
                    JSONSchema.constant("operator").described(
                        "Written for the operator's moderation by earlier versions; new events say system."
                    ).json
                ]
            ])
        ]
    }()

    /// The definitions the files of `schemas/events/` and `schemas/commands/` refer to.
    public static let schemaKeywords: [String: JSONValue] = [
        "$defs": [
            "identifier": JSONSchema.string(pattern: IdentifierSyntax.pattern).json, "place": Place.definition.json
        ]
    ]
}

extension EventEnvelope {
    /// The JSON form of the event (audit output, export), valid against
    /// `schemas/envelope.schema.json` and `schemas/events/<type>.v<version>.schema.json`.
    /// Password hashes are always redacted (`Event.redacted`).
    public func jsonObject() -> EventJSON {
        EventJSON(
            sequence: sequence, id: id.rawValue, type: type.rawValue, schemaVersion: Int(schemaVersion),
            stream: stream, streamVersion: streamVersion, timestamp: timestamp, actor: actor,
            correlationId: correlationId, causationId: causationId, payload: event.payloadJSON(erased: erased),
            previousHash: hex(previousHash), hash: hex(hash), erased: erased ? true : nil)
    }

    /// One compact JSON line (members sorted, as every JSON answer of the product).
    public func jsonLine() -> String {
        // Strings, integers, booleans and JSON values only: encoding cannot fail.
        String(decoding: try! JSONValueEncoder.bytes(jsonObject()), as: UTF8.self)
    }
}
