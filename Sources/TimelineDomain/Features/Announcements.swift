import Foundation
import JSONModel

// Announcements, made by the operator: `addAnnouncement` records `AnnouncementAdded` and
// `removeAnnouncement` `AnnouncementRemoved`. Each user dismisses one (`dismissAnnouncement`,
// `AnnouncementDismissed`: it reads as read) and reacts to it with unicode emoji
// (`addAnnouncementReaction` and `removeAnnouncementReaction`: `AnnouncementReactionAdded` and
// `AnnouncementReactionRemoved`). Mastodon apps read them at `GET /api/v1/announcements`.

/// An announcement's identifier (`addAnnouncement`).
public struct AnnouncementID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The payload of `AnnouncementAdded`: the operator announced something, for a time or not.
public struct AnnouncementAdded: Equatable, Sendable, Codable {
    /// The announcement's identifier.
    public var announcementId: AnnouncementID
    /// What it says (plain text).
    public var text: String
    /// When what it announces starts (ms since 1970), if it says.
    public var startsAt: Int64?
    /// When it ends (ms since 1970): after that the announcement is no longer shown.
    public var endsAt: Int64?
    /// Whether the times are dates only (what it announces lasts whole days).
    public var allDay: Bool
    /// An `AnnouncementAdded` payload.
    public init(announcementId: AnnouncementID, text: String, startsAt: Int64?, endsAt: Int64?, allDay: Bool) {
        self.announcementId = announcementId
        self.text = text
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.allDay = allDay
    }
}

extension AnnouncementAdded: EventPayload {
    /// The aggregate: the announcement's stream.
    package var stream: String { StreamName.announcement(announcementId) }
    /// An `AnnouncementAdded` payload names no user.
    package var users: [UserID] { [] }

    /// Writes an `AnnouncementAdded` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(announcementId.rawValue)
        w.string(text)
        w.u8((startsAt == nil ? 0 : 1) | (endsAt == nil ? 0 : 2) | (allDay ? 4 : 0))
        if let startsAt { w.int64(startsAt) }
        if let endsAt { w.int64(endsAt) }
    }

    /// Reads a stored `AnnouncementAdded` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let id = AnnouncementID(try r.string()), text = try r.string(), flags = try r.u8()
        let starts = flags & 1 != 0 ? try r.int64() : nil
        let ends = flags & 2 != 0 ? try r.int64() : nil
        self.init(announcementId: id, text: text, startsAt: starts, endsAt: ends, allDay: flags & 4 != 0)
    }

    /// A one-line human summary of an `AnnouncementAdded` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the operator announced \(announcementId): \(clip(text))"
    }
}

/// The payload of `AnnouncementRemoved`: the operator took an announcement away.
public struct AnnouncementRemoved: Equatable, Sendable, Codable {
    /// The announcement's identifier.
    public var announcementId: AnnouncementID
    /// An `AnnouncementRemoved` payload.
    public init(announcementId: AnnouncementID) { self.announcementId = announcementId }
}

extension AnnouncementRemoved: EventPayload {
    /// The aggregate: the announcement's stream.
    package var stream: String { StreamName.announcement(announcementId) }
    /// An `AnnouncementRemoved` payload names no user.
    package var users: [UserID] { [] }
    /// Writes an `AnnouncementRemoved` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws { w.string(announcementId.rawValue) }
    /// Reads a stored `AnnouncementRemoved` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(announcementId: AnnouncementID(try r.string()))
    }
    /// A one-line human summary of an `AnnouncementRemoved` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the operator removed announcement \(announcementId)"
    }
}

/// The payload of `AnnouncementDismissed`: a user read an announcement (it reads as read for them).
public struct AnnouncementDismissed: Equatable, Sendable, Codable {
    /// The announcement's identifier.
    public var announcementId: AnnouncementID
    /// Who dismissed it.
    public var userId: UserID
    /// An `AnnouncementDismissed` payload.
    public init(announcementId: AnnouncementID, userId: UserID) {
        self.announcementId = announcementId
        self.userId = userId
    }
}

