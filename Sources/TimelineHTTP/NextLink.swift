import Foundation
import MicroHTTPD
import Timeline

/// The `Link` header of a page that has a next one.
extension TimelineAPI {
    /// `<path?…&before=next&limit=n>; rel="next"` (SPEC's form: the limit always named, the
    /// default when the request gave none), keeping the request's other query parameters.
    /// Only called once the query was read, so a `limit` given is a valid one.
    static func nextLink(_ request: HTTPRequest, next: String) -> String {
        let limit = request.query.last { $0.name == "limit" }?.value ?? String(PageRequest.defaultLimit)
        let kept = request.query.filter { $0.name != "before" && $0.name != "limit" }
        // Every page of every list has a link: when no part needs percent-encoding (ids,
        // limits and plain paths never do), it is joined as it is.
        let path = request.path
        if path.hasPrefix("/"), !path.hasSuffix("/"), !path.contains("//"), isUnreserved(path, allowingSlash: true),
            isUnreserved(next), isUnreserved(limit),
            kept.allSatisfy({ isUnreserved($0.name) && isUnreserved($0.value) })
        {
            let others = kept.map { $0.name + "=" + $0.value + "&" }.joined()
            return "<" + path + "?" + others + "before=" + next + "&limit=" + limit + ">; rel=\"next\""
        }
        var items = URLComponents()
        items.queryItems =
            kept.map { URLQueryItem(name: $0.name, value: $0.value) }
            + [URLQueryItem(name: "before", value: next), URLQueryItem(name: "limit", value: limit)]
        let query = items.percentEncodedQuery ?? ""
        let segments = path.split(separator: "/").map {
            $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? String($0)
        }
        return "</\(segments.joined(separator: "/"))?\(query)>; rel=\"next\""
    }

    /// Whether `text` is only RFC 3986's unreserved characters (and `/`, when allowed), which
    /// a URL's path and query carry as they are; an empty path segment or text is not.
    private static func isUnreserved(_ text: String, allowingSlash: Bool = false) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                    true
                case UInt8(ascii: "/"): allowingSlash
                default: false
                }
            }
    }
}
