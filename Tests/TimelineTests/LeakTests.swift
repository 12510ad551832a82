import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Small leaks of what a user may not see, each through the real server: an activity item
/// about a post one can no longer see, a write that says whether a hidden post exists, an
/// upload served before it is posted, mentions that name hidden accounts or another
/// server's; and dismissals that change nothing but still write to the log.
@Suite struct LeakTests {
    /// The bell's items (`post` activity) about a followers-only post leave the follower's
    /// activity, notifications and unread count once they no longer follow; a public post's stay.
    @Test func bellItemsOfAPostOneNoLongerSeesLeaveActivityAndTheUnreadCount() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let follow = try await api.send("PUT", "/v1/me/following/\(alice.id)", json: ["notify": true], bearer: bob.token)
            try #require(follow.status == 200, "\(follow)")
            let open = try await api.addPost(alice.token, caption: "for everyone")
            let closed = try await api.send("POST", "/v1/posts", json: ["image": gifBase64(1), "visibility": "followers"],
                                            bearer: alice.token)
            try #require(closed.status == 201, "\(closed)")
            let closedID = try #require(closed.json["id"] as? String)

            func seen() async throws -> (activity: [String], unread: Int?, notifications: [String]) {
                let activity = try await api.get("/v1/activity", bearer: bob.token)
                let me = try await api.get("/v1/me", bearer: bob.token)
                let notifications = try await api.get("/api/v1/notifications", bearer: bob.token)
                let statuses = (try JSONSerialization.jsonObject(with: notifications.body) as? [[String: Any]] ?? [])
                    .compactMap { ($0["status"] as? [String: Any])?["id"] as? String }
                return (activity.items.compactMap { $0["post"] as? String }, me.json["unreadActivity"] as? Int, statuses)
            }
            let before = try await seen()
            #expect(before.activity == [closedID, open] && before.unread == 2 && before.notifications == [closedID, open], "\(before)")

            let unfollow = try await api.send("DELETE", "/v1/me/following/\(alice.id)", bearer: bob.token)
            try #require(unfollow.status == 200, "\(unfollow)")
            let after = try await seen()
            #expect(after.activity == [open], "the followers-only post's item is gone: \(after)")
            #expect(after.unread == 1, "and not counted: \(after)")
            #expect(after.notifications == [open], "\(after)")
        }
    }
}
