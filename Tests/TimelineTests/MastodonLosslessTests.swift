import Foundation
import Testing
@testable import Timeline
@testable import TimelineHTTP
import TimelineDomain

/// The Mastodon layer says what is true (issue #39, "a lossless Mastodon layer"): a text's
/// hashtags and mentions are the domain's, every field is computed (or Mastodon's answer for
/// what does not exist here), a lookup's failure is not a 404, `min_id` reads right after
/// itself, and OAuth's `invalid_client` is chosen by the error's kind.
@Suite struct MastodonLosslessTests {
    /// Given a text, when the domain reads its mentions and hashtags and the Mastodon API
    /// renders it, then both read the same ones.
    @Test(arguments: [
        ("@zoë hello", [String](), [String]()),
        ("@zo hello", ["zo"], []),
        ("a#b", [], ["b"]),
        // A handle names another server's account (#43), never the local bob.
        ("@bob@evil.example", ["bob@evil.example"], []),
        ("@bob@localhost:8443, hi", ["bob@localhost:8443"], []),
        ("@bob@evil.example.", ["bob@evil.example"], []),
        ("@bob@evil", [], []),
        ("@bob@evil.exämple", [], []),
        ("@bob.@evil.example", [], []),
        ("write to email@example.com", [], []),
        ("#café and #Café.", [], ["café"]),
        ("hi @bob. and @carol...", ["bob", "carol"], []),
        ("@@bob #a#b", ["bob"], ["a", "b"]),
        ("#tag@bob and @bob#tag", ["bob"], ["tag"]),
        ("@\(String(repeating: "a", count: 31)) too long", [], [])
    ])
    func textIsTokenisedOnce(text: String, mentions: [String], hashtags: [String]) throws {
        #expect(Validation.mentions(in: text) == mentions, "\(text)")
        #expect(try Validation.hashtags(in: text) == hashtags, "\(text)")
        // Every name is an account here: the content links exactly the domain's mentions.
        let content = try MastodonContent(text, base: "http://h") { name throws(TimelineError) in "1" + name }
        #expect(content.mentions.map(\.acct) == mentions, "\(text)")
        #expect(content.tags.map(\.name) == hashtags, "\(text)")
        // The tokens are the whole text, in order.
        #expect(TextTokens.tokens(in: text).map(\.text).joined() == text)
    }

    @Test func theTokensSayWhereTheyLie() {
        let text = "Hi @Bob, see #Sea!"
        let tokens = TextTokens.tokens(in: text)
        #expect(tokens.map(\.kind) == [.text, .mention, .text, .hashtag, .text])
        #expect(tokens.map { String(text[$0.range]) } == ["Hi ", "@Bob", ", see ", "#Sea", "!"])
        #expect(tokens.filter { $0.kind != .text }.map { String($0.name) } == ["Bob", "Sea"])
    }

