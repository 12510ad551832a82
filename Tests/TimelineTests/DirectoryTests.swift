import Foundation
import Testing
@testable import Timeline

/// The profile directory (`directory`, `GET /v1/directory`, Mastodon's `GET /api/v1/directory`):
/// discoverable accounts, recently active or newest first, without suspended ones or blocks.
@Suite struct DirectoryTests {
    @Test func discoverableAccountsRecentlyActiveOrNewestFirst() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        var users: [String: UserID] = [:]
        for name in ["ann", "bob", "cat", "dan", "eve", "fay"] {
            clock.advance(1000)
            users[name] = try await service.createUser(name).id
        }
        func names(_ page: Page<Profile>) -> [String] { page.items.map(\.username) }
        // Posting order: dan, then ann, then bob; cat, eve and fay never post.
        for name in ["dan", "ann", "bob"] {
            clock.advance(1000)
            _ = try await service.addPost(by: users[name]!)
        }
        // fay hides from the directory; eve is suspended by a moderator; cat blocks ann.
        try await service.run(
            .updateProfile(username: nil, bio: nil, url: nil, discoverable: false), as: users["fay"]!)
        let mod = try await service.createUser("mod")
        _ = try await service.execute(.grantRole(user: mod.id.rawValue), as: .operator)
        try await service.run(.suspendUser(user: users["eve"]!.rawValue), as: mod.id)
        try await service.run(.block(user: users["ann"]!.rawValue), as: users["cat"]!)

        let before = try service.lastSequence()
        #expect(names(try service.directory(.active)) == ["bob", "ann", "dan", "mod", "cat"])
        #expect(names(try service.directory(.new)) == ["mod", "dan", "cat", "bob", "ann"])
        // Blocks either way keep people apart here too.
        #expect(names(try service.directory(.active, viewer: users["ann"]!)) == ["bob", "ann", "dan", "mod"])
        #expect(names(try service.directory(.new, viewer: users["cat"]!)) == ["mod", "dan", "cat", "bob"])
        // Paged by offset: every page size gives the same list, and a query appends nothing.
        for limit in 1...3 {
            #expect(
                try service.all(limit: limit) { try service.directory(.new, $0) }.map(\.username)
                    == ["mod", "dan", "cat", "bob", "ann"])
        }
        #expect(try service.directory(.new, PageRequest(limit: 2)).next == "2")
        for bad in ["x", "-1", "1234567", "2.0"] {
            await expectError(.invalidArgument, field: "before") {
                _ = try service.directory(.new, PageRequest(before: bad))
            }
        }
        #expect(try service.lastSequence() == before)
        // exec's query, with its order by name.
        #expect(
            try ask(service, "directory", ["order": "new", "limit": 1])
                == .users(try service.directory(.new, PageRequest(limit: 1))))
        await expectError(.invalidArgument, field: "order") {
            _ = try ask(service, "directory", ["order": "popular"])
        }
    }

    @Test func theDirectoryOverBothAPIs() async throws {
        try await withServer { server in
            let api = server.api
            let ann = try await api.signUp("ann"), bob = try await api.signUp("bob")
            let cat = try await api.signUp("cat")
            _ = try await api.addPost(bob.token)
            let hidden = try await api.send(
                "PATCH", "/v1/me", json: ["discoverable": false], bearer: cat.token)
            #expect(hidden.status == 200, "\(hidden)")
            // /v1: a page of users, in either order, anyone may read it.
            let active = try await api.allPages("/v1/directory?limit=1")
            #expect(active.ids == [bob.id, ann.id] && active.pages == 2)
            let new = try await api.get("/v1/directory?order=new", bearer: ann.token)
            #expect(new.ids == [bob.id, ann.id], "\(new)")
            #expect(try await api.get("/v1/directory?order=popular").errorField == "order")
            // Mastodon: Accounts with numeric ids, paged by offset.
            let numbers = try await server.mastodonIDs("account", [bob.id, ann.id])
            func accounts(_ path: String) async throws -> [String] {
                let reply = try await api.get(path, bearer: ann.token)
                #expect(reply.status == 200, "\(reply)")
                let list = try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]] ?? []
                return list.compactMap { $0["id"] as? String }
            }
            #expect(try await accounts("/api/v1/directory") == numbers)
            #expect(try await accounts("/api/v1/directory?order=new&local=true&limit=1") == [numbers[0]])
            #expect(try await accounts("/api/v1/directory?order=new&offset=1") == [numbers[1]])
            #expect(try await accounts("/api/v1/directory?offset=2").isEmpty)
            let refused = try await api.get("/api/v1/directory?order=popular")
            #expect(refused.status == 422 && refused.json["error"] is String, "\(refused)")
        }
    }
}
