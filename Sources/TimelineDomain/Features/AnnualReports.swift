import JSONModel

// Annual reports (Mastodon's "Wrapstodon"): a user asks for the report of a year
// (`generateAnnualReport` records `AnnualReportGenerated`) and later marks it read
// (`readAnnualReport` records `AnnualReportRead`). What a report says is computed when it is read,
// from the log's read models (ReadView+AnnualReports), so a deleted post leaves it as it leaves
// everything else and nothing about a user's posts is copied into the log. Any year from the one
// the account was made in to the current one may be asked for: the current year's is "the year so
// far" (Mastodon opens only the current year, from December 10).

/// Payload of `AnnualReportGenerated` and `AnnualReportRead`: one user's report of one year.
public struct AnnualReportMark: Equatable, Sendable {
    /// Whose report.
    public var userId: UserID
    /// The year (UTC) it is about.
    public var year: Int
    /// A mark of `userId`'s report of `year`.
    public init(userId: UserID, year: Int) {
        self.userId = userId
        self.year = year
    }
}

extension AnnualReportMark: EventPayload {
    /// The aggregate: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// The user the payload names.
    package var users: [UserID] { [userId] }
    /// Writes an `AnnualReportMark` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.int64(Int64(year))
    }

    /// Reads a stored `AnnualReportMark` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(userId: UserID(try r.string()), year: Int(try r.int64()))
    }

    /// A one-line human summary of an `AnnualReportGenerated` or `AnnualReportRead` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) \(type == .annualReportGenerated ? "asked for" : "read") their report of \(year)"
    }

    /// What each event type carrying the payload records.
    package static let eventDescriptions: [EventType: String] = [
        .annualReportGenerated: "A user (userId) asked for their annual report of a year; it is computed when read.",
        .annualReportRead: "A user (userId) read their annual report of a year."
    ]
}

extension AnnualReportMark {
    /// A year as commands take it: four digits.
    public static let yearSchema = JSONSchema.string.with("pattern", "^[0-9]{4}$")

    /// The year `raw` names (four digits, else `invalid_argument`).
    public static func year(_ raw: String) throws(TimelineError) -> Int {
        guard raw.utf8.count == 4, raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let year = Int(raw) else {
            throw TimelineError.invalid("year", "year must be four digits")
        }
        return year
    }
}

/// The UTC calendar, as far as annual reports need it (the domain reads no system calendar).
public enum UTCCalendar {
    /// The year and month (1–12) of `ms` (milliseconds since 1970, UTC): the civil date of its day.
    public static func yearMonth(ms: Int64) -> (year: Int, month: Int) {
        // Days to civil date (the proleptic Gregorian calendar, eras of 400 years).
        let days = Int(ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000) + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month)
    }
}

extension Decider {
    /// The report of `raw` (a year) for `me`: any year from the account's first to the current one.
    func generateAnnualReport(_ raw: Int, by me: UserRecord) throws -> Decision {
        let first = UTCCalendar.yearMonth(ms: me.createdAt).year, now = UTCCalendar.yearMonth(ms: context.now).year
        guard (first...max(first, now)).contains(raw) else {
            throw TimelineError.invalid("year", "a report covers a year from \(first) to \(now)")
        }
        if try state.annualReportRead(me.id, raw) != nil { return Decision(outcome: .success(.changed(false))) }
        return Decision(
            events: [.annualReportGenerated(AnnualReportMark(userId: me.id, year: raw))],
            outcome: .success(.changed(true)))
    }

    /// Marks `me`'s report of `year` read (`not_found` when never asked for).
    func readAnnualReport(_ year: Int, by me: UserRecord) throws -> Decision {
        guard let read = try state.annualReportRead(me.id, year) else {
            throw TimelineError.notFound("annual report", String(year))
        }
        if read { return Decision(outcome: .success(.changed(false))) }
        return Decision(
            events: [.annualReportRead(AnnualReportMark(userId: me.id, year: year))], outcome: .success(.changed(true)))
    }
}

/// `generateAnnualReport`: asks for the acting user's report of `year` (idempotent).
package struct GenerateAnnualReportCommand: OneFieldCommand {
    /// The command's public name, `generateAnnualReport`, and its one field, `year`.
    package static let name = "generateAnnualReport", field = "year"
    /// The field is four digits, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { ["year": AnnualReportMark.yearSchema] }
    /// The year, raw user input.
    package let value: String
    /// A `generateAnnualReport` command for the year `value`.
    package init(value: String) { self.value = value }
    /// Decides `generateAnnualReport` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.generateAnnualReport(try AnnualReportMark.year(value), by: $0) }
    }
}

/// `readAnnualReport`: marks the acting user's report of `year` read (idempotent).
package struct ReadAnnualReportCommand: OneFieldCommand {
    /// The command's public name, `readAnnualReport`, and its one field, `year`.
    package static let name = "readAnnualReport", field = "year"
    /// The field is four digits, not an identifier.
    package static var memberSchemas: [String: JSONSchema] { ["year": AnnualReportMark.yearSchema] }
    /// The year, raw user input.
    package let value: String
    /// A `readAnnualReport` command for the year `value`.
    package init(value: String) { self.value = value }
    /// Decides `readAnnualReport` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.readAnnualReport(try AnnualReportMark.year(value), by: $0) }
    }
}

extension Command {
    /// Asks for the acting user's annual report of `year` (idempotent).
    public static func generateAnnualReport(year: String) -> Command {
        Command(GenerateAnnualReportCommand(value: year))
    }
    /// Marks the acting user's annual report of `year` read (idempotent).
    public static func readAnnualReport(year: String) -> Command { Command(ReadAnnualReportCommand(value: year)) }
}
