import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Being featured in someone's collection (Mastodon 4.5's `added_to_collection` notification):
/// an activity item for the featured account, gone when it leaves the collection or the
/// collection is deleted, never across a block; the read models rebuild equal; over `/v1`
/// (the `types` filter) and the Mastodon API through Mastodon.py
/// (Tests/mastodon/test_collection_notifications.py).
@Suite struct CollectionNotificationTests {
    func featured(_ service: TimelineService, _ user: UserID) throws -> [ActivityItem] {
        try service.activity(of: user, kinds: [.addedToCollection]).items
    }

    @Test func theFeaturedAccountIsToldUntilItLeavesOrABlockStandsBetween() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id
        let carol = try await service.createUser("carol").id, dave = try await service.createUser("dave").id
        let made = try #require(
            try await service.run(
                .createCollection(name: "Starters", accounts: [bob.rawValue, carol.rawValue]), as: alice
            ).created)
        let starters = CollectionID(made)
        for user in [bob, carol] {
            let items = try featured(service, user)
            #expect(items.count == 1, "\(items)")
            #expect(items.first?.kind == .addedToCollection && items.first?.actor == alice)
            #expect(items.first?.collection == starters && items.first?.actorUsername == "alice")
            #expect(items.first?.kind.mastodonType == "added_to_collection")
        }
        #expect(try service.activity(of: alice).items.isEmpty)
        // The live streams carry it to bob, and to nobody else.
        let added = try #require(
            try service.events(from: 1, limit: 1000).first {
                if case .collectionItemAdded(let e) = $0.event { return e.accountId == bob }
                return false
            })
        #expect(try service.usersNotified(by: added) == [bob])
        let live = try service.liveUpdates(for: added, viewer: bob)
        #expect(live == [.activity(try #require(featured(service, bob).first))], "\(live)")
        #expect(try service.liveUpdates(for: added, viewer: carol).isEmpty)
        // In the whole activity too, and only there with that kind.
        #expect(try service.activity(of: bob, kinds: [.follow]).items.isEmpty)
        #expect(try service.activity(of: bob).items.map(\.kind) == [.addedToCollection])
        // Carol takes herself out: her item goes.
        let carolItem = try #require(
            try service.collection(starters, viewer: carol).items.first { $0.account == carol })
        try await service.run(.revokeCollectionItem(collection: made, item: carolItem.id.rawValue), as: carol)
        #expect(try featured(service, carol).isEmpty)
        // Dave, added later, is told; taken out by alice, no longer.
        let daveItem = try #require(
            try await service.run(.addToCollection(collection: made, account: dave.rawValue), as: alice).created)
        #expect(try featured(service, dave).map(\.collection) == [starters])
        try await service.run(.removeFromCollection(collection: made, item: daveItem), as: alice)
        #expect(try featured(service, dave).isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        // Dave is added again, then blocks alice: nothing of her stays, and it does not come back.
        _ = try await service.run(.addToCollection(collection: made, account: dave.rawValue), as: alice)
        #expect(try featured(service, dave).count == 1)
        try await service.run(.block(user: alice.rawValue), as: dave)
        #expect(try featured(service, dave).isEmpty)
        try await service.run(.unblock(user: alice.rawValue), as: dave)
        #expect(try featured(service, dave).isEmpty)
        // Alice blocks bob, the one she featured: his notification goes too.
        try await service.run(.block(user: bob.rawValue), as: alice)
        #expect(try featured(service, bob).isEmpty)
        try await service.run(.unblock(user: bob.rawValue), as: alice)
        // A new collection of alice's featuring carol and bob, then deleted: their items go.
        let other = try #require(
            try await service.run(
                .createCollection(name: "Friends", accounts: [carol.rawValue, bob.rawValue]), as: alice
            ).created)
        #expect(try featured(service, carol).map(\.collection) == [CollectionID(other)])
        #expect(try featured(service, bob).map(\.collection) == [CollectionID(other)])
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        try await service.run(.deleteCollection(collection: other), as: alice)
        #expect(try featured(service, carol).isEmpty && featured(service, bob).isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        // A suspended owner's item hides while suspended; an erased owner's is gone.
        let mod = try await service.createUser("mod").id
        _ = try await service.execute(.grantRole(user: mod.rawValue), as: .operator)
        _ = try await service.run(.createCollection(name: "Last", accounts: [carol.rawValue]), as: alice)
        try await service.run(.suspendUser(user: alice.rawValue), as: mod)
        #expect(try featured(service, carol).isEmpty)
        try await service.run(.unsuspendUser(user: alice.rawValue), as: mod)
        #expect(try featured(service, carol).count == 1)
        try await service.run(.eraseUser(user: alice.rawValue, password: "password-123"), as: alice)
        #expect(try featured(service, carol).isEmpty)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func overV1WithTheTypesFilter() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let made = try await api.send(
                "POST", "/v1/collections", json: ["name": "Starters", "accounts": [bob.id]], bearer: alice.token)
            #expect(made.status == 201, "\(made)")
            let id = try #require(made.json["id"] as? String)
            let all = try await api.get("/v1/activity", bearer: bob.token)
            #expect(all.status == 200, "\(all)")
            let item = try #require(all.items.first)
            #expect(item["kind"] as? String == "added_to_collection" && item["collection"] as? String == id, "\(item)")
            #expect(item["actor"] as? String == alice.id && item["actorUsername"] as? String == "alice")
            let only = try await api.get("/v1/activity?types=added_to_collection", bearer: bob.token)
            #expect(only.items.count == 1, "\(only)")
            let none = try await api.get("/v1/activity?types=like", bearer: bob.token)
            #expect(none.status == 200 && none.items.isEmpty, "\(none)")
            #expect(try await api.send("PUT", "/v1/me/blocks/\(alice.id)", bearer: bob.token).status < 300)
            #expect(try await api.get("/v1/activity", bearer: bob.token).items.isEmpty)
        }
    }
}

extension CollectionNotificationTests {
    @Test func throughMastodonPy() async throws {
        try await withServer { server in
            let flow = SchemaTests.root.appendingPathComponent("Tests/mastodon/test_collection_notifications.py").path
            let run = try ChildProcess(
                ["python3", flow, "http://127.0.0.1:\(server.port)"], executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            #expect(status == 0, "\(run.standardOutput)\(run.standardError)")
            #expect(run.standardOutput.contains("ok - collection notifications"), "\(run.standardOutput)")
        }
    }
}
