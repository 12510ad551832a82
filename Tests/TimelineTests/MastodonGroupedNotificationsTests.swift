import Foundation
import Testing
@testable import Timeline
@testable import TimelineHTTP

/// Grouped notifications (`/api/v2/notifications`) through a real server: likes, follows,
/// comments and mentions by several users, grouped as `/api/v1/notifications`' `group_key`s
/// say, paged to the end, filtered, and dismissed; a blocked or muted user never shows.
@Suite struct MastodonGroupedNotificationsTests {
    /// A network: alice's two posts liked by five and three users, four follows, a comment
    /// and a mention; mallory (blocked) and carol (muted) liked too.
    struct Network {
        let api: APIClient
        let alice: (token: String, id: String)
        let users: [(token: String, id: String)]
        let hidden: [String]
        let posts: [String]
    }

    /// The network, its accounts and posts named by their Mastodon ids.
    func network(_ server: ServerProcess) async throws -> Network {
        let api = server.api
        let alice = try await api.signUp("alice")
        var users: [(token: String, id: String)] = []
        for n in 1...5 { users.append(try await api.signUp("user\(n)")) }
        let mallory = try await api.signUp("mallory"), carol = try await api.signUp("carol")
        let first = try await api.addPost(alice.token, caption: "first", image: 1)
        let second = try await api.addPost(alice.token, caption: "second", image: 2)
        for user in users + [mallory, carol] {
            #expect(try await api.send("PUT", "/v1/posts/\(first)/like", bearer: user.token).status == 200)
        }
        for user in users.prefix(3) {
            #expect(try await api.send("PUT", "/v1/posts/\(second)/like", bearer: user.token).status == 200)
        }
        for user in users.prefix(4) + [mallory, carol] {
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: user.token).status == 200)
        }
        let comment = try await api.send(
            "POST", "/v1/posts/\(first)/comments", json: ["text": "lovely"], bearer: users[4].token)
        #expect(comment.status == 201, "\(comment)")
        _ = try await api.addPost(users[1].token, caption: "look @alice", image: 3)
        let accounts = try await server.mastodonIDs("account", (users + [mallory, carol]).map(\.id))
        #expect(try await api.send("POST", "/api/v1/accounts/\(accounts[5])/block", bearer: alice.token).status == 200)
        #expect(try await api.send("POST", "/api/v1/accounts/\(accounts[6])/mute", bearer: alice.token).status == 200)
        return Network(
            api: api, alice: alice, users: zip(users, accounts).map { ($0.token, $1) }, hidden: Array(accounts[5...]),
            posts: try await server.mastodonIDs("post", [first, second]))
    }

    /// The v1 notifications, all of them (fewer than a page).
    func v1(_ n: Network, _ query: String = "") async throws -> [[String: Any]] {
        let reply = try await n.api.get("/api/v1/notifications?limit=40" + query, bearer: n.alice.token)
        try #require(reply.status == 200, "\(reply)")
        return try #require(try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]])
    }

    /// One v2 answer's body.
    func v2(_ n: Network, _ path: String, status: Int = 200) async throws -> [String: Any] {
        let reply = try await n.api.get(path, bearer: n.alice.token)
        try #require(reply.status == status, "\(path): \(reply)")
        return reply.json
    }

    /// The path and query of a `Link` header's `next` target.
    func nextPath(_ link: String?) -> String? {
        guard let link, let part = link.components(separatedBy: ", ").first(where: { $0.hasSuffix(#"rel="next""#) }),
            let start = part.firstIndex(of: "<"), let end = part.firstIndex(of: ">"),
            let url = URLComponents(string: String(part[part.index(after: start)..<end]))
        else { return nil }
        return url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    func groups(_ body: [String: Any]) -> [[String: Any]] { body["notification_groups"] as? [[String: Any]] ?? [] }

    /// Counts by group key, as v1's `group_key`s have them.
    func expected(_ notifications: [[String: Any]]) -> [String: Int] {
        notifications.reduce(into: [:]) { $0[$1["group_key"] as? String ?? "", default: 0] += 1 }
    }

    @Test func groupsAreV1sNotificationsGatheredByKey() async throws {
        try await withServer { server in
            let n = try await network(server)
            let notifications = try await v1(n)
            // 5 + 3 likes, 4 follows, a comment and a mention: the blocked and muted users' left out.
            #expect(notifications.count == 14, "\(notifications.map { $0["type"] ?? "" })")
            let want = expected(notifications)
            let body = try await v2(n, "/api/v2/notifications")
            let got = groups(body)
            var counts: [String: Int] = [:]
            for group in got {
                counts[group["group_key"] as? String ?? "", default: 0] += group["notifications_count"] as? Int ?? 0
            }
            #expect(counts == want)
            #expect(got.count == want.count, "each key once in one page")
            // Likes of one post and follows group (an hour's worth); comments and mentions do not.
            let likesOfFirst = got.filter { ($0["group_key"] as? String ?? "").hasPrefix("favourite-\(n.posts[0])-") }
            #expect(likesOfFirst.reduce(0) { $0 + ($1["notifications_count"] as? Int ?? 0) } == 5)
            #expect(likesOfFirst.count <= 2, "at most an hour's turn splits them")
            for group in likesOfFirst {
                #expect(group["type"] as? String == "favourite" && group["status_id"] as? String == n.posts[0])
                let samples = group["sample_account_ids"] as? [String] ?? []
                #expect(
                    samples.count == group["notifications_count"] as? Int
                        && Set(samples).isSubset(of: n.users.map(\.id)))
                #expect(group["page_max_id"] as? String == group["most_recent_notification_id"] as? String)
                #expect(group["latest_page_notification_at"] is String && group["page_min_id"] is String)
            }
            let follows = got.filter { $0["type"] as? String == "follow" }
            #expect(follows.reduce(0) { $0 + ($1["notifications_count"] as? Int ?? 0) } == 4)
            for group in got where ["mention"].contains(group["type"] as? String) {
                let key = group["group_key"] as? String ?? ""
                #expect(key == "ungrouped-\(group["most_recent_notification_id"] as? String ?? "")")
                #expect(group["notifications_count"] as? Int == 1)
            }
            // Newest first, by most recent notification.
            let newest = got.compactMap { $0["most_recent_notification_id"] as? String }
            #expect(newest == newest.sorted(by: >))
            // The accounts and statuses named, each once; nobody hidden anywhere.
            let accounts = (body["accounts"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(Set(accounts) == Set(got.flatMap { $0["sample_account_ids"] as? [String] ?? [] }))
            #expect(accounts.count == Set(accounts).count)
            let statuses = (body["statuses"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(Set(n.posts).isSubset(of: Set(statuses)) && statuses.count == Set(statuses).count)
            let text = try await n.api.get("/api/v2/notifications", bearer: n.alice.token).text
            for id in n.hidden { #expect(!text.contains(id)) }
            #expect(body["partial_accounts"] == nil)
            // `partial_avatars`: each group's latest account in full, the other samples partial.
            let partial = try await v2(n, "/api/v2/notifications?expand_accounts=partial_avatars")
            let full = Set((partial["accounts"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
            let partials = (partial["partial_accounts"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            for group in groups(partial) {
                let samples = group["sample_account_ids"] as? [String] ?? []
                #expect(samples.first.map(full.contains) == true)
                #expect(Set(samples).isSubset(of: full.union(partials)))
            }
            #expect(!partials.isEmpty && full.isDisjoint(with: partials))
            _ = try await v2(n, "/api/v2/notifications?expand_accounts=some", status: 422)
        }
    }

    @Test func pagingReachesTheEndAndCountsEveryNotificationOnce() async throws {
        try await withServer { server in
            let n = try await network(server)
            let want = expected(try await v1(n))
            for limit in [1, 2, 3] {
                var counts: [String: Int] = [:], ranges: [(String, String)] = [], pages = 0
                var next: String? = "/api/v2/notifications?limit=\(limit)"
                while let path = next {
                    let reply = try await n.api.get(path, bearer: n.alice.token)
                    try #require(reply.status == 200, "\(reply)")
                    let page = groups(reply.json)
                    #expect(page.count <= limit)
                    for group in page {
                        counts[group["group_key"] as? String ?? "", default: 0] +=
                            group["notifications_count"] as? Int ?? 0
                        ranges.append((group["page_min_id"] as? String ?? "", group["page_max_id"] as? String ?? ""))
                    }
                    pages += 1
                    try #require(pages < 100)
                    next = page.isEmpty ? nil : try #require(nextPath(reply.header("Link")), "\(reply)")
                }
                #expect(counts == want, "limit \(limit)")
                // The pages' ranges do not overlap: every notification is counted once.
                #expect(pages >= want.count / limit)
                let maxes = ranges.map(\.1)
                #expect(Set(maxes).count == maxes.count)
            }
            // `min_id` reads up from a notification: the groups right after it.
            let all = try await v1(n)
            let oldest = try #require(all.last?["id"] as? String)
            let up = groups(try await v2(n, "/api/v2/notifications?min_id=\(oldest)&limit=40"))
            #expect(up.reduce(0) { $0 + ($1["notifications_count"] as? Int ?? 0) } == all.count - 1)
            let newest = try #require(all.first?["id"] as? String)
            #expect(groups(try await v2(n, "/api/v2/notifications?since_id=\(newest)")).isEmpty)
        }
    }

    @Test func typesFiltersAndGroupedTypes() async throws {
        try await withServer { server in
            let n = try await network(server)
            let likes = groups(try await v2(n, "/api/v2/notifications?types[]=favourite"))
            #expect(!likes.isEmpty && likes.allSatisfy { $0["type"] as? String == "favourite" })
            #expect(likes.reduce(0) { $0 + ($1["notifications_count"] as? Int ?? 0) } == 8)
            let rest = groups(
                try await v2(n, "/api/v2/notifications?exclude_types[]=favourite&exclude_types[]=follow"))
            #expect(rest.count == 2 && rest.allSatisfy { $0["type"] as? String == "mention" })
            // Likes not grouped: one group each, `ungrouped-<id>`.
            let single = groups(try await v2(n, "/api/v2/notifications?grouped_types[]=follow"))
            let singleLikes = single.filter { $0["type"] as? String == "favourite" }
            #expect(singleLikes.count == 8)
            #expect(singleLikes.allSatisfy { ($0["group_key"] as? String ?? "").hasPrefix("ungrouped-") })
            let from = groups(try await v2(n, "/api/v2/notifications?account_id=\(n.users[0].id)"))
            #expect(from.reduce(0) { $0 + ($1["notifications_count"] as? Int ?? 0) } == 3, "two likes and a follow")
            #expect(groups(try await v2(n, "/api/v2/notifications?types[]=poll")).isEmpty)
        }
    }

    @Test func oneGroupItsAccountsUnreadCountAndDismiss() async throws {
        try await withServer { server in
            let n = try await network(server)
            let all = groups(try await v2(n, "/api/v2/notifications"))
            let likes = try #require(
                all.first { ($0["group_key"] as? String ?? "").hasPrefix("favourite-\(n.posts[0])-") })
            let key = try #require(likes["group_key"] as? String)
            let count = try #require(likes["notifications_count"] as? Int)
            let one = try await v2(n, "/api/v2/notifications/\(key)")
            #expect(groups(one).count == 1 && groups(one).first?["notifications_count"] as? Int == count)
            let accounts = try await n.api.get("/api/v2/notifications/\(key)/accounts", bearer: n.alice.token)
            let ids = try #require(try JSONSerialization.jsonObject(with: accounts.body) as? [[String: Any]])
            #expect(ids.count == count && Set(ids.compactMap { $0["id"] as? String }).isSubset(of: n.users.map(\.id)))
            // An ungrouped one, and keys that name nothing.
            let mention = try #require(all.first { $0["type"] as? String == "mention" }?["group_key"] as? String)
            #expect(groups(try await v2(n, "/api/v2/notifications/\(mention)")).count == 1)
            _ = try await v2(n, "/api/v2/notifications/ungrouped-nothing", status: 404)
            _ = try await v2(n, "/api/v2/notifications/favourite-x-12", status: 404)
            // Someone else does not see alice's group.
            let other = try await n.api.get("/api/v2/notifications/\(key)", bearer: n.users[0].token)
            #expect(other.status == 404)
            // Unread: every group, until the marker moves past them.
            #expect(try await v2(n, "/api/v2/notifications/unread_count")["count"] as? Int == all.count)
            #expect(try await v2(n, "/api/v2/notifications/unread_count?limit=2")["count"] as? Int == 2)
            // Dismissing the group dismisses each of its notifications.
            let before = try await v1(n).count
            let dismissed = try await n.api.send("POST", "/api/v2/notifications/\(key)/dismiss", bearer: n.alice.token)
            #expect(dismissed.status == 200 && dismissed.json.isEmpty, "\(dismissed)")
            #expect(try await v1(n).count == before - count)
            _ = try await v2(n, "/api/v2/notifications/\(key)", status: 404)
            #expect(!groups(try await v2(n, "/api/v2/notifications")).contains { $0["group_key"] as? String == key })
            let newest = try #require(try await v1(n).first?["id"] as? String)
            let marker = try await n.api.send(
                "POST", "/api/v1/markers", body: Data("notifications[last_read_id]=\(newest)".utf8),
                contentType: "application/x-www-form-urlencoded", bearer: n.alice.token)
            #expect(marker.status == 200, "\(marker)")
            #expect(try await v2(n, "/api/v2/notifications/unread_count")["count"] as? Int == 0)
        }
    }
}
