import JSONModel

// Dismissing a follow suggestion (Mastodon's `DELETE /api/v1/suggestions/:account_id`):
// `dismissSuggestion` records `SuggestionDismissed` (an `AccountChoice`), and that account is never suggested to its
// dismisser again (Mastodon keeps the dismissal too). Dismissing twice changes nothing; the
// dismissal goes when either account is erased.

extension Decider {
    /// Keeps `user` out of `me`'s follow suggestions (nothing new when already kept out).
    func dismissSuggestion(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "dismiss")
        if try state.dismissedSuggestion(me.id, target) { return Decision(outcome: .success(.changed(false))) }
        return Decision(
            events: [.suggestionDismissed(AccountChoice(userId: me.id, targetId: target))],
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
