import JSONModel

// Scheduled posts (Mastodon's scheduled statuses): `schedulePost` records `PostScheduled`, the
// whole post as it will be (its caption, place, poll and content warning sealed with the
// author's key, as a post's are; its photos uploaded before, held by the schedule from then on
// and shown to nobody but their uploader until it is published); `reschedulePost` records
// `ScheduledPostChanged`, `cancelScheduledPost` `ScheduledPostCancelled`. At its time the server
// (`TimelineService.publishDueScheduledPosts`, run by `timeline serve`) runs
// `publishScheduledPost`, which records, in one commit, the post's own events (`PostAdded` and
// the rest, as `addPost` decides them at that moment) and `ScheduledPostPublished`: a schedule
// no longer pending refuses it (`not_found`, nothing appended), so it is published once however
// many publishers race (two nodes of a cluster each decide against the replicated log).

/// A scheduled post's identifier (Mastodon's `ScheduledStatus.id` numbers it in a space of its own).
public struct ScheduledPostID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The rules scheduling is held to: Mastodon's (`ScheduledStatus::MINIMUM_OFFSET`,
/// `TOTAL_LIMIT`, `DAILY_LIMIT`).
public enum ScheduleLimits {
    /// The least time ahead a post is scheduled for (ms): 5 minutes, unless the service's
    /// `scheduleMinimumLead` says otherwise (tests only).
    public static let minimumLead: Int64 = 5 * 60 * 1000
    /// How many pending scheduled posts one user may have.
    public static let maxPending = 300
    /// How many pending scheduled posts one user may have for one (UTC) day.
    public static let maxPerDay = 25
}

/// The payload of `PostScheduled`: a post to publish at `publishAt`, as `addPost` would take it
/// (photos uploaded before, by their media ids). Its caption, content warning, place and poll
/// options are sealed with the author's key.
public struct PostScheduled: Equatable, Sendable, Codable {
    /// The schedule.
    public var scheduleId: ScheduledPostID
    /// Who will post it.
    public var authorId: UserID
    /// When it is published (ms since 1970).
    public var publishAt: Int64
    /// The photos, in order (the author's uploads, held by the schedule).
    public var media: [MediaID]
    /// The caption, if any (absent once the author is erased).
    public var caption: String?
    /// Where the photo was taken, if given.
    public var location: Place?
    /// Whether the photos are sensitive.
    public var sensitive: Bool
    /// The content warning, if any.
    public var warning: String?
    /// Who will see it (`nil`: as the author's lock says when it is published).
    public var visibility: PostVisibility?
    /// The poll's options, if it carries one.
    public var pollOptions: [String]?
    /// How long the poll lasts from publication (s).
    public var pollExpiresIn: Int?
    /// Whether the poll takes several choices.
    public var pollMultiple: Bool?
    /// Whether the poll's counts stay hidden until it ends.
    public var pollHideTotals: Bool?

    /// A `PostScheduled` payload.
    public init(
        scheduleId: ScheduledPostID, authorId: UserID, publishAt: Int64, media: [MediaID], caption: String?,
        location: Place? = nil, sensitive: Bool = false, warning: String? = nil, visibility: PostVisibility? = nil,
        poll: PollDraft? = nil
    ) {
        self.scheduleId = scheduleId
        self.authorId = authorId
        self.publishAt = publishAt
        self.media = media
        self.caption = caption
        self.location = location
        self.sensitive = sensitive
        self.warning = warning
        self.visibility = visibility
        if let poll {
            (pollOptions, pollExpiresIn) = (poll.options, poll.expiresIn)
            (pollMultiple, pollHideTotals) = (poll.multiple, poll.hideTotals)
        }
    }

    /// The poll it carries, if any.
    public var poll: PollDraft? {
        guard let pollOptions, let pollExpiresIn else { return nil }
        return PollDraft(
            options: pollOptions, expiresIn: pollExpiresIn, multiple: pollMultiple ?? false,
            hideTotals: pollHideTotals ?? false)
    }

    private enum Flags {
        static let sensitive: UInt8 = 1
        static let visibilityGiven: UInt8 = 2
        static let followers: UInt8 = 4
        static let poll: UInt8 = 8
        static let multiple: UInt8 = 16
        static let hideTotals: UInt8 = 32
    }
}

