import JSONModel

// Dismissing a follow suggestion (Mastodon's `DELETE /api/v1/suggestions/:account_id`):
// `dismissSuggestion` records `SuggestionDismissed`, and that account is never suggested to its
// dismisser again (Mastodon keeps the dismissal too). Dismissing twice changes nothing; the
// dismissal goes when either account is erased.

/// Payload of `SuggestionDismissed`: an account a user does not want suggested.
public struct SuggestionDismissal: Equatable, Sendable {
    /// Who dismissed the suggestion.
    public var userId: UserID
    /// The account no longer suggested to them.
    public var targetId: UserID
    /// A `SuggestionDismissal` payload.
    public init(userId: UserID, targetId: UserID) {
        self.userId = userId
        self.targetId = targetId
    }
}

extension SuggestionDismissal: EventPayload {
    /// The aggregate: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user the payload names: `userId`, `targetId`.
    package var users: [UserID] { [userId, targetId] }
    /// Writes a `SuggestionDismissal` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(targetId.rawValue)
    }

    /// Reads a stored `SuggestionDismissal` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), targetId: UserID(try r.string()))
    }

    /// A one-line human summary of a `SuggestionDismissed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) asked not to be suggested \(name(targetId)) again"
    }

    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .suggestionDismissed: "A user (userId) asked never to be suggested an account (targetId) to follow again."
    ]
}

extension Decider {
    /// Keeps `user` out of `me`'s follow suggestions (nothing new when already kept out).
    func dismissSuggestion(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "dismiss")
        if try state.dismissedSuggestion(me.id, target) { return Decision(outcome: .success(.changed(false))) }
        return Decision(
            events: [.suggestionDismissed(SuggestionDismissal(userId: me.id, targetId: target))],
            outcome: .success(.changed(true)))
    }
}

/// `dismissSuggestion`: never suggests `user` to the acting user again (idempotent).
package struct DismissSuggestionCommand: OneFieldCommand {
    /// The command's public name, `dismissSuggestion`, and its one field, `user`.
    package static let name = "dismissSuggestion", field = "user"
    /// The `user` field, raw user input.
    package let value: String
    /// A `dismissSuggestion` command naming `user` `value`.
    package init(value: String) { self.value = value }
    /// Decides `dismissSuggestion` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.dismissSuggestion(value, by: $0) }
    }
}

extension Command {
    /// Never suggests `user` to the acting user again (idempotent).
    public static func dismissSuggestion(user: String) -> Command { Command(DismissSuggestionCommand(value: user)) }
}
