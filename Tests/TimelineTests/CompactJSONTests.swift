import Foundation
import JSONModel
import Testing
@testable import Timeline

/// `JSONOutput.bytes` writes exactly what Foundation's JSONSerialization writes (sorted keys,
/// unescaped slashes) for the values JSONOutput builds (read back into a `JSONValue` from
/// Foundation's bytes), and the page writer's pieces match.
@Suite struct CompactJSONTests {
    static func foundation(_ object: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    @Test func sameBytesAsFoundation() throws {
        let awkward =
            "quote \" backslash \\ slash / tab \t nl \n cr \r bs \u{8} ff \u{c} nul \u{0} us \u{1f} del \u{7f} é 😀 \u{2028}"
        let post: [String: Any] = [
            "id": "p1", "author": "u1", "authorUsername": "ann", "caption": awkward, "image": "ab",
            "hashtags": ["sea", "night"], "likeCount": 3, "commentCount": 0, "createdAt": "2026-01-01T00:00:00.000Z",
            "likedByViewer": false
        ]
        let objects: [Any] = [
            ["items": [post, post], "next": NSNull()] as [String: Any],
            ["items": [[String: Any]](), "next": "cursor/1"] as [String: Any],
            [
                "kind": "like", "actor": "u", "actorUsername": "b", "at": Int64(1_700_000_000_123), "createdAt": "x",
                "post": "p"
            ] as [String: Any],
            ["changed": true] as [String: Any],
            [String: Any](),
            ["follows": ["a": true, "B": false, "c": true]] as [String: Any],
            ["error": ["code": "not_found", "message": awkward, "field": "post"]] as [String: Any],
            [
                "session": "t",
                "user": [
                    "id": "u", "bio": NSNull(), "url": NSNull(), "postCount": -1, "followerCount": Int.max,
                    "followingCount": 0, "followedByViewer": true, "username": "x"
                ] as [String: Any]
            ] as [String: Any],
            ["Zeta": 1, "alpha": 2, "Beta": 3, "beta2": [1, "two", NSNull(), [true]] as [Any], "a": [String]()]
                as [String: Any]
        ]
        for object in objects {
            let expected = try Self.foundation(object)
            let value = try JSONDecoder().decode(JSONValue.self, from: Data(expected))
            #expect(JSONOutput.bytes(value) == expected, "\(String(decoding: JSONOutput.bytes(value), as: UTF8.self))")
        }
    }

    @Test func writesFractionsAsFoundationDoes() throws {
        let object: [String: Any] = ["ratio": 0.25, "n": 1]
        #expect(JSONOutput.bytes(["ratio": .double(0.25), "n": 1]) == (try Self.foundation(object)))
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

    /// A record's field is written from its bytes: well-formed text as it is (escaped where JSON
    /// asks), and a damaged record's ill-formed bytes repaired (U+FFFD), so the answer is JSON.
    @Test func aFieldsBytesAreWrittenAsJSONEvenWhenIllFormed() throws {
        func written(_ bytes: [UInt8]) throws -> String {
            var out: [UInt8] = []
            CompactJSONWriter.writeString(bytes[...], into: &out)
            return try #require(
                try JSONSerialization.jsonObject(with: Data(out), options: .fragmentsAllowed) as? String)
        }
        #expect(try written(Array("plain-id_1".utf8)) == "plain-id_1")
        #expect(try written(Array("café \"☕\"\n".utf8)) == "café \"☕\"\n")
        #expect(try written([0x61, 0xFF, 0x62]) == "a\u{FFFD}b")
        #expect(try written([0x22, 0xC3]) == "\"\u{FFFD}")
    }

    /// The page writer (`postPageBytes`, written straight from the records' bytes) writes, byte
    /// for byte, what the typed encoder (`ResultJSON.Post` through `JSONWriter`) writes for the
    /// same page: over posts with and without a caption (quotes, backslashes, line breaks,
    /// control characters from before validation, non-ASCII), place (named or not, integral
    /// degrees), warning, edit, album and alt text, variants, and with and without a viewer.
    @Test func thePageWriterWritesWhatTheTypedEncoderWrites() async throws {
        let service = try openService()
        let (alice, bob) = (try await service.createUser("alice"), try await service.createUser("bob"))
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        let captions: [String?] = [
            nil, "plain", "quotes \" and \\ backslash", "slash / </script>", "line\nbreak", "é ü 日本語 😀 #café #Sea",
            "line\u{2028}separator", "ends with \\", "#a #b #c #a", "@alice hi"
        ]
        let places: [Place?] = [
            nil, Place(latitude: 48, longitude: 2),
            Place(latitude: 48.8566, longitude: 2.3522, name: "Paris \"centre\""),
            Place(latitude: -33.5, longitude: 151.25), Place(latitude: 0, longitude: -0.5, name: "é/ü"),
            Place(latitude: 90, longitude: -180), Place(latitude: 1e-7, longitude: 123.456789012345)
        ]
        var posts: [PostID] = []
        for index in 0..<40 {
            let caption = captions[index % captions.count], place = places[index % places.count]
            let warning = index % 5 == 0 ? "needles \"sharp\"\nhere" : nil
            let visibility: PostVisibility? = index % 4 == 0 ? .followers : nil
            let command: Command
            if index % 6 == 5 {
                var media: [String] = []
                for photo in 0..<(1 + index % 3) {
                    let alt = photo % 2 == 0 ? "alt \"\(index)\"\n/é" : nil
                    guard
                        case .media(let m) = try await service.execute(
                            .uploadMedia(image: gifBase64(1000 + index * 10 + photo), alt: alt),
                            as: .user(bob.id.rawValue))
                    else { continue }
                    media.append(m.id)
                }
                command = .addPost(
                    media: media, caption: caption, location: place, sensitive: index % 3 == 0 ? true : nil,
                    warning: warning, visibility: visibility)
            } else {
                command = .addPost(
                    image: gifBase64(index), caption: caption, location: place,
                    sensitive: index % 3 == 0 ? true : nil, warning: warning, visibility: visibility)
            }
            guard case .post(let post) = try await service.execute(command, as: .user(bob.id.rawValue)) else {
                continue
            }
            posts.append(post.id)
            if index % 7 == 3 {
                try await service.run(
                    .editPost(post: post.id.rawValue, caption: .some("edited \"\(index)\"")), as: bob.id)
            }
            if index % 2 == 0 { try await service.run(.like(post: post.id.rawValue), as: alice.id) }
            if index % 3 == 1 { try await service.run(.bookmark(post: post.id.rawValue), as: alice.id) }
        }
        // Posts from before validation and the image pipeline: control characters, no variants.
        for (index, caption) in ["tab\there", "controls \u{1}\u{1f}\u{8}\u{c}\r", "bell \u{7}, \u{7f} and \u{0}"]
            .enumerated()
        {
            posts.append(
                try MediaReprocessTests.addOldPost(service, by: bob.id, gifBytes(2000 + index), caption: caption))
        }
        var checked = 0
        for limit in [1, 7, 100] {
            for read in [
                { try service.timeline(of: alice.id, $0) }, { try service.posts(by: bob.id, $0) },
                { try service.posts(by: bob.id, $0, viewer: alice.id) }
            ] as [(PageRequest) throws -> Page<Post>] {
                var request = PageRequest(limit: limit)
                while true {
                    let page = try read(request)
                    let typed = JSONOutput.bytes(JSONOutput.answer(.posts(page)))
                    #expect(JSONOutput.postPageBytes(page) == typed, "\(String(decoding: typed, as: UTF8.self))")
                    checked += page.items.count
                    guard let next = page.next else { break }
                    request.before = next
                }
            }
        }
        #expect(posts.count == 43 && checked >= 3 * 43 - 10)
    }
}