extension AnnouncementDismissed: EventPayload {
    /// The aggregate: the user's stream (what they read is theirs).
    package var stream: String { StreamName.user(userId) }
    /// Every user an `AnnouncementDismissed` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes an `AnnouncementDismissed` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(announcementId.rawValue)
        w.string(userId.rawValue)
    }
    /// Reads a stored `AnnouncementDismissed` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(announcementId: AnnouncementID(try r.string()), userId: UserID(try r.string()))
    }
    /// A one-line human summary of an `AnnouncementDismissed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) dismissed announcement \(announcementId)"
    }
}

/// The payload of `AnnouncementReactionAdded` and `AnnouncementReactionRemoved`: a user reacted
/// to an announcement with an emoji, or took the reaction back.
public struct AnnouncementReaction: Equatable, Sendable, Codable {
    /// The announcement's identifier.
    public var announcementId: AnnouncementID
    /// Who reacted.
    public var userId: UserID
    /// The emoji (one unicode emoji: no custom emoji exist here).
    public var name: String
    /// An `AnnouncementReaction` payload.
    public init(announcementId: AnnouncementID, userId: UserID, name: String) {
        self.announcementId = announcementId
        self.userId = userId
        self.name = name
    }
}

extension AnnouncementReaction: EventPayload {
    /// The aggregate: the user's stream (their reactions are theirs).
    package var stream: String { StreamName.user(userId) }
    /// Every user an `AnnouncementReaction` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes an `AnnouncementReaction` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(announcementId.rawValue)
        w.string(userId.rawValue)
        w.string(name)
    }
    /// Reads a stored `AnnouncementReaction` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(
            announcementId: AnnouncementID(try r.string()), userId: UserID(try r.string()), name: try r.string())
    }
    /// What each event type carrying the payload records.
    package static var eventDescriptions: [EventType: String] {
        [
            .announcementReactionAdded: "A user reacted to an announcement with an emoji.",
            .announcementReactionRemoved: "A user took their emoji reaction to an announcement back."
        ]
    }
    /// A one-line human summary of an `AnnouncementReactionAdded` or `…Removed` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        type == .announcementReactionAdded
            ? "\(name(userId)) reacted \(self.name) to announcement \(announcementId)"
            : "\(name(userId)) took back \(self.name) on announcement \(announcementId)"
    }
}

extension StreamName {
    /// An announcement's stream: the operator's announcement and its removal.
    package static func announcement(_ id: AnnouncementID) -> String { "announcement-\(id)" }
}

/// An announcement as the read models keep it.
public struct AnnouncementRecord: Equatable, Sendable {
    /// The announcement's identifier.
    public var id: AnnouncementID
    /// What it says (plain text).
    public var text: String
    /// When what it announces starts (ms), if it says.
    public var startsAt: Int64?
    /// When it ends (ms): after that it is no longer shown.
    public var endsAt: Int64?
    /// Whether the times are dates only.
    public var allDay: Bool
    /// When the operator announced it (ms).
    public var publishedAt: Int64
    /// An announcement record.
    public init(id: AnnouncementID, text: String, startsAt: Int64?, endsAt: Int64?, allDay: Bool, publishedAt: Int64) {
        self.id = id
        self.text = text
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.allDay = allDay
        self.publishedAt = publishedAt
    }
}

/// One emoji's reactions to an announcement: who reacted, in the order they did.
public struct AnnouncementReactionRecord: Equatable, Sendable {
    /// The emoji.
    public var name: String
    /// Who reacted with it.
    public var users: [UserID]
    /// A reaction record.
    public init(name: String, users: [UserID]) {
        self.name = name
        self.users = users
    }
}

extension Validation {
    /// The longest announcement, in characters.
    public static let maxAnnouncement = 5000
    /// How many different emoji one announcement takes (Mastodon's limit).
    public static let maxAnnouncementReactions = 8

