import TimelineDomain

/// A projection was handed an event the routing does not send it (`EventType.projections`:
/// each payload type names its projections in its feature's file): the routing and the
/// projection's `fold` disagree (a bug, found by the routing test).
struct UnroutedEvent: Error, CustomStringConvertible {
    /// The projection.
    let projection: ProjectionName
    /// The event's type.
    let type: EventType
    var description: String { "the \(projection.rawValue) projection does not fold \(type.rawValue) events" }
}
