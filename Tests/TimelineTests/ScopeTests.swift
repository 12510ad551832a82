import Foundation
import Testing
import TimelineDomain
@testable import TimelineHTTP

/// OAuth scopes hold on every route, `/v1` as much as Mastodon's: an app's narrow token is not a
/// session (issue: "a `profile` token downloads the export, a `read` token posts…").
@Suite struct ScopeTests {
    /// Registers an app that may ask for `scopes`; its id and secret.
    static func app(_ api: APIClient, scopes: String) async throws -> (id: String, secret: String) {
        let form =
            "client_name=probe&redirect_uris=urn:ietf:wg:oauth:2.0:oob&scopes="
            + scopes.replacingOccurrences(of: " ", with: "+")
        let reply = try await api.send(
            "POST", "/api/v1/apps", body: Data(form.utf8), contentType: "application/x-www-form-urlencoded")
        try #require(reply.status == 200, "\(reply)")
        return (try #require(reply.json["client_id"] as? String), try #require(reply.json["client_secret"] as? String))
    }

    /// A token of `app` for `name` (signed up with the default password) holding `scope`.
    static func token(_ api: APIClient, _ app: (id: String, secret: String), _ name: String, scope: String) async throws
        -> String
    {
        let form =
            "grant_type=password&client_id=\(app.id)&client_secret=\(app.secret)&username=\(name)%40example.com"
            + "&password=password-123&scope=" + scope.replacingOccurrences(of: " ", with: "+")
        let reply = try await api.send(
            "POST", "/oauth/token", body: Data(form.utf8), contentType: "application/x-www-form-urlencoded")
        try #require(reply.status == 200, "\(reply)")
        #expect(reply.json["scope"] as? String == scope, "\(reply)")
        return try #require(reply.json["access_token"] as? String)
    }

    @Test func aNarrowTokenIsNotASessionOnV1() async throws {
        let database = temporaryPath()
        try await withServer(database: database) { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let app = try await Self.app(api, scopes: "read write follow push profile admin:read admin:write")
            let profile = try await Self.token(api, app, "alice", scope: "profile")
            // `profile` reads the bearer's own account, and nothing else.
            let me = try await api.get("/v1/me", bearer: profile)
            // A notification count needs read:notifications.
            #expect(me.status == 200 && me.json["unreadActivity"] == nil, "\(me)")
            #expect(try await api.get("/v1/me", bearer: alice.token).json["unreadActivity"] != nil)
            #expect(try await api.get("/api/v1/accounts/verify_credentials", bearer: profile).status == 200)
            for path in [
                "/v1/me/export", "/v1/timeline", "/v1/activity", "/v1/stream", "/v1/me/bookmarks", "/v1/users/\(bob.id)"
            ] {
                let refused = try await api.get(path, bearer: profile)
                #expect(refused.status == 403 && refused.error["code"] as? String == "forbidden", "\(path): \(refused)")
            }
            #expect(try await api.send("POST", "/v1/stream/tickets", bearer: profile).status == 403)

            // `read` reads, and writes nothing.
            let read = try await Self.token(api, app, "alice", scope: "read")
            #expect(try await api.get("/v1/timeline", bearer: read).status == 200)
            #expect(try await api.get("/v1/activity", bearer: read).status == 200)
            let post = try await api.send(
                "POST", "/v1/posts", json: ["image": Data(jpegBytes()).base64EncodedString()], bearer: read)
            #expect(post.status == 403, "\(post)")
            #expect(try await api.send("PATCH", "/v1/me", json: ["bio": "pwned"], bearer: read).status == 403)
            #expect(try await api.send("PUT", "/v1/me/following/\(bob.id)", bearer: read).status == 403)
            #expect(
                (try await api.get("/v1/users/\(bob.id)/followers", bearer: alice.token).json["items"] as? [Any])?
                    .isEmpty == true)
            // No app token reaches the account's own security, whatever its scopes.
            #expect(try await api.get("/v1/me/export", bearer: read).status == 403)
            let everything = try await Self.token(api, app, "alice", scope: "read write follow push")
            #expect(try await api.get("/v1/me/export", bearer: everything).status == 403)
            let erase = try await api.send("DELETE", "/v1/me", json: ["password": "password-123"], bearer: everything)
            #expect(erase.status == 403, "\(erase)")
            let password = try await api.send(
                "POST", "/v1/me/password", json: ["currentPassword": "password-123", "newPassword": "x-password-456"],
                bearer: everything)
            #expect(password.status == 403, "\(password)")
            #expect(
                try await api.send("POST", "/v1/me/contacts", json: ["emails": ["bob@example.com"]], bearer: everything)
                    .status == 403)

            // `read:statuses` cannot end every session.
            let statuses = try await Self.token(api, app, "alice", scope: "read:statuses")
            #expect(try await api.send("DELETE", "/v1/sessions", bearer: statuses).status == 403)
            #expect(try await api.get("/v1/me", bearer: alice.token).status == 200, "alice's session lives on")
            // …but any token may end itself.
            #expect(try await api.send("DELETE", "/v1/sessions/current", bearer: statuses).status == 204)
            #expect(try await api.get("/v1/timeline", bearer: statuses).status == 401)

            // Push needs `push`.
            let subscription: [String: Any] = [
                "endpoint": "https://push.example/x",
                "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
                "auth": "tBHItJI5svbpez7KI4CCXg"
            ]
            let unpushed = try await Self.token(api, app, "alice", scope: "read write follow")
            #expect(try await api.send("PUT", "/v1/me/push", json: subscription, bearer: unpushed).status == 403)
            #expect(try await api.get("/v1/me/push", bearer: unpushed).status == 403)

            // A moderator's app needs the admin scopes for what moderators do.
            let grant = try ToolProcess(["moderation", "--db", database, "grant", "@bob"])
            grant.process.waitUntilExit()
            try #require(grant.process.terminationStatus == 0)
            let moderatorRead = try await Self.token(api, app, "bob", scope: "read write")
            let suspend = try await api.send("PUT", "/v1/admin/suspensions/\(alice.id)", bearer: moderatorRead)
            #expect(suspend.status == 403, "\(suspend)")
            #expect(try await api.get("/v1/admin/reports", bearer: moderatorRead).status == 403)
            let moderatorAdmin = try await Self.token(api, app, "bob", scope: "admin:read admin:write")
            #expect(try await api.get("/v1/admin/reports", bearer: moderatorAdmin).status == 200)
            #expect(try await api.get("/v1/me", bearer: alice.token).status == 200, "nothing suspended alice so far")

            // A first-party session holds every scope.
            #expect(try await api.get("/v1/me/export", bearer: alice.token).status == 200)
        }
    }

    /// Every route that needs a bearer says which scope (or `firstParty`), and the OpenAPI
    /// documents carry what the table says.
    @Test func everyRouteDeclaresItsScope() throws {
        let open: Set<String> = ["DELETE /v1/sessions/current", "GET /api/v1/apps/verify_credentials"]
        for route in TimelineAPI.routes + MastodonAPI.table
        where route.access != .anyone && route.access != .viewerOptional {
            #expect(
                route.scope != .none || open.contains("\(route.method) \(route.template)"),
                "\(route.method) \(route.template)")
        }
        let document = try JSONSerialization.jsonObject(with: Data(OpenAPI.bytes())) as? [String: Any]
        let paths = document?["paths"] as? [String: [String: [String: Any]]]
        #expect(paths?["/v1/me/export"]?["get"]?["security"] as? [[String: [String]]] == [["bearer": ["session"]]])
        #expect(
            paths?["/v1/admin/suspensions/{user}"]?["put"]?["security"] as? [[String: [String]]]
                == [["bearer": ["admin:write:accounts"]]])
    }

    /// Mastodon's reading of scopes: top levels cover their granular scopes, `admin:write`
    /// covers `admin:write:accounts` but `write` does not, `follow` covers the follows.
    @Test func scopesCoverAsMastodonSays() {
        #expect(OAuthScope.allows(["read"], "read:statuses"))
        #expect(!OAuthScope.allows(["read"], "write:statuses"))
        #expect(OAuthScope.allows(["admin:write"], "admin:write:accounts"))
        #expect(!OAuthScope.allows(["write"], "admin:write:accounts"))
        #expect(!OAuthScope.allows(["admin:read"], "admin:write:accounts"))
        #expect(OAuthScope.allows(["follow"], "write:follows") && OAuthScope.allows(["follow"], "read:blocks"))
        #expect(OAuthScope.allows(["read:accounts"], "profile") && !OAuthScope.allows(["write"], "profile"))
    }
}
