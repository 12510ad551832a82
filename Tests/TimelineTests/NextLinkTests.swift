import Foundation
import MicroHTTPD
import Testing
@testable import TimelineHTTP

/// The `Link` header of a page: plain paths and values are joined as they are, anything else
/// is percent-encoded by `URLComponents`; both spell what SPEC's form asks.
@Suite struct NextLinkTests {
    static func link(_ path: String, _ query: [(name: String, value: String)], next: String) -> String {
        TimelineAPI.nextLink(
            HTTPRequest(method: "GET", path: path, query: query, headers: [:], clientAddress: "127.0.0.1"), next: next)
    }

    @Test func plainPartsAreJoinedAsTheyAre() {
        #expect(
            Self.link("/v1/timeline", [], next: "-OAbc_123") == "</v1/timeline?before=-OAbc_123&limit=20>; rel=\"next\""
        )
        #expect(
            Self.link("/v1/users/u1/posts", [("limit", "5"), ("before", "old")], next: "p9")
                == "</v1/users/u1/posts?before=p9&limit=5>; rel=\"next\"")
        #expect(
            Self.link("/v1/posts/nearby", [("lat", "48.8"), ("lon", "2.35"), ("limit", "3")], next: "p2")
                == "</v1/posts/nearby?lat=48.8&lon=2.35&before=p2&limit=3>; rel=\"next\"")
    }

    @Test func anythingElseIsPercentEncoded() {
        #expect(
            Self.link("/v1/users", [("prefix", "a b&c")], next: "ann")
                == "</v1/users?prefix=a%20b%26c&before=ann&limit=20>; rel=\"next\"")
        #expect(
            Self.link("/v1/hashtags/été/posts", [], next: "p1")
                == "</v1/hashtags/%C3%A9t%C3%A9/posts?before=p1&limit=20>; rel=\"next\"")
        #expect(Self.link("//v1//timeline", [], next: "p1") == "</v1/timeline?before=p1&limit=20>; rel=\"next\"")
    }
}
