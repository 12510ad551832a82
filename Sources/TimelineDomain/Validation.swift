import Foundation

/// The input rules of docs/spec.md, as pure functions that normalise a value or throw
/// `invalid_argument` naming the field.
package enum Validation {
    /// The longest bio, in Unicode scalars.
    public static let maxBio = 150
    /// The longest profile link, in bytes.
    public static let maxURL = 2048
    /// The longest caption, in Unicode scalars.
    public static let maxCaption = 2200
    /// The longest comment, in Unicode scalars.
    public static let maxComment = 2200
    /// The longest report reason, in Unicode scalars.
    public static let maxReason = 500
    /// The longest place name, in Unicode scalars.
    public static let maxPlaceName = 100
    /// The most hashtags one caption may have.
    public static let maxHashtags = 30
    /// Longest hashtag in UTF-8 bytes (it is part of an index key, and LMDB keys are ≤ 511 bytes).
    public static let maxHashtagBytes = 200
    /// A password's length in UTF-8 bytes.
    public static let passwordBytes = 8...1024
    /// A username's length after folding, in characters (all ASCII by then).
    public static let usernameLength = 1...30
    /// An email address's length in bytes.
    public static let emailBytes = 3...254

    /// Lowercased, compatibility-normalised (NFKC, so full-width `ａlice` is `alice`),
    /// 1–30 of `[a-z0-9._]`.
    public static func username(_ raw: String, field: String = "username") throws(TimelineError) -> String {
        guard raw.utf8.count <= 256 else { throw .invalid(field, "username must be 1–30 characters") }
        let folded = raw.precomposedStringWithCompatibilityMapping.lowercased()
        guard usernameLength.contains(folded.utf8.count) else {
            throw .invalid(field, "username must be 1–30 characters")
        }
        guard
            folded.utf8.allSatisfy({
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x5F
            })
        else {
            throw .invalid(field, "username may contain only letters a–z, digits, '.' and '_'")
        }
        return folded
    }

    /// A well-formed address (ASCII, one `@`, a dotted domain), lowercased.
    public static func email(_ raw: String) throws(TimelineError) -> String {
        let email = raw.lowercased()
        let bytes = Array(email.utf8)
        guard emailBytes.contains(bytes.count), let at = bytes.firstIndex(of: 0x40), bytes.lastIndex(of: 0x40) == at
        else {
            throw .invalid("email", "email is not a valid address")
        }
        let local = bytes[..<at], domain = bytes[(at + 1)...]
        let localAllowed = Set("abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+/=?^_`{|}~.-".utf8)
        let labels = domain.split(separator: 0x2E, omittingEmptySubsequences: false)
        guard (1...64).contains(local.count), local.allSatisfy(localAllowed.contains),
            local.first != 0x2E, local.last != 0x2E, !email.contains(".."),
            labels.count >= 2,
            labels.allSatisfy({ label in
                (1...63).contains(label.count) && label.first != 0x2D && label.last != 0x2D
                    && label.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
            })
        else { throw .invalid("email", "email is not a valid address") }
        return email
    }

    /// 8–1024 bytes of UTF-8 (`field` names the input in the error). The password itself is
    /// never stored.
    public static func password(_ raw: String, field: String = "password") throws(TimelineError) {
        guard passwordBytes.contains(raw.utf8.count) else {
            throw .invalid(field, "\(field) must be 8–1024 bytes")
        }
    }

    /// Free text: NFC-normalised, no control characters except newline, no bidirectional
    /// overrides, at most `max` Unicode scalars. Empty or whitespace-only text is refused
    /// unless `allowEmpty`.
    public static func text(_ raw: String, field: String, max: Int, allowEmpty: Bool) throws(TimelineError) -> String {
        guard raw.utf8.count <= max * 4 + 16 else {
            throw .invalid(field, "\(field) must be at most \(max) characters")
        }
        let text = raw.precomposedStringWithCanonicalMapping
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control && scalar != "\n" {
                throw .invalid(field, "\(field) must not contain control characters")
            }
            if (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) {
                throw .invalid(field, "\(field) must not contain bidirectional overrides")
            }
        }
        guard text.unicodeScalars.count <= max else {
            throw .invalid(field, "\(field) must be at most \(max) characters")
        }
        if !allowEmpty && text.allSatisfy(\.isWhitespace) {
            throw .invalid(field, "\(field) must not be empty")
        }
        return text
    }

    /// A bio: free text of at most `maxBio` characters, possibly empty.
    public static func bio(_ raw: String) throws(TimelineError) -> String {
        try text(raw, field: "bio", max: maxBio, allowEmpty: true)
    }

    /// An absolute `http` or `https` URL of at most 2048 bytes; empty clears it.
    public static func url(_ raw: String) throws(TimelineError) -> String {
        if raw.isEmpty { return raw }
        guard raw.utf8.count <= maxURL else { throw .invalid("url", "url must be at most \(maxURL) bytes") }
        guard raw.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0.isASCII }),
            let components = URLComponents(string: raw),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { throw .invalid("url", "url must be an absolute http or https URL") }
        return raw
    }

    /// A caption: free text of at most `maxCaption` characters, possibly empty.
    public static func caption(_ raw: String) throws(TimelineError) -> String {
        try text(raw, field: "caption", max: maxCaption, allowEmpty: true)
    }

    /// A comment's text: free text of at most `maxComment` characters, not empty.
    public static func commentText(_ raw: String) throws(TimelineError) -> String {
        try text(raw, field: "text", max: maxComment, allowEmpty: false)
    }

    /// A report's reason: free text of at most `maxReason` characters, not empty.
    public static func reason(_ raw: String) throws(TimelineError) -> String {
        try text(raw, field: "reason", max: maxReason, allowEmpty: false)
    }

    /// A post's place: finite coordinates in range (latitude −90…90, longitude −180…180) and a
    /// name of at most 100 characters, trimmed (empty is no name). Errors name
    /// `location.latitude`, `location.longitude` or `location.name`.
    public static func place(_ raw: Place) throws(TimelineError) -> Place {
        guard raw.latitude.isFinite, (-90...90).contains(raw.latitude) else {
            throw .invalid("location.latitude", "latitude must be a number from -90 to 90")
        }
        guard raw.longitude.isFinite, (-180...180).contains(raw.longitude) else {
            throw .invalid("location.longitude", "longitude must be a number from -180 to 180")
        }
        let name = try raw.name.map { name throws(TimelineError) in
            try text(
                name.trimmingCharacters(in: .whitespacesAndNewlines), field: "location.name", max: maxPlaceName,
                allowEmpty: true)
        }
        // -0.0 is stored as 0, so equal places encode alike.
        return Place(
            latitude: raw.latitude + 0, longitude: raw.longitude + 0, name: name?.isEmpty == false ? name : nil)
    }

    /// A hashtag as captions record it: NFC-normalised (as all free text is) and lowercased,
    /// so a query finds the posts whatever form or case it is typed in.
    public static func hashtag(_ raw: String) -> String {
        raw.precomposedStringWithCanonicalMapping.lowercased()
    }

    /// The most users one text mentions (those after are not told), as Instagram caps them.
    public static let maxMentions = 20

    /// The usernames `@mentioned` in `text` (as written there, folded as usernames are), each once,
    /// in order, at most `maxMentions`: its `TextTokens` mentions. An `@` inside a word (an email
    /// address) mentions nobody, and a handle (`@bob@photos.example`, another server's account)
    /// is that account's, `bob@photos.example`, never the local `bob`.
    public static func mentions(in text: String) -> [String] {
        var names: [String] = [], seen = Set<String>()
        for token in TextTokens.tokens(in: text) where token.kind == .mention {
            let name = token.name.lowercased()
            if seen.insert(name).inserted { names.append(name) }
        }
        return Array(names.prefix(maxMentions))
    }

    /// Hashtags of a caption (its `TextTokens` hashtags): `#` then letters, digits or `_`;
    /// lowercased, deduplicated in order of first appearance; more than 30 is refused.
    public static func hashtags(in caption: String) throws(TimelineError) -> [String] {
        var tags: [String] = []
        var seen = Set<String>()
        for token in TextTokens.tokens(in: caption) where token.kind == .hashtag {
            let tag = token.name.lowercased()
            if seen.insert(tag).inserted { tags.append(tag) }
        }
        if tags.contains(where: { $0.utf8.count > maxHashtagBytes }) {
            throw .invalid("caption", "a hashtag may be at most \(maxHashtagBytes) bytes long")
        }
        guard tags.count <= maxHashtags else {
            throw .invalid("caption", "a caption may have at most \(maxHashtags) hashtags")
        }
        return tags
    }

    /// A reference to an entity by identifier.
    public static func identifier<ID: Identifier>(_ raw: String, field: String) throws(TimelineError) -> ID {
        guard let id = ID.parse(raw) else { throw .invalid(field, "\(field) is not a valid identifier") }
        return id
    }
}
