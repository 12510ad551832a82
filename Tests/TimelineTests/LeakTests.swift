import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Small leaks of what a user may not see, each through the real server: an activity item
/// about a post one can no longer see, a write that says whether a hidden post exists, an
/// upload served before it is posted, mentions that name hidden accounts or another
/// server's; and dismissals that change nothing but still write to the log.
@Suite struct LeakTests {
    /// Suspends `user` as a moderator (`mod`, made one by the operator's `timeline moderation
    /// grant` beside the running server).
    func suspend(_ user: String, on server: ServerProcess) async throws {
        let mod = try await server.api.signUp("mod")
        let grant = try ToolProcess(["moderation", "--db", server.database, "grant", "@mod"])
        grant.process.waitUntilExit()
        try #require(grant.process.terminationStatus == 0)
        let reply = try await server.api.send("PUT", "/v1/admin/suspensions/\(user)", bearer: mod.token)
        try #require(reply.status == 200 && reply.json["changed"] as? Bool == true, "\(reply)")
    }

    /// The bell's items (`post` activity) about a followers-only post leave the follower's
    /// activity, notifications and unread count once they no longer follow; a public post's stay.
    @Test func bellItemsOfAPostOneNoLongerSeesLeaveActivityAndTheUnreadCount() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let follow = try await api.send(
                "PUT", "/v1/me/following/\(alice.id)", json: ["notify": true],
                bearer: bob.token)
            try #require(follow.status == 200, "\(follow)")
            let open = try await api.addPost(alice.token, caption: "for everyone")
            let followersOnly: [String: Any] = ["image": gifBase64(1), "visibility": "followers"]
            let closed = try await api.send("POST", "/v1/posts", json: followersOnly, bearer: alice.token)
            try #require(closed.status == 201, "\(closed)")
            let closedID = try #require(closed.json["id"] as? String)

            func seen() async throws -> (activity: [String], unread: Int?, notifications: [String]) {
                let activity = try await api.get("/v1/activity", bearer: bob.token)
                let me = try await api.get("/v1/me", bearer: bob.token)
                let notifications = try await api.get("/api/v1/notifications", bearer: bob.token)
                let statuses = (try JSONSerialization.jsonObject(with: notifications.body) as? [[String: Any]] ?? [])
                    .compactMap { ($0["status"] as? [String: Any])?["id"] as? String }
                let posts = activity.items.compactMap { $0["post"] as? String }
                return (posts, me.json["unreadActivity"] as? Int, statuses)
            }
            let before = try await seen()
            #expect(before.activity == [closedID, open] && before.unread == 2, "\(before)")
            let (closedStatus, openStatus) = (
                try await server.mastodonID("post", closedID), try await server.mastodonID("post", open)
            )
            #expect(before.notifications == [closedStatus, openStatus], "\(before)")

