import Sodium
import TimelineDomain

/// Where the payload codec finds the keys that seal personal fields.
protocol PayloadKeys: Sendable {
    /// The user's key, or `nil` once they are erased; throws when it could not be read.
    func key(for user: UserID) throws(KeyStoreError) -> [UInt8]?
    /// The user's key, created if they have none yet.
    func ensureKey(for user: UserID) throws -> [UInt8]
    /// Keyed hash of an email, as failed sign-ins record it (upcasts `SignInFailed` v1).
    func emailHash(_ email: String) -> String
}

/// Binary encoding of event payloads, per type and schema version: each payload type encodes
/// and decodes itself (`EventPayload`, in its feature's file); this is where the keys come in.
///
/// Personal fields (email, password hash, bio, url, caption and hashtags, a post's place,
/// comment text, report reason, and the reason the operator gave for removing a post, sealed
/// with its author's key) are written in one section sealed with the owner's key
/// (XChaCha20-Poly1305, bound to the owner's id). When the key has been destroyed the section
/// cannot be opened: the event decodes with those fields absent and `erased` set, and the hash
/// chain — computed over the sealed bytes — still verifies.
///
/// Decoding an older version upcasts it to the current shape, so the rest of the code only sees
/// current events: version 1 of the sealed types held the same fields in clear.
enum PayloadCodec {
    static func encode(_ event: Event, keys: any PayloadKeys) throws -> [UInt8] {
        try event.encodePayload(
            PayloadSealer { owner, plaintext in
                Sodium.seal(plaintext, key: try keys.ensureKey(for: owner), context: Array(owner.rawValue.utf8))
            })
    }

    /// Decodes a payload; `erased` is set when its sealed section's key is gone.
    static func decode(type: EventType, version: UInt8, _ bytes: [UInt8], keys: any PayloadKeys) throws -> (
        event: Event, erased: Bool
    ) {
        guard version >= 1, version <= type.currentVersion else {
            throw CorruptRecord(message: "\(type.rawValue) v\(version) is newer than this build")
        }
        var r = ByteReader(bytes)
        var opener = PayloadOpener(
            version: version, plain: version == 1 && type.legacyPlainV1, emailHash: keys.emailHash
        ) { owner, sealed in
            guard let key = try keys.key(for: owner) else { return nil }
            guard let inner = Sodium.open(sealed, key: key, context: Array(owner.rawValue.utf8)) else {
                throw CorruptRecord(message: "sealed fields do not open with their owner's key")
            }
            return inner
        }
        let event = try type.decodePayload(&r, &opener)
        try r.expectEnd()
        return (event, opener.erased)
    }
}
