import Foundation
import Testing
@testable import Timeline

/// Every projection declares the events it handles (`EventHandlers.on`) and names no other; the
/// routing table derived from those declarations is docs/events.md. What is left to check is
/// what the folds make of a real history with every event type.
@Suite struct EventRoutingTests {
    /// docs/events.md is the routing table (`ReadModels.routing`): which projections each event
    /// changes. With `TIMELINE_WRITE_DOCS=1` the test writes it; otherwise it must be current, so
    /// that a change of routing shows in the diff.
    @Test func theRoutingTableIsDocsEventsMD() throws {
        let service = try openService()
        let routing = try service.read { $0.models.routing }
        var lines = [
            "# Events and the projections they change", "",
            "Printed from the projections' declared handlers (`EventHandlers.on`) by "
                + "`EventRoutingTests.theRoutingTableIsDocsEventsMD` (`TIMELINE_WRITE_DOCS=1 swift test "
                + "--filter theRoutingTableIsDocsEventsMD` writes it anew). An event no projection handles "
                + "is kept in the log alone (an audit trail, or read by the decisions only).", "",
            "| Event | Payload | Projections |", "| --- | --- | --- |"
        ]
        for type in EventType.allCases {
            let names = routing[type, default: []].map { "`\($0.rawValue)`" }.joined(separator: ", ")
            lines.append("| `\(type.rawValue)` | `\(type.payloadType)` | \(names.isEmpty ? "—" : names) |")
        }
        let text = lines.joined(separator: "\n") + "\n"
        let file = SchemaTests.root.appending(path: "docs/events.md")
        if ProcessInfo.processInfo.environment["TIMELINE_WRITE_DOCS"] == "1" {
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOf: file, encoding: .utf8)
        #expect(
            committed == text,
            "docs/events.md is stale: run TIMELINE_WRITE_DOCS=1 swift test --filter theRoutingTableIsDocsEventsMD")
    }

    /// Folding any logged event into any projection, on top of the state the history left,
    /// does not throw: no projection refuses an event.
    @Test func everyProjectionFoldsEveryEventType() async throws {
        let service = try openService()
        try await SchemaTests.historyOfEveryEventType(service)
        var first: [EventType: EventEnvelope] = [:]
        for envelope in try service.events(from: 1) where first[envelope.type] == nil {
            first[envelope.type] = envelope
        }
        try #require(Set(first.keys) == Set(EventType.allCases))
        struct RolledBack: Error {}
        let projections = try service.read { $0.models.all }
        try #require(projections.map(\.name) == ProjectionName.allCases)
        for (type, envelope) in first.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for projection in projections {
                // In a transaction that is rolled back: what the projection makes of the event
                // a second time is not kept. Any error but ours fails the expectation.
                #expect(throws: RolledBack.self, "\(type.rawValue) → \(projection.name.rawValue)") {
                    try service.environment.write { txn in
                        try projection.fold(envelope, txn)
                        throw RolledBack()
                    }
                }
            }
        }
    }

    /// Replaying the log into fresh databases, one projection (with what it depends on) at a
    /// time, gives exactly the read model the live writes made, event after event.
    @Test func rebuildingEachProjectionFromTheLogGivesTheLiveReadModel() async throws {
        let service = try openService()
        try await SchemaTests.historyOfEveryEventType(service)
        let head = try service.lastSequence()
        for name in ProjectionName.allCases {
            let report = try service.rebuild(RebuildOptions(projections: [name], verifyOnly: true))
            #expect(report.events == head, "\(name.rawValue)")
            #expect(report.projections.map(\.name) == ProjectionName.closure(of: [name]), "\(name.rawValue)")
            #expect(report.differences.isEmpty, "\(name.rawValue): \(report.differences.prefix(3))")
            #expect(!report.switched)
        }
        let all = try service.rebuild(RebuildOptions(verifyOnly: true))
        #expect(all.projections.map(\.name) == ProjectionName.allCases)
        #expect(all.events == head && all.differences.isEmpty, "\(all.differences.prefix(3))")
    }

    /// A removal by the operator takes a post everywhere a deletion does: after a `PostRemoved`
    /// every projection holds what it holds after a `PostDeleted` of the same post, but for the
    /// item that tells the author why (in their activity).
    @Test func aRemovalUndoesWhatADeletionUndoes() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let post = try #require(
            try await service.run(
                .addPost(
                    image: gifBase64(0), caption: "here #tag",
                    location: Place(latitude: 1.5, longitude: -2.5)), as: alice.id
            ).post)
        _ = try await service.addComment(by: bob.id, on: post.id)
        try await service.run(.like(post: post.id.rawValue), as: bob.id)
        try await service.run(.bookmark(post: post.id.rawValue), as: bob.id)
        try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: bob.id)
        let template = try #require(try service.events(from: 1).last)
        let projections = try service.read { $0.models.all }
        struct RolledBack: Error {}
        /// Every entry of each projection's databases after folding `event` (if any) into all of
        /// them, in application order, in a transaction that is then rolled back.
        func entries(after event: Event?) throws -> [ProjectionName: Set<String>] {
            var out: [ProjectionName: Set<String>] = [:]
            do {
                try service.environment.write { txn in
                    if let event {
                        var envelope = template
                        (envelope.type, envelope.event) = (event.typeName, event)
                        for projection in projections { try projection.fold(envelope, txn) }
                    }
                    for projection in projections {
                        for db in projection.databases {
                            try txn.scan(db, prefix: []) { key, value in
                                out[projection.name, default: []].insert("\(db.name) \(key) \(value)")
                                return true
                            }
                        }
                    }
                    throw RolledBack()
                }
            } catch is RolledBack {}
            return out
        }
        let before = try entries(after: nil)
        let deleted = try entries(after: .postDeleted(PostDeleted(postId: post.id, authorId: alice.id)))
        let removed = try entries(
            after: .postRemoved(PostRemoved(postId: post.id, authorId: alice.id, reason: "rule 3")))
        for name in ProjectionName.allCases {
            if name == .activity {
                #expect(deleted[name, default: []].isSubset(of: removed[name, default: []]))
                #expect(
                    removed[name, default: []].subtracting(deleted[name, default: []]).count == 1, "the removal's item")
            } else {
                #expect(removed[name] == deleted[name], "\(name.rawValue)")
            }
        }
        // Not vacuous: the deletion took the post out of every projection it was in.
        for name: ProjectionName in [.profiles, .posts, .postImages, .hashtags, .places, .activity, .timeline] {
            #expect(deleted[name] != before[name], "\(name.rawValue)")
        }
    }
}