    /// A reaction's name: exactly one unicode emoji (no custom emoji exist here).
    public static func emoji(_ raw: String) throws(TimelineError) -> String {
        let name = raw.precomposedStringWithCanonicalMapping
        guard name.count == 1, name.unicodeScalars.count <= 16, let first = name.unicodeScalars.first,
            first.properties.isEmoji,
            first.properties.isEmojiPresentation || name.unicodeScalars.count > 1
        else {
            throw .invalid("name", "name is not a recognized emoji")
        }
        return name
    }

    /// A time an announcement gives: RFC 3339 (`2026-12-24T18:00:00Z`) or a date (`2026-12-24`,
    /// midnight UTC), as ms since 1970.
    public static func time(_ raw: String, field: String) throws(TimelineError) -> Int64 {
        let formatter = ISO8601DateFormatter()
        let text = raw.trimmingCharacters(in: .whitespaces)
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate]
        ] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        }
        throw .invalid(field, "\(field) must be a date (2026-12-24) or a time (2026-12-24T18:00:00Z)")
    }
}

extension Decider {
    func addAnnouncement(
        _ text: String, startsAt: String?, endsAt: String?, allDay: Bool?, actor: Actor
    ) throws -> Decision {
        try requireOperator(actor, "make an announcement")
        let text = try Validation.text(text, field: "text", max: Validation.maxAnnouncement, allowEmpty: false)
        let starts = try startsAt.map { v throws(TimelineError) in try Validation.time(v, field: "startsAt") }
        let ends = try endsAt.map { v throws(TimelineError) in try Validation.time(v, field: "endsAt") }
        // As Mastodon: a start needs an end and an end a start, after it.
        switch (starts, ends) {
        case (nil, nil): break
        case (nil, _): throw TimelineError.invalid("startsAt", "an announcement with an end needs a start")
        case (_, nil): throw TimelineError.invalid("endsAt", "an announcement with a start needs an end")
        case (let s?, let e?) where e <= s: throw TimelineError.invalid("endsAt", "endsAt must be after startsAt")
        default: break
        }
        let event = AnnouncementAdded(
            announcementId: AnnouncementID(context.newID()), text: text, startsAt: starts, endsAt: ends,
            allDay: starts != nil && allDay == true)
        return Decision(
            events: [.announcementAdded(event)], outcome: .success(.created(event.announcementId.rawValue)))
    }

    /// The announcement `raw` names (`not_found` when none, or removed).
    private func existingAnnouncement(_ raw: String) throws -> AnnouncementRecord {
        let id: AnnouncementID = try Validation.identifier(raw, field: "announcement")
        guard let record = try state.announcement(id) else {
            throw TimelineError(.notFound, "there is no announcement \(id)")
        }
        return record
    }

    func removeAnnouncement(_ raw: String, actor: Actor) throws -> Decision {
        try requireOperator(actor, "remove an announcement")
        let record = try existingAnnouncement(raw)
        return Decision(
            events: [.announcementRemoved(AnnouncementRemoved(announcementId: record.id))], outcome: .success(.done))
    }

    func dismissAnnouncement(_ raw: String, by me: UserRecord) throws -> Decision {
        let record = try existingAnnouncement(raw)
        guard try !state.announcementDismissed(record.id, by: me.id) else {
            return Decision(events: [], outcome: .success(.changed(false)))
        }
        let event = AnnouncementDismissed(announcementId: record.id, userId: me.id)
        return Decision(events: [.announcementDismissed(event)], outcome: .success(.changed(true)))
    }

