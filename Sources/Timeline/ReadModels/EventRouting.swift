import TimelineDomain

/// Which projections fold in which events: the one registration of what every read model does
/// with every event. The switch is exhaustive, so a new event does not build until it says
/// which projections take it (and so every projection has decided); a projection is handed only
/// the events routed to it, and its `fold` switch answers `UnroutedEvent` for any other — a
/// test applies every event type to every projection and checks that the two agree.
extension EventType {
    /// The projections that fold in events of this type.
    var projections: Set<ProjectionName> { Self.routing[self]! }

    private static let routing = Dictionary(uniqueKeysWithValues: allCases.map { ($0, $0.routed) })

    private var routed: Set<ProjectionName> {
        switch self {
        case .userCreated, .profileUpdated, .emailChanged: [.profiles]
        case .signedIn, .signedOut, .signInFailed, .passwordResetRequested: [.sessions]
        // A password change ends sessions and reset tokens; the profile keeps the new hash.
        case .passwordChanged: [.profiles, .sessions]
        case .postAdded: [.profiles, .posts, .postImages, .hashtags, .activity, .timeline]
        // A post's place is the places projection's alone (the post's JSON reads it there).
        case .postPlaced: [.places]
        // Timelines and activity name posts; the post's record has its image.
        case .postImageProcessed: [.posts, .postImages]
        // A removal by the operator takes the post everywhere a deletion does.
        case .postDeleted, .postRemoved: [.profiles, .posts, .postImages, .hashtags, .places, .activity, .timeline]
        case .commentAdded, .commentDeleted, .likeAdded, .likeRemoved: [.posts, .activity]
        case .followed, .unfollowed: [.profiles, .follows, .activity, .timeline]
        case .postReported, .reportsDismissed, .bookmarked, .unbookmarked: [.posts]
        // A block's unfollows are events of their own; the block itself is the graph's.
        case .blocked, .unblocked: [.follows]
        // Erasure records the deletions, unfollows and unlikes first, as their own events;
        // what is left is each projection's own trace of the user (an erased user's sessions
        // cannot resolve: their user record is gone).
        case .userErased: [.profiles, .posts, .places, .activity, .timeline]
        }
    }
}

/// A projection was handed an event the routing (`EventType.projections`) does not send it:
/// the routing and the projection's `fold` disagree (a bug, found by the routing test).
struct UnroutedEvent: Error, CustomStringConvertible {
    /// The projection.
    let projection: ProjectionName
    /// The event's type.
    let type: EventType
    var description: String { "the \(projection.rawValue) projection does not fold \(type.rawValue) events" }
}
