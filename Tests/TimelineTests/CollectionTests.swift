import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Collections (Mastodon's featured collections): a user features accounts that let
/// themselves be featured; a featured account may take itself out (revoke); blocks, suspensions
/// and erasure keep them out of sight; the read models rebuild equal; over /v1 and over the
/// Mastodon API.
@Suite struct CollectionTests {
    // MARK: - Deciding

    var state: InMemoryState {
        var s = InMemoryState()
        s.users = [alice.id: alice, bob.id: bob]
        return s
    }

    @Test func createCollectionRecordsItsSettingsAndItsAccounts() throws {
        let d = try decide(
            .createCollection(
                name: "Starters", description: "Worth following", language: "en", tag: "#Photo",
                accounts: [bob.id.rawValue]), actor: .user(alice.id), state: state, context: context())
        #expect(
            d.events == [
                .collectionCreated(
                    CollectionSettings(
                        collectionId: CollectionID("id0001"), ownerId: alice.id, name: "Starters",
                        description: "Worth following", language: "en", sensitive: false, discoverable: true,
                        tag: "photo")),
                .collectionItemAdded(
                    CollectionItemChange(
                        collectionId: CollectionID("id0001"), ownerId: alice.id, itemId: CollectionItemID("id0002"),
                        accountId: bob.id))
            ])
        #expect(d.outcome == .success(.created("id0001")))
        #expect(throws: TimelineError.invalid("name", "name must not be empty")) {
            try decide(.createCollection(name: " "), actor: .user(alice.id), state: state, context: context())
        }
        #expect(throws: TimelineError.invalid("name", "name must be at most 40 characters")) {
            try decide(
                .createCollection(name: String(repeating: "x", count: 41)), actor: .user(alice.id), state: state,
                context: context())
        }
        #expect(throws: TimelineError.invalid("description", "description must be at most 100 characters")) {
            try decide(
                .createCollection(name: "x", description: String(repeating: "x", count: 101)),
                actor: .user(alice.id), state: state, context: context())
        }
        #expect(throws: TimelineError.self) {
            try decide(
                .createCollection(name: "x", language: "English"), actor: .user(alice.id), state: state,
                context: context())
        }
        #expect(throws: TimelineError.self) {
            try decide(.createCollection(name: "x"), actor: .anonymous, state: state, context: context())
        }
    }

    @Test func onlyDiscoverableUnblockedAccountsAreFeaturedAndAtMostTwentyFive() throws {
        var s = state
        s.users[bob.id]!.discoverable = false
        #expect(throws: TimelineError(.forbidden, "this account cannot be added to collections", field: "account")) {
            try decide(
                .createCollection(name: "x", accounts: [bob.id.rawValue]), actor: .user(alice.id), state: s,
                context: context())
        }
        s.users[bob.id]!.discoverable = true
        s.blockEdges.insert([bob.id, alice.id])
        #expect(throws: TimelineError(.forbidden, "this account cannot be added to collections", field: "account")) {
            try decide(
                .createCollection(name: "x", accounts: [bob.id.rawValue]), actor: .user(alice.id), state: s,
                context: context())
        }
        // Full: 25 accepted items.
        var full = state
        let settings = CollectionSettings(
            collectionId: CollectionID("c1"), ownerId: alice.id, name: "F", description: "", language: nil,
            sensitive: false, discoverable: true, tag: nil)
        full.collectionRecords = [CollectionRecord(settings: settings, createdAt: 0, updatedAt: 0)]
        full.collectionItemRecords = (0..<Validation.maxCollectionItems).map {
            CollectionItemRecord(
                id: CollectionItemID("i\($0)"), collection: CollectionID("c1"), account: UserID("u\($0)"),
                state: .accepted, createdAt: 0)
        }
        #expect(throws: TimelineError.invalid("account", "a collection features at most 25 accounts")) {
            try decide(
                .addToCollection(collection: "c1", account: bob.id.rawValue), actor: .user(alice.id), state: full,
                context: context())
        }
        // Another's collection: 403; the limit of collections.
        #expect(throws: TimelineError(.forbidden, "collection c1 is another user's", field: "collection")) {
            try decide(
                .addToCollection(collection: "c1", account: alice.id.rawValue), actor: .user(bob.id), state: full,
                context: context())
        }
        var many = state
        many.collectionRecords = (0..<Validation.maxCollectionsPerUser).map {
            var s = settings
            s.collectionId = CollectionID("c\($0)")
            return CollectionRecord(settings: s, createdAt: 0, updatedAt: 0)
        }
        #expect(throws: TimelineError.invalid("name", "a user may have at most 10 collections")) {
            try decide(.createCollection(name: "more"), actor: .user(alice.id), state: many, context: context())
        }
    }

    // MARK: - The library

    /// Makes `owner`'s collection featuring `accounts`; its id.
    func makeCollection(
        _ service: TimelineService, _ owner: UserID, _ name: String, _ accounts: [UserID], discoverable: Bool = true
    ) async throws -> CollectionID {
        let id = try #require(
            try await service.run(
                .createCollection(name: name, discoverable: discoverable, accounts: accounts.map(\.rawValue)),
                as: owner
            ).created)
        return CollectionID(id)
    }

    @Test func collectionsReadAsEachViewerMaySeeThemAndRebuildEqual() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol"), dave = try await service.createUser("dave")
        let starters = try await makeCollection(service, alice.id, "Starters", [bob.id, carol.id])
        let hidden = try await makeCollection(service, alice.id, "Drafts", [dave.id], discoverable: false)
        // The owner sees both, newest first; others the discoverable one; anyone the one asked.
        #expect(try service.collections(of: alice.id, viewer: alice.id).map(\.record.id) == [hidden, starters])
        #expect(try service.collections(of: alice.id, viewer: bob.id).map(\.record.id) == [starters])
        #expect(try service.collections(of: alice.id, viewer: nil).map(\.record.id) == [starters])
        let seen = try service.collection(starters, viewer: nil)
        #expect(seen.items.map(\.account) == [bob.id, carol.id])
        #expect(seen.accounts.map(\.id) == [alice.id, bob.id, carol.id])
        #expect(try service.collection(hidden, viewer: dave.id).items.map(\.account) == [dave.id])
        // Featured in: only the account itself may ask.
        #expect(try service.collections(featuring: bob.id, viewer: bob.id).map(\.record.id) == [starters])
        #expect(throws: TimelineError.self) { try service.collections(featuring: bob.id, viewer: alice.id) }
        // Changed, an account added and one taken out.
        try await service.run(
            .updateCollection(collection: starters.rawValue, name: "Starter pack", sensitive: true, tag: "photo"),
            as: alice.id)
        let daveItem = try #require(
            try await service.run(
                .addToCollection(collection: starters.rawValue, account: dave.id.rawValue), as: alice.id
            )
            .created)
        let carolItem = try #require(
            try service.collection(starters, viewer: alice.id).items.first { $0.account == carol.id })
        try await service.run(
            .removeFromCollection(collection: starters.rawValue, item: carolItem.id.rawValue), as: alice.id)
        let changed = try service.collection(starters, viewer: alice.id)
        #expect(changed.record.settings.name == "Starter pack" && changed.record.settings.sensitive)
        #expect(changed.record.settings.tag == "photo")
        #expect(changed.items.map(\.account) == [bob.id, dave.id] && changed.items.last?.id.rawValue == daveItem)
        // Bob revokes his item: it shows to nobody, and he cannot be added again; only he may revoke.
        let bobItem = try #require(changed.items.first)
        await expectError(.forbidden) {
            _ = try await service.run(
                .revokeCollectionItem(collection: starters.rawValue, item: bobItem.id.rawValue), as: alice.id)
        }
        #expect(
            try await service.run(
                .revokeCollectionItem(collection: starters.rawValue, item: bobItem.id.rawValue), as: bob.id)
                == .changed(true))
        #expect(try service.collection(starters, viewer: alice.id).items.map(\.account) == [dave.id])
        #expect(try service.collections(featuring: bob.id, viewer: bob.id).isEmpty)
        await expectError(.invalidArgument) {
            _ = try await service.run(
                .addToCollection(collection: starters.rawValue, account: bob.id.rawValue), as: alice.id)
        }
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        try await service.run(.deleteCollection(collection: hidden.rawValue), as: alice.id)
        #expect(throws: TimelineError.notFound("collection", hidden.rawValue)) {
            try service.collection(hidden, viewer: alice.id)
        }
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    // MARK: - Privacy

    @Test func blocksSuspensionsAndErasureKeepAccountsOutOfSight() async throws {
        let service = try openService()
        let mod = try await service.createUser("mod"), alice = try await service.createUser("alice"),
            bob = try await service.createUser("bob"), carol = try await service.createUser("carol"),
            eve = try await service.createUser("eve")
        _ = try await service.execute(.grantRole(user: mod.id.rawValue), as: .operator)
        let starters = try await makeCollection(service, alice.id, "Starters", [bob.id, carol.id, eve.id])
        // Eve blocks carol: carol's item hides from eve alone; alice's collection shows to both.
        try await service.run(.block(user: carol.id.rawValue), as: eve.id)
        #expect(try service.collection(starters, viewer: eve.id).items.map(\.account) == [bob.id, eve.id])
        #expect(try service.collection(starters, viewer: eve.id).accounts.map(\.id) == [alice.id, bob.id, eve.id])
        #expect(try service.collection(starters, viewer: nil).items.map(\.account) == [bob.id, carol.id, eve.id])
        // Bob blocks alice: he leaves her collection for good, and her collections are out of his
        // sight (and his of hers); she cannot add him back.
        try await service.run(.block(user: alice.id.rawValue), as: bob.id)
        #expect(try service.collection(starters, viewer: nil).items.map(\.account) == [carol.id, eve.id])
        #expect(throws: TimelineError.notFound("collection", starters.rawValue)) {
            try service.collection(starters, viewer: bob.id)
        }
        #expect(try service.collections(of: alice.id, viewer: bob.id).isEmpty)
        await expectError(.forbidden) {
            _ = try await service.run(
                .addToCollection(collection: starters.rawValue, account: bob.id.rawValue), as: alice.id)
        }
        try await service.run(.unblock(user: alice.id.rawValue), as: bob.id)
        #expect(try service.collection(starters, viewer: bob.id).items.map(\.account) == [carol.id, eve.id])
        // A suspended featured account is hidden; a suspended owner's collection is gone.
        try await service.run(.suspendUser(user: carol.id.rawValue), as: mod.id)
        #expect(try service.collection(starters, viewer: nil).items.map(\.account) == [eve.id])
        try await service.run(.suspendUser(user: alice.id.rawValue), as: mod.id)
        #expect(throws: TimelineError.notFound("collection", starters.rawValue)) {
            try service.collection(starters, viewer: eve.id)
        }
        #expect(try service.collections(of: alice.id, viewer: eve.id).isEmpty)
        #expect(try service.collections(featuring: eve.id, viewer: eve.id).isEmpty)
        try await service.run(.unsuspendUser(user: alice.id.rawValue), as: mod.id)
        try await service.run(.unsuspendUser(user: carol.id.rawValue), as: mod.id)
        #expect(try service.collection(starters, viewer: nil).items.map(\.account) == [carol.id, eve.id])
        // Erasure: eve leaves every collection; alice's collections go with her.
        try await service.run(.eraseUser(user: eve.id.rawValue, password: "password-123"), as: eve.id)
        #expect(try service.collection(starters, viewer: nil).items.map(\.account) == [carol.id])
        _ = try await makeCollection(service, carol.id, "Carol's", [alice.id])
        try await service.run(.eraseUser(user: alice.id.rawValue, password: "password-123"), as: alice.id)
        #expect(throws: TimelineError.notFound("collection", starters.rawValue)) {
            try service.collection(starters, viewer: nil)
        }
        #expect(try service.collections(of: carol.id, viewer: nil).first?.items.isEmpty == true)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    // MARK: - Over HTTP

    @Test func collectionsOverV1() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            let made = try await api.send(
                "POST", "/v1/collections", json: ["name": "Harbour", "tag": "sea", "accounts": [bob.id]],
                bearer: alice.token)
            #expect(made.status == 201, "\(made)")
            let id = try #require(made.json["id"] as? String)
            #expect(made.header("Location") == "/v1/collections/\(id)")
            let one = try await api.get("/v1/collections/\(id)")
            #expect(
                one.status == 200 && one.json["name"] as? String == "Harbour" && one.json["tag"] as? String == "sea")
            let items = try #require(one.json["items"] as? [[String: Any]])
            #expect(items.map { $0["user"] as? String } == [bob.id] && items.first?["state"] as? String == "accepted")
            #expect((one.json["users"] as? [[String: Any]])?.map { $0["id"] as? String } == [alice.id, bob.id])
            let added = try await api.send(
                "POST", "/v1/collections/\(id)/items", json: ["account": carol.id], bearer: alice.token)
            #expect(added.status == 201, "\(added)")
            let carolItem = try #require(added.json["id"] as? String)
            // Only the owner changes it: bob is forbidden.
            let refused = try await api.send(
                "PATCH", "/v1/collections/\(id)", json: ["name": "Mine"], bearer: bob.token)
            #expect(refused.status == 403, "\(refused)")
            let renamed = try await api.send(
                "PATCH", "/v1/collections/\(id)", json: ["name": "Port", "discoverable": false], bearer: alice.token)
            #expect(renamed.status == 200 && renamed.json["changed"] as? Bool == true, "\(renamed)")
            // Not discoverable: off alice's profile for others, still hers.
            let others = try await api.get("/v1/users/\(alice.id)/collections", bearer: bob.token)
            #expect((others.json["collections"] as? [[String: Any]])?.isEmpty == true, "\(others)")
            #expect(try await api.get("/v1/users/\(alice.id)/collections?limit=0").status == 400)
            let hers = try await api.get("/v1/users/\(alice.id)/collections?limit=1", bearer: alice.token)
            #expect((hers.json["collections"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Port"])
            let featured = try await api.get("/v1/me/in-collections", bearer: carol.token)
            #expect((featured.json["collections"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            // Carol revokes her item; alice takes bob out.
            let revoked = try await api.send(
                "POST", "/v1/collections/\(id)/items/\(carolItem)/revoke", bearer: carol.token)
            #expect(revoked.status == 200 && revoked.json["changed"] as? Bool == true, "\(revoked)")
            let bobItem = try #require(items.first?["id"] as? String)
            #expect(
                try await api.send("DELETE", "/v1/collections/\(id)/items/\(bobItem)", bearer: alice.token).status
                    == 204)
            let empty = try await api.get("/v1/collections/\(id)", bearer: alice.token)
            #expect((empty.json["items"] as? [[String: Any]])?.isEmpty == true, "\(empty)")
            #expect(try await api.send("DELETE", "/v1/collections/\(id)", bearer: alice.token).status == 204)
            #expect(try await api.get("/v1/collections/\(id)", bearer: alice.token).status == 404)
        }
    }

    @Test func mastodonCollectionsFlow() async throws {
        try await withServer { server in
            let flow = SchemaTests.root.appendingPathComponent("Tests/mastodon/test_collections.py").path
            let run = try ChildProcess(
                ["python3", flow, "http://127.0.0.1:\(server.port)"], executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            #expect(status == 0, "\(run.standardOutput)\(run.standardError)")
            #expect(run.standardOutput.contains("ok - collections"), "\(run.standardOutput)")
        }
    }
}
