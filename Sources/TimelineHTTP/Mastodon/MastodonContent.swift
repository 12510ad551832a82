import Foundation
import Timeline

/// A caption or comment as Mastodon's `content`: the text escaped, in a paragraph, lines broken
/// with `<br>`, `#hashtags` linked as Mastodon links them (`class="mention hashtag"`,
/// `rel="tag"`) and `@mentions` of accounts that exist linked as `h-card`s (`@name@domain`,
/// another server's account, is plain text: no local account is named); with the `mentions`
/// and `tags` a status lists beside it.
struct MastodonContent {
    var html = ""
    var mentions: [[String: Any]] = []
    var tags: [[String: Any]] = []

    /// `text` rendered; `account(username)` finds a mentioned account (nil: plain text).
    init(_ text: String, base: String, account: (String) -> UserID?) {
        guard !text.isEmpty else { return }
        var out = "<p>", seenTags = Set<String>(), seenMentions = Set<String>()
        let characters = Array(text)
        var index = 0
        func isWord(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }
        while index < characters.count {
            let c = characters[index]
            let startsToken = (c == "#" || c == "@") && (index == 0 || !(isWord(characters[index - 1]) || characters[index - 1] == "."))
            if startsToken {
                var end = index + 1
                while end < characters.count, isWord(characters[end]) || (c == "@" && characters[end] == "." && end + 1 < characters.count && isWord(characters[end + 1])) {
                    end += 1
                }
                let word = String(characters[index + 1..<end])
                if c == "#", !word.isEmpty {
                    let tag = Validation.hashtag(word)
                    let url = "\(base)/#/search?q=%23\(tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? tag)"
                    out += "<a href=\"\(HTMLText.escape(url))\" class=\"mention hashtag\" rel=\"tag\">#<span>\(HTMLText.escape(word))</span></a>"
                    if seenTags.insert(tag).inserted { tags.append(["name": tag, "url": url]) }
                    index = end
                    continue
                }
                // A name followed by `@` (after any dots), as the domain's mention parser reads it.
                var after = end
                while after < characters.count, characters[after] == "." { after += 1 }
                let remote = after < characters.count && characters[after] == "@"
                if c == "@", !word.isEmpty, !remote, let id = account(word.lowercased()) {
                    let username = word.lowercased(), url = "\(base)/#/u/\(username)"
                    out += "<span class=\"h-card\"><a href=\"\(HTMLText.escape(url))\" class=\"u-url mention\">@<span>\(HTMLText.escape(word))</span></a></span>"
                    if seenMentions.insert(username).inserted {
                        mentions.append(["id": id.rawValue, "username": username, "acct": username, "url": url])
                    }
                    index = end
                    continue
                }
            }
            out += c == "\n" ? "<br>" : HTMLText.escape(String(c))
            index += 1
        }
        html = out + "</p>"
    }
}