    func reactToAnnouncement(_ raw: String, name: String, add: Bool, by me: UserRecord) throws -> Decision {
        let record = try existingAnnouncement(raw)
        let name = try Validation.emoji(name)
        let reactions = try state.announcementReactions(record.id)
        let mine = reactions.first { $0.name == name }?.users.contains(me.id) == true
        guard add != mine else { return Decision(events: [], outcome: .success(.changed(false))) }
        if add, !reactions.contains(where: { $0.name == name }),
            reactions.count >= Validation.maxAnnouncementReactions
        {
            throw TimelineError.invalid(
                "name", "an announcement takes at most \(Validation.maxAnnouncementReactions) different reactions")
        }
        let event = AnnouncementReaction(announcementId: record.id, userId: me.id, name: name)
        return Decision(
            events: [add ? .announcementReactionAdded(event) : .announcementReactionRemoved(event)],
            outcome: .success(.changed(true)))
    }
}

// MARK: - Commands

/// `addAnnouncement`: announces something to every user (operators only).
package struct AddAnnouncementCommand: CommandDefinition {
    /// The command's public name, `addAnnouncement`.
    package static let name = "addAnnouncement"
    /// The `text` field.
    package let text: String
    /// The `startsAt` field (a date or an RFC 3339 time).
    package let startsAt: String?
    /// The `endsAt` field (a date or an RFC 3339 time).
    package let endsAt: String?
    /// The `allDay` field.
    package let allDay: Bool?

    /// An `addAnnouncement` command with these fields.
    package init(text: String, startsAt: String?, endsAt: String?, allDay: Bool?) {
        self.text = text
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.allDay = allDay
    }

    /// Reads `addAnnouncement`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        text = try fields.string("text")
        startsAt = try fields.optionalString("startsAt")
        endsAt = try fields.optionalString("endsAt")
        allDay = try fields.optionalBool("allDay")
    }

    /// Writes `addAnnouncement`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("text", text)
        fields.set("startsAt", startsAt)
        fields.set("endsAt", endsAt)
        fields.set("allDay", allDay)
    }

    /// Decides `addAnnouncement` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.addAnnouncement(text, startsAt: startsAt, endsAt: endsAt, allDay: allDay, actor: actor)
    }
}

/// `removeAnnouncement`: takes an announcement away (operators only).
package struct RemoveAnnouncementCommand: OneFieldCommand {
    /// The command's public name, `removeAnnouncement`, and its one field, `announcement`.
    package static let name = "removeAnnouncement", field = "announcement"
    /// The `announcement` field, raw user input.
    package let value: String
    /// A `removeAnnouncement` command naming `announcement` `value`.
    package init(value: String) { self.value = value }
    /// Decides `removeAnnouncement` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.removeAnnouncement(value, actor: actor)
    }
}

/// `dismissAnnouncement`: the user has read an announcement.
package struct DismissAnnouncementCommand: OneFieldCommand {
    /// The command's public name, `dismissAnnouncement`, and its one field, `announcement`.
    package static let name = "dismissAnnouncement", field = "announcement"
    /// The `announcement` field, raw user input.
    package let value: String
    /// A `dismissAnnouncement` command naming `announcement` `value`.
    package init(value: String) { self.value = value }
    /// Decides `dismissAnnouncement` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.dismissAnnouncement(value, by: $0) }
    }
}

/// A command naming an announcement and an emoji (`addAnnouncementReaction`,
/// `removeAnnouncementReaction`): its fields' reading and writing, once.
package protocol AnnouncementReactionCommand: CommandDefinition {
    /// The `announcement` field.
    var announcement: String { get }
    /// The `name` field: the emoji.
    var name: String { get }
    /// The command with these fields.
    init(announcement: String, name: String)
}

extension AnnouncementReactionCommand {
    /// Reads the `announcement` and `name` fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        self.init(announcement: try fields.string("announcement"), name: try fields.string("name"))
    }
    /// Writes the `announcement` and `name` fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("announcement", announcement)
        fields.set("name", name)
    }
}

/// `addAnnouncementReaction`: the user reacts to an announcement with an emoji.
package struct AddAnnouncementReactionCommand: AnnouncementReactionCommand {
    /// The command's public name, `addAnnouncementReaction`.
    package static let name = "addAnnouncementReaction"
    /// The `announcement` field.
    package let announcement: String
    /// The `name` field: the emoji.
    package let name: String
    /// An `addAnnouncementReaction` command with these fields.
    package init(announcement: String, name: String) {
        self.announcement = announcement
        self.name = name
    }
    /// Decides `addAnnouncementReaction` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.reactToAnnouncement(announcement, name: name, add: true, by: $0) }
    }
}

