import JSONModel

// Mutes: `mute` records `Muted` (for good, or until a time), `unmute` records `Unmuted`. A
// muted user's posts leave the muter's timeline, hashtag and nearby searches, their comments
// leave the posts the muter reads, and their doings leave the muter's activity;
// the muted user is not told, and nothing else changes between them (they may still follow
// each other, like and comment). A timed mute ends by itself when its time comes.

/// Payload of `Muted`.
public struct Mute: Equatable, Sendable {
    /// Who mutes.
    public var muterId: UserID
    /// Who is muted.
    public var mutedId: UserID
    /// When the mute ends by itself (ms since 1970); `nil`: when the muter unmutes.
    public var until: Int64?
    /// A `Muted` payload.
    public init(muterId: UserID, mutedId: UserID, until: Int64? = nil) {
        self.muterId = muterId
        self.mutedId = mutedId
        self.until = until
    }
}

extension Mute: EventPayload {
    /// The aggregate `Mute` events belong to: the user stream of `muterId`.
    package var stream: String { StreamName.user(muterId) }
    /// Every user a `Mute` payload names: `muterId`, `mutedId`.
    package var users: [UserID] { [muterId, mutedId] }

    /// Writes a `Mute` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(muterId.rawValue)
        w.string(mutedId.rawValue)
        w.u8(until == nil ? 0 : 1)
        if let until { w.int64(until) }
    }

    /// Reads a stored `Mute` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let muter = UserID(try r.string()), muted = UserID(try r.string())
        self.init(muterId: muter, mutedId: muted, until: try r.u8() == 0 ? nil : try r.int64())
    }

    /// A one-line human summary of a `Mute` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(muterId)) muted \(name(mutedId))" + (until.map { " until \($0)" } ?? "")
    }
}

/// Payload of `Unmuted`.
public struct Unmute: Equatable, Sendable {
    /// Who muted.
    public var muterId: UserID
    /// Who was muted.
    public var mutedId: UserID
    /// An `Unmuted` payload.
    public init(muterId: UserID, mutedId: UserID) {
        self.muterId = muterId
        self.mutedId = mutedId
    }
}

extension Unmute: EventPayload {
    /// The aggregate `Unmute` events belong to: the user stream of `muterId`.
    package var stream: String { StreamName.user(muterId) }
    /// Every user an `Unmute` payload names: `muterId`, `mutedId`.
    package var users: [UserID] { [muterId, mutedId] }
    /// Writes an `Unmute` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(muterId.rawValue)
        w.string(mutedId.rawValue)
    }

    /// Reads a stored `Unmute` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(muterId: UserID(try r.string()), mutedId: UserID(try r.string()))
    }

    /// A one-line human summary of an `Unmute` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(muterId)) unmuted \(name(mutedId))"
    }
}

/// How long a timed mute may last: a year, in seconds (Mastodon's `duration`).
public enum MutePolicy {
    /// The longest `duration`, in seconds.
    public static let maxDurationSeconds = 365 * 24 * 3600
}

extension Decider {
    /// Mutes `user` for good (`duration` nil or 0) or for `duration` seconds. Muting again sets
    /// the new end; the same end again changes nothing.
    func mute(_ user: String, duration: Int?, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "mute")
        var until: Int64?
        if let duration, duration != 0 {
            guard (1...MutePolicy.maxDurationSeconds).contains(duration) else {
                throw TimelineError.invalid(
                    "duration", "duration must be 0 (until unmuted) or 1–\(MutePolicy.maxDurationSeconds) seconds")
            }
            until = context.now + Int64(duration) * 1000
        }
        if let standing = try state.mute(me.id, target), standing.isActive(at: context.now), standing.until == until {
            return Decision(outcome: .success(.changed(false)))
        }
        return Decision(
            events: [.muted(Mute(muterId: me.id, mutedId: target, until: until))], outcome: .success(.changed(true)))
    }

    /// Lifts a mute that stands (idempotent: an ended or absent one changes nothing).
    func unmute(_ user: String, by me: UserRecord) throws -> Decision {
        let target = try otherUser(user, of: me, "mute")
        guard try state.mute(me.id, target)?.isActive(at: context.now) == true else {
            return Decision(outcome: .success(.changed(false)))
        }
        return Decision(events: [.unmuted(Unmute(muterId: me.id, mutedId: target))], outcome: .success(.changed(true)))
    }
}

/// A mute as the read models keep it.
package struct MuteRecord: Equatable, Sendable {
    /// When it ends by itself (ms since 1970); `nil`: when the muter unmutes.
    package var until: Int64?

    /// A mute record ending at `until`.
    package init(until: Int64?) { self.until = until }

    /// Whether it still stands at `now`.
    package func isActive(at now: Int64) -> Bool { until.map { $0 > now } ?? true }
}

// MARK: - Commands

/// `mute`: the acting user mutes `user`, for good or for `duration` seconds (Mastodon's
/// `duration`: 0 or absent is until unmuted).
package struct MuteCommand: CommandDefinition {
    /// The command's public name, `mute`.
    package static let name = "mute"
    /// The `user` field.
    package let user: String
    /// The `duration` field.
    package let duration: Int?

    /// A `mute` command with these fields.
    package init(user: String, duration: Int?) {
        self.user = user
        self.duration = duration
    }

    /// Reads `mute`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        user = try fields.string("user")
        duration = try fields.optionalInteger("duration")
    }

    /// Writes `mute`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("user", user)
        if let duration { fields.set("duration", json: .integer(duration)) }
    }

    /// Decides `mute` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.mute(user, duration: duration, by: $0) }
    }
}

extension Command {
    /// The acting user mutes `user`: for good, or for `duration` seconds (0 or nil: until unmuted).
    public static func mute(user: String, duration: Int? = nil) -> Command {
        Command(MuteCommand(user: user, duration: duration))
    }
}

/// `unmute`: the acting user lifts their mute of `user` (idempotent).
package struct UnmuteCommand: OneFieldCommand {
    /// The command's public name, `unmute`, and its one field, `user`.
    package static let name = "unmute", field = "user"
    /// The `user` field, raw user input.
    package let value: String

    /// A `unmute` command naming `user` `value`.
    package init(value: String) { self.value = value }

    /// Decides `unmute` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.unmute(value, by: $0) }
    }
}

extension Command {
    /// The acting user lifts their mute of `user` (idempotent).
    public static func unmute(user: String) -> Command { Command(UnmuteCommand(value: user)) }
}

// MARK: - JSON Schemas of the payloads

extension Mute {
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "until": "When the mute ends by itself (ms since 1970); absent: when unmuted."
    ]
}

// MARK: - JSON Schemas of the commands

extension MuteCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "duration": "How long the mute lasts, in seconds; 0 or absent: until unmuted (Mastodon's duration)."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "user": .identifier,
        "duration": JSONSchema.integer.with("minimum", 0).with("maximum", 31_536_000)
    ]
}