extension PostScheduled: EventPayload {
    /// The aggregate: the schedule's stream.
    package var stream: String { StreamName.schedule(scheduleId) }
    /// Every user a `PostScheduled` payload names: `authorId`.
    package var users: [UserID] { [authorId] }

    /// Writes a `PostScheduled` payload at `currentVersion`: the ids, time and flags in clear,
    /// the words and the place sealed with the author's key.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(scheduleId.rawValue)
        w.string(authorId.rawValue)
        w.int64(publishAt)
        w.strings(media.map(\.rawValue))
        let poll = self.poll
        try sealer.seal(authorId, into: &w) {
            $0.optionalString(caption)
            $0.optionalString(warning)
            $0.u8(location == nil ? 0 : 1)
            if let location {
                $0.double(location.latitude)
                $0.double(location.longitude)
                $0.optionalString(location.name)
            }
            $0.strings(poll?.options ?? [])
        }
        var flags: UInt8 = sensitive ? Flags.sensitive : 0
        if let visibility { flags |= Flags.visibilityGiven | (visibility == .followers ? Flags.followers : 0) }
        if let poll {
            flags |= Flags.poll | (poll.multiple ? Flags.multiple : 0) | (poll.hideTotals ? Flags.hideTotals : 0)
        }
        w.u8(flags)
        if let poll { w.int(poll.expiresIn) }
    }

    /// Reads a stored `PostScheduled` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let id = ScheduledPostID(try r.string()), author = UserID(try r.string())
        let at = try r.int64(), media = try r.strings().map(MediaID.init)
        let personal = try opener.personal(author, from: &r) { r in
            let caption = try r.optionalString(), warning = try r.optionalString()
            let place: Place? =
                try r.u8() == 0
                ? nil : Place(latitude: try r.double(), longitude: try r.double(), name: try r.optionalString())
            return (caption: caption, warning: warning, place: place, options: try r.strings())
        }
        let flags = try r.u8()
        self.init(
            scheduleId: id, authorId: author, publishAt: at, media: media, caption: personal?.caption,
            location: personal?.place, sensitive: flags & Flags.sensitive != 0, warning: personal?.warning,
            visibility: flags & Flags.visibilityGiven == 0 ? nil : (flags & Flags.followers != 0 ? .followers : .public)
        )
        if flags & Flags.poll != 0 {
            pollExpiresIn = try r.int()
            pollOptions = personal?.options ?? []
            pollMultiple = flags & Flags.multiple != 0
            pollHideTotals = flags & Flags.hideTotals != 0
        }
    }

    /// The sealed members are left out once the author is erased.
    package static var erasedMembers: [String] { ["caption", "warning", "location"] }

    /// A one-line human summary of a `PostScheduled` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) scheduled \(scheduleId) for \(publishAt) \(clip(caption))"
    }
}

/// The payload of `ScheduledPostChanged`: a pending scheduled post's new time.
public struct ScheduledPostChanged: Equatable, Sendable, Codable {
    /// The schedule.
    public var scheduleId: ScheduledPostID
    /// Whose it is.
    public var authorId: UserID
    /// When it is published from now on (ms since 1970).
    public var publishAt: Int64
    /// A `ScheduledPostChanged` payload.
    public init(scheduleId: ScheduledPostID, authorId: UserID, publishAt: Int64) {
        self.scheduleId = scheduleId
        self.authorId = authorId
        self.publishAt = publishAt
    }
}

extension ScheduledPostChanged: EventPayload {
    /// The aggregate: the schedule's stream.
    package var stream: String { StreamName.schedule(scheduleId) }
    /// Every user a `ScheduledPostChanged` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// Writes a `ScheduledPostChanged` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(scheduleId.rawValue)
        w.string(authorId.rawValue)
        w.int64(publishAt)
    }
    /// Reads a stored `ScheduledPostChanged` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(
            scheduleId: ScheduledPostID(try r.string()), authorId: UserID(try r.string()), publishAt: try r.int64())
    }
    /// A one-line human summary of a `ScheduledPostChanged` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) moved \(scheduleId) to \(publishAt)"
    }
}

