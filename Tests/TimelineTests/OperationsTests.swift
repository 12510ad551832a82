import Foundation
import LMDB
import JSONModel
import Testing
@testable import Timeline

/// Rebuild (blue/green, verify, interruption), audit filters, backup and restore.
@Suite struct OperationsTests {
    /// A seeded random history of every kind of command; returns the users and posts.
    @discardableResult
    func randomHistory(_ service: TimelineService, seed: UInt64, steps: Int = 300, clock: TestClock? = nil) async throws
        -> (users: [UserID], posts: [PostID])
    {
        var rng = SeededRandom(seed: seed)
        var users: [UserID] = []
        for index in 0..<6 { users.append(try await service.createUser("r\(seed)x\(index)").id) }
        var posts: [PostID] = []
        var comments: [(CommentID, UserID)] = []
        for step in 0..<steps {
            clock?.advance(Int64.random(in: 0...90_000_000, using: &rng))
            let me = users.randomElement(using: &rng)!, other = users.randomElement(using: &rng)!
            let post = posts.randomElement(using: &rng)
            do {
                switch Int.random(in: 0..<15, using: &rng) {
                case 0, 1:
                    posts.append(try await service.addPost(by: me, caption: "p\(step) #t\(step % 4)", image: step).id)
                case 2 where me != other: try await service.run(.follow(user: other.rawValue), as: me)
                case 3 where me != other: try await service.run(.unfollow(user: other.rawValue), as: me)
                case 4: if let post { try await service.run(.like(post: post.rawValue), as: me) }
                case 5: if let post { try await service.run(.unlike(post: post.rawValue), as: me) }
                case 6:
                    if let post { comments.append((try await service.addComment(by: me, on: post, "c\(step)").id, me)) }
                case 7:
                    if let (comment, author) = comments.popLast() {
                        try await service.run(.deleteComment(comment: comment.rawValue), as: author)
                    }
                case 8:
                    if let post, let author = try? service.post(post).post.author {
                        try await service.run(.deletePost(post: post.rawValue), as: author)
                        posts.removeAll { $0 == post }
                    }
                case 9:
                    try await service.run(
                        .updateProfile(username: nil, bio: "bio \(step)", url: nil, discoverable: step % 3 != 0), as: me
                    )
                case 10: if let post { try await service.run(.bookmark(post: post.rawValue), as: me) }
                case 11: if let post { try await service.run(.unbookmark(post: post.rawValue), as: me) }
                case 12 where me != other: try await service.run(.block(user: other.rawValue), as: me)
                case 13 where me != other: try await service.run(.unblock(user: other.rawValue), as: me)
                default: if let post { try await service.run(.reportPost(post: post.rawValue, reason: "r"), as: me) }
                }
            } catch let error as TimelineError where error.code == .notFound || error.code == .forbidden {
                // a comment whose post was deleted meanwhile
            }
        }
        return (users, posts)
    }

    /// Everything the queries answer for `users`, to compare before and after a rebuild.
    func snapshot(_ service: TimelineService, _ users: [UserID]) throws -> [String] {
        var out: [String] = []
        for user in users {
            out.append("\(try service.user(user))")
            out.append("\(try service.all { try service.timeline(of: user, $0) })")
            out.append("\(try service.all { try service.activity(of: user, $0) })")
            out.append("\(try service.all { try service.followers(of: user, $0) })")
            for post in try service.all(limit: 100, { try service.posts(by: user, $0) }) {
                out.append("\(try service.post(post.id, viewer: user))")
            }
        }
        for tag in 0..<4 { out.append("\(try service.all { try service.hashtag("t\(tag)", $0) })") }
        return out
    }

    @Test(arguments: [11, 12, 13])
    func rebuildEqualsLiveOnRandomHistories(seed: UInt64) async throws {
        let service = try openService(seed: seed) { $0.fanoutThreshold = seed == 11 ? 1_000 : 2 }
        let (users, _) = try await randomHistory(service, seed: seed)
        let verify = try service.rebuild(RebuildOptions(verifyOnly: true))
        #expect(verify.differences.isEmpty, "\(verify.differences.prefix(3))")
        #expect(!verify.switched)
        let before = try snapshot(service, users)
        var options = RebuildOptions()
        options.chunkSize = 37
        let report = try service.rebuild(options)
        let head = try service.lastSequence()
        #expect(report.switched && report.events == head)
        #expect(try snapshot(service, users) == before)
        #expect(try service.projectionStatus().allSatisfy { $0.generation > 0 })
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        // A partial rebuild (timeline, with its dependencies) also equals live.
        let partial = try service.rebuild(RebuildOptions(projections: [.timeline]))
        #expect(Set(partial.projections.map(\.name)) == [.timeline, .follows, .posts, .profiles, .boosts, .hashtags])
        #expect(try snapshot(service, users) == before)
    }