    /// Given `@zoë` and `a#b` in a caption, when it is posted, then `zo` is not told and the
    /// status shows the tag it is indexed under.
    @Test func theServerNotifiesAndShowsTheSameMentionsAndTags() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), zo = try await api.signUp("zo")
            let post = try await server.mastodonID(
                "post", try await api.addPost(alice.token, caption: "@zoë a#b and @zo."))
            let status = try await api.get("/api/v1/statuses/\(post)", bearer: alice.token)
            let mentions = (status.json["mentions"] as? [[String: Any]])?.compactMap { $0["username"] as? String }
            #expect(mentions == ["zo"], "\(status)")
            let tags = (status.json["tags"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(tags == ["b"], "\(status)")
            let content = try #require(status.json["content"] as? String)
            #expect(content.contains("@zoë") && !content.contains("@<span>zo</span>ë"), "\(content)")
            #expect(try await api.get("/api/v1/timelines/tag/b", bearer: alice.token).text.contains(post))
            let told = try await api.get("/v1/activity", bearer: zo.token).items.compactMap { $0["kind"] as? String }
            #expect(told == ["mention"], "one mention, of `@zo.`, not of `@zoë`")
        }
    }

    /// Given settings, follow requests, a followers-only post and a block, when Mastodon's
    /// entities show them, then each field is the real value.
    @Test func accountsStatusesAndRelationshipsSayWhatIsTrue() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            let aliceID = try await server.mastodonID("account", alice.id)
            let bobID = try await server.mastodonID("account", bob.id)
            let carolID = try await server.mastodonID("account", carol.id)
            let form = "application/x-www-form-urlencoded"
            let settings = Data("discoverable=false&locked=true".utf8)
            let updated = try await api.send(
                "PATCH", "/api/v1/accounts/update_credentials", body: settings,
                contentType: form, bearer: alice.token)
            #expect(updated.status == 200 && updated.json["discoverable"] as? Bool == false, "\(updated)")
            // Another's setting is theirs: `null`, Mastodon's "not set".
            let seen = try await api.get("/api/v1/accounts/\(aliceID)", bearer: bob.token)
            #expect(seen.status == 200 && seen.json["discoverable"] is NSNull, "\(seen)")

            for follower in [bob, carol] {
                let follow = try await api.send("POST", "/api/v1/accounts/\(aliceID)/follow", bearer: follower.token)
                #expect(follow.status == 200, "\(follow)")
            }
            func pending() async throws -> Int? {
                let me = try await api.get("/api/v1/accounts/verify_credentials", bearer: alice.token)
                return (me.json["source"] as? [String: Any])?["follow_requests_count"] as? Int
            }
            #expect(try await pending() == 2)
            let authorized = try await api.send(
                "POST", "/api/v1/follow_requests/\(bobID)/authorize",
                bearer: alice.token)
            #expect(authorized.status == 200, "\(authorized)")
            #expect(try await pending() == 1)

            // A comment is seen by whoever sees its post: on a followers-only post, `private`.
            let followersOnly: [String: Any] = ["image": gifBase64(1), "visibility": "followers"]
            let reply = try await api.send("POST", "/v1/posts", json: followersOnly, bearer: alice.token)
            let post = try await server.mastodonID("post", try #require(reply.json["id"] as? String, "\(reply)"))
            let answer = Data("status=hi&in_reply_to_id=\(post)".utf8)
            let comment = try await api.send(
                "POST", "/api/v1/statuses", body: answer, contentType: form,
                bearer: bob.token)
            #expect(comment.status == 200 && comment.json["visibility"] as? String == "private", "\(comment)")
            let commentID = try #require(comment.json["id"] as? String)
            let read = try await api.get("/api/v1/statuses/\(commentID)", bearer: alice.token)
            #expect(read.json["visibility"] as? String == "private", "\(read)")
            let context = try await api.get("/api/v1/statuses/\(post)/context", bearer: bob.token)
            let descendants = (context.json["descendants"] as? [[String: Any]])?.map { $0["visibility"] as? String }
            #expect(descendants == ["private"], "\(context)")

            // A block: the blocked one reads `blocked_by` (the blocker's profile is not hidden
            // from them), the blocker `blocking`.
            #expect(try await api.send("POST", "/api/v1/accounts/\(carolID)/block", bearer: alice.token).status == 200)
            func relationship(with id: String, as token: String) async throws -> [String: Any] {
                let reply = try await api.get("/api/v1/accounts/relationships?id[]=\(id)", bearer: token)
                let list = try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]]
                return try #require(list?.first, "\(reply)")
            }
            let theirs = try await relationship(with: aliceID, as: carol.token)
            #expect(theirs["blocked_by"] as? Bool == true && theirs["blocking"] as? Bool == false, "\(theirs)")
            let hers = try await relationship(with: carolID, as: alice.token)
            #expect(hers["blocked_by"] as? Bool == false && hers["blocking"] as? Bool == true, "\(hers)")
        }
    }

    /// Given more than 400 posts, when a client asks for the ones right after an old one
    /// (`min_id`), then it gets them, newest first, on the account's list and the home timeline.
    @Test func minIDReadsRightAfterItOverALongList() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let aliceID = try await server.mastodonID("account", alice.id)
            #expect(try await api.send("POST", "/api/v1/accounts/\(aliceID)/follow", bearer: bob.token).status == 200)
            let lines = (0..<450).map {
                ["id": "\($0)", "as": alice.id, "command": "addPost", "image": gifBase64($0 % 7)] as [String: Any]
            }
            let results = try await execLines(database: server.database, lines)
            try #require(results.count == 450 && results.allSatisfy { $0["ok"] as? Bool == true })
            let native = results.compactMap { ($0["result"] as? [String: Any])?["id"] as? String }
            try #require(native.count == 450 && native == native.sorted())
            // Mastodon's ids sort as numbers in the order the posts were made.
            let posts = try await server.mastodonIDs("post", native)
            try #require(
                posts.compactMap(UInt64.init) == posts.compactMap(UInt64.init).sorted() && Set(posts).count == 450)
            func ids(_ path: String, _ token: String) async throws -> [String] {
                let reply = try await api.get(path, bearer: token)
                try #require(reply.status == 200, "\(reply)")
                let list = try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]] ?? []
                return list.compactMap { $0["id"] as? String }
            }
            let rightAfter = Array(posts[11...15].reversed())
            let statuses = "/api/v1/accounts/\(aliceID)/statuses"
            #expect(try await ids("\(statuses)?min_id=\(posts[10])&limit=5", bob.token) == rightAfter)
            #expect(try await ids("/api/v1/timelines/home?min_id=\(posts[10])&limit=5", bob.token) == rightAfter)
            #expect(try await ids("/api/v1/timelines/public?min_id=\(posts[10])&limit=5", bob.token) == rightAfter)
            // With `max_id`: between the two.
            let between = try await ids("\(statuses)?min_id=\(posts[10])&max_id=\(posts[13])", bob.token)
            #expect(between == [posts[12], posts[11]])
            // `since_id` is the newest ones, down to it.
            #expect(try await ids("\(statuses)?since_id=\(posts[447])", bob.token) == [posts[449], posts[448]])
        }
    }

    /// Given a client that does not prove itself and one whose grant fails, when they ask for
    /// a token, then the first is `invalid_client` and the second `invalid_grant`: chosen by the
    /// error's kind, not its words.
    @Test func invalidClientIsTheErrorsKind() async throws {
        #expect(TimelineError.unknownClient.isClientAuthentication)
        #expect(!TimelineError(.invalidCredentials, "Client-side words do not make it one").isClientAuthentication)
        try await withServer { server in
            let api = server.api
            _ = try await api.signUp("alice")
            let app = try await OAuthHardeningTests.registerApp(api, scopes: "read")
            func token(secret: String, password: String) async throws -> Reply {
                try await OAuthHardeningTests.post(
                    api, "/oauth/token",
                    [
                        "grant_type": "password", "client_id": app.id, "client_secret": secret,
                        "username": "alice@example.com", "password": password, "scope": "read"
                    ])
            }
            let wrongSecret = try await token(secret: "wrong", password: "password-123")
            #expect(wrongSecret.status == 401, "\(wrongSecret)")
            #expect(wrongSecret.json["error"] as? String == "invalid_client", "\(wrongSecret)")
            let wrongPassword = try await token(secret: app.secret, password: "wrong-password")
            #expect(wrongPassword.status == 400, "\(wrongPassword)")
            #expect(wrongPassword.json["error"] as? String == "invalid_grant", "\(wrongPassword)")
        }
    }

    /// A lookup's `not_found` is "absent"; any other failure is itself (a 500), never a 404.
    @Test func onlyNotFoundIsAbsent() throws {
        let absent = try mastodonFind { () throws(TimelineError) -> Int in throw TimelineError.notFound("post", "x") }
        #expect(absent == nil)
        #expect(try mastodonFind { () throws(TimelineError) -> Int in 7 } == 7)
        #expect(throws: TimelineError(.internal, "disk")) {
            try mastodonFind { () throws(TimelineError) -> Int in throw TimelineError(.internal, "disk") }
        }
    }
}
