/// A piece of a caption or comment as the text is read once, everywhere: plain text, a
/// `#hashtag` or an `@mention`. The domain indexes hashtags and notifies mentions from these
/// tokens, and the Mastodon API renders its HTML from the same ones, so a text has one set of
/// hashtags and one set of mentions wherever it is read.
public struct TextToken: Sendable, Equatable {
    /// What a token is.
    public enum Kind: Sendable, Equatable {
        /// Text that is neither a hashtag nor a mention (an email address, a `#` alone among them).
        case text
        /// `#` and its name (`name` without the `#`, as written).
        case hashtag
        /// `@` and a local username, or another server's account's handle (`@bob@photos.example`)
        /// (`name` without the first `@`, as written: not yet folded).
        case mention
    }

    /// What the token is.
    public let kind: Kind
    /// Where it lies in the text it was read from (with its `#` or `@`).
    public let range: Range<String.Index>
    /// The token as written: the whole run for `text`, the `#` or `@` with its name otherwise.
    public let text: Substring
    /// The name of a hashtag or mention (after its `#` or `@`), as written; the text for `text`.
    public var name: Substring { kind == .text ? text : text.dropFirst() }
}

/// The one tokenizer of captions and comments (`Validation.hashtags(in:)`,
/// `Validation.mentions(in:)` and the Mastodon API's content all read its tokens). Its rules:
///
/// - A hashtag is `#` then one or more letters, digits (any script) or `_`, wherever the `#`
///   is, inside a word too (`a#b` tags `b`), as captions have always been indexed; it ends
///   at the first other character (`#café.` is `#café`).
/// - A mention is `@` at the start or after a character that is not a letter, digit, `_` or
///   `.` (so `email@example.com` mentions nobody), then a username's characters (ASCII
///   letters, digits, `_`, `.`), trailing dots left out (`@bob.` is `@bob`), 1–30 of them.
///   A name that runs on into a letter or digit outside a username's alphabet names nobody
///   (`@zoë` is not `@zo`).
/// - A mention of another server's account is a handle, `@name@host` (`name` the handle's
///   name: `bob@photos.example`, never the local `bob`): a name not ending in `.`, `@`, then
///   a host of two or more dot-separated labels, or one with a port (`@bob@localhost:8443`).
public enum TextTokens {
    /// The tokens of `text`, in order; adjacent plain characters are one `text` token, and
    /// the tokens together are the whole text.
    public static func tokens(in text: String) -> [TextToken] {
        var tokens: [TextToken] = []
        var plainStart = text.startIndex
        var index = text.startIndex
        var previous: Character?
        func emit(_ kind: TextToken.Kind, _ range: Range<String.Index>) {
            if plainStart < range.lowerBound {
                let plain = plainStart..<range.lowerBound
                tokens.append(TextToken(kind: .text, range: plain, text: text[plain]))
            }
            tokens.append(TextToken(kind: kind, range: range, text: text[range]))
            plainStart = range.upperBound
        }
        while index < text.endIndex {
            let character = text[index]
            var end: String.Index?
            var kind = TextToken.Kind.text
            if character == "#" {
                kind = .hashtag
                end = hashtagEnd(in: text, after: index)
            } else if character == "@", !(previous.map { isWord($0) || $0 == "." } ?? false) {
                kind = .mention
                end = mentionEnd(in: text, after: index)
            }
            if let end {
                emit(kind, index..<end)
                previous = text[text.index(before: end)]
                index = end
            } else {
                previous = character
                index = text.index(after: index)
            }
        }
        if plainStart < text.endIndex {
            tokens.append(TextToken(kind: .text, range: plainStart..<text.endIndex, text: text[plainStart...]))
        }
        return tokens
    }

    /// A letter or digit of any script, or `_`: what a hashtag is made of (a search for a
    /// hashtag reads its words by the same rule).
    public static func isWord(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    /// A username's character: an ASCII letter or digit, `_` or `.`.
    static func isNameCharacter(_ c: Character) -> Bool { c.isASCII && (isWord(c) || c == ".") }

    /// The end of the hashtag whose `#` is at `sign`, or nil when no name follows it.
    private static func hashtagEnd(in text: String, after sign: String.Index) -> String.Index? {
        var end = text.index(after: sign)
        while end < text.endIndex, isWord(text[end]) { end = text.index(after: end) }
        return end > text.index(after: sign) ? end : nil
    }

    /// The end of the mention whose `@` is at `sign`, or nil when it names nobody.
    private static func mentionEnd(in text: String, after sign: String.Index) -> String.Index? {
        let start = text.index(after: sign)
        var run = start
        while run < text.endIndex, isNameCharacter(text[run]) { run = text.index(after: run) }
        // Another server's account, `@bob@photos.example` (its name does not end in a dot).
        if run < text.endIndex, text[run] == "@", run > start, text[text.index(before: run)] != "." {
            guard Validation.usernameLength.contains(text.utf8[start..<run].count),
                let end = hostEnd(in: text, after: run)
            else { return nil }
            return end
        }
        // Runs on into a letter or digit of another alphabet (`@zoë`), or `@bob.@evil`: nobody.
        if run < text.endIndex, isWord(text[run]) || text[run] == "@" { return nil }
        var end = run
        while end > start, text[text.index(before: end)] == "." { end = text.index(before: end) }
        return Validation.usernameLength.contains(text.utf8[start..<end].count) ? end : nil
    }

    /// The end of the host of a handle whose second `@` is at `sign`: dot-separated labels of
    /// ASCII letters, digits and `-`, at least two, and a port if one follows (`host:8443`);
    /// trailing dots are the sentence's. Nil when no such host follows, or it runs on into a word.
    private static func hostEnd(in text: String, after sign: String.Index) -> String.Index? {
        func isHostCharacter(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber || c == "-") }
        var end = text.index(after: sign), lastLabelEnd: String.Index?, labels = 0
        while end < text.endIndex, isHostCharacter(text[end]) {
            while end < text.endIndex, isHostCharacter(text[end]) { end = text.index(after: end) }
            labels += 1
            lastLabelEnd = end
            guard end < text.endIndex, text[end] == ".", text.index(after: end) < text.endIndex,
                isHostCharacter(text[text.index(after: end)])
            else { break }
            end = text.index(after: end)
        }
        guard var end = lastLabelEnd, labels >= 2 || (end < text.endIndex && text[end] == ":") else { return nil }
        if end < text.endIndex, text[end] == ":" {
            var port = text.index(after: end)
            while port < text.endIndex, text[port].isASCII, text[port].isNumber { port = text.index(after: port) }
            if port > text.index(after: end) { end = port } else if labels < 2 { return nil }
        }
        if end < text.endIndex, isWord(text[end]) || text[end] == "@" { return nil }
        return end
    }
}