            let unfollow = try await api.send("DELETE", "/v1/me/following/\(alice.id)", bearer: bob.token)
            try #require(unfollow.status == 200, "\(unfollow)")
            let after = try await seen()
            #expect(after.activity == [open], "the followers-only post's item is gone: \(after)")
            #expect(after.unread == 1, "and not counted: \(after)")
            #expect(after.notifications == [openStatus], "\(after)")
        }
    }

    /// Editing or deleting someone else's post one may not see (followers-only, blocked either
    /// way, a suspended author) is 404 `not_found`, as an unknown id: 403 would say it exists.
    /// A visible post of someone else's stays 403; the author still edits theirs.
    @Test func writingAPostOneMayNotSeeIsNotFoundAsAnUnknownID() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol"), dan = try await api.signUp("dan")
            let eve = try await api.signUp("eve")
            let open = try await api.addPost(alice.token, caption: "for everyone")
            let followersOnly: [String: Any] = ["image": gifBase64(1), "visibility": "followers"]
            let closedReply = try await api.send("POST", "/v1/posts", json: followersOnly, bearer: alice.token)
            let closed = try #require(closedReply.json["id"] as? String, "\(closedReply)")
            let evesPost = try await api.addPost(eve.token, caption: "soon gone", image: 2)
            #expect(try await api.send("PUT", "/v1/me/blocks/\(carol.id)", bearer: alice.token).status == 200)
            #expect(try await api.send("PUT", "/v1/me/blocks/\(alice.id)", bearer: dan.token).status == 200)
            try await suspend(eve.id, on: server)
            let unknown = try await api.addPost(bob.token, caption: "to delete", image: 3)
            #expect(try await api.send("DELETE", "/v1/posts/\(unknown)", bearer: bob.token).status == 204)

            // Each write's status and message (the id made generic), for the caller.
            func answers(_ post: String, from bearer: String) async throws -> [String] {
                let replies = [
                    try await api.send("PATCH", "/v1/posts/\(post)", json: ["caption": "mine now"], bearer: bearer),
                    try await api.send("DELETE", "/v1/posts/\(post)", bearer: bearer),
                    try await api.send(
                        "PUT", "/api/v1/statuses/\(post)", body: Data("status=mine".utf8),
                        contentType: "application/x-www-form-urlencoded", bearer: bearer),
                    try await api.send("DELETE", "/api/v1/statuses/\(post)", bearer: bearer)
                ]
                return replies.map { reply in
                    let message = reply.error["message"] as? String ?? reply.json["error"] as? String ?? reply.text
                    let generic = message.replacingOccurrences(of: post, with: "ID")
                    return "\(reply.status) \(reply.errorCode ?? "-") \(generic)"
                }
            }
            let unknownAnswers = try await answers(unknown, from: bob.token)
            #expect(unknownAnswers.allSatisfy { $0.hasPrefix("404 ") }, "\(unknownAnswers)")
            let hidden = [
                (closed, bob, "followers-only, not followed"), (open, carol, "its author blocks the caller"),
                (open, dan, "the caller blocks its author"), (evesPost, bob, "a suspended author")
            ]
            for (post, caller, why) in hidden {
                #expect(try await answers(post, from: caller.token) == unknownAnswers, "\(why)")
            }

            // Likes and bookmarks, given or taken back, on a post out of sight: as unknown as none.
            func reactions(_ post: String, from bearer: String) async throws -> [Int] {
                var statuses: [Int] = []
                for (method, path) in [("PUT", "like"), ("DELETE", "like"), ("PUT", "bookmark"), ("DELETE", "bookmark")]
                {
                    statuses.append(try await api.send(method, "/v1/posts/\(post)/\(path)", bearer: bearer).status)
                }
                return statuses
            }
            #expect(try await reactions(unknown, from: bob.token) == [404, 404, 404, 404])
            #expect(
                try await reactions(closed, from: bob.token) == [404, 404, 404, 404], "followers-only, not followed")
            #expect(
                try await reactions(open, from: carol.token) == [404, 404, 404, 404], "its author blocks the caller")

            // A comment on a post the caller may not see, or by someone blocked either way, is as
            // unknown as a comment that never was; one the caller sees is forbidden.
            func comment(on post: String) async throws -> String {
                let reply = try await api.send(
                    "POST", "/v1/posts/\(post)/comments", json: ["text": "hello"], bearer: alice.token)
                return try #require(reply.json["id"] as? String, "\(reply)")
            }
            func deletion(_ comment: String, by bearer: String) async throws -> String {
                let reply = try await api.send("DELETE", "/v1/comments/\(comment)", bearer: bearer)
                let message = (reply.error["message"] as? String ?? "").replacingOccurrences(of: comment, with: "ID")
                return "\(reply.status) \(reply.errorCode ?? "-") \(message)"
            }
            let gone = try await comment(on: open)
            #expect(try await api.send("DELETE", "/v1/comments/\(gone)", bearer: alice.token).status == 204)
            let unknownComment = try await deletion(gone, by: bob.token)
            #expect(unknownComment.hasPrefix("404 "), "\(unknownComment)")
            let onClosed = try await comment(on: closed), onOpen = try await comment(on: open)
            #expect(try await deletion(onClosed, by: bob.token) == unknownComment, "followers-only, not followed")
            #expect(try await deletion(onOpen, by: carol.token) == unknownComment, "its author blocks the caller")
            #expect(try await deletion(onOpen, by: dan.token) == unknownComment, "the caller blocks its author")
            #expect(try await deletion(onOpen, by: bob.token).hasPrefix("403 "))

            // Visible but someone else's: forbidden, on both APIs.
            let edit = try await api.send("PATCH", "/v1/posts/\(open)", json: ["caption": "x"], bearer: bob.token)
            #expect(edit.status == 403, "\(edit)")
            #expect(try await api.send("DELETE", "/v1/posts/\(open)", bearer: bob.token).status == 403)
            let mastodon = try await api.send(
                "PUT", "/api/v1/statuses/\(try await server.mastodonID("post", open))", body: Data("status=x".utf8),
                contentType: "application/x-www-form-urlencoded", bearer: bob.token)
            #expect(mastodon.status == 403, "\(mastodon)")
            // The author still may.
            let own = try await api.send(
                "PATCH", "/v1/posts/\(closed)", json: ["caption": "edited"],
                bearer: alice.token)
            #expect(own.status == 200, "\(own)")
            #expect(try await api.send("DELETE", "/v1/posts/\(closed)", bearer: alice.token).status == 204)
        }
    }

    /// A photo uploaded for a post not yet made is its uploader's alone (`private, no-cache`),
    /// 404 to anyone else in every size; once posted, it is served as a post's photo.
    @Test func anUnpostedUploadIsServedToItsUploaderAlone() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let upload = try await api.send(
                "POST", "/v1/media", json: ["image": gifBase64(0xFF00)],
                bearer: alice.token)
            try #require(upload.status == 201, "\(upload)")
            let media = try #require(upload.json["id"] as? String)
            let image = try #require(upload.json["image"] as? String)
            let thumb = try #require((upload.json["variants"] as? [String: Any])?["thumb"] as? String, "\(upload)")
            for path in ["/v1/images/\(image)", "/v1/images/\(thumb)", "/v1/images/\(image)?variant=thumb"] {
                for bearer in [nil, bob.token] {
                    let reply = try await api.get(path, bearer: bearer)
                    let who = bearer == nil ? "anyone" : "bob"
                    #expect(reply.status == 404 && reply.errorCode == "not_found", "\(path) as \(who): \(reply)")
                }
                let own = try await api.get(path, bearer: alice.token)
                #expect(own.status == 200 && own.header("Cache-Control") == "private, no-cache", "\(path): \(own)")
                let again = try await api.get(
                    path, bearer: alice.token,
                    headers: ["If-None-Match": own.header("ETag") ?? ""])
                #expect(
                    again.status == 304 && again.header("Cache-Control") == "private, no-cache",
                    "\(path): \(again)")
            }
            let post = try await api.send("POST", "/v1/posts", json: ["media": [media]], bearer: alice.token)
            try #require(post.status == 201, "\(post)")
            let served = try await api.get("/v1/images/\(image)")
            #expect(
                served.status == 200 && served.header("Cache-Control") == "public, max-age=31536000, immutable",
                "\(served)")
            #expect(try await api.get("/v1/images/\(thumb)", bearer: bob.token).status == 200)
        }
    }

    /// In Mastodon's `content` and `mentions`, a mention of a suspended account, of one who
    /// blocks the reader or whom the reader blocks, is plain text (no id given away);
    /// `@frank@evil.example` is not the local frank, and tells him nothing.
    @Test func mentionsOfHiddenAccountsAndOfOtherServersArePlainText() async throws {
        // A handle is another server's account (#43: direct messages reach it), not the local frank.
        #expect(
            Validation.mentions(in: "@frank@evil.example @gus. @hal.x@y @ivy@ @jo") == [
                "frank@evil.example", "gus", "jo"
            ])
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol"), dan = try await api.signUp("dan")
            let erin = try await api.signUp("erin")
            let frank = try await api.signUp("frank"), gus = try await api.signUp("gus")
            #expect(try await api.send("PUT", "/v1/me/blocks/\(alice.id)", bearer: dan.token).status == 200)
            #expect(try await api.send("PUT", "/v1/me/blocks/\(erin.id)", bearer: alice.token).status == 200)
            try await suspend(carol.id, on: server)
            let post = try await api.addPost(bob.token, caption: "hi @carol @dan @erin @frank@evil.example @gus")

            let statusID = try await server.mastodonID("post", post)
            let accounts = try await server.mastodonIDs("account", [carol, dan, erin, frank, gus].map(\.id))
            let status = try await api.get("/api/v1/statuses/\(statusID)", bearer: alice.token)
            try #require(status.status == 200, "\(status)")
            let mentions = status.json["mentions"] as? [[String: Any]] ?? []
            #expect(
                mentions.compactMap { $0["id"] as? String } == [accounts[4]],
                "\(status)")
            let content = status.json["content"] as? String ?? ""
            for hidden in accounts.prefix(4) { #expect(!content.contains(hidden)) }
            #expect(
                !content.contains("/#/u/carol") && !content.contains("/#/u/dan") && !content.contains("/#/u/erin")
                    && !content.contains("/#/u/frank"), "\(content)")
            #expect(content.contains("@frank@evil.example") && content.contains("/#/u/gus"), "\(content)")
            // The blocks and the suspension are the reader's: someone else sees dan and erin.
            let others = try await api.get("/api/v1/statuses/\(statusID)", bearer: bob.token)
            let seen = (others.json["mentions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(Set(seen) == [accounts[1], accounts[2], accounts[4]], "\(others)")

            // gus is told (the sentinel: activity is written with the post); frank is not.
            let gusActivity = try await api.get("/v1/activity", bearer: gus.token)
            #expect(gusActivity.items.map { $0["kind"] as? String } == ["mention"], "\(gusActivity)")
            let franksActivity = try await api.get("/v1/activity", bearer: frank.token)
            #expect(franksActivity.status == 200 && franksActivity.items.isEmpty, "\(franksActivity)")
        }
    }

    /// Dismissing an item that is not one's own, or one already dismissed, or clearing an empty
    /// activity, changes nothing and appends nothing (`changed` false).
    /// Marking read again, or past the newest item (the marker stops there), or with nothing to
    /// read, appends nothing: only a marker that moves is recorded.
    @Test func aReadMarkerThatDoesNotMoveAppendsNothing() async throws {
        let service = try openService()
        defer { service.close() }
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let length = try service.lastSequence()
        #expect(
            try await service.run(.markActivityRead(upTo: "zzzzzzzzzzzzzzzzzzzz"), as: bob.id) == .changed(false),
            "bob has no activity")
        #expect(try service.lastSequence() == length)
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let item = try #require(try service.activity(of: alice.id).items.first).id
        #expect(try await service.run(.markActivityRead(upTo: "zzzzzzzzzzzzzzzzzzzz"), as: alice.id) == .changed(true))
        let marked = try service.lastSequence()
        for upTo in ["zzzzzzzzzzzzzzzzzzzz", item, "00000000000000000000"] {
            #expect(try await service.run(.markActivityRead(upTo: upTo), as: alice.id) == .changed(false), "\(upTo)")
        }
        #expect(try service.lastSequence() == marked)
        #expect(try service.user(alice.id, viewer: alice.id).unreadActivity == 0)
    }

    @Test func aDismissalThatChangesNothingAppendsNothing() async throws {
        let service = try openService()
        defer { service.close() }
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let item = try #require(try service.activity(of: alice.id).items.first).id
        var length = try service.lastSequence()
        #expect(try await service.run(.dismissActivity(item: item), as: bob.id) == .changed(false), "not bob's")
        #expect(try await service.run(.dismissActivity(item: nil), as: bob.id) == .changed(false), "bob has none")
        #expect(try service.lastSequence() == length)
        #expect(try await service.run(.dismissActivity(item: item), as: alice.id) == .changed(true))
        #expect(try service.lastSequence() == length + 1 && service.activity(of: alice.id).items.isEmpty)
        length += 1
        #expect(
            try await service.run(.dismissActivity(item: item), as: alice.id) == .changed(false),
            "already dismissed")
        #expect(try await service.run(.dismissActivity(item: nil), as: alice.id) == .changed(false), "nothing left")
        #expect(try service.lastSequence() == length)
    }

    /// The same through Mastodon's dismiss and clear, which answer 200 `{}` either way: the
    /// log (`timeline audit list`) grows only when an item goes.
    @Test func mastodonDismissalsThatChangeNothingAppendNothing() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
            let item = try await server.mastodonID(
                "notification", try #require(try await api.get("/v1/activity", bearer: alice.token).ids.first))
            func logLength() async throws -> Int {
                let audit = try ChildProcess(["audit", "list", "--db", server.database, "--json"])
                try #require(await audit.exitStatus(within: .seconds(60)) == 0, "\(audit.standardError)")
                return audit.standardOutput.split(separator: "\n").count
            }
            func dismiss(_ path: String, _ bearer: String) async throws {
                let reply = try await api.send("POST", path, bearer: bearer)
                #expect(reply.status == 200 && reply.json.isEmpty && reply.text.hasPrefix("{"), "\(path): \(reply)")
            }
            let length = try await logLength()
            try await dismiss("/api/v1/notifications/\(item)/dismiss", bob.token)
            try await dismiss("/api/v1/notifications/clear", bob.token)
            #expect(try await logLength() == length, "not bob's, and bob has none")
            try await dismiss("/api/v1/notifications/\(item)/dismiss", alice.token)
            #expect(try await logLength() == length + 1)
            try await dismiss("/api/v1/notifications/\(item)/dismiss", alice.token)
            try await dismiss("/api/v1/notifications/clear", alice.token)
            #expect(try await logLength() == length + 1, "already dismissed, and nothing left")
        }
    }
}