/// `removeAnnouncementReaction`: the user takes their emoji reaction to an announcement back.
package struct RemoveAnnouncementReactionCommand: AnnouncementReactionCommand {
    /// The command's public name, `removeAnnouncementReaction`.
    package static let name = "removeAnnouncementReaction"
    /// The `announcement` field.
    package let announcement: String
    /// The `name` field: the emoji.
    package let name: String
    /// A `removeAnnouncementReaction` command with these fields.
    package init(announcement: String, name: String) {
        self.announcement = announcement
        self.name = name
    }
    /// Decides `removeAnnouncementReaction` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.reactToAnnouncement(announcement, name: name, add: false, by: $0) }
    }
}

extension Command {
    /// Announces something to every user (operators only), for a time (`startsAt` and `endsAt`,
    /// dates or RFC 3339 times) or not; answers its id.
    public static func addAnnouncement(
        text: String, startsAt: String? = nil, endsAt: String? = nil, allDay: Bool? = nil
    ) -> Command {
        Command(AddAnnouncementCommand(text: text, startsAt: startsAt, endsAt: endsAt, allDay: allDay))
    }
    /// Takes an announcement away (operators only).
    public static func removeAnnouncement(announcement: String) -> Command {
        Command(RemoveAnnouncementCommand(value: announcement))
    }
    /// The user has read an announcement.
    public static func dismissAnnouncement(announcement: String) -> Command {
        Command(DismissAnnouncementCommand(value: announcement))
    }
    /// The user reacts to an announcement with a unicode emoji.
    public static func addAnnouncementReaction(announcement: String, name: String) -> Command {
        Command(AddAnnouncementReactionCommand(announcement: announcement, name: name))
    }
    /// The user takes their emoji reaction to an announcement back.
    public static func removeAnnouncementReaction(announcement: String, name: String) -> Command {
        Command(RemoveAnnouncementReactionCommand(announcement: announcement, name: name))
    }
}

// MARK: - JSON Schemas

extension AnnouncementAdded {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "The operator made an announcement (the envelope's actor is \"operator\")."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "startsAt": "When what it announces starts (ms since 1970).",
        "endsAt": "When it ends (ms since 1970): it is shown no more after.",
        "allDay": "Whether the times are dates only."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "text": JSONSchema.string.with("minLength", 1).with("maxLength", .integer(Validation.maxAnnouncement))
    ]
}

extension AnnouncementRemoved {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "The operator took an announcement away (the envelope's actor is \"operator\")."
}

extension AnnouncementDismissed {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "A user dismissed an announcement: it reads as read for them."
}

extension AnnouncementReaction {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "A user's emoji reaction to an announcement."
    /// What the members are.
    public static let memberDescriptions: [String: String] = ["name": "One unicode emoji."]
}

extension AddAnnouncementCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Operators only (`timeline announcements add`): announces something to every user (AnnouncementAdded); "
        + "answers {id}. startsAt and endsAt go together (dates, or RFC 3339 times), endsAt after startsAt."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "text": JSONSchema.string.with("minLength", 1).with("maxLength", .integer(Validation.maxAnnouncement))
    ]
}

extension RemoveAnnouncementCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Operators only (`timeline announcements remove`): takes an announcement away (AnnouncementRemoved)."
}

extension DismissAnnouncementCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "The user has read the announcement (AnnouncementDismissed); answers {changed}."
}

extension AddAnnouncementReactionCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "The user reacts to the announcement with one unicode emoji (AnnouncementReactionAdded); answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["announcement": .identifier]
}

extension RemoveAnnouncementReactionCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "The user takes their emoji reaction back (AnnouncementReactionRemoved); answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["announcement": .identifier]
}
