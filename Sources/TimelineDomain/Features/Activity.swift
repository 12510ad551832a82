import JSONModel

// Activity: `markActivityRead` records `ActivityRead`, the user's read marker. Items after it
// are unread (the count is in the user's own profile); the marker only moves forward, as
// Mastodon's notifications marker does.

/// Payload of `ActivityRead`: the user has seen their activity up to and including `upTo`.
public struct ActivityRead: Equatable, Sendable {
    /// Whose activity.
    public var userId: UserID
    /// The id of the newest item seen (items are ordered by id, newest last).
    public var upTo: String
    /// An `ActivityRead` payload.
    public init(userId: UserID, upTo: String) {
        self.userId = userId
        self.upTo = upTo
    }
}

extension ActivityRead: EventPayload {
    /// The aggregate `ActivityRead` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `ActivityRead` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes an `ActivityRead` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.string(upTo)
    }

    /// Reads a stored `ActivityRead` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), upTo: try r.string())
    }

    /// A one-line human summary of an `ActivityRead` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) read their activity up to \(upTo)"
    }
}

extension Decider {
    /// Moves `me`'s read marker to `upTo` (an activity item's id); a marker at or past it stays.
    func markActivityRead(upTo raw: String, by me: UserRecord) throws -> Decision {
        guard IdentifierSyntax.isValid(raw) else {
            throw TimelineError.invalid("upTo", "upTo must be an activity item's id")
        }
        // The marker never passes the newest item (a later item must come in unread), so what
        // it would move to is the older of the two: if it is there already, nothing changes and
        // nothing is recorded, however often a client repeats it.
        guard let newest = try state.newestActivity(of: me.id) else {
            return Decision(outcome: .success(.changed(false)))
        }
        if let marker = try state.activityMarker(of: me.id), marker >= min(raw, newest) {
            return Decision(outcome: .success(.changed(false)))
        }
        return Decision(
            events: [.activityRead(ActivityRead(userId: me.id, upTo: raw))], outcome: .success(.changed(true)))
    }
}

// MARK: - Commands

/// `markActivityRead`: the acting user has seen their activity up to the item `upTo`.
package struct MarkActivityReadCommand: OneFieldCommand {
    /// The command's public name, `markActivityRead`, and its one field, `upTo`.
    package static let name = "markActivityRead", field = "upTo"
    /// The `upTo` field, raw user input.
    package let value: String

    /// A `markActivityRead` command naming `upTo` `value`.
    package init(value: String) { self.value = value }

    /// Decides `markActivityRead` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.markActivityRead(upTo: value, by: $0) }
    }
}

extension Command {
    /// The acting user has seen their activity up to the item `upTo` (its `id`): items after it
    /// are unread. The marker only moves forward.
    public static func markActivityRead(upTo: String) -> Command { Command(MarkActivityReadCommand(value: upTo)) }
}

/// Payload of `ActivityDismissed`: the user dismissed one item of their activity, or all of
/// it up to now (Mastodon's notification dismiss and clear).
public struct ActivityDismissed: Equatable, Sendable {
    /// Whose activity.
    public var userId: UserID
    /// The item dismissed (nil: every item there is now).
    public var item: String?
    /// An `ActivityDismissed` payload.
    public init(userId: UserID, item: String?) {
        self.userId = userId
        self.item = item
    }
}

extension ActivityDismissed: EventPayload {
    /// The aggregate `ActivityDismissed` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user an `ActivityDismissed` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes an `ActivityDismissed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.optionalString(item)
    }

    /// Reads a stored `ActivityDismissed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), item: try r.optionalString())
    }

    /// A one-line human summary of an `ActivityDismissed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) dismissed " + (item.map { "activity item \($0)" } ?? "all their activity")
    }
}

extension Decider {
    /// Dismisses `item` of `me`'s activity, or all of it (nil). An item that is not in their
    /// activity (someone else's, already dismissed, never there) or an empty activity changes
    /// nothing, so nothing is recorded: `changed` false.
    func dismissActivity(_ item: String?, by me: UserRecord) throws -> Decision {
        if let item, !IdentifierSyntax.isValid(item) {
            throw TimelineError.invalid("item", "item must be an activity item's id")
        }
        guard try state.holdsActivity(of: me.id, item: item) else {
            return Decision(outcome: .success(.changed(false)))
        }
        let dismissed = ActivityDismissed(userId: me.id, item: item)
        return Decision(events: [.activityDismissed(dismissed)], outcome: .success(.changed(true)))
    }
}

/// `dismissActivity`: the acting user dismisses one activity item (`item`), or all of them.
package struct DismissActivityCommand: CommandDefinition {
    /// The command's public name, `dismissActivity`.
    package static let name = "dismissActivity"
    /// The `item` field.
    package let item: String?

    /// A `dismissActivity` command with these fields.
    package init(item: String?) { self.item = item }
    /// Reads `dismissActivity`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) { item = try fields.optionalString("item") }
    /// Writes `dismissActivity`'s fields.
    package func encode(to fields: inout CommandJSON) { fields.set("item", item) }

    /// Decides `dismissActivity` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.dismissActivity(item, by: $0) }
    }
}

extension Command {
    /// Dismisses the acting user's activity item `item` (its `id`), or, with nil, every item
    /// they have now: dismissed items are gone from their activity. `changed` false (nothing
    /// recorded) when there was no such item of theirs, or none at all.
    public static func dismissActivity(item: String? = nil) -> Command { Command(DismissActivityCommand(item: item)) }
}

// MARK: - JSON Schemas of the payloads

extension ActivityDismissed {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A user dismissed an activity item, or all of them (Mastodon's notification dismiss and clear)."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "item": "The item dismissed; absent: every item the user had."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "item": .identifier
    ]
}

extension ActivityRead {
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "upTo": "The id of the newest activity item read."
    ]
}

// MARK: - JSON Schemas of the commands

extension DismissActivityCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "item": "The activity item to dismiss; absent: all of them."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "item": .identifier
    ]
}

extension MarkActivityReadCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "upTo": "The id of the newest activity item read."
    ]
}
