import Testing
@testable import Timeline

/// The routing (`EventType.projections`) and the projections' `fold` switches agree: every
/// event type is folded by exactly the projections it is routed to.
@Suite struct EventRoutingTests {
    @Test func everyProjectionFoldsExactlyTheEventsRoutedToIt() async throws {
        let service = try openService()
        try await SchemaTests.historyOfEveryEventType(service)
        var seen: [EventType: EventEnvelope] = [:]
        for envelope in try service.events(from: 1) where seen[envelope.type] == nil { seen[envelope.type] = envelope }
        try #require(Set(seen.keys) == Set(EventType.allCases))
        struct RolledBack: Error {}
        for (type, envelope) in seen.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for projection in try service.read({ $0.models.all }) {
                // Folded again in a transaction that is rolled back: only whether the
                // projection takes the event matters, not what it makes of it twice.
                var unrouted = false
                do {
                    try service.environment.write { txn in
                        do { try projection.fold(envelope, txn) } catch is UnroutedEvent { unrouted = true } catch {}
                        throw RolledBack()
                    }
                } catch is RolledBack {}
                let routed = type.projections.contains(projection.name)
                #expect(unrouted == !routed, "\(type.rawValue) → \(projection.name.rawValue): routed \(routed), folded \(!unrouted)")
            }
        }
    }
}