/// The payload of `ScheduledPostCancelled`: the author cancelled a pending scheduled post (its
/// photos are theirs again, unattached).
public struct ScheduledPostCancelled: Equatable, Sendable, Codable {
    /// The schedule.
    public var scheduleId: ScheduledPostID
    /// Whose it was.
    public var authorId: UserID
    /// A `ScheduledPostCancelled` payload.
    public init(scheduleId: ScheduledPostID, authorId: UserID) {
        self.scheduleId = scheduleId
        self.authorId = authorId
    }
}

extension ScheduledPostCancelled: EventPayload {
    /// The aggregate: the schedule's stream.
    package var stream: String { StreamName.schedule(scheduleId) }
    /// Every user a `ScheduledPostCancelled` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// Writes a `ScheduledPostCancelled` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(scheduleId.rawValue)
        w.string(authorId.rawValue)
    }
    /// Reads a stored `ScheduledPostCancelled` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(scheduleId: ScheduledPostID(try r.string()), authorId: UserID(try r.string()))
    }
    /// A one-line human summary of a `ScheduledPostCancelled` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) cancelled \(scheduleId)"
    }
}

/// The payload of `ScheduledPostPublished`: the schedule is done, its post published in the
/// same commit (its `PostAdded` just before this event).
public struct ScheduledPostPublished: Equatable, Sendable, Codable {
    /// The schedule.
    public var scheduleId: ScheduledPostID
    /// Whose it was.
    public var authorId: UserID
    /// The post published.
    public var postId: PostID
    /// A `ScheduledPostPublished` payload.
    public init(scheduleId: ScheduledPostID, authorId: UserID, postId: PostID) {
        self.scheduleId = scheduleId
        self.authorId = authorId
        self.postId = postId
    }
}

extension ScheduledPostPublished: EventPayload {
    /// The aggregate: the schedule's stream.
    package var stream: String { StreamName.schedule(scheduleId) }
    /// Every user a `ScheduledPostPublished` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// Writes a `ScheduledPostPublished` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(scheduleId.rawValue)
        w.string(authorId.rawValue)
        w.string(postId.rawValue)
    }
    /// Reads a stored `ScheduledPostPublished` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(
            scheduleId: ScheduledPostID(try r.string()), authorId: UserID(try r.string()),
            postId: PostID(try r.string()))
    }
    /// A one-line human summary of a `ScheduledPostPublished` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(scheduleId) of \(name(authorId)) published as \(postId)"
    }
}

extension StreamName {
    /// A scheduled post's stream: its scheduling, changes, and its cancellation or publication.
    package static func schedule(_ id: ScheduledPostID) -> String { "schedule-\(id)" }
}

/// A pending scheduled post as the read models keep it: the post as it will be, and when.
public struct ScheduledPostRecord: Equatable, Sendable {
    /// The schedule.
    public var id: ScheduledPostID
    /// Who will post it.
    public var author: UserID
    /// When it is published (ms since 1970).
    public var publishAt: Int64
    /// The post as scheduled (its `publishAt` as first scheduled; `publishAt` above is the time).
    public var draft: PostScheduled
    /// The record of `draft`, at `publishAt`.
    public init(_ draft: PostScheduled, publishAt: Int64? = nil) {
        self.id = draft.scheduleId
        self.author = draft.authorId
        self.publishAt = publishAt ?? draft.publishAt
        self.draft = draft
    }
}

extension Decider {
    /// The earliest time a post may be scheduled for now.
    private var earliestSchedule: Int64 { context.now + context.scheduleMinimumLead }

    /// Mastodon's 422 for a time too soon.
    private func scheduleTime(_ raw: String) throws -> Int64 {
        let at = try Validation.time(raw, field: "scheduledAt")
        guard at >= earliestSchedule else {
            throw TimelineError.invalid("scheduledAt", "The scheduled date must be in the future")
        }
        return at
    }

