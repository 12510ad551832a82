import TimelineDomain

/// Keys of the read models: identifier components joined by a 0 byte. Identifiers never
/// contain 0, and 0 sorts below every identifier byte, so a prefix scan over `a ‖ 0` visits
/// exactly the entries of `a`, in order of the next component.
package enum Key {
    /// The key of `parts`, joined by a 0 byte.
    package static func make(_ parts: String...) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(parts.reduce(parts.count) { $0 + $1.utf8.count })
        for (index, part) in parts.enumerated() {
            if index > 0 { out.append(0) }
            append(part, to: &out)
        }
        return out
    }

    /// `a ‖ 0 ‖ b`: the key of every grouped table, made on each lookup a page does (one
    /// allocation, the strings' UTF-8 copied whole).
    package static func make(_ a: String, _ b: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(a.utf8.count + b.utf8.count + 1)
        append(a, to: &out)
        out.append(0)
        append(b, to: &out)
        return out
    }

    static func prefix(_ part: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(part.utf8.count + 1)
        append(part, to: &out)
        out.append(0)
        return out
    }

    private static func append(_ part: String, to out: inout [UInt8]) {
        var part = part
        part.withUTF8 { out.append(contentsOf: $0) }
    }

    /// A key part that orders entries by when they happened (likes, bookmarks, follows,
    /// blocks): the event's log sequence as 16 hex digits, so it sorts and pages as text.
    static func sequenceCursor(_ sequence: UInt64) -> String {
        let digits = String(sequence, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// A two-part key's parts (`make(a, b)` → `(a, b)`).
    static func split(_ key: [UInt8]) -> (String, String) {
        let zero = key.firstIndex(of: 0) ?? key.endIndex
        return (
            String(decoding: key[..<zero], as: UTF8.self),
            String(decoding: key[min(zero + 1, key.endIndex)...], as: UTF8.self)
        )
    }

    /// The component after `prefix` in `key`.
    static func suffix(_ key: [UInt8], after prefix: [UInt8]) -> String {
        String(decoding: key[prefix.count...], as: UTF8.self)
    }
}

/// Binary encodings of read-model records (version byte first, so records can evolve).
enum RecordCodec {
    static func encode(_ u: UserRecord) -> [UInt8] {
        var w = ByteWriter()
        // Version 2 adds a byte of settings after `createdAt` (bit 0: discoverable, bit 1:
        // locked, bit 2: moderator, bit 3: suspended); it is written only for a user whose
        // settings are not the defaults, so such a user's record keeps version 1's bytes (as
        // before the settings).
        let defaults = u.discoverable && !u.locked && !u.moderator && !u.suspended
        w.u8(defaults ? 1 : 2)
        w.string(u.id.rawValue)
        w.string(u.username)
        w.optionalString(u.emailHash)
        w.optionalString(u.passwordHash)
        w.optionalString(u.bio)
        w.optionalString(u.url)
        w.int(u.postCount)
        w.int(u.followerCount)
        w.int(u.followingCount)
        w.int64(u.createdAt)
        if !defaults {
            w.u8((u.discoverable ? 1 : 0) | (u.locked ? 2 : 0) | (u.moderator ? 4 : 0) | (u.suspended ? 8 : 0))
        }
        // Appended (a record without it has no photo); then the header's, after the photo's
        // ids ("" for none).
        if u.avatar != nil || u.header != nil {
            w.string(u.avatar?.large.rawValue ?? "")
            w.string(u.avatar?.small.rawValue ?? "")
        }
        if let header = u.header {
            w.string(header.large.rawValue)
            w.string(header.small.rawValue)
        }
        return w.bytes
    }

    static func user(_ bytes: [UInt8]) throws -> UserRecord {
        var r = ByteReader(bytes)
        let version = try r.u8()
        guard version == 1 || version == 2 else { throw CorruptRecord(message: "unknown user record version") }
        var user = UserRecord(
            id: UserID(try r.string()), username: try r.string(), emailHash: try r.optionalString(),
            passwordHash: try r.optionalString(), bio: try r.optionalString(), url: try r.optionalString(),
            postCount: try r.int(), followerCount: try r.int(), followingCount: try r.int(), createdAt: try r.int64())
        if version == 2 {
            let settings = try r.u8()
            user.discoverable = settings & 1 != 0
            user.locked = settings & 2 != 0
            user.moderator = settings & 4 != 0
            user.suspended = settings & 8 != 0
        }
        if !r.isAtEnd {
            let large = try r.string(), small = try r.string()
            if !large.isEmpty { user.avatar = Avatar(large: ImageID(large), small: ImageID(small)) }
        }
        if !r.isAtEnd { user.header = Avatar(large: ImageID(try r.string()), small: ImageID(try r.string())) }
        return user
    }

    /// Whether the user record `span` says the account is locked, read in place (`user`'s
    /// layout: a version 1 record holds the default settings, not locked): a read that asks it
    /// of many authors makes none of their strings.
    static func userIsLocked(_ span: Span<UInt8>) throws -> Bool {
        typealias R = SpanReading
        var o = 0
        guard try R.u8(span, &o) == 2 else { return false }
        try R.skipString(span, &o)
        try R.skipString(span, &o)
        for _ in 0..<4 { try R.skipString(span, &o, optional: true) }
        for _ in 0..<4 { _ = try R.varint(span, &o) }
        return try R.u8(span, &o) & 2 != 0
    }

    /// The username in the user record `span`, read in place: a page naming many users (its
    /// boosters) decodes none of their records.
    static func username(_ span: Span<UInt8>) throws -> String {
        var o = 0
        let version = try SpanReading.u8(span, &o)
        guard version == 1 || version == 2 else { throw CorruptRecord(message: "unknown user record version") }
        try SpanReading.skipString(span, &o)
        return try SpanReading.string(span, &o)
    }

    static func encode(_ c: CommentRecord) -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.string(c.id.rawValue)
        w.string(c.post.rawValue)
        w.string(c.author.rawValue)
        w.string(c.text)
        w.int64(c.createdAt)
        // Appended only for a reply, so every other record reads as before.
        if let replyTo = c.replyTo { w.string(replyTo.rawValue) }
        return w.bytes
    }

    static func comment(_ bytes: [UInt8]) throws -> CommentRecord {
        var r = ByteReader(bytes)
        guard try r.u8() == 1 else { throw CorruptRecord(message: "unknown comment record version") }
        var comment = CommentRecord(
            id: CommentID(try r.string()), post: PostID(try r.string()), author: UserID(try r.string()),
            text: try r.string(), createdAt: try r.int64())
        if !r.isAtEnd { comment.replyTo = CommentID(try r.string()) }
        return comment
    }

    /// A session or reset token, with the log sequence of the event that issued it (version 2;
    /// version 1 records had none and read back as issued at 0, before any credential change).
    static func encode(_ s: SessionRecord, issuedAt sequence: UInt64) -> [UInt8] {
        var w = ByteWriter()
        // Version 3 appends an OAuth token's app and scopes; a session's record stays version 2's.
        w.u8(s.app == nil ? 2 : 3)
        w.string(s.user.rawValue)
        w.int64(s.expiresAt)
        w.varint(sequence)
        if let app = s.app {
            w.string(app)
            w.strings(s.scopes ?? [])
        }
        return w.bytes
    }

    static func session(_ bytes: [UInt8]) throws -> (record: SessionRecord, issuedAt: UInt64) {
        var r = ByteReader(bytes)
        let version = try r.u8()
        guard (1...3).contains(version) else { throw CorruptRecord(message: "unknown session record version") }
        var record = SessionRecord(user: UserID(try r.string()), expiresAt: try r.int64())
        let issuedAt = version >= 2 ? try r.varint() : 0
        if version == 3 {
            record.app = try r.string()
            record.scopes = try r.strings()
        }
        return (record, issuedAt)
    }
}
