import Foundation

/// Another server's HTML (a `Note`'s `content`, an actor's `summary`) as the plain text
/// Timeline keeps: paragraphs and `<br>` become line breaks, every tag goes (its text stays: a
/// link's words, a mention's `@name`), and the five entities HTML escapes and numeric ones are
/// decoded. Nothing of the markup survives, so nothing of it can run in a reader's browser (the
/// web app and the Mastodon API escape the text again when they show it).
enum RemoteHTML {
    /// The longest HTML read (a comment's text is far shorter; the rest is cut off).
    static let maxBytes = 64 * 1024

    static func text(_ html: String) -> String {
        var out = "", tag = "", inTag = false
        for character in String(decoding: html.utf8.prefix(maxBytes), as: UTF8.self) {
            if inTag {
                if character == ">" {
                    inTag = false
                    let closing = tag.hasPrefix("/")
                    let name = tag.lowercased().drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }
                    if name == "br" { out += "\n" }
                    if name == "p", closing { out += "\n\n" }
                    tag = ""
                } else {
                    tag.append(character)
                }
            } else if character == "<" {
                inTag = true
            } else {
                out.append(character)
            }
        }
        return decodeEntities(out).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = "", rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else {
                out += "&"
                rest = rest.dropFirst()
                continue
            }
            let name = rest[rest.index(after: rest.startIndex)..<semicolon]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " "][String(name)]
            var decoded = named
            if decoded == nil, name.hasPrefix("#") {
                let digits = name.dropFirst()
                let value =
                    digits.hasPrefix("x") || digits.hasPrefix("X")
                    ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                decoded = value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            }
            if let decoded {
                out += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                out += "&"
                rest = rest.dropFirst()
            }
        }
        return out + rest
    }
}
