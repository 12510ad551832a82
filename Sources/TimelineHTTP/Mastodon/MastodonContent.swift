import Foundation
import Timeline

/// A caption or comment as Mastodon's `content`: the text escaped, in a paragraph, lines broken
/// with `<br>`, `#hashtags` linked as Mastodon links them (`class="mention hashtag"`,
/// `rel="tag"`) and `@mentions` of accounts that exist linked as `h-card`s (a handle,
/// `@name@host`, is another server's account's); with the `mentions`
/// and `tags` a status lists beside it. The hashtags and mentions are the domain's own
/// (`TextTokens`): the ones a caption is indexed under and the ones notified.
struct MastodonContent {
    var html = ""
    var mentions: [Mastodon.Mention] = []
    var tags: [Mastodon.StatusTag] = []

    /// `text` rendered; `account(username)` finds a mentioned account's Mastodon id (nil: plain text).
    init(_ text: String, base: String, account: (String) throws(TimelineError) -> String?) throws(TimelineError) {
        guard !text.isEmpty else { return }
        var out = "<p>", seenTags = Set<String>(), seenMentions = Set<String>()
        func plain(_ text: Substring) -> String {
            text.map { $0 == "\n" ? "<br>" : HTMLText.escape(String($0)) }.joined()
        }
        for token in TextTokens.tokens(in: text) {
            switch token.kind {
            case .text:
                out += plain(token.text)
            case .hashtag:
                let word = String(token.name), tag = Validation.hashtag(word)
                let query = tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? tag
                let url = "\(base)/#/search?q=%23\(query)"
                out +=
                    "<a href=\"\(HTMLText.escape(url))\" class=\"mention hashtag\" rel=\"tag\">#<span>"
                    + "\(HTMLText.escape(word))</span></a>"
                if seenTags.insert(tag).inserted { tags.append(Mastodon.StatusTag(name: tag, url: url)) }
            case .mention:
                let username = token.name.lowercased()
                guard let id = try account(username) else {
                    out += plain(token.text)
                    continue
                }
                let url = "\(base)/#/u/\(username)"
                out +=
                    "<span class=\"h-card\"><a href=\"\(HTMLText.escape(url))\" class=\"u-url mention\">@<span>"
                    + "\(HTMLText.escape(String(token.name)))</span></a></span>"
                if seenMentions.insert(username).inserted {
                    // Another server's account: its name, and its handle as `acct`.
                    let name = username.split(separator: "@").first.map(String.init) ?? username
                    mentions.append(Mastodon.Mention(id: id, username: name, acct: username, url: url))
                }
            }
        }
        html = out + "</p>"
    }
}
