import Foundation
import LMDB
import Testing
@testable import Timeline

/// The event log on real LMDB files: chain, indexes, tampering, format version, growth.
@Suite struct EventStoreTests {
    /// Builds a small history and closes the service, returning its path and event count.
    func history() async throws -> (path: String, events: UInt64) {
        let path = temporaryPath()
        let service = try openService(path: path)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        for index in 0..<4 { _ = try await service.addPost(by: bob.id, caption: "p\(index) #x", image: index) }
        let count = try service.lastSequence()
        service.close()
        return (path, count)
    }

    /// Changes the raw log with the LMDB layer directly, as an attacker with file access could.
    func tamper(_ path: String, _ body: (Transaction, Database) throws -> Void) throws {
        let env = try Environment(path: path)
        let log = try env.database("log")
        try env.write { txn in try body(txn, log) }
    }

    func key(_ seq: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: seq >> (56 - 8 * UInt64($0))) } }

    @Test func envelopesCarryTheChain() async throws {
        let (path, count) = try await history()
        let service = try openService(path: path)
        let events = try service.events(from: 1)
        #expect(events.count == Int(count))
        #expect(events.first?.previousHash == EventEnvelope.genesisHash)
        for (a, b) in zip(events, events.dropFirst()) { #expect(b.previousHash == a.hash) }
        #expect(Set(events.map(\.id)).count == events.count)
        let bobStream = try service.stream(events[1].stream)
        #expect(bobStream.map(\.streamVersion) == Array(1...UInt64(bobStream.count)))
        #expect(try service.verifyLog() == VerificationReport(eventsChecked: count))
    }

    @Test(arguments: [1, 4, 7])
    func aFlippedByteIsFound(at sequence: UInt64) async throws {
        let (path, _) = try await history()
        try tamper(path) { txn, log in
            var value = try #require(try txn.get(log, key(sequence)))
            value[value.count / 3] ^= 0x01
            try txn.put(log, key(sequence), value)
        }
        let report = try openService(path: path).verifyLog()
        #expect(report.firstBadSequence == sequence, "\(report)")
    }

    @Test func aDeletedEventIsFound() async throws {
        let (path, count) = try await history()
        try tamper(path) { txn, log in try txn.delete(log, key(3)) }
        #expect(try openService(path: path).verifyLog().firstBadSequence == 3)
        // Deleting the last event is found through the indexes.
        let (path2, count2) = try await history()
        try tamper(path2) { txn, log in try txn.delete(log, key(count2)) }
        #expect(try openService(path: path2).verifyLog().firstBadSequence == count2)
        _ = count
    }

    /// The indexes behind the log (the derived commit of the last events did not follow: a
    /// full derived map, say) are no tampering: verified up to their `through` marker and
    /// caught up by the next writer. An index entry past the marker is tampering.
    @Test func indexesBehindTheLogAreNotTampering() async throws {
        let (path, count) = try await history()
        let service = try openService(path: path)
        let last = try service.events(from: count - 1, limit: 2)
        let env = service.environment
        let streams = try env.database("streams", placement: .derived),
            ids = try env.database("eventIds", placement: .derived)
        let indexed = try env.database("logIndexed", placement: .derived)
        func streamKey(_ e: EventEnvelope) -> [UInt8] { Array(e.stream.utf8) + [0] + key(e.streamVersion) }
        _ = try env.write { txn in
            for envelope in last {
                _ = try txn.delete(streams, streamKey(envelope))
                _ = try txn.delete(ids, Array(envelope.id.rawValue.utf8))
            }
            try txn.put(indexed, EventLog.indexedKey, key(count - 2))
        }
        let behind = try service.verifyLog()
        #expect(behind.isValid && behind.indexedBefore == count - 1 && behind.eventsChecked == count, "\(behind)")
        // An entry past the marker is not lag.
        _ = try env.write { txn in try txn.put(streams, streamKey(last[1]), key(count)) }
        #expect(try service.verifyLog().firstBadSequence == count)
        service.close()
    }

    @Test func aReorderedPairIsFound() async throws {
        let (path, _) = try await history()
        try tamper(path) { txn, log in
            let a = try #require(try txn.get(log, key(4))), b = try #require(try txn.get(log, key(5)))
            try txn.put(log, key(4), b)
            try txn.put(log, key(5), a)
        }
        #expect(try openService(path: path).verifyLog().firstBadSequence == 4)
    }

    @Test func aNewerFormatIsRefused() async throws {
        let (path, _) = try await history()
        let env = try Environment(path: path)
        let meta = try env.database("meta")
        _ = try env.write { txn in try txn.put(meta, Array("formatVersion".utf8), key(EventLog.formatVersion + 1)) }
        #expect(throws: TimelineError.self) { try openService(path: path) }
        do { _ = try openService(path: path) } catch { #expect("\(error)".contains("newer")) }
    }

    @Test func appendIsIdempotentByEventID() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let stream = "user-\(alice.id)"
        let follow = Event.profileUpdated(ProfileUpdated(userId: alice.id, bio: "x"))
        let pending = PendingEvent(id: EventID("fixed-event-id"), event: follow, timestamp: 1, actor: alice.id.rawValue)
        let first = try service.environment.write { txn in try service.log.append([pending], txn) }
        let again = try service.environment.write { txn in try service.log.append([pending], txn) }
        #expect(first.count == 1 && again.isEmpty, "a retried event id appends nothing")
        #expect(try service.stream(stream).count == 2)
        #expect(first.first?.streamVersion == 2, "the stream's next version")
        #expect(try service.verifyLog().isValid)
    }

    @Test func theMapGrowsByItselfAndAFullDiskIsStorageFull() async throws {
        // Starts at 1 MiB and must grow to hold ~3 MiB of images.
        let grows = try openService { $0.initialMapSize = 1 << 20 }
        let alice = try await grows.createUser("alice")
        for index in 0..<30 {
            let image = noisePNG(index)
            _ = try await grows.run(.addPost(image: Data(image).base64EncodedString(), caption: nil), as: alice.id)
        }
        #expect(try grows.user(alice.id).postCount == 30)
        #expect(grows.environment.mapSize > 1 << 20)
        #expect(try grows.verifyLog().isValid)

        let capped = try openService {
            $0.initialMapSize = 1 << 20
            $0.maxMapSize = 2 << 20
        }
        let bob = try await capped.createUser("bob")
        var stored = 0
        var failure: TimelineError?
        for index in 0..<40 {
            let image = noisePNG(index)
            do {
                _ = try await capped.run(.addPost(image: Data(image).base64EncodedString(), caption: nil), as: bob.id)
                stored += 1
            } catch let error as TimelineError {
                failure = error
                break
            }
        }
        #expect(failure?.code == .storageFull)
        #expect(try capped.user(bob.id).postCount == stored)
        #expect(try capped.verifyLog().isValid)
    }

    /// A durable environment keeps zero-filled blocks ahead of its last page (so a commit's
    /// fsync need not grow the file); the extra bytes are never taken for data: the file
    /// reopens, reads back and copies exactly.
    @Test func aDurableFileIsAllocatedAheadOfItsPagesAndStillReadsBackExactly() throws {
        let path = temporaryPath()
        let value = { (index: Int) in [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 1_000 + index % 7) }
        let file = path + "/data.mdb"
        func fileSize() throws -> Int { try FileManager.default.attributesOfItem(atPath: file)[.size] as! Int }
        var used = 0
        do {
            let env = try Environment(path: path)
            let db = try env.database("entries")
            for batch in 0..<20 {
                try env.write { txn in
                    for index in batch * 100..<(batch + 1) * 100 { try txn.put(db, key(UInt64(index)), value(index)) }
                }
                // Checked before each commit: half a step (1 MiB at this size) ahead, so still
                // well ahead after a commit of these ~0.1 MiB.
                #expect(try fileSize() >= env.usedBytes + (1 << 18))
            }
            used = env.usedBytes
            env.close()
        }
        let tail = try #require(FileHandle(forReadingAtPath: file))
        try tail.seek(toOffset: UInt64(used))
        #expect(try tail.readToEnd()?.allSatisfy { $0 == 0 } ?? true)
        try tail.close()

        let copies = [path + "-copy", path + "-compact"]
        for copy in copies { try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true) }
        do {
            let env = try Environment(path: path)
            try env.copy(to: copies[0], compact: false)
            try env.copy(to: copies[1], compact: true)
            env.close()
        }
        for reopened in [path] + copies {
            let env = try Environment(path: reopened)
            let db = try env.database("entries")
            let stored = try env.read { txn in try (0..<2_000).map { try txn.get(db, key(UInt64($0))) } }
            env.close()
            #expect(stored == (0..<2_000).map(value), "\(reopened)")
        }
    }

    @Test func subscriptionCatchesUpThenFollowsNewEvents() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let stream = service.subscribe(from: 1, interval: .milliseconds(5))
        let reader = Task {
            var seen: [UInt64] = []
            for try await envelope in stream {
                seen.append(envelope.sequence)
                if seen.count == 4 { break }
            }
            return seen
        }
        for index in 0..<3 { _ = try await service.addPost(by: alice.id, image: index) }
        #expect(try await reader.value == [1, 2, 3, 4])
    }

    /// A subscription's failures are typed: a closed service ends it with a `TimelineError`.
    @Test func subscriptionFailsWithATimelineError() async throws {
        let service = try openService()
        _ = try await service.createUser("alice")
        service.close()
        let subscription: some AsyncSequence<EventEnvelope, TimelineError> = service.subscribe(
            from: 1, interval: .milliseconds(5))
        do {
            for try await _ in subscription {}
            Issue.record("a closed service's subscription ended without an error")
        } catch {
            let typed: TimelineError = error  // typed: no cast
            #expect(typed.code == .internal)
        }
    }
}