    /// Whether `me` may have one more pending schedule at `at`: at most `ScheduleLimits.maxPending`,
    /// and `ScheduleLimits.maxPerDay` on its UTC day (`except` left out: the one being moved).
    private func requireRoom(at: Int64, of me: UserID, except: ScheduledPostID? = nil) throws {
        let pending = try state.scheduledPosts(of: me).filter { $0.id != except }
        guard pending.count < ScheduleLimits.maxPending else {
            throw TimelineError.invalid(
                "scheduledAt", "You have exceeded the limit of \(ScheduleLimits.maxPending) scheduled posts")
        }
        let day: Int64 = 24 * 3600 * 1000
        guard pending.filter({ $0.publishAt / day == at / day }).count < ScheduleLimits.maxPerDay else {
            throw TimelineError.invalid(
                "scheduledAt",
                "You have exceeded the limit of \(ScheduleLimits.maxPerDay) scheduled posts for today")
        }
    }

    /// `me`'s pending scheduled post `raw` (anyone else's, or one no longer pending, is `not_found`).
    private func ownSchedule(_ raw: String, of me: UserRecord) throws -> ScheduledPostRecord {
        let id: ScheduledPostID = try Validation.identifier(raw, field: "scheduledPost")
        guard let record = try state.scheduledPost(id), record.author == me.id else {
            throw TimelineError.notFound("scheduledPost", id.rawValue)
        }
        return record
    }

    func schedulePost(
        _ draft: AddPostCommand, at raw: String, by me: UserRecord
    ) throws -> Decision {
        let at = try scheduleTime(raw)
        guard draft.inReplyTo == nil else {
            throw TimelineError.invalid("inReplyTo", "a scheduled post answers no conversation")
        }
        guard case .media(let ids) = draft.photos else {
            throw TimelineError.invalid("media", "a scheduled post holds photos uploaded before (media), not image")
        }
        // Checked exactly as the post would be now (its events are not recorded).
        let trial = try addPost(
            photos: draft.photos, caption: draft.caption, location: draft.location,
            sensitive: draft.sensitive ?? false, warning: draft.warning, visibility: draft.visibility,
            poll: draft.poll, by: me)
        try requireRoom(at: at, of: me.id)
        var caption: String?, place: Place?, warning: String?
        for event in trial.events {
            switch event {
            case .postAdded(let e): caption = e.caption
            case .postPlaced(let e): place = e.place
            case .postMarkedSensitive(let e): warning = e.warning
            default: break
            }
        }
        let event = PostScheduled(
            scheduleId: ScheduledPostID(context.newID()), authorId: me.id, publishAt: at, media: ids.map(MediaID.init),
            caption: caption, location: place, sensitive: draft.sensitive ?? false || warning != nil,
            warning: warning, visibility: draft.visibility, poll: draft.poll)
        return Decision(events: [.postScheduled(event)], outcome: .success(.created(event.scheduleId.rawValue)))
    }

    func reschedulePost(_ raw: String, at time: String, by me: UserRecord) throws -> Decision {
        let record = try ownSchedule(raw, of: me)
        let at = try scheduleTime(time)
        guard at != record.publishAt else { return Decision(outcome: .success(.changed(false))) }
        try requireRoom(at: at, of: me.id, except: record.id)
        return Decision(
            events: [
                .scheduledPostChanged(ScheduledPostChanged(scheduleId: record.id, authorId: me.id, publishAt: at))
            ],
            outcome: .success(.changed(true)))
    }

    func cancelScheduledPost(_ raw: String, by me: UserRecord) throws -> Decision {
        let record = try ownSchedule(raw, of: me)
        return Decision(
            events: [.scheduledPostCancelled(ScheduledPostCancelled(scheduleId: record.id, authorId: me.id))],
            outcome: .success(.done))
    }