    @Test func verifyReportsEveryDifference() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let (users, _) = try await randomHistory(service, seed: 5, steps: 60)
        // Corrupt the live profiles behind the service's back.
        let users0 = try service.environment.database("users", placement: .derived)
        _ = try service.environment.write { txn in try txn.put(users0, Array(users[0].rawValue.utf8), [1, 2, 3]) }
        _ = try service.environment.write { txn in try txn.put(users0, Array("intruder".utf8), [9]) }
        let report = try service.rebuild(RebuildOptions(verifyOnly: true))
        #expect(report.differences.count == 2)
        #expect(report.differences.contains { $0.key == Array("intruder".utf8) && $0.rebuilt == nil && $0.live == [9] })
        #expect(
            report.differences.contains {
                $0.key == Array(users[0].rawValue.utf8) && $0.live == [1, 2, 3] && $0.rebuilt != nil
            })
        // Printed, a difference shows sizes and digests, never a key's or a value's content
        // (a user row holds an email and a password hash).
        let printed = report.differences.map(\.description).joined(separator: "\n")
        #expect(!printed.contains("intruder") && !printed.contains("@") && printed.contains("8 bytes #"), "\(printed)")
    }

    @Test func rebuildWhileWritersAppendLosesNothing() async throws {
        let service = try openService()
        let (users, posts) = try await randomHistory(service, seed: 21, steps: 150)
        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<4 {
                    group.addTask {
                        for step in 0..<40 {
                            let me = users[(task + step) % users.count]
                            if step % 3 == 0 {
                                _ = try await service.addPost(
                                    by: me, caption: "live #t1", image: 10_000 + task * 100 + step)
                            } else if let post = posts.randomElement() {
                                _ = try? await service.run(.like(post: post.rawValue), as: me)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var options = RebuildOptions()
        options.chunkSize = 20
        let report = try await Task.detached { try service.rebuild(options) }.value
        try await writers.value
        #expect(report.switched)
        // Whatever was appended during the rebuild is in the new read models too.
        let check = try service.rebuild(RebuildOptions(verifyOnly: true))
        #expect(check.differences.isEmpty, "\(check.differences.prefix(3))")
        let logPosts = try service.events(from: 1, limit: 100_000).filter { $0.type == .postAdded }.count
        let deleted = try service.events(from: 1, limit: 100_000).filter { $0.type == .postDeleted }.count
        let counted = try users.reduce(0) { $0 + (try service.user($1).postCount) }
        #expect(counted == logPosts - deleted)
    }

    @Test func anInterruptedRebuildLeavesTheServiceIntact() async throws {
        let service = try openService()
        let (users, _) = try await randomHistory(service, seed: 31, steps: 120)
        let before = try snapshot(service, users)
        var options = RebuildOptions()
        options.chunkSize = 10
        options.abandonAfterChunks = 3
        #expect(throws: TimelineError.self) { try service.rebuild(options) }
        #expect(try snapshot(service, users) == before)
        #expect(try service.projectionStatus().allSatisfy { $0.generation == 0 })
        // Commands still work, and the next rebuild drops the leftovers and succeeds.
        _ = try await service.addPost(by: users[0])
        let leftovers = try service.environment.read { txn in try txn.databaseNames().filter { $0.hasPrefix("g") } }
        #expect(!leftovers.isEmpty)
        #expect(try service.rebuild().switched)
        let names = try service.environment.read { txn in try txn.databaseNames() }
        let generations = Set(try service.projectionStatus().map(\.generation))
        #expect(
            names.filter { $0.hasPrefix("g") }.allSatisfy { name in generations.contains { name.hasPrefix("g\($0).") } }
        )
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    /// The real tool, killed mid-rebuild with SIGKILL: the database keeps serving and verifies.
    @Test func aKilledRebuildProcessLeavesTheDatabaseIntact() async throws {
        let path = temporaryPath()
        do {
            let service = try openService(path: path)
            try await randomHistory(service, seed: 41, steps: 400)
            service.close()
        }
        for round in 0..<3 {
            // Small chunks, each its own commit; the tool stalls after a few so the kill lands mid-rebuild.
            let tool = try ToolProcess([
                "rebuild", "--db", path, "--chunk-size", "3", "--stall-after-chunks", "\(5 + round * 20)"
            ])
            waitForOutput(tool.output, containing: "stalled")
            var withModels = Environment.Options()
            withModels.derivedData = true
            let partial = try Environment(path: path, options: withModels).read { txn in
                try txn.databaseNames().contains { $0.hasPrefix("g") && $0.contains(".") }
            }
            tool.kill()
            #expect(partial, "round \(round): the kill should land while the rebuild fills a new generation")
            let service = try openService(path: path)
            #expect(
                try service.projectionStatus().allSatisfy { $0.generation == 0 }, "a killed rebuild must not switch")
            #expect(try service.verifyLog().isValid)
            #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
            service.close()
        }
    }

    @Test func auditFiltersReturnExactlyTheMatchingEvents() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let (users, posts) = try await randomHistory(service, seed: 51, steps: 200, clock: clock)
        let all = try service.events(from: 1, limit: 100_000)
        var rng = SeededRandom(seed: 3)
        for _ in 0..<60 {
            var filter = AuditFilter()
            if Bool.random(using: &rng) {
                filter.types = Set(EventType.allCases.filter { _ in Bool.random(using: &rng) })
            }
            if Int.random(in: 0..<4, using: &rng) == 0 { filter.actor = users.randomElement(using: &rng)!.rawValue }
            if Int.random(in: 0..<3, using: &rng) == 0 { filter.user = users.randomElement(using: &rng)! }
            if Int.random(in: 0..<4, using: &rng) == 0,
                let post = posts.randomElement(using: &rng) ?? all.compactMap(\.event.post).first
            {
                filter.post = post
            }
            if Bool.random(using: &rng) { filter.since = all.randomElement(using: &rng)!.timestamp }
            if Bool.random(using: &rng) { filter.until = all.randomElement(using: &rng)!.timestamp }
            if Bool.random(using: &rng) { filter.from = UInt64.random(in: 1...UInt64(all.count), using: &rng) }
            if Bool.random(using: &rng) { filter.to = UInt64.random(in: 1...UInt64(all.count), using: &rng) }
            // The expectation, computed from the JSON form independently of `matches`.
            let expected = all.filter { e in
                let payload = e.event.payloadJSON()
                let userFields = [
                    "userId", "followerId", "followeeId", "authorId", "reporterId", "blockerId", "blockedId"
                ]
                .compactMap { payload[$0]?.string }
                return (filter.types?.contains(e.type) ?? true)
                    && (filter.actor.map { e.actor == $0 } ?? true)
                    && (filter.user.map { e.actor == $0.rawValue || userFields.contains($0.rawValue) } ?? true)
                    && (filter.post.map { payload["postId"]?.string == $0.rawValue } ?? true)
                    && (filter.since.map { e.timestamp >= $0 } ?? true)
                    && (filter.until.map { e.timestamp <= $0 } ?? true)
                    && (filter.from.map { e.sequence >= $0 } ?? true) && (filter.to.map { e.sequence <= $0 } ?? true)
            }.map(\.sequence)
            var forward: [UInt64] = [], backward: [UInt64] = []
            try service.auditEvents(filter) {
                forward.append($0.sequence)
                return true
            }
            try service.auditEvents(filter, reverse: true) {
                backward.append($0.sequence)
                return true
            }
            #expect(forward == expected)
            #expect(backward == expected.reversed())
        }
        #expect(try service.event("3").sequence == 3)
        #expect(try service.event(all[4].id.rawValue).sequence == 5)
        let stats = try service.logStatistics()
        #expect(stats.events == UInt64(all.count) && stats.byType.values.reduce(0, +) == all.count)
        #expect(stats.lag.values.allSatisfy { $0 == 0 })
    }

    @Test func aBackupTakenWhileWritingRestoresAndAnswersTheSame() async throws {
        let service = try openService(durable: true)
        let (users, _) = try await randomHistory(service, seed: 61, steps: 120)
        let writer = Task {
            for index in 0..<30 { _ = try await service.addPost(by: users[index % users.count], image: 50_000 + index) }
        }
        let copy = temporaryPath("backup")
        try service.backup(to: copy)
        try await writer.value
        let restoredPath = temporaryPath("restored")
        try FileManager.default.createDirectory(atPath: restoredPath, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: copy + "/data.mdb", toPath: restoredPath + "/data.mdb")
        try TimelineService.copyKeys(
            from: URL(fileURLWithPath: copy + "/keys"), to: URL(fileURLWithPath: restoredPath + "/keys"))
        let restored = try openService(path: restoredPath)
        #expect(try restored.verifyLog().isValid)
        let restoredHead = try restored.lastSequence()
        let liveHead = try service.lastSequence()
        #expect(restoredHead > 0 && restoredHead <= liveHead)
        // The copy equals the live database as it was at the copied position: rebuild the
        // restored read models and compare, and compare its log with the live prefix.
        #expect(try restored.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        #expect(try restored.events(from: 1, limit: 100_000) == (try service.events(from: 1, limit: Int(restoredHead))))
        await expectError(.conflict) { try service.backup(to: copy) }
    }

    // MARK: - Derived data (read models and log indexes, never fsynced)

    /// What a machine crash can leave: derived data torn, and a marker from the boot that wrote it.
    @Test func derivedDataFromAnotherBootIsDiscardedAndRecomputed() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let (users, _) = try await randomHistory(service, seed: 71, steps: 150)
        let before = try snapshot(service, users)
        service.close()
        let derived = path + "/" + Environment.derivedDirectory
        let torn = try Data(contentsOf: URL(fileURLWithPath: derived + "/data.mdb"))
        var garbage = torn
        for index in stride(from: 4096 * 2, to: garbage.count, by: 4096) { garbage[index + 17] ^= 0xFF }
        try garbage.write(to: URL(fileURLWithPath: derived + "/data.mdb"))
        try Data("a-boot-before-the-crash".utf8).write(to: URL(fileURLWithPath: derived + "/unsynced.4242.crashed"))

        let reopened = try openService(path: path, seed: 7_101)  // other ids than the first opener's
        #expect(try snapshot(reopened, users) == before)
        #expect(try reopened.verifyLog().isValid)
        #expect(try reopened.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: derived + "/unsynced.4242.crashed"))
        // It goes on taking commands, and the log's indexes were recomputed too.
        let post = try await reopened.addPost(by: users[0])
        #expect(try reopened.stream("post-\(post.id)").count == 1)
    }

    /// A process that dies between a batch's durable commit and its derived commit leaves the
    /// read models one batch behind the log: the next opener catches them up.
    @Test func readModelsBehindTheLogAreCaughtUp() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let (users, _) = try await randomHistory(service, seed: 72, steps: 80)
        service.close()
        let derived = path + "/" + Environment.derivedDirectory
        let saved = temporaryPath("derived-before")
        try FileManager.default.copyItem(atPath: derived, toPath: saved)

        let writer = try openService(path: path, seed: 7_201)
        let post = try await writer.addPost(by: users[1], caption: "after #late")
        let expected = try snapshot(writer, users)
        writer.close()
        // Put back the derived data as it was before that command.
        try FileManager.default.removeItem(atPath: derived)
        try FileManager.default.copyItem(atPath: saved, toPath: derived)

        let reopened = try openService(path: path)
        #expect(try snapshot(reopened, users) == expected)
        #expect(try reopened.hashtag("late").items.map(\.id) == [post.id])
        #expect(try reopened.verifyLog().isValid)
    }

    /// A database of format 1 (read models and indexes beside the log) opens as format 2.
    @Test func aFormatOneDatabaseIsUpgraded() async throws {
        let path = temporaryPath()
        let service = try openService(path: path)
        let (users, _) = try await randomHistory(service, seed: 73, steps: 80)
        let before = try snapshot(service, users)
        service.close()
        try FileManager.default.removeItem(atPath: path + "/" + Environment.derivedDirectory)
        do {
            let env = try Environment(path: path)
            let meta = try env.database("meta"), users = try env.database("users"),
                streams = try env.database("streams")
            try env.write { txn in
                try txn.put(meta, Array("formatVersion".utf8), [0, 0, 0, 0, 0, 0, 0, 1])
                try txn.put(users, Array("stale".utf8), [1])
                try txn.put(streams, Array("stale".utf8), [1])
            }
        }
        let upgraded = try openService(path: path)
        #expect(try snapshot(upgraded, users) == before)
        #expect(try upgraded.verifyLog().isValid)
        let primary = try upgraded.environment.read { txn in try txn.databaseNames(in: .primary) }
        #expect(Set(primary) == ["log", "meta", "images", "keysToDestroy"])
    }

    /// A rebuild frees a whole generation of read models; compaction (only with the database
    /// closed everywhere) gives the space back and keeps every answer.
    @Test func readModelsAreCompactedOnlyWhenNobodyHasThemOpen() async throws {
        let path = temporaryPath()
        var users: [UserID] = []
        var before: [String] = []
        do {
            let service = try openService(path: path)
            users = try await randomHistory(service, seed: 74, steps: 300).users
            #expect(try service.rebuild().switched)
            before = try snapshot(service, users)
            #expect(
                try TimelineService.compactReadModels(path: path, minimumFreeBytes: 1) == nil,
                "open here: must not compact")
            service.close()
        }
        let sizes = try #require(try TimelineService.compactReadModels(path: path, minimumFreeBytes: 1))
        #expect(sizes.after < sizes.before)
        #expect(
            try TimelineService.compactReadModels(path: path, minimumFreeBytes: 1) == nil, "nothing left to reclaim")
        let reopened = try openService(path: path, seed: 7_401)
        #expect(try snapshot(reopened, users) == before)
        #expect(try reopened.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        _ = try await reopened.addPost(by: users[0])
    }
}
