import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Mastodon 4.3's notification filtering: the policy in the domain (the same policy twice
/// records nothing; an unknown action is a typed 422), and through a real `timeline serve`: what
/// the policy filters reaches neither v1, v2, the unread counts nor the stream, and is gathered
/// as one notification request per account, until accepted (then it and what follows come
/// through) or dismissed (then it is gone); `drop` keeps nothing. Push is checked by
/// Tests/push/test_push.py (`WebPushDeliveryTests`).
@Suite struct NotificationPolicyTests {
    @Test func theSamePolicyTwiceRecordsNothingAndAnUnknownActionIsRefused() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let set = Command.setNotificationPolicy(forNotFollowing: "filter", forNewAccounts: "drop")
        #expect(try await service.run(set, as: alice.id) == .changed(true))
        let head = try service.lastSequence()
        #expect(try await service.run(set, as: alice.id) == .changed(false))
        #expect(
            try await service.run(.setNotificationPolicy(forNotFollowing: "filter"), as: alice.id) == .changed(false))
        #expect(try service.lastSequence() == head, "nothing appended")
        let policy = try service.notificationPolicy(of: alice.id).policy
        #expect(
            policy.forNotFollowing == .filter && policy.forNewAccounts == .drop && policy.forNotFollowers == .accept)
        #expect(
            policy.forPrivateMentions == .filter && policy.forLimitedAccounts == .filter, "Mastodon's defaults stay")
        await #expect {
            try await service.run(.setNotificationPolicy(forNotFollowers: "mute"), as: alice.id)
        } throws: { error in
            (error as? TimelineError)?.code == .invalidArgument && (error as? TimelineError)?.field == "forNotFollowers"
        }
        #expect(try service.lastSequence() == head)
        // A request that holds nothing is not_found.
        let bob = try await service.createUser("bob")
        await #expect {
            try await service.run(.acceptNotificationRequest(account: bob.id.rawValue), as: alice.id)
        } throws: { error in (error as? TimelineError)?.code == .notFound }
    }

    /// The JSON array of a reply.
    func list(_ reply: Reply) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]], "\(reply)")
    }

    /// The ids of the accounts of alice's v1 notifications, newest first.
    func v1Actors(_ api: APIClient, _ token: String) async throws -> [String] {
        let reply = try await api.get("/api/v1/notifications?limit=40", bearer: token)
        try #require(reply.status == 200, "\(reply)")
        return try list(reply).compactMap { ($0["account"] as? [String: Any])?["id"] as? String }
    }

    @Test func aStrangersNotificationsAreHeldUntilAcceptedOrDismissed() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol"), dave = try await api.signUp("dave")
            #expect(try await api.send("PUT", "/v1/me/following/\(carol.id)", bearer: alice.token).status == 200)
            let post = try await api.addPost(alice.token, caption: "harbour", image: 1)
            // The Mastodon API names them by their Mastodon ids.
            let ids = try await server.mastodonIDs("account", [bob.id, carol.id, dave.id])
            let (bobID, carolID, daveID) = (ids[0], ids[1], ids[2])
            let postID = try await server.mastodonID("post", post)
            // The default policy: Mastodon's, holding nothing here.
            var policy = try await api.get("/api/v2/notifications/policy", bearer: alice.token)
            #expect(policy.status == 200 && policy.json["for_not_following"] as? String == "accept", "\(policy)")
            #expect(policy.json["for_limited_accounts"] as? String == "filter")
            let patched = try await api.send(
                "PATCH", "/api/v2/notifications/policy", json: ["for_not_following": "filter"], bearer: alice.token)
            #expect(patched.status == 200 && patched.json["for_not_following"] as? String == "filter", "\(patched)")
            // The v1 form says the same in booleans.
            let v1 = try await api.get("/api/v1/notifications/policy", bearer: alice.token)
            #expect(
                v1.json["filter_not_following"] as? Bool == true && v1.json["filter_new_accounts"] as? Bool == false)
            let refused = try await api.send(
                "PATCH", "/api/v2/notifications/policy", json: ["for_not_following": "hide"], bearer: alice.token)
            #expect(refused.status == 422, "\(refused)")
            // Bob and dave, whom alice does not follow, like and comment; carol, whom she follows, likes.
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: bob.token).status == 200)
            let comment = try await api.send(
                "POST", "/v1/posts/\(post)/comments", json: ["text": "nice"], bearer: dave.token)
            #expect(comment.status == 201)
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: carol.token).status == 200)
            #expect(try await v1Actors(api, alice.token) == [carolID])
            let v2 = try await api.get("/api/v2/notifications", bearer: alice.token)
            let groups = v2.json["notification_groups"] as? [[String: Any]] ?? []
            #expect(groups.flatMap { $0["sample_account_ids"] as? [String] ?? [] } == [carolID], "\(v2)")
            for path in ["/api/v1/notifications/unread_count", "/api/v2/notifications/unread_count"] {
                let unread = try await api.get(path, bearer: alice.token)
                #expect(unread.json["count"] as? Int == 1, "\(path): \(unread)")
            }
            #expect((try await api.get("/v1/me", bearer: alice.token)).json["unreadActivity"] as? Int == 1)
            policy = try await api.get("/api/v2/notifications/policy", bearer: alice.token)
            let summary = policy.json["summary"] as? [String: Any] ?? [:]
            #expect(
                summary["pending_requests_count"] as? Int == 2 && summary["pending_notifications_count"] as? Int == 2)
            // Two requests, paged one at a time with a Link to the next.
            let first = try await api.get("/api/v1/notifications/requests?limit=1", bearer: alice.token)
            let firstPage = try list(first)
            #expect(firstPage.count == 1 && first.header("Link")?.contains("rel=\"next\"") == true, "\(first)")
            let all = try list(try await api.get("/api/v1/notifications/requests", bearer: alice.token))
            #expect(Set(all.compactMap { $0["id"] as? String }) == [bobID, daveID])
            let held = try await api.get("/api/v1/notifications/requests/\(bobID)", bearer: alice.token)
            #expect(held.status == 200 && held.json["notifications_count"] as? String == "1", "\(held)")
            #expect((held.json["account"] as? [String: Any])?["id"] as? String == bobID)
            #expect((held.json["last_status"] as? [String: Any])?["id"] as? String == postID)
            // One account's notifications (a request's screen) show what its request holds.
            let bobs = try await api.get("/api/v1/notifications?account_id=\(bobID)", bearer: alice.token)
            #expect(try list(bobs).compactMap { $0["type"] as? String } == ["favourite"], "\(bobs)")
            // Accepted: bob's like comes into the list, and his next doings come straight through.
            let accepted = try await api.send(
                "POST", "/api/v1/notifications/requests/\(bobID)/accept", bearer: alice.token)
            #expect(accepted.status == 200, "\(accepted)")
            #expect(Set(try await v1Actors(api, alice.token)) == [carolID, bobID])
            let merged = try await api.get("/api/v1/notifications/requests/merged", bearer: alice.token)
            #expect(merged.json["merged"] as? Bool == true)
            let again = try await api.send(
                "POST", "/v1/posts/\(post)/comments", json: ["text": "lovely"], bearer: bob.token)
            #expect(again.status == 201)
            #expect(try await v1Actors(api, alice.token).first == bobID)
            #expect(
                try await api.get("/api/v1/notifications/requests/\(bobID)", bearer: alice.token).status == 404)
            // Dismissed: dave's comment is gone, and the request with it; his next one is held again.
            let dismissed = try await api.send(
                "POST", "/api/v1/notifications/requests/dismiss", json: ["id": [daveID, "nobody"]],
                bearer: alice.token)
            #expect(dismissed.status == 200, "\(dismissed)")
            #expect(try list(try await api.get("/api/v1/notifications/requests", bearer: alice.token)).isEmpty)
            #expect(!(try await v1Actors(api, alice.token)).contains(daveID))
            _ = try await api.send("POST", "/v1/posts/\(post)/comments", json: ["text": "hello?"], bearer: dave.token)
            let heldAgain = try await api.get("/api/v1/notifications/requests/\(daveID)", bearer: alice.token)
            #expect(heldAgain.json["notifications_count"] as? String == "1", "\(heldAgain)")
            #expect(!(try await v1Actors(api, alice.token)).contains(daveID))
        }
    }

    @Test func v1AndExecReadAndAnswerTheSameRequests() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let post = try await api.addPost(alice.token, caption: "harbour", image: 1)
            let set = try await api.send(
                "PATCH", "/v1/me/notification-policy", json: ["forNotFollowers": "filter"], bearer: alice.token)
            #expect(set.status == 200 && set.json["changed"] as? Bool == true, "\(set)")
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: bob.token).status == 200)
            let policy = try await api.get("/v1/me/notification-policy", bearer: alice.token)
            #expect(
                policy.json["forNotFollowers"] as? String == "filter"
                    && policy.json["pendingNotifications"] as? Int == 1)
            let page = try await api.get("/v1/me/notification-requests", bearer: alice.token)
            #expect(page.items.compactMap { $0["account"] as? String } == [bob.id], "\(page)")
            #expect((page.items.first?["last"] as? [String: Any])?["kind"] as? String == "like")
            #expect(try await api.get("/v1/activity", bearer: alice.token).items.isEmpty)
            // exec reads the same, as alice, on the server's database.
            let lines = try execOutputLines(
                path: server.database,
                input: Array(
                    (#"{"id":"p","query":"notificationPolicy","as":"\#(alice.id)"}"# + "\n"
                        + #"{"id":"r","query":"notificationRequest","account":"\#(bob.id)","as":"\#(alice.id)"}"#
                        + "\n").utf8))
            #expect(
                lines.count == 2 && lines[1].contains("\"count\":1") && lines[0].contains("\"pendingRequests\":1"),
                "\(lines)")
            let accepted = try await api.send(
                "POST", "/v1/me/notification-requests/\(bob.id)/accept", bearer: alice.token)
            #expect(accepted.status == 204, "\(accepted)")
            #expect(try await api.get("/v1/activity", bearer: alice.token).items.count == 1)
            let again = try await api.send(
                "POST", "/v1/me/notification-requests/\(bob.id)/dismiss", bearer: alice.token)
            #expect(again.status == 404 && again.errorCode == "not_found", "\(again)")
        }
    }

    @Test func dropKeepsNothing() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let post = try await api.addPost(alice.token, caption: "harbour", image: 1)
            let patched = try await api.send(
                "PATCH", "/api/v2/notifications/policy", json: ["for_not_following": "drop"], bearer: alice.token)
            #expect(patched.json["for_not_following"] as? String == "drop", "\(patched)")
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: bob.token).status == 200)
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status == 200)
            #expect(try await v1Actors(api, alice.token).isEmpty)
            #expect(try list(try await api.get("/api/v1/notifications/requests", bearer: alice.token)).isEmpty)
            let summary = (try await api.get("/api/v2/notifications/policy", bearer: alice.token)).json["summary"]
            #expect((summary as? [String: Any])?["pending_notifications_count"] as? Int == 0)
            // Back to accept (v1's PUT, a form): what was dropped stays dropped; the next like shows.
            let put = try await api.send(
                "PUT", "/api/v1/notifications/policy", body: Data("filter_not_following=false".utf8),
                contentType: "application/x-www-form-urlencoded", bearer: alice.token)
            #expect(put.status == 200 && put.json["filter_not_following"] as? Bool == false, "\(put)")
            #expect(try await api.send("DELETE", "/v1/posts/\(post)/like", bearer: bob.token).status == 200)
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: bob.token).status == 200)
            #expect(try await v1Actors(api, alice.token) == [try await server.mastodonID("account", bob.id)])
        }
    }

    @Test func theStreamDoesNotCarryAHeldNotification() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            #expect(try await api.send("PUT", "/v1/me/following/\(carol.id)", bearer: alice.token).status == 200)
            let post = try await api.addPost(alice.token, caption: "harbour", image: 1)
            _ = try await api.send(
                "PATCH", "/api/v2/notifications/policy", json: ["for_not_following": "filter"], bearer: alice.token)
            let socket = try await WebSocketClient.open(port: server.port, token: alice.token)
            let subscribe = WebSocketTests.frame(
                0x1, Array("{\"type\":\"subscribe\",\"stream\":\"user:notification\"}".utf8))
            #expect(socket.send(subscribe + WebSocketTests.sentinel))
            #expect(await socket.nextControlFrame().map { $0.payload == Array("sentinel".utf8) } == true)
            // Bob's like (held) comes before carol's (shown): the first notification streamed is carol's.
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: bob.token).status == 200)
            #expect(try await api.send("PUT", "/v1/posts/\(post)/like", bearer: carol.token).status == 200)
            let first = try #require(await socket.nextText { $0.contains("\"event\":\"notification\"") })
            let ids = try await server.mastodonIDs("account", [carol.id, bob.id])
            #expect(first.contains(ids[0]) && !first.contains(ids[1]), "\(first)")
        }
    }
}