    /// Publishes a due scheduled post: its post's events as `addPost` decides them now, and
    /// `ScheduledPostPublished`, in one decision. One no longer pending is `not_found` (nothing
    /// is appended: a second publisher, or a second attempt, finds it done); one not due yet is
    /// `invalid_argument`. Recorded as acting: its author.
    func publishScheduledPost(_ raw: String, actor: Actor) throws -> Decision {
        try requireOperator(actor, "publish a scheduled post")
        let id: ScheduledPostID = try Validation.identifier(raw, field: "scheduledPost")
        guard let record = try state.scheduledPost(id) else {
            throw TimelineError.notFound("scheduledPost", id.rawValue)
        }
        guard record.publishAt <= context.now else {
            throw TimelineError.invalid("scheduledPost", "scheduled post \(id) is not due yet")
        }
        guard let author = try state.user(record.author) else {
            throw TimelineError.notFound("user", record.author.rawValue)
        }
        let draft = record.draft
        var decision = try addPost(
            photos: .media(draft.media.map(\.rawValue)), caption: draft.caption, location: draft.location,
            sensitive: draft.sensitive, warning: draft.warning, visibility: draft.visibility, poll: draft.poll,
            publishing: id, by: author)
        guard case .success(.post(let post)) = decision.outcome else {
            throw TimelineError(.internal, "publishing \(id) made no post")
        }
        decision.events.append(
            .scheduledPostPublished(ScheduledPostPublished(scheduleId: id, authorId: author.id, postId: post)))
        decision.actor = author.id
        return decision
    }
}

// MARK: - Commands

/// `schedulePost`: schedules a post of uploaded photos (`media`) for `scheduledAt` (at least 5
/// minutes ahead); its other fields as `addPost`'s. Answers its id.
package struct SchedulePostCommand: CommandDefinition {
    /// The command's public name, `schedulePost`.
    package static let name = "schedulePost"
    /// The post as `addPost` takes it.
    package let post: AddPostCommand
    /// When to publish it (RFC 3339).
    package let scheduledAt: String

    /// A `schedulePost` command with these fields.
    package init(post: AddPostCommand, scheduledAt: String) {
        self.post = post
        self.scheduledAt = scheduledAt
    }

    /// Reads `schedulePost`'s fields: `addPost`'s and `scheduledAt`.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        scheduledAt = try fields.string("scheduledAt")
        post = try AddPostCommand(fields)
    }

    /// Writes `schedulePost`'s fields.
    package func encode(to fields: inout CommandJSON) {
        post.encode(to: &fields)
        fields.set("scheduledAt", scheduledAt)
    }

    /// Decides `schedulePost` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.schedulePost(post, at: scheduledAt, by: $0) }
    }
}

/// `reschedulePost`: moves one of the user's pending scheduled posts to `scheduledAt`.
package struct ReschedulePostCommand: CommandDefinition {
    /// The command's public name, `reschedulePost`.
    package static let name = "reschedulePost"
    /// The `scheduledPost` field.
    package let scheduledPost: String
    /// The `scheduledAt` field.
    package let scheduledAt: String
    /// A `reschedulePost` command with these fields.
    package init(scheduledPost: String, scheduledAt: String) {
        self.scheduledPost = scheduledPost
        self.scheduledAt = scheduledAt
    }
    /// Reads `reschedulePost`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        scheduledPost = try fields.string("scheduledPost")
        scheduledAt = try fields.string("scheduledAt")
    }
    /// Writes `reschedulePost`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("scheduledPost", scheduledPost)
        fields.set("scheduledAt", scheduledAt)
    }
    /// Decides `reschedulePost` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.reschedulePost(scheduledPost, at: scheduledAt, by: $0) }
    }
}

/// `cancelScheduledPost`: cancels one of the user's pending scheduled posts.
package struct CancelScheduledPostCommand: OneFieldCommand {
    /// The command's public name, `cancelScheduledPost`, and its one field, `scheduledPost`.
    package static let name = "cancelScheduledPost", field = "scheduledPost"
    /// The `scheduledPost` field, raw user input.
    package let value: String
    /// A `cancelScheduledPost` command naming `value`.
    package init(value: String) { self.value = value }
    /// Decides `cancelScheduledPost` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.cancelScheduledPost(value, by: $0) }
    }
}

/// `publishScheduledPost`: the operator's (the server's publisher's) publication of a due
/// scheduled post.
package struct PublishScheduledPostCommand: OneFieldCommand {
    /// The command's public name, `publishScheduledPost`, and its one field, `scheduledPost`.
    package static let name = "publishScheduledPost", field = "scheduledPost"
    /// The `scheduledPost` field, raw user input.
    package let value: String
    /// A `publishScheduledPost` command naming `value`.
    package init(value: String) { self.value = value }
    /// Decides `publishScheduledPost` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.publishScheduledPost(value, actor: actor)
    }
}

