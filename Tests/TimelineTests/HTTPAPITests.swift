import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import Vips

/// The HTTP API of docs/spec.md, checked from outside: each test starts the real `timeline serve`
/// on a free loopback port with a database of its own, and talks to it with URLSession (and,
/// for exact bytes and event streams, a raw socket). Every answer is checked for
/// `X-Content-Type-Options: nosniff` (`APIClient.send`).
///
/// Time bounds: SPEC wants stream events "within a second"; the tests allow several seconds
/// (`streamBound`) because CI machines are slow and shared, so only a real stall fails them.
/// The suite runs its tests one at a time: each starts a server process, and the machines it
/// runs on may have two cores shared with the rest of the test run.
@Suite(.serialized) struct HTTPAPITests {
    /// A generous upper bound for what SPEC wants within a second.
    static let streamBound: Duration = .seconds(5)

    /// The methods of an `Allow` header.
    static func methods(_ allow: String?) -> Set<String> {
        Set((allow ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    static func isTimestamp(_ value: Any?) -> Bool {
        guard let text = value as? String else { return false }
        return text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil
    }

    // MARK: - Bookmarks

    @Test func bookmarksArePrivateToTheBearer() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let first = try await api.addPost(alice.token, image: 1),
                second = try await api.addPost(alice.token, image: 2)
            let saved = try await api.send("PUT", "/v1/posts/\(first)/bookmark", bearer: bob.token)
            #expect(saved.status == 200 && saved.json["changed"] as? Bool == true, "\(saved)")
            #expect(
                try await api.send("PUT", "/v1/posts/\(first)/bookmark", bearer: bob.token).json["changed"] as? Bool
                    == false)
            #expect(try await api.send("PUT", "/v1/posts/\(second)/bookmark", bearer: bob.token).status == 200)
            #expect(try await api.send("PUT", "/v1/posts/\(first)/bookmark").status == 401)
            #expect(
                try await api.send("PUT", "/v1/posts/-NoSuchPost000000000/bookmark", bearer: bob.token).status == 404)
            #expect(try await api.allPages("/v1/me/bookmarks?limit=1", bearer: bob.token).ids == [second, first])
            #expect(try await api.get("/v1/me/bookmarks", bearer: alice.token).ids == [])
            #expect(try await api.get("/v1/me/bookmarks").status == 401)
            #expect(try await api.get("/v1/me/bookmarks?user=\(bob.id)", bearer: alice.token).status == 400)
            #expect(
                try await api.get("/v1/posts/\(first)", bearer: bob.token).json["bookmarkedByViewer"] as? Bool == true)
            #expect(
                try await api.get("/v1/posts/\(first)", bearer: alice.token).json["bookmarkedByViewer"] as? Bool
                    == false)
            #expect(try await api.get("/v1/posts/\(first)").json["bookmarkedByViewer"] == nil)
            let removed = try await api.send("DELETE", "/v1/posts/\(first)/bookmark", bearer: bob.token)
            #expect(removed.status == 200 && removed.json["changed"] as? Bool == true, "\(removed)")
            #expect(try await api.send("DELETE", "/v1/posts/\(second)", bearer: alice.token).status == 204)
            #expect(try await api.get("/v1/me/bookmarks", bearer: bob.token).ids == [])
        }
    }

    @Test func blocksOverHTTP() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let post = try await api.addPost(alice.token)
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
            let block = try await api.send("PUT", "/v1/me/blocks/\(bob.id)", bearer: alice.token)
            #expect(block.status == 200 && block.json["changed"] as? Bool == true, "\(block)")
            #expect(
                try await api.send("PUT", "/v1/me/blocks/@bob", bearer: alice.token).json["changed"] as? Bool == false)
            #expect(try await api.get("/v1/users/\(alice.id)/followers").ids == [])
            let follow = try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token)
            #expect(follow.status == 403 && follow.errorCode == "forbidden", "\(follow)")
            // The blocker's post is out of bob's sight: 404, as an unknown id (403 would tell it exists).
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: bob.token).status == 404)
            #expect(
                try await api.send("POST", "/v1/posts/\(post)/comments", json: ["text": "hi"], bearer: bob.token).status
                    == 404)
            #expect(try await api.get("/v1/me/blocks", bearer: alice.token).ids == [bob.id])
            #expect(
                try await api.get("/v1/users/\(bob.id)", bearer: alice.token).json["blockedByViewer"] as? Bool == true)
            #expect(
                try await api.get("/v1/users/\(alice.id)", bearer: bob.token).json["blockedByViewer"] as? Bool == false)
            #expect(try await api.get("/v1/users/\(bob.id)").json["blockedByViewer"] == nil)
            #expect(try await api.get("/v1/me/blocks", bearer: bob.token).ids == [])
            #expect(try await api.get("/v1/me/blocks").status == 401)
            #expect(try await api.get("/v1/users?prefix=b", bearer: alice.token).ids == [])
            #expect(try await api.send("PUT", "/v1/me/blocks/\(alice.id)", bearer: alice.token).status == 400)
            let unblock = try await api.send("DELETE", "/v1/me/blocks/\(bob.id)", bearer: alice.token)
            #expect(unblock.status == 200 && unblock.json["changed"] as? Bool == true, "\(unblock)")
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
        }
    }

    // MARK: - Places

    @Test func postsCarryPlacesAndNearbyFindsThem() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            // JSON: location is an object.
            let json = try await api.send(
                "POST", "/v1/posts",
                json: [
                    "image": gifBase64(1), "caption": "Harbour",
                    "location": ["latitude": 60.1699, "longitude": 24.9384, "name": " Helsinki "]
                ],
                bearer: alice.token)
            #expect(json.status == 201, "\(json)")
            let first = try #require(json.json["id"] as? String)
            let location = try #require(json.json["location"] as? [String: Any], "\(json)")
            #expect(
                location["latitude"] as? Double == 60.1699 && location["longitude"] as? Double == 24.9384
                    && location["name"] as? String == "Helsinki")
            // Multipart: the location part is the same object as JSON text.
            var form = MultipartBody()
            form.field("caption", "Market square")
            form.field("location", #"{"latitude": 60.1675, "longitude": 24.9525}"#)
            form.file("image", filename: "pixel.png", type: "image/png", pngBytes)
            let multipart = try await api.send(
                "POST", "/v1/posts", body: form.finished(), contentType: form.contentType, bearer: bob.token)
            #expect(multipart.status == 201, "\(multipart)")
            let second = try #require(multipart.json["id"] as? String)
            #expect((multipart.json["location"] as? [String: Any])?["longitude"] as? Double == 24.9525, "\(multipart)")
            let unplaced = try await api.addPost(alice.token, image: 3)
            #expect(try await api.get("/v1/posts/\(unplaced)").json["location"] == nil)
            #expect(
                (try await api.get("/v1/posts/\(first)").json["location"] as? [String: Any])?["name"] as? String
                    == "Helsinki")

            // Refusals name the field, and append nothing.
            for (body, field) in [
                (["latitude": 91, "longitude": 0], "location.latitude"), (["latitude": 0], "location.longitude"),
                (["latitude": 0, "longitude": 0, "name": String(repeating: "n", count: 101)], "location.name")
            ] as [([String: Any], String)] {
                let refused = try await api.send(
                    "POST", "/v1/posts", json: ["image": gifBase64(4), "location": body], bearer: alice.token)
                #expect(refused.status == 400 && refused.errorField == field, "\(refused)")
            }
            var bad = MultipartBody()
            bad.field("location", "60.1,24.9")
            bad.file("image", filename: "pixel.png", type: "image/png", pngBytes)
            let refused = try await api.send(
                "POST", "/v1/posts", body: bad.finished(), contentType: bad.contentType, bearer: bob.token)
            #expect(refused.status == 400 && refused.errorField == "location", "\(refused)")

            // Nearby: newest first, paged with Link, exact (the market square is ~0.9 km from the first post).
            let centre = "latitude=60.1699&longitude=24.9384"
            let all = try await api.allPages("/v1/posts/nearby?\(centre)&radiusKm=5&limit=1")
            #expect(all.ids == [second, first] && all.pages == 2, "\(all)")
            #expect(try await api.get("/v1/posts/nearby?\(centre)&radiusKm=0.5").ids == [first])
            #expect(try await api.get("/v1/posts/nearby?latitude=-60.1699&longitude=24.9384&radiusKm=50").ids == [])
            for (query, field) in [
                ("\(centre)&radiusKm=51", "radiusKm"), ("\(centre)&radiusKm=0", "radiusKm"),
                ("\(centre)&radiusKm=nan", "radiusKm"),
                ("latitude=91&longitude=0", "latitude"), ("latitude=0&longitude=-180.5", "longitude"),
                ("longitude=0", "latitude"), ("latitude=abc&longitude=0", "latitude"),
                ("\(centre)&altitude=3", "altitude")
            ] {
                let reply = try await api.get("/v1/posts/nearby?\(query)")
                #expect(
                    reply.status == 400 && reply.errorCode == "invalid_argument" && reply.errorField == field,
                    "\(query): \(reply)")
            }
            // A block hides the other's posts; a deleted post is gone.
            #expect(try await api.send("PUT", "/v1/me/blocks/\(bob.id)", bearer: alice.token).status == 200)
            #expect(try await api.get("/v1/posts/nearby?\(centre)", bearer: alice.token).ids == [first])
            #expect(try await api.get("/v1/posts/nearby?\(centre)", bearer: bob.token).ids == [second])
            #expect(try await api.send("DELETE", "/v1/posts/\(first)", bearer: alice.token).status == 204)
            #expect(try await api.get("/v1/posts/nearby?\(centre)").ids == [second])
        }
    }

    @Test func suggestionsContactsAndTheDiscoverableSetting() async throws {
        try await withServer { server in
            let api = server.api
            let ann = try await api.signUp("ann"), bob = try await api.signUp("bob"), cat = try await api.signUp("cat")
            let dee = try await api.signUp("dee"), eli = try await api.signUp("eli")
            for (who, whom) in [(ann, bob), (ann, cat), (bob, dee), (cat, dee), (bob, eli)] {
                #expect(try await api.send("PUT", "/v1/me/following/\(whom.id)", bearer: who.token).status == 200)
            }
            let suggested = try await api.get("/v1/me/suggestions", bearer: ann.token)
            #expect(suggested.status == 200, "\(suggested)")
            #expect(suggested.items.compactMap { ($0["user"] as? [String: Any])?["id"] as? String } == [dee.id, eli.id])
            #expect(suggested.items.map { $0["followedByCount"] as? Int } == [2, 1])
            #expect(suggested.items.first?["followedBy"] as? [String] == ["cat", "bob"])
            let paged = try await api.get("/v1/me/suggestions?limit=1", bearer: ann.token)
            #expect(paged.json["next"] as? String == "2:\(dee.id)")
            let second = try await api.get(
                try #require(APIClient.nextTarget(paged.header("Link") ?? "")), bearer: ann.token)
            #expect(
                second.items.compactMap { ($0["user"] as? [String: Any])?["id"] as? String } == [eli.id], "\(second)")
            #expect(second.json["next"] is NSNull && second.header("Link") == nil)
            #expect(try await api.get("/v1/me/suggestions").status == 401)
            #expect(try await api.get("/v1/me/suggestions?user=\(bob.id)", bearer: ann.token).status == 400)
            #expect(try await api.get("/v1/me/suggestions?before=nonsense", bearer: ann.token).errorField == "before")

            // Contacts: a query over POST that records nothing.
            let head = try await server.operations.get("/metrics").text
            let found = try await api.send(
                "POST", "/v1/me/contacts",
                json: ["emails": ["DEE@example.com", "nobody@example.com", "ann@example.com"]],
                bearer: ann.token)
            #expect(found.status == 200, "\(found)")
            #expect((found.json["users"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [dee.id])
            #expect((found.json["users"] as? [[String: Any]])?.first?["followedByViewer"] as? Bool == false)
            #expect(
                try await server.operations.get("/metrics").text.contains(Self.logSequenceLine(head) ?? "?"),
                "a query appended events")
            #expect(try await api.send("POST", "/v1/me/contacts", json: ["emails": ["dee@example.com"]]).status == 401)
            let tooMany = try await api.send(
                "POST", "/v1/me/contacts", json: ["emails": Array(repeating: "a@b.co", count: 1001)], bearer: ann.token)
            #expect(tooMany.status == 400 && tooMany.errorField == "emails", "\(tooMany)")
            #expect(
                try await api.send("POST", "/v1/me/contacts", json: ["emails": "dee@example.com"], bearer: ann.token)
                    .errorField == "emails")
            #expect(
                try await api.send("POST", "/v1/me/contacts", json: ["emails": [], "user": bob.id], bearer: ann.token)
                    .errorField == "user")

            // dee turns discoverable off (PATCH /v1/me): found by nobody, as an unknown email is;
            // only dee sees the setting.
            #expect(try await api.get("/v1/me", bearer: dee.token).json["discoverable"] as? Bool == true)
            let off = try await api.send("PATCH", "/v1/me", json: ["discoverable": false], bearer: dee.token)
            #expect(off.status == 200 && off.json["discoverable"] as? Bool == false, "\(off)")
            #expect(try await api.get("/v1/me", bearer: dee.token).json["discoverable"] as? Bool == false)
            #expect(try await api.get("/v1/users/\(dee.id)", bearer: ann.token).json["discoverable"] == nil)
            #expect(try await api.get("/v1/users/\(dee.id)").json["discoverable"] == nil)
            let hidden = try await api.send(
                "POST", "/v1/me/contacts", json: ["emails": ["dee@example.com"]], bearer: ann.token)
            let unknown = try await api.send(
                "POST", "/v1/me/contacts", json: ["emails": ["zed@example.com"]], bearer: ann.token)
            #expect(hidden.status == 200 && hidden.body == unknown.body, "\(hidden) \(unknown)")
            #expect(
                try await api.send("PATCH", "/v1/me", json: ["discoverable": "no"], bearer: dee.token).errorField
                    == "discoverable")
            #expect(
                try await api.send("PATCH", "/v1/me", json: ["discoverable": NSNull()], bearer: dee.token).errorField
                    == "discoverable")
        }
    }

    /// The `timeline_log_sequence` line of a metrics text.
    static func logSequenceLine(_ metrics: String) -> String? {
        metrics.split(separator: "\n").first { $0.hasPrefix("timeline_log_sequence ") }.map(String.init)
    }

    // MARK: - Accounts and sessions

    @Test func signUpSignInSignOutAndTheAccount() async throws {
        try await withServer { server in
            let api = server.api
            let signUp = try await api.send(
                "POST", "/v1/users",
                json: ["username": "Alice", "email": "Alice@Example.com", "password": "password-123"])
            #expect(signUp.status == 201, "\(signUp)")
            var token = try #require(signUp.json["session"] as? String)
            let user = try #require(signUp.json["user"] as? [String: Any])
            let id = try #require(user["id"] as? String)
            #expect(user["username"] as? String == "alice")
            // The session from sign-up works at once.
            let me = try await api.get("/v1/me", bearer: token)
            #expect(me.status == 200 && me.json["id"] as? String == id, "\(me)")
            #expect(me.json["followerCount"] as? Int == 0)

            // Taken names and emails (case-insensitively).
            let sameName = try await api.send(
                "POST", "/v1/users",
                json: ["username": "ALICE", "email": "other@example.com", "password": "password-123"])
            #expect(
                sameName.status == 409 && sameName.errorCode == "username_taken" && sameName.errorField == "username",
                "\(sameName)")
            let sameEmail = try await api.send(
                "POST", "/v1/users",
                json: ["username": "other", "email": "alice@example.COM", "password": "password-123"])
            #expect(sameEmail.status == 409 && sameEmail.errorCode == "email_taken", "\(sameEmail)")
            let badUser = try await api.send(
                "POST", "/v1/users", json: ["username": "x y", "email": "xy@example.com", "password": "password-123"])
            #expect(badUser.status == 400 && badUser.errorField == "username", "\(badUser)")
            let extra = try await api.send(
                "POST", "/v1/users",
                json: ["username": "x", "email": "x@example.com", "password": "password-123", "admin": true])
            #expect(
                extra.status == 400 && extra.errorCode == "invalid_argument" && extra.errorField == "admin", "\(extra)")

            // Sign-in.
            let signIn = try await api.send(
                "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "password-123"])
            #expect(
                signIn.status == 201 && (signIn.json["user"] as? [String: Any])?["id"] as? String == id, "\(signIn)")
            let second = try #require(signIn.json["session"] as? String)
            #expect(second != token)
            let wrong = try await api.send(
                "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "password-124"])
            #expect(wrong.status == 401 && wrong.errorCode == "invalid_credentials", "\(wrong)")
            let notJSON = try await api.send(
                "POST", "/v1/sessions", body: Data("email=alice@example.com".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(notJSON.status == 415 && notJSON.errorCode == "unsupported_media_type", "\(notJSON)")
            let broken = try await api.send(
                "POST", "/v1/sessions", body: Data("{\"email\":".utf8), contentType: "application/json")
            #expect(broken.status == 400 && broken.errorCode == "invalid_argument", "\(broken)")
            let badType = try await api.send(
                "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": 12_345_678])
            #expect(badType.status == 400 && badType.errorField == "password", "\(badType)")

            // Sign-out ends that session only.
            #expect(try await api.send("DELETE", "/v1/sessions/current", bearer: second).status == 204)
            let gone = try await api.get("/v1/me", bearer: second)
            #expect(gone.status == 401 && gone.errorCode == "unauthenticated", "\(gone)")
            #expect(try await api.get("/v1/me", bearer: token).status == 200)

            // Missing and malformed bearers.
            let anonymous = try await api.get("/v1/me")
            #expect(anonymous.status == 401 && anonymous.errorCode == "unauthenticated", "\(anonymous)")
            #expect(try await api.get("/v1/me", bearer: "not-a-token").status == 401)
            #expect(try await api.get("/v1/me", headers: ["Authorization": "Basic YWxpY2U6cHc="]).status == 401)
            #expect(try await api.send("DELETE", "/v1/sessions/current").status == 401)

            // Profile: update, unknown field, wrong type.
            let patched = try await api.send(
                "PATCH", "/v1/me", json: ["bio": "Harbour photos", "url": "https://alice.example"], bearer: token)
            #expect(patched.status == 200 && patched.json["bio"] as? String == "Harbour photos", "\(patched)")
            let unknown = try await api.send("PATCH", "/v1/me", json: ["nickname": "al"], bearer: token)
            #expect(unknown.status == 400 && unknown.errorField == "nickname", "\(unknown)")
            let wrongType = try await api.send("PATCH", "/v1/me", json: ["bio": 5], bearer: token)
            #expect(wrongType.status == 400 && wrongType.errorField == "bio", "\(wrongType)")
            let badURL = try await api.send("PATCH", "/v1/me", json: ["url": "ftp://alice.example"], bearer: token)
            #expect(badURL.status == 400 && badURL.errorField == "url", "\(badURL)")

            // Password and email changes.
            let badCurrent = try await api.send(
                "POST", "/v1/me/password",
                json: ["currentPassword": "nope-nope-nope", "newPassword": "new-password-456"], bearer: token)
            #expect(badCurrent.status == 401, "\(badCurrent)")
            #expect(
                try await api.send(
                    "POST", "/v1/me/password",
                    json: ["currentPassword": "password-123", "newPassword": "new-password-456"], bearer: token
                ).status == 204)
            #expect(
                try await api.send(
                    "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "password-123"]
                ).status == 401)
            // A new password ends the sessions made with the old one.
            #expect(try await api.get("/v1/me", bearer: token).status == 401)
            let again = try await api.send(
                "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "new-password-456"])
            #expect(again.status == 201, "\(again)")
            token = try #require(again.json["session"] as? String)
            let changedEmail = try await api.send(
                "POST", "/v1/me/email", json: ["password": "new-password-456", "email": "alice@new.example"],
                bearer: token)
            #expect(changedEmail.status == 204, "\(changedEmail)")
            #expect(
                try await api.send(
                    "POST", "/v1/sessions", json: ["email": "alice@new.example", "password": "new-password-456"]
                ).status == 201)
            #expect(
                try await api.send("POST", "/v1/me/email", json: ["password": "new-password-456"], bearer: token).status
                    == 400)

            // Erasing the account: 204, then the user and the session are gone.
            #expect(try await api.send("DELETE", "/v1/me").status == 401)
            // A session alone does not erase the account: the password is asked for, as for
            // the changes above.
            #expect(try await api.send("DELETE", "/v1/me", bearer: token).errorField == "password")
            #expect(
                try await api.send("DELETE", "/v1/me", json: ["password": "not-the-password"], bearer: token).status
                    == 401)
            #expect(try await api.get("/v1/users/\(id)").status == 200)
            let erased = try await api.send("DELETE", "/v1/me", json: ["password": "new-password-456"], bearer: token)
            #expect(erased.status == 204, "\(erased)")
            #expect(try await api.get("/v1/users/\(id)").status == 404)
            #expect(try await api.get("/v1/me", bearer: token).status == 401)
        }
    }

    // MARK: - Users and following

    @Test func usersSearchFollowingAndFollowedByViewer() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            let all = try await api.get("/v1/users")
            #expect(all.status == 200 && Set(all.ids) == [alice.id, bob.id, carol.id], "\(all)")
            #expect(try await api.get("/v1/users?prefix=AL").ids == [alice.id])
            let unknownParameter = try await api.get("/v1/users?sort=new")
            #expect(unknownParameter.status == 400 && unknownParameter.errorField == "sort", "\(unknownParameter)")
            let badLimit = try await api.get("/v1/users?limit=lots")
            #expect(badLimit.status == 400 && badLimit.errorField == "limit", "\(badLimit)")
            #expect(try await api.get("/v1/users?limit=101").errorField == "limit")
            #expect(try await api.get("/v1/users?limit=0").status == 400)

            let byID = try await api.get("/v1/users/\(bob.id)")
            let byName = try await api.get("/v1/users/@Bob")
            #expect(byID.status == 200 && byID.json["username"] as? String == "bob", "\(byID)")
            #expect(byName.json["id"] as? String == bob.id, "\(byName)")
            #expect(try await api.get("/v1/users/@nobody").status == 404)
            let unknownID = try await api.get("/v1/users/-NoSuchUser000000000")
            #expect(unknownID.status == 404 && unknownID.errorCode == "not_found", "\(unknownID)")
            #expect(try await api.get("/v1/users/bad%20id").status == 400)

            // Follow (idempotent), by id or @name; not yourself, not nobody, not anonymously.
            let follow = try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: alice.token)
            #expect(follow.status == 200 && follow.json["changed"] as? Bool == true, "\(follow)")
            #expect(
                try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: alice.token).json["changed"] as? Bool
                    == false)
            #expect(
                try await api.send("PUT", "/v1/me/following/@carol", bearer: alice.token).json["changed"] as? Bool
                    == true)
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: alice.token).status == 400)
            #expect(
                try await api.send("PUT", "/v1/me/following/-NoSuchUser000000000", bearer: alice.token).status == 404)
            #expect(try await api.send("PUT", "/v1/me/following/\(bob.id)").status == 401)

            #expect(try await api.get("/v1/users/\(bob.id)/followers").ids == [alice.id])
            #expect(Set(try await api.get("/v1/users/\(alice.id)/following").ids) == [bob.id, carol.id])
            #expect(try await api.get("/v1/users/\(alice.id)/followers").ids == [])
            #expect(try await api.get("/v1/users/-NoSuchUser000000000/followers").status == 404)

            // followedByViewer: absent anonymously, present and right with a bearer.
            #expect(try await api.get("/v1/users/\(bob.id)").json.keys.contains("followedByViewer") == false)
            #expect(
                try await api.get("/v1/users/\(bob.id)", bearer: alice.token).json["followedByViewer"] as? Bool == true)
            #expect(
                try await api.get("/v1/users/\(bob.id)", bearer: carol.token).json["followedByViewer"] as? Bool == false
            )
            let followers = try await api.get("/v1/users/\(bob.id)/followers", bearer: carol.token)
            #expect(followers.items.first?["followedByViewer"] as? Bool == false, "\(followers)")
            #expect(try await api.get("/v1/users/\(bob.id)").json["followerCount"] as? Int == 1)

            let unfollow = try await api.send("DELETE", "/v1/me/following/\(bob.id)", bearer: alice.token)
            #expect(unfollow.status == 200 && unfollow.json["changed"] as? Bool == true, "\(unfollow)")
            #expect(
                try await api.send("DELETE", "/v1/me/following/\(bob.id)", bearer: alice.token).json["changed"] as? Bool
                    == false)
            #expect(try await api.get("/v1/users/\(bob.id)/followers").ids == [])
        }
    }

    // MARK: - Posts, comments, likes, reports

    @Test func postsCommentsLikesAndReports() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            let created = try await api.send(
                "POST", "/v1/posts", json: ["image": gifBase64(1), "caption": "Harbour at dawn #Sea #sea"],
                bearer: alice.token)
            #expect(created.status == 201, "\(created)")
            let postID = try #require(created.json["id"] as? String)
            #expect(created.header("Location") == "/v1/posts/\(postID)")
            #expect(
                created.json["author"] as? String == alice.id && created.json["authorUsername"] as? String == "alice")
            #expect(created.json["hashtags"] as? [String] == ["sea"])
            #expect(Self.isTimestamp(created.json["createdAt"]), "\(created)")
            #expect(try await api.send("POST", "/v1/posts", json: ["image": gifBase64(2)]).status == 401)

            // The Location answers.
            let location = try #require(created.header("Location"))
            let detail = try await api.get(location)
            #expect(detail.status == 200 && detail.json["id"] as? String == postID, "\(detail)")
            #expect((detail.json["comments"] as? [String: Any])?["items"] as? [Any] != nil)

            // Comments.
            let comment = try await api.send(
                "POST", "/v1/posts/\(postID)/comments", json: ["text": "Lovely light"], bearer: bob.token)
            #expect(comment.status == 201, "\(comment)")
            let commentID = try #require(comment.json["id"] as? String)
            #expect(
                comment.json["authorUsername"] as? String == "bob" && Self.isTimestamp(comment.json["createdAt"]),
                "\(comment)")
            #expect(
                try await api.send("POST", "/v1/posts/\(postID)/comments", json: ["text": ""], bearer: bob.token)
                    .errorField == "text")
            #expect(
                try await api.send(
                    "POST", "/v1/posts/\(postID)/comments", json: ["text": "hi", "post": postID], bearer: bob.token
                ).status == 400)
            #expect(
                try await api.send(
                    "POST", "/v1/posts/-NoSuchPost000000000/comments", json: ["text": "hi"], bearer: bob.token
                ).status == 404)
            let comments = try await api.get("/v1/posts/\(postID)/comments")
            #expect(comments.status == 200 && comments.ids == [commentID], "\(comments)")

            // Likes (idempotent) and who liked.
            let like = try await api.send("PUT", "/v1/posts/\(postID)/like", bearer: bob.token)
            #expect(like.status == 200 && like.json["changed"] as? Bool == true, "\(like)")
            #expect(
                try await api.send("PUT", "/v1/posts/\(postID)/like", bearer: bob.token).json["changed"] as? Bool
                    == false)
            #expect(
                try await api.send("PUT", "/v1/posts/\(postID)/like", bearer: carol.token).json["changed"] as? Bool
                    == true)
            #expect(try await api.get("/v1/posts/\(postID)/likes").ids == [carol.id, bob.id])  // newest first
            #expect(
                try await api.send("DELETE", "/v1/posts/\(postID)/like", bearer: carol.token).json["changed"] as? Bool
                    == true)
            #expect(try await api.get("/v1/posts/\(postID)/likes").ids == [bob.id])

            // likedByViewer: only with a bearer (SPEC's shapes), and right.
            let anonymous = try await api.get("/v1/posts/\(postID)")
            #expect(anonymous.json["likedByViewer"] == nil && anonymous.json["likeCount"] as? Int == 1, "\(anonymous)")
            #expect(anonymous.json["commentCount"] as? Int == 1)
            #expect(try await api.get("/v1/posts/\(postID)", bearer: bob.token).json["likedByViewer"] as? Bool == true)
            #expect(
                try await api.get("/v1/posts/\(postID)", bearer: alice.token).json["likedByViewer"] as? Bool == false)
            let viewerParameter = try await api.get("/v1/posts/\(postID)?viewer=\(bob.id)")
            #expect(viewerParameter.status == 400 && viewerParameter.errorField == "viewer", "\(viewerParameter)")
            let listed = try await api.get("/v1/users/\(alice.id)/posts", bearer: bob.token)
            #expect(listed.ids == [postID] && listed.items.first?["likedByViewer"] as? Bool == true, "\(listed)")

            // Hashtags.
            #expect(try await api.get("/v1/hashtags/sea/posts").ids == [postID])
            #expect(try await api.get("/v1/hashtags/land/posts").ids == [])

            // Reports.
            let report = try await api.send(
                "POST", "/v1/posts/\(postID)/reports", json: ["reason": "spam"], bearer: carol.token)
            #expect(report.status == 204 && report.body.isEmpty, "\(report)")
            // A repeat is accepted and changes nothing (exec answers changed: false for it).
            #expect(
                try await api.send(
                    "POST", "/v1/posts/\(postID)/reports", json: ["reason": "again"], bearer: carol.token
                ).status == 204)
            #expect(try await api.send("POST", "/v1/posts/\(postID)/reports", json: ["reason": "spam"]).status == 401)
            #expect(
                try await api.send("POST", "/v1/posts/\(postID)/reports", json: ["why": "spam"], bearer: carol.token)
                    .status == 400)

            // Deleting: only the comment's or the post's author; only the post's author.
            let notTheirs = try await api.send("DELETE", "/v1/comments/\(commentID)", bearer: carol.token)
            #expect(notTheirs.status == 403 && notTheirs.errorCode == "forbidden", "\(notTheirs)")
            #expect(try await api.send("DELETE", "/v1/comments/\(commentID)", bearer: bob.token).status == 204)
            #expect(try await api.send("DELETE", "/v1/comments/\(commentID)", bearer: bob.token).status == 404)
            let othersPost = try await api.send("DELETE", "/v1/posts/\(postID)", bearer: bob.token)
            #expect(othersPost.status == 403 && othersPost.errorCode == "forbidden", "\(othersPost)")
            #expect(try await api.send("DELETE", "/v1/posts/\(postID)", bearer: alice.token).status == 204)
            let deleted = try await api.get("/v1/posts/\(postID)")
            #expect(deleted.status == 404 && deleted.errorCode == "not_found", "\(deleted)")
            #expect(try await api.send("PUT", "/v1/posts/\(postID)/like", bearer: bob.token).status == 404)
            #expect(try await api.get("/v1/posts/-NoSuchPost000000000").status == 404)
            #expect(try await api.get("/v1/hashtags/sea/posts").ids == [])
        }
    }

    // MARK: - Uploads and images

    @Test func avatarByMultipartAndRawBytesRemovedAndErased() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            #expect(try await api.get("/v1/me", bearer: alice.token).json["avatar"] is NSNull)
            var form = MultipartBody()
            form.file("image", filename: "me.png", type: "image/png", pngBytes)
            let multipart = try await api.send(
                "PUT", "/v1/me/avatar", body: form.finished(), contentType: form.contentType, bearer: alice.token)
            #expect(multipart.status == 200, "\(multipart)")
            let first = try #require(multipart.json["avatar"] as? [String: String], "\(multipart)")
            let large = try #require(first["large"]), small = try #require(first["small"])
            #expect(try await api.get("/v1/images/\(large)").status == 200)
            #expect(try await api.get("/v1/images/\(small)").status == 200)
            #expect(try await api.get("/v1/users/\(alice.id)").json["avatar"] as? [String: String] == first)
            // Raw bytes replace it.
            let raw = try await api.send(
                "PUT", "/v1/me/avatar", body: Data(jpegBytes()), contentType: "image/jpeg", bearer: alice.token)
            let second = try #require(raw.json["avatar"] as? [String: String], "\(raw)")
            #expect(second != first)
            let notImage = try await api.send(
                "PUT", "/v1/me/avatar", body: Data("text".utf8), contentType: "image/png", bearer: alice.token)
            #expect(notImage.status == 415, "\(notImage)")
            #expect(
                try await api.send("PUT", "/v1/me/avatar", body: Data(pngBytes), contentType: "image/png").status == 401
            )
            // A body with fields is refused, as on every route; then removed.
            #expect(
                try await api.send("DELETE", "/v1/me/avatar", json: ["x": 1], bearer: alice.token).errorField == "x")
            let message = notImage.json["error"].flatMap { ($0 as? [String: Any])?["message"] as? String } ?? ""
            #expect(
                !message.contains("libvips") && !message.contains("seek"),
                "libvips' shared error text reached a client: \(message)")
            let removed = try await api.send("DELETE", "/v1/me/avatar", bearer: alice.token)
            #expect(removed.status == 200 && removed.json["avatar"] is NSNull, "\(removed)")
            // Erased: the squares are gone.
            #expect(
                try await api.send("DELETE", "/v1/me", json: ["password": "password-123"], bearer: alice.token).status
                    == 204)
            for id in [large, small, second["large"]!, second["small"]!] {
                #expect(try await api.get("/v1/images/\(id)").status == 404)
            }
        }
    }

    @Test func uploadsByMultipartAndJSONAndImagesAreCachedForever() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")

            // multipart/form-data, as FormData and iOS uploads send it.
            var form = MultipartBody()
            form.field("caption", "Red pixel #tiny")
            form.file("image", filename: "pixel.png", type: "image/png", pngBytes)
            let multipart = try await api.send(
                "POST", "/v1/posts", body: form.finished(), contentType: form.contentType, bearer: alice.token)
            #expect(multipart.status == 201, "\(multipart)")
            #expect(
                multipart.json["caption"] as? String == "Red pixel #tiny"
                    && multipart.json["hashtags"] as? [String] == ["tiny"])
            let pngImage = try #require(multipart.json["image"] as? String)

            // JSON with base64.
            let jpeg = jpegBytes(padding: 1000)
            let json = try await api.send(
                "POST", "/v1/posts", json: ["image": Data(jpeg).base64EncodedString()], bearer: alice.token)
            #expect(json.status == 201 && json.json["caption"] is NSNull, "\(json)")
            let jpegImage = try #require(json.json["image"] as? String)

            // The images as the pipeline re-encoded them (both opaque: JPEG, sized as uploaded),
            // their type and immutable caching.
            for (image, side) in [(pngImage, 1), (jpegImage, 8)] {
                let got = try await api.get("/v1/images/\(image)")
                #expect(got.status == 200, "\(got.status) \(got.headers)")
                let header = try Vips.header([UInt8](got.body))
                #expect(header.format == .jpeg && header.width == side && header.height == side)
                #expect(got.header("Content-Type") == "image/jpeg")
                #expect(got.header("Cache-Control") == "public, max-age=31536000, immutable")
                let etag = try #require(got.header("ETag"))
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
                let again = try await api.get("/v1/images/\(image)", headers: ["If-None-Match": etag])
                #expect(again.status == 304 && again.body.isEmpty, "\(again)")
                #expect(try await api.get("/v1/images/\(image)", headers: ["If-None-Match": "\"other\""]).status == 200)
                // Compared weakly, as RFC 9110 has it for If-None-Match.
                #expect(
                    try await api.get("/v1/images/\(image)", headers: ["If-None-Match": "\"other\", W/\(etag)"]).status
                        == 304)
            }
            // 304 exactly: no body at all on the wire (the next answer on the connection starts
            // right after its head).
            let raw = try server.connect()
            let etag = try #require(try await api.get("/v1/images/\(pngImage)").header("ETag"))
            raw.send("GET /v1/images/\(pngImage) HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: \(etag)\r\n\r\n")
            let head = await raw.read(until: "\r\n\r\n")
            #expect(head.hasPrefix("HTTP/1.1 304"), "\(head)")
            raw.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let both = await raw.read(until: "\"ok\"")
            let afterHead = both.components(separatedBy: "\r\n\r\n").dropFirst().first ?? ""
            #expect(afterHead.hasPrefix("HTTP/1.1 200"), "\(both)")
            #expect(
                !head.lowercased().contains("content-length: ") || head.lowercased().contains("content-length: 0"),
                "\(head)")

            #expect(try await api.get("/v1/images/-NoSuchImage00000000").status == 404)
            // ?variant= answers that size of the post's photo, by the post's image id.
            let thumbID = try #require((json.json["variants"] as? [String: Any])?["thumb"] as? String)
            let thumb = try await api.get("/v1/images/\(jpegImage)?variant=thumb")
            #expect(thumb.status == 200 && thumb.header("ETag") == "\"\(thumbID)\"", "\(thumb.status) \(thumb.headers)")
            #expect(try Vips.header([UInt8](thumb.body)).width == 320)
            #expect(thumb.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(
                try await api.get("/v1/images/\(jpegImage)?variant=full").body
                    == (try await api.get("/v1/images/\(jpegImage)").body))
            #expect(try await api.get("/v1/images/\(jpegImage)?variant=huge").status == 400)

            // Not an image; an image over 10 MiB (in a body under the 11 MiB limit); bad fields.
            var text = MultipartBody()
            text.file("image", filename: "photo.png", type: "image/png", Array("just some text, not a picture".utf8))
            let notImage = try await api.send(
                "POST", "/v1/posts", body: text.finished(), contentType: text.contentType, bearer: alice.token)
            #expect(notImage.status == 415 && notImage.errorCode == "unsupported_media_type", "\(notImage)")
            var huge = MultipartBody()
            huge.file("image", filename: "huge.jpg", type: "image/jpeg", jpegBytes(padding: (10 << 20) + 300_000))
            let tooBig = try await api.send(
                "POST", "/v1/posts", body: huge.finished(), contentType: huge.contentType, bearer: alice.token)
            #expect(tooBig.status == 413 && tooBig.errorCode == "payload_too_large", "\(tooBig)")
            let wrongType = try await api.send("POST", "/v1/posts", json: ["image": 5], bearer: alice.token)
            #expect(wrongType.status == 400 && wrongType.errorField == "image", "\(wrongType)")
            let noImage = try await api.send("POST", "/v1/posts", json: ["caption": "nothing"], bearer: alice.token)
            #expect(noImage.status == 400 && noImage.errorField == "image", "\(noImage)")
            var stray = MultipartBody()
            stray.field("filter", "sepia")
            stray.file("image", filename: "pixel.png", type: "image/png", pngBytes)
            let strayPart = try await api.send(
                "POST", "/v1/posts", body: stray.finished(), contentType: stray.contentType, bearer: alice.token)
            #expect(strayPart.status == 400 && strayPart.errorField == "filter", "\(strayPart)")
            #expect(try await api.get("/v1/users/\(alice.id)/posts").items.count == 2)
        }
    }

    // MARK: - The protocol's own errors and limits

    @Test func unknownPathsWrongMethodsAndOversizedBodies() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            // Unknown query parameters are refused on the routes that take none, too.
            for (client, path) in [
                (api, "/healthz"), (api, "/readyz"), (server.operations, "/metrics"), (api, "/v1/openapi.json")
            ] {
                let refused = try await client.get(path + "?x=1")
                #expect(refused.status == 400 && refused.errorField == "x", "\(path): \(refused)")
                #expect(try await client.get(path).status == 200, "\(path)")
            }
            // The metrics are the operator's: not on the API's listener.
            #expect(try await api.get("/metrics").status == 404)
            let unknown = try await api.get("/v1/nothing-here")
            #expect(unknown.status == 404 && unknown.errorCode == "not_found", "\(unknown)")
            #expect(try await api.get("/nothing-here").status == 404)  // "/" is the web app
            #expect(try await api.get("/v1/posts/a/b/c").status == 404)

            let put = try await api.send("PUT", "/v1/timeline", bearer: alice.token)
            #expect(put.status == 405 && Self.methods(put.header("Allow")) == ["GET", "HEAD"], "\(put)")
            let delete = try await api.send("DELETE", "/v1/users")
            #expect(
                delete.status == 405 && Self.methods(delete.header("Allow")) == ["GET", "HEAD", "POST"], "\(delete)")
            let like = try await api.send("POST", "/v1/posts/-NoSuchPost000000000/like", bearer: alice.token)
            #expect(like.status == 405 && Self.methods(like.header("Allow")) == ["PUT", "DELETE"], "\(like)")
            let head = try await api.send("HEAD", "/v1/users/\(alice.id)")
            #expect(head.status == 200 && head.body.isEmpty, "\(head)")
            // An encoded NUL never cuts a path short: /v1/posts/ID%00junk names no post.
            let post = try await api.addPost(alice.token, caption: "kept")
            for (method, path) in [("GET", "/v1/users/@alice%00x"), ("DELETE", "/v1/posts/\(post)%00junk")] {
                let raw = try server.connect()
                raw.send(
                    "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(alice.token)\r\nContent-Length: 0\r\n\r\n"
                )
                let answer = await raw.read(until: "}")
                #expect(
                    answer.hasPrefix("HTTP/1.1 400") || answer.hasPrefix("HTTP/1.1 404"),
                    "\(method) \(path): \(answer.prefix(200))")
            }
            #expect(try await api.get("/v1/posts/\(post)").status == 200)

            // A 12 MiB body is refused from its head alone (whether or not the client waits for
            // "100 Continue"): the 413 arrives although no byte of the body is ever sent. (The
            // bound is generous; the point is that it does not wait.)
            for expect in ["", "Expect: 100-continue\r\n"] {
                let client = try server.connect()
                let started = ContinuousClock.now
                client.send(
                    "POST /v1/posts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(alice.token)\r\nContent-Type: application/json\r\n\(expect)Content-Length: 12582912\r\n\r\n"
                )
                let answer = await client.read(until: "payload_too_large")
                #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
                #expect(!answer.contains("100 Continue"), "\(answer)")
                #expect(answer.lowercased().contains("x-content-type-options: nosniff"), "\(answer)")
                #expect(ContinuousClock.now - started < .seconds(5))
            }
            // A client that sends the oversized body anyway reads its 413, not a reset connection
            // (the server reads and drops the rest before closing), every time.
            for _ in 0..<3 {
                let over = try await api.send(
                    "POST", "/v1/posts", body: Data(count: (11 << 20) + 1), contentType: "application/json",
                    bearer: alice.token)
                #expect(over.status == 413 && over.errorCode == "payload_too_large", "\(over)")
            }
            let sender = try server.connect()
            let body = [UInt8](repeating: 0x78, count: (11 << 20) + 1)
            #expect(
                sender.send(
                    Array(
                        "POST /v1/posts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                            .utf8) + body))
            let refused = await sender.read(until: "payload_too_large")
            #expect(refused.hasPrefix("HTTP/1.1 413"), "\(refused.prefix(300))")
            // A malformed multipart body is refused while it arrives, the same way.
            let malformed = try await api.send(
                "POST", "/v1/posts", body: Data(repeating: 0x41, count: 2 << 20),
                contentType: "multipart/form-data; boundary=\"\"", bearer: alice.token)
            #expect(malformed.status == 400, "\(malformed)")
            #expect(try await api.get("/healthz").status == 200)
        }
    }

    // MARK: - Paging

    @Test func pagingFollowsLinkToTheEndNewestFirst() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
            var posted: [String] = []
            for n in 0..<23 {
                posted.append(
                    try await api.addPost(
                        n % 2 == 0 ? alice.token : bob.token, caption: "shot \(n) #walk", image: 100 + n))
            }
            let newestFirst = Array(posted.reversed())

            let timeline = try await api.allPages("/v1/timeline?limit=5", bearer: bob.token)
            #expect(timeline.ids == newestFirst)
            #expect(timeline.pages == 5)
            let tagged = try await api.allPages("/v1/hashtags/walk/posts?limit=7")
            #expect(tagged.ids == newestFirst && tagged.pages == 4)
            let alicePosts = try await api.allPages("/v1/users/\(alice.id)/posts?limit=3")
            #expect(
                alicePosts.ids == newestFirst.filter { posted.firstIndex(of: $0)! % 2 == 0 } && alicePosts.pages == 4)
            #expect(Set(alicePosts.ids).count == alicePosts.ids.count)
            // Exactly one page: no Link, next null. The default limit is 20.
            let first = try await api.get("/v1/timeline", bearer: bob.token)
            #expect(first.ids == Array(newestFirst.prefix(20)))
            // SPEC's form, `?before=…&limit=…`: the limit named even when the request left it out.
            let next = try #require(first.json["next"] as? String)
            #expect(first.header("Link") == "</v1/timeline?before=\(next)&limit=20>; rel=\"next\"", "\(first.headers)")
            let whole = try await api.get("/v1/timeline?limit=100", bearer: bob.token)
            #expect(whole.ids == newestFirst && whole.header("Link") == nil && whole.json["next"] is NSNull, "\(whole)")
            // The Link keeps the other parameters and is a working relative URL.
            _ = try await api.signUp("alan")
            let link = try #require(try await api.get("/v1/users?limit=1&prefix=al").header("Link"))
            let target = try #require(APIClient.nextTarget(link))
            #expect(target.hasPrefix("/v1/users?prefix=al&before=") && target.hasSuffix("&limit=1"), "\(link)")
            #expect(try await api.get(target).items.count == 1)
            let comments = try await api.allPages("/v1/posts/\(posted[0])/comments?limit=2")
            #expect(comments.ids == [] && comments.pages == 1)
        }
    }

    // MARK: - Privacy

    @Test func aBearerReadsOnlyItsOwnTimelineActivityAndStream() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            #expect(try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: alice.token).status == 200)
            let bobPost = try await api.addPost(bob.token, caption: "bob's", image: 1)
            let carolPost = try await api.addPost(carol.token, caption: "carol's", image: 2)
            #expect(
                try await api.send("POST", "/v1/posts/\(bobPost)/comments", json: ["text": "nice"], bearer: alice.token)
                    .status == 201)

            #expect(try await api.get("/v1/timeline", bearer: alice.token).ids == [bobPost])
            #expect(try await api.get("/v1/timeline", bearer: carol.token).ids == [carolPost])
            let bobActivity = try await api.get("/v1/activity", bearer: bob.token)
            #expect(
                Set(bobActivity.items.compactMap { $0["kind"] as? String }) == ["follow", "comment"], "\(bobActivity)")
            #expect(
                bobActivity.items.allSatisfy { $0["actor"] as? String == alice.id && Self.isTimestamp($0["createdAt"]) }
            )
            #expect(try await api.get("/v1/activity", bearer: carol.token).items.isEmpty)

            // No way to name another user: not in the query, not as `as` in a body.
            let otherTimeline = try await api.get("/v1/timeline?user=\(alice.id)", bearer: carol.token)
            #expect(otherTimeline.status == 400 && otherTimeline.errorField == "user", "\(otherTimeline)")
            let otherActivity = try await api.get("/v1/activity?user=\(bob.id)", bearer: carol.token)
            #expect(otherActivity.status == 400 && otherActivity.errorField == "user", "\(otherActivity)")
            let otherMe = try await api.get("/v1/me?user=\(bob.id)", bearer: carol.token)
            #expect(otherMe.status == 400 && otherMe.errorField == "user", "\(otherMe)")
            let asPost = try await api.send(
                "POST", "/v1/posts", json: ["image": gifBase64(9), "as": alice.id], bearer: carol.token)
            #expect(asPost.status == 400 && asPost.errorField == "as", "\(asPost)")
            let asComment = try await api.send(
                "POST", "/v1/posts/\(bobPost)/comments", json: ["text": "hi", "as": bob.id], bearer: carol.token)
            #expect(asComment.status == 400 && asComment.errorField == "as", "\(asComment)")
            let asLike = try await api.send(
                "PUT", "/v1/posts/\(bobPost)/like", json: ["as": alice.id], bearer: carol.token)
            #expect(asLike.status == 400 && asLike.errorField == "as", "\(asLike)")
            let asAnonymous = try await api.send(
                "POST", "/v1/posts/\(bobPost)/comments", json: ["text": "hi", "as": bob.id])
            #expect(asAnonymous.status == 401 || asAnonymous.status == 400, "\(asAnonymous)")
            let sessionField = try await api.send(
                "PUT", "/v1/posts/\(bobPost)/like", json: ["session": alice.token], bearer: carol.token)
            #expect(sessionField.status == 400 && sessionField.errorField == "session", "\(sessionField)")
            #expect(try await api.get("/v1/posts/\(bobPost)/likes").ids == [])

            // Anonymously: none of the private reads.
            #expect(try await api.get("/v1/timeline").status == 401)
            #expect(try await api.get("/v1/activity").status == 401)
            #expect(try await api.get("/v1/timeline?user=\(alice.id)").status == 401)
            let stream = try EventStreamReader(port: server.port)
            #expect(await stream.open().hasPrefix("HTTP/1.1 401"))
            let otherStream = try EventStreamReader(port: server.port, bearer: carol.token, query: "?user=\(alice.id)")
            #expect(await otherStream.open().hasPrefix("HTTP/1.1 400"))
        }
    }

    // MARK: - Throttling

    @Test func signInsFromOneAddressAreThrottledWithRetryAfter() async throws {
        try await withServer { server in
            let api = server.api
            _ = try await api.signUp("alice")  // one attempt of the 30 a minute
            // Guessing passwords from one address: different emails each time, so only the
            // per-address limit (30 sign-ups and sign-ins a minute) can stop it.
            var statuses: [Int] = []
            var limited: Reply?
            for n in 0..<45 {
                let reply = try await api.send(
                    "POST", "/v1/sessions", json: ["email": "guess\(n)@example.com", "password": "wrong-password"])
                statuses.append(reply.status)
                if reply.status == 429 {
                    limited = reply
                    break
                }
            }
            let reply = try #require(limited, "never throttled: \(statuses)")
            #expect(statuses.dropLast().allSatisfy { $0 == 401 }, "\(statuses)")
            #expect(statuses.count >= 30, "throttled too early: \(statuses)")  // the bucket starts full
            #expect(reply.errorCode == "rate_limited")
            let retryAfter = try #require(reply.header("Retry-After").flatMap { Int($0) }, "\(reply)")
            #expect(retryAfter > 0)
            // The right password from that address waits too, and so do sign-ups. The bucket
            // refills one attempt every 2 s, so on a slow machine one may have come back since
            // the 429: of two tries in a row, one is refused.
            func refusedOnceOfTwo(_ attempt: (Int) async throws -> Reply) async throws -> Bool {
                for n in 0..<2 where try await attempt(n).status == 429 { return true }
                return false
            }
            #expect(
                try await refusedOnceOfTwo { _ in
                    try await api.send(
                        "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "password-123"])
                })
            #expect(
                try await refusedOnceOfTwo { n in
                    try await api.send(
                        "POST", "/v1/users",
                        json: ["username": "bob\(n)", "email": "bob\(n)@example.com", "password": "password-123"])
                })
            // Reads are not throttled.
            #expect(try await api.get("/v1/users/@alice").status == 200)
        }
    }

    @Test func repeatedWrongPasswordsForOneEmailAreRateLimitedWithRetryAfter() async throws {
        try await withServer { server in
            let api = server.api
            _ = try await api.signUp("alice")
            var statuses: [Int] = []
            for _ in 0..<10 {
                let reply = try await api.send(
                    "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "wrong-password"])
                statuses.append(reply.status)
                if reply.status == 429 {
                    #expect(
                        reply.errorCode == "rate_limited" && reply.header("Retry-After").flatMap { Int($0) } != nil,
                        "\(reply)")
                    break
                }
            }
            #expect(statuses.last == 429 && statuses.dropLast().allSatisfy { $0 == 401 }, "\(statuses)")
        }
    }

    // MARK: - Live updates

    @Test func twoStreamsSeeAFolloweesPostAndACommentAlsoFromASeparateExecProcess() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
            let bobsPost = try await api.addPost(bob.token, caption: "bob's own", image: 1)

            let aliceStream = try EventStreamReader(port: server.port, bearer: alice.token)
            let bobStream = try EventStreamReader(port: server.port, bearer: bob.token)
            for stream in [aliceStream, bobStream] {
                let head = await stream.open()
                #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
                #expect(head.lowercased().contains("content-type: text/event-stream"), "\(head)")
                #expect(head.lowercased().contains("x-content-type-options: nosniff"), "\(head)")
            }

            // A followee's new post, through this server.
            var started = ContinuousClock.now
            let post = try await api.addPost(alice.token, caption: "live #now", image: 2)
            let bobSaw = await bobStream.events {
                $0.contains { $0.event == "post" && $0.json["id"] as? String == post }
            }
            #expect(ContinuousClock.now - started < Self.streamBound)
            let postEvent = try #require(
                bobSaw.first { $0.event == "post" && $0.json["id"] as? String == post }, "\(bobSaw)")
            #expect(
                postEvent.sequence != nil && postEvent.json["authorUsername"] as? String == "alice"
                    && postEvent.json["caption"] as? String == "live #now")

            // A comment on her post reaches her stream.
            started = ContinuousClock.now
            let comment = try await api.send(
                "POST", "/v1/posts/\(post)/comments", json: ["text": "great"], bearer: bob.token)
            let commentID = try #require(comment.json["id"] as? String, "\(comment)")
            let aliceSaw = await aliceStream.events {
                $0.contains { $0.event == "activity" && $0.json["comment"] as? String == commentID }
            }
            #expect(ContinuousClock.now - started < Self.streamBound)
            let activity = try #require(
                aliceSaw.first { $0.event == "activity" && $0.json["comment"] as? String == commentID }, "\(aliceSaw)")
            #expect(
                activity.json["kind"] as? String == "comment" && activity.json["actor"] as? String == bob.id
                    && activity.json["post"] as? String == post)

            // The same from a separate `timeline exec` on the same database, while the server runs.
            started = ContinuousClock.now
            let results = try await execLines(
                database: server.database,
                [
                    ["id": "p", "as": alice.id, "command": "addPost", "image": gifBase64(3), "caption": "from exec"],
                    ["id": "c", "as": alice.id, "command": "addComment", "post": bobsPost, "text": "from exec too"]
                ])
            try #require(results.count == 2 && results.allSatisfy { $0["ok"] as? Bool == true }, "\(results)")
            let execPost = try #require((results[0]["result"] as? [String: Any])?["id"] as? String)
            let execComment = try #require((results[1]["result"] as? [String: Any])?["id"] as? String)
            let bobSawExec = await bobStream.events { events in
                events.contains { $0.event == "post" && $0.json["id"] as? String == execPost }
                    && events.contains { $0.event == "activity" && $0.json["comment"] as? String == execComment }
            }
            #expect(
                ContinuousClock.now - started < Self.streamBound + .seconds(10), "exec itself may take seconds to start"
            )
            #expect(bobSawExec.contains { $0.event == "post" && $0.json["id"] as? String == execPost }, "\(bobSawExec)")
            #expect(
                bobSawExec.contains {
                    $0.event == "activity" && $0.json["comment"] as? String == execComment
                        && $0.json["kind"] as? String == "comment"
                })
            let aliceSawExec = await aliceStream.events {
                $0.contains { $0.event == "post" && $0.json["id"] as? String == execPost }
            }
            #expect(
                aliceSawExec.contains { $0.event == "post" && $0.json["id"] as? String == execPost },
                "her own post enters her timeline")

            // Each stream only carries its bearer's events, each once, in log order.
            for events in [bobSawExec, aliceSawExec] {
                let sequences = events.compactMap(\.sequence)
                #expect(sequences.count == events.count && sequences == sequences.sorted(), "\(events)")
                #expect(Set(events.map(\.description)).count == events.count, "\(events)")
            }
            #expect(!aliceSawExec.contains { $0.event == "activity" && $0.json["comment"] as? String == execComment })
            #expect(!bobSawExec.contains { $0.event == "activity" && $0.json["comment"] as? String == commentID })

            // The stream is counted while open.
            let metrics = try await server.operations.get("/metrics")
            #expect(metrics.text.contains("timeline_open_streams 2"), "\(metrics.text)")
        }
    }

    @Test func reconnectingWithLastEventIDLosesAndRepeatsNothing() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
            let bobsPost = try await api.addPost(bob.token, caption: "bob's", image: 1)

            // A witness stream stays open throughout; another disconnects and resumes.
            let witness = try EventStreamReader(port: server.port, bearer: bob.token)
            let first = try EventStreamReader(port: server.port, bearer: bob.token)
            #expect(await witness.open().hasPrefix("HTTP/1.1 200"))
            #expect(await first.open().hasPrefix("HTTP/1.1 200"))
            let p1 = try await api.addPost(alice.token, image: 2)
            let p2 = try await api.addPost(alice.token, image: 3)
            let seen = await first.events { $0.contains { $0.json["id"] as? String == p2 } }
            let resumeAt = try #require(
                seen.first { $0.event == "post" && $0.json["id"] as? String == p1 }?.id, "\(seen)")
            first.client.disconnect()

            // While it is away: a post, a comment and a like on bob's post, a deletion.
            let p3 = try await api.addPost(alice.token, image: 4)
            #expect(
                try await api.send(
                    "POST", "/v1/posts/\(bobsPost)/comments", json: ["text": "while away"], bearer: alice.token
                ).status == 201)
            #expect(try await api.send("PUT", "/v1/posts/\(bobsPost)/like", bearer: alice.token).status == 200)
            #expect(try await api.send("DELETE", "/v1/posts/\(p1)", bearer: alice.token).status == 204)

            let resumed = try EventStreamReader(port: server.port, bearer: bob.token, lastEventID: resumeAt)
            #expect(await resumed.open().hasPrefix("HTTP/1.1 200"))
            // And after it is back: a live post, and a deletion (`removed`).
            let p4 = try await api.addPost(alice.token, image: 5)
            // Updates are read from the read models when the follower reaches an event: a post
            // already deleted by then is only `removed`. So p3 is deleted once both streams
            // have been given p4 (the follower delivers in log order).
            let sawP4: @Sendable ([ServerSentEvent]) -> Bool = {
                $0.contains { $0.event == "post" && $0.json["id"] as? String == p4 }
            }
            _ = await resumed.events(until: sawP4)
            _ = await witness.events(until: sawP4)
            #expect(try await api.send("DELETE", "/v1/posts/\(p3)", bearer: alice.token).status == 204)
            let isDone: @Sendable ([ServerSentEvent]) -> Bool = { events in
                events.contains { $0.event == "removed" && $0.json["post"] as? String == p3 }
            }
            let afterResume = await resumed.events(until: isDone)
            let witnessed = await witness.events(until: isDone)
            try #require(isDone(afterResume) && isDone(witnessed), "resumed: \(afterResume)\nwitness: \(witnessed)")

            // Exactly the witness's events after `resumeAt`: none lost, none twice.
            let expected = witnessed.filter { ($0.sequence ?? 0) > UInt64(resumeAt)! }
            #expect(afterResume == expected, "resumed: \(afterResume)\nwitness: \(witnessed)")
            #expect(Set(afterResume.map(\.description)).count == afterResume.count)
            let kinds = afterResume.map {
                "\($0.event) \($0.json["id"] as? String ?? $0.json["post"] as? String ?? "")"
            }
            #expect(
                kinds.contains("post \(p2)") && kinds.contains("post \(p3)") && kinds.contains("post \(p4)"), "\(kinds)"
            )
            #expect(kinds.contains("removed \(p1)") && kinds.contains("removed \(p3)"), "\(kinds)")
            #expect(!kinds.contains("post \(p1)"), "\(kinds)")
            #expect(afterResume.contains { $0.event == "activity" && $0.json["kind"] as? String == "comment" })
            #expect(afterResume.contains { $0.event == "activity" && $0.json["kind"] as? String == "like" })

            let badID = try EventStreamReader(port: server.port, bearer: bob.token, lastEventID: "yesterday")
            #expect(await badID.open().hasPrefix("HTTP/1.1 400"))
        }
    }

    @Test func aBrowserTicketOpensTheStreamOnceWithoutTheToken() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
            #expect(try await api.send("POST", "/v1/stream/tickets").status == 401)
            let issued = try await api.send("POST", "/v1/stream/tickets", bearer: bob.token)
            #expect(issued.status == 201, "\(issued)")
            let ticket = try #require(issued.json["ticket"] as? String)
            #expect((issued.json["expiresIn"] as? Int ?? 0) > 0)
            #expect(ticket != bob.token && !ticket.contains(bob.token))
            #expect(
                try await api.send("POST", "/v1/stream/tickets", json: ["user": alice.id], bearer: bob.token).status
                    == 400)

            let stream = try EventStreamReader(port: server.port, query: "?ticket=\(ticket)")
            let head = await stream.open()
            #expect(head.hasPrefix("HTTP/1.1 200") && head.lowercased().contains("text/event-stream"), "\(head)")
            let post = try await api.addPost(alice.token, image: 7)
            let events = await stream.events { $0.contains { $0.json["id"] as? String == post } }
            #expect(events.contains { $0.event == "post" && $0.json["id"] as? String == post }, "\(events)")  // bob's stream

            let again = try EventStreamReader(port: server.port, query: "?ticket=\(ticket)")
            #expect(await again.open().hasPrefix("HTTP/1.1 401"))
            let forged = try EventStreamReader(port: server.port, query: "?ticket=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
            #expect(await forged.open().hasPrefix("HTTP/1.1 401"))
        }
    }

    // MARK: - Stopping

    @Test func sigtermAnswersTheRequestsInFlightAndExitsZero() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            let stream = try EventStreamReader(port: server.port, bearer: alice.token)
            #expect(await stream.open().hasPrefix("HTTP/1.1 200"))

            // Several complete requests, and a large upload whose body is still arriving.
            var clients: [RawHTTPClient] = []
            for n in 0..<6 {
                let body = #"{"image":"\#(gifBase64(200 + n))","caption":"in flight \#(n)"}"#
                let client = try server.connect()
                client.send(
                    "POST /v1/posts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(alice.token)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                )
                clients.append(client)
            }
            var form = MultipartBody()
            form.field("caption", "a big one")
            form.file("image", filename: "big.jpg", type: "image/jpeg", jpegBytes(padding: 8 << 20))
            let bytes = [UInt8](form.finished())
            let upload = try server.connect()
            upload.send(
                "POST /v1/posts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(alice.token)\r\nContent-Type: \(form.contentType)\r\nContent-Length: \(bytes.count)\r\n\r\n"
            )
            upload.send(Array(bytes[..<(bytes.count / 2)]))

            server.child.signal(SIGTERM)
            upload.send(Array(bytes[(bytes.count / 2)...]))

            for (index, client) in (clients + [upload]).enumerated() {
                let answer = await client.read(until: Self.isCompleteResponse)
                #expect(
                    answer.hasPrefix("HTTP/1.1 201"),
                    "\(index == clients.count ? "the upload" : "request \(index)"): \(answer.prefix(400))")
            }
            // The stream ends (its chunked body is terminated), and the process exits 0.
            let ended = await stream.client.read { $0.hasSuffix("\r\n0\r\n\r\n") }
            #expect(ended.hasSuffix("\r\n0\r\n\r\n"), "\(ended.suffix(200))")
            #expect(await server.stop() == 0, "\(server.standardError.suffix(2000))")
            #expect(throws: (any Error).self) { try server.connect() }
        }
    }

    /// Whether `text` holds a whole response with a `Content-Length` body.
    @Sendable static func isCompleteResponse(_ text: String) -> Bool {
        guard let split = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<split.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return true }
        return text[split.upperBound...].utf8.count >= length
    }

    // MARK: - Operations

    @Test func healthReadinessMetricsOpenAPIAndAnAccessLogWithoutSecrets() async throws {
        let password = "Zebra-Password-9182", email = "secret.person@mail.example"
        var token = ""
        var ticket = ""
        let log = try await withServer { server in
            let api = server.api
            let health = try await api.get("/healthz")
            #expect(health.status == 200, "\(health)")
            #expect(try await api.get("/readyz").status == 200)

            let signUp = try await api.send(
                "POST", "/v1/users", json: ["username": "secretperson", "email": email, "password": password])
            token = try #require(signUp.json["session"] as? String, "\(signUp)")
            #expect(
                try await api.send("POST", "/v1/sessions", json: ["email": email, "password": password]).status == 201)
            #expect(
                try await api.send("POST", "/v1/sessions", json: ["email": email, "password": password + "x"]).status
                    == 401)
            let post = try await api.addPost(token, caption: "hello")
            #expect(try await api.get("/v1/posts/\(post)", bearer: token).status == 200)
            #expect(try await api.get("/v1/users?prefix=secret").status == 200)
            ticket = try #require(
                try await api.send("POST", "/v1/stream/tickets", bearer: token).json["ticket"] as? String)
            let stream = try EventStreamReader(port: server.port, query: "?ticket=\(ticket)")
            #expect(await stream.open().hasPrefix("HTTP/1.1 200"))
            #expect(try await api.get("/nowhere?password=\(password)").status == 404)

            let metrics = try await server.operations.get("/metrics")
            #expect(
                metrics.status == 200 && metrics.header("Content-Type")?.hasPrefix("text/plain") == true, "\(metrics)")
            for needle in [
                #"timeline_http_requests_total{route="/v1/users",status="201"} 1"#,
                #"timeline_http_requests_total{route="/v1/sessions",status="401"} 1"#,
                #"timeline_http_requests_total{route="/v1/posts/{post}",status="200"} 1"#,
                "timeline_open_streams 1", "timeline_log_sequence ", "timeline_http_request_duration_seconds_bucket"
            ] {
                #expect(metrics.text.contains(needle), "\(needle) in \(metrics.text)")
            }
            #expect(await server.stop() == 0)
            return server.standardError
        }
        let lines = log.split(separator: "\n").filter { $0.hasPrefix("{") }
        let entries = lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        #expect(entries.count == lines.count && entries.count >= 10, "\(log)")
        #expect(
            entries.allSatisfy {
                $0["method"] is String && $0["route"] is String && $0["status"] is Int && $0["us"] is Int
            }, "\(log)")
        #expect(
            entries.contains {
                $0["method"] as? String == "POST" && $0["route"] as? String == "/v1/users"
                    && $0["status"] as? Int == 201
            }, "\(log)")
        #expect(
            entries.contains { $0["route"] as? String == "/v1/posts/{post}" && $0["status"] as? Int == 200 }, "\(log)")
        for secret in [password, email, token, ticket] where !secret.isEmpty {
            #expect(!log.contains(secret), "the access log holds a secret: \(log)")
        }
    }

    @Test func corsOnlyForTheGivenOrigin() async throws {
        try await withServer(arguments: ["--cors-origin", "http://app.example"]) { server in
            let api = server.api
            let allowed = try await api.get("/v1/users", headers: ["Origin": "http://app.example"])
            #expect(
                allowed.status == 200 && allowed.header("Access-Control-Allow-Origin") == "http://app.example",
                "\(allowed)")
            let other = try await api.get("/v1/users", headers: ["Origin": "http://evil.example"])
            #expect(other.status == 200 && other.header("Access-Control-Allow-Origin") == nil, "\(other)")
            let none = try await api.get("/v1/users")
            #expect(none.header("Access-Control-Allow-Origin") == nil)
            // A browser asks first (preflight) before a request with a bearer or a JSON body.
            let preflight = try await api.send(
                "OPTIONS", "/v1/posts",
                headers: [
                    "Origin": "http://app.example", "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "authorization, content-type"
                ])
            #expect((200..<300).contains(preflight.status), "\(preflight)")
            #expect(preflight.header("Access-Control-Allow-Origin") == "http://app.example", "\(preflight)")
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("POST") == true, "\(preflight)")
            #expect(
                preflight.header("Access-Control-Allow-Headers")?.lowercased().contains("authorization") == true,
                "\(preflight)")
            let foreignPreflight = try await api.send(
                "OPTIONS", "/v1/posts",
                headers: [
                    "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"
                ])
            #expect(foreignPreflight.header("Access-Control-Allow-Origin") == nil, "\(foreignPreflight)")
        }
        try await withServer { server in
            let reply = try await server.api.get("/v1/users", headers: ["Origin": "http://app.example"])
            #expect(reply.status == 200 && reply.header("Access-Control-Allow-Origin") == nil, "\(reply)")
        }
    }
}
