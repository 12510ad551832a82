import Foundation
import LMDB
import Testing
@testable import Timeline

/// Followers and following lists are newest follow first, and a database
/// written before follows had an order gets it back from the log.
@Suite struct FollowOrderTests {
    @Test func newestFollowFirstAndARefollowMovesToTheTop() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        var others: [UserID] = []
        for name in ["bob", "carol", "dave", "erin"] { others.append(try await service.createUser(name).id) }
        for other in others.shuffled() {
            try await service.run(.follow(user: other.rawValue), as: alice.id)
            try await service.run(.follow(user: alice.id.rawValue), as: other)
        }
        let following = try service.all(limit: 3) { try service.following(of: alice.id, $0) }.map(\.id)
        let followers = try service.all(limit: 3) { try service.followers(of: alice.id, $0) }.map(\.id)
        #expect(Set(following) == Set(others) && following.count == 4)
        #expect(followers == following, "each followed alice right after she followed them")
        // Unfollow and follow again: on top of both lists.
        let last = following.last!
        try await service.run(.unfollow(user: last.rawValue), as: alice.id)
        #expect(try service.following(of: alice.id).items.map(\.id) == Array(following.dropLast()))
        try await service.run(.follow(user: last.rawValue), as: alice.id)
        #expect(try service.following(of: alice.id).items.map(\.id) == [last] + following.dropLast())
        #expect(try service.followers(of: last).items.map(\.id) == [alice.id])
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func aDatabaseWithTheOldLayoutReplaysTheFollowsOnOpen() async throws {
        let path = temporaryPath()
        var service = try openService(path: path)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob"),
            carol = try await service.createUser("carol")
        try await service.run(.follow(user: carol.id.rawValue), as: alice.id)
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        try await service.run(.follow(user: carol.id.rawValue), as: bob.id)
        let expected = try service.following(of: alice.id).items.map(\.id)
        #expect(expected == [bob.id, carol.id])
        // What layout 1 left: the edges without cursors, no order tables, the old checkpoint.
        let models = try #require(try service.environment.read { txn in try service.registry.models(in: txn) })
        try service.environment.write { txn in
            let follows = models.follows
            for table in [follows.followers, follows.following] {
                var keys: [[UInt8]] = []
                try txn.scan(table.database, prefix: []) { key, _ in
                    keys.append(key)
                    return true
                }
                for key in keys { try txn.put(table.database, key, []) }
            }
            try txn.clear(follows.followersInOrder.database)
            try txn.clear(follows.followingInOrder.database)
            let checkpoint = try models.checkpoint(.follows, txn)
            try txn.delete(models.checkpoints, models.checkpointKey(.follows))
            try txn.put(models.checkpoints, Array("follows".utf8), BigEndian.bytes(checkpoint))
        }
        service.close()
        service = try openService(path: path)
        #expect(try service.following(of: alice.id).items.map(\.id) == expected)
        #expect(try service.followers(of: carol.id).items.map(\.id) == [bob.id, alice.id])
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        service.close()
    }
}