extension Command {
    /// Schedules a post of uploaded photos (`media`) for `scheduledAt` (RFC 3339, at least 5
    /// minutes ahead); the other fields as `addPost(media:…)`'s. Answers the schedule's id.
    public static func schedulePost(
        media: [String], caption: String?, scheduledAt: String, location: Place? = nil, sensitive: Bool? = nil,
        warning: String? = nil, visibility: PostVisibility? = nil, poll: PollDraft? = nil
    ) -> Command {
        Command(
            SchedulePostCommand(
                post: AddPostCommand(
                    photos: .media(media), caption: caption, location: location, sensitive: sensitive,
                    warning: warning, visibility: visibility, poll: poll),
                scheduledAt: scheduledAt))
    }
    /// Moves one of the user's pending scheduled posts to `scheduledAt` (at least 5 minutes ahead).
    public static func reschedulePost(scheduledPost: String, scheduledAt: String) -> Command {
        Command(ReschedulePostCommand(scheduledPost: scheduledPost, scheduledAt: scheduledAt))
    }
    /// Cancels one of the user's pending scheduled posts.
    public static func cancelScheduledPost(scheduledPost: String) -> Command {
        Command(CancelScheduledPostCommand(value: scheduledPost))
    }
    /// Publishes a due scheduled post (the operator's: `timeline serve` runs it at its time).
    public static func publishScheduledPost(scheduledPost: String) -> Command {
        Command(PublishScheduledPostCommand(value: scheduledPost))
    }
}

// MARK: - JSON Schemas

extension PostScheduled {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A post scheduled for publishAt, as addPost takes it (photos uploaded before). The caption, warning, "
        + "location and poll options are sealed with the author's key: in JSON they appear in clear, or are absent "
        + "once the author is erased."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "publishAt": "When it is published (ms since 1970).",
        "media": "The photos, in order: the author's uploads, held by the schedule until it is published.",
        "visibility": "Who will see it (absent: as the author's lock says when it is published).",
        "pollExpiresIn": "How long the poll lasts from publication, in seconds."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "media": JSONSchema.array(of: .identifier).with("minItems", 1).with("maxItems", 10).with("uniqueItems", true),
        "caption": JSONSchema.string.with("maxLength", 2200)
    ]
}

extension ScheduledPostChanged {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "A pending scheduled post's new time (publishAt, ms since 1970)."
}

extension ScheduledPostCancelled {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "The author cancelled a pending scheduled post; its photos are unattached uploads again."
}

extension ScheduledPostPublished {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A scheduled post was published as postId, whose PostAdded precedes this event in the same commit."
}

extension SchedulePostCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Schedules a post (PostScheduled) of uploaded photos (media) for scheduledAt, at least 5 minutes ahead; "
        + "the other fields as addPost's. Answers {id}. At most \(ScheduleLimits.maxPending) pending, "
        + "\(ScheduleLimits.maxPerDay) a day."
    /// What the fields are.
    package static let memberDescriptions: [String: String] = AddPostCommand.memberDescriptions.merging([
        "scheduledAt": "When to publish it (RFC 3339), at least 5 minutes ahead."
    ]) { _, b in b }
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = AddPostCommand.memberSchemas.merging([
        "scheduledAt": JSONSchema.string.with("format", "date-time")
    ]) { _, b in b }
}

extension ReschedulePostCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Moves one of the user's pending scheduled posts to scheduledAt (ScheduledPostChanged); answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "scheduledPost": .identifier, "scheduledAt": JSONSchema.string.with("format", "date-time")
    ]
}

extension CancelScheduledPostCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Cancels one of the user's pending scheduled posts (ScheduledPostCancelled)."
}

extension PublishScheduledPostCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "The operator's: publishes a due scheduled post (PostAdded and the rest, then ScheduledPostPublished, in "
        + "one commit); one no longer pending is not_found and appends nothing."
}
