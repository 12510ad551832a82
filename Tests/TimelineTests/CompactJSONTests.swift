import Foundation
import Testing
@testable import Timeline

/// `JSONOutput.bytes` writes exactly what Foundation's JSONSerialization writes (sorted keys,
/// unescaped slashes) for the values JSONOutput builds.
@Suite struct CompactJSONTests {
    static func foundation(_ object: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    @Test func sameBytesAsFoundation() throws {
        let awkward = "quote \" backslash \\ slash / tab \t nl \n cr \r bs \u{8} ff \u{c} nul \u{0} us \u{1f} del \u{7f} é 😀 \u{2028}"
        let post: [String: Any] = ["id": "p1", "author": "u1", "authorUsername": "ann", "caption": awkward, "image": "ab",
                                   "hashtags": ["sea", "night"], "likeCount": 3, "commentCount": 0, "createdAt": "2026-01-01T00:00:00.000Z",
                                   "likedByViewer": false]
        let objects: [Any] = [
            ["items": [post, post], "next": NSNull()] as [String: Any],
            ["items": [[String: Any]](), "next": "cursor/1"] as [String: Any],
            ["kind": "like", "actor": "u", "actorUsername": "b", "at": Int64(1_700_000_000_123), "createdAt": "x", "post": "p"] as [String: Any],
            ["changed": true] as [String: Any],
            [String: Any](),
            ["follows": ["a": true, "B": false, "c": true]] as [String: Any],
            ["error": ["code": "not_found", "message": awkward, "field": "post"]] as [String: Any],
            ["session": "t", "user": ["id": "u", "bio": NSNull(), "url": NSNull(), "postCount": -1, "followerCount": Int.max,
                                      "followingCount": 0, "followedByViewer": true, "username": "x"] as [String: Any]] as [String: Any],
            ["Zeta": 1, "alpha": 2, "Beta": 3, "beta2": [1, "two", NSNull(), [true]] as [Any], "a": [String]()] as [String: Any],
        ]
        for object in objects {
            #expect(JSONOutput.bytes(object) == (try Self.foundation(object)), "\(String(decoding: JSONOutput.bytes(object), as: UTF8.self))")
        }
    }

    @Test func leavesOtherValuesToFoundation() throws {
        let object: [String: Any] = ["ratio": 0.25, "n": 1]
        #expect(JSONOutput.bytes(object) == (try Self.foundation(object)))
    }

    /// The digits the page writer makes itself match `String(value)` and an independent RFC
    /// 3339 formatter (Foundation's), before, at and after the epoch and past a leap day.
    @Test func integersAndTimestampsMatchAnIndependentFormatter() throws {
        for value in [0, 7, 10, 99, 1_000, Int.max, -1, -42, Int.min] {
            var out: [UInt8] = []
            CompactJSONWriter.writeInteger(value, into: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(value))
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        for ms: Int64 in [0, 1, 999, 1_000, 1_709_164_800_123, 1_764_633_845_007, -1, -1_001, 253_402_300_799_999] {
            let expected = formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
            #expect(JSONOutput.timestamp(ms) == expected, "\(ms)")
        }
    }
}
