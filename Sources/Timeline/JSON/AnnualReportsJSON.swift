import JSONModel
import TimelineDomain

// The JSON form of the annual reports' read (`annualReport`): its types, schema and conversion.

extension ResultJSON {
    /// A user's year: its state and, once asked for, the report (`annualReport.schema.json`).
    struct AnnualReport: Codable, Sendable, SchemaDocumented {
        var year: Int
        var state: String
        var report: Nullable<AnnualReportFigures>
    }

    /// What a year's report says.
    struct AnnualReportFigures: Codable, Sendable, SchemaDocumented {
        var archetype: String
        var mostBoosted: Nullable<String>
        var mostLiked: Nullable<String>
        var mostCommented: Nullable<String>
        var months: [AnnualReportMonth]
        var hashtags: [AnnualReportHashtag]
        var read: Bool
    }

    /// One month of a report.
    struct AnnualReportMonth: Codable, Sendable, SchemaDocumented {
        var month: Int
        var statuses: Int
        var following: Int
        var followers: Int
    }

    /// A hashtag of a report and how many of the year's posts carry it.
    struct AnnualReportHashtag: Codable, Sendable, SchemaDocumented {
        var name: String
        var count: Int
    }
}

extension ResultJSON.AnnualReport: NamedResult {
    static let schemaName = "annualReport"
    static let schemaDescription: String? =
        "The bearer's year (Mastodon's annual report): whether it can be read and, once asked for "
        + "(POST /v1/me/annual-reports/{year}/generate), what it says, computed when read."
    static let memberDescriptions = [
        "year": "The year (UTC).",
        "state": "available (asked for: report is there), eligible (it may be asked for: a year from the account's "
            + "first to now) or ineligible.",
        "report": "The report, or null until asked for."
    ]
    static let memberSchemas = [
        "year": JSONSchema.integer.with("minimum", 0).with("maximum", 9999),
        "state": JSONSchema.enumeration(["available", "eligible", "ineligible"])
    ]

    init(_ answer: Timeline.AnnualReportAnswer) {
        year = answer.year
        state = answer.state.rawValue
        report = Nullable(answer.report.map(ResultJSON.AnnualReportFigures.init))
    }
}

extension ResultJSON.AnnualReportFigures {
    static let schemaDescription: String? = "What a year's report says, as it stands now."
    static let memberDescriptions = [
        "archetype": "What kind of poster the year shows (Mastodon's archetypes): lurker (fewer than "
            + "\(AnnualReportArchetype.averagePerYear) posts, comments and boosts), booster, pollster, replier or "
            + "oracle.",
        "mostBoosted": "The year's public post boosted most (a post id), or null.",
        "mostLiked": "The one liked most, other than mostBoosted, or null.",
        "mostCommented": "The one commented most, other than those two, or null.",
        "months": "Twelve months, January first.",
        "hashtags": "The hashtags of more than one of the year's posts, the most used first (at most 40).",
        "read": "Whether the bearer marked it read (POST /v1/me/annual-reports/{year}/read)."
    ]
    static let memberSchemas = [
        "archetype": JSONSchema.enumeration(AnnualReportArchetype.allCases.map(\.rawValue)),
        "mostBoosted": ResultJSON.identifier.nullable, "mostLiked": ResultJSON.identifier.nullable,
        "mostCommented": ResultJSON.identifier.nullable
    ]

    init(_ report: Timeline.AnnualReport) {
        archetype = report.archetype.rawValue
        mostBoosted = Nullable(report.mostBoosted?.rawValue)
        mostLiked = Nullable(report.mostLiked?.rawValue)
        mostCommented = Nullable(report.mostCommented?.rawValue)
        months = report.months.map {
            ResultJSON.AnnualReportMonth(
                month: $0.month, statuses: $0.statuses, following: $0.following, followers: $0.followers)
        }
        hashtags = report.hashtags.map { ResultJSON.AnnualReportHashtag(name: $0.name, count: $0.count) }
        read = report.read
    }
}

extension ResultJSON.AnnualReportMonth {
    static let schemaDescription: String? = "One month of a report."
    static let memberDescriptions = [
        "month": "1–12.", "statuses": "Posts, comments and boosts made in it.",
        "following": "Follows made in it that still stand.", "followers": "Followers gained in it who still follow."
    ]
    static let memberSchemas = [
        "month": JSONSchema.integer.with("minimum", 1).with("maximum", 12),
        "statuses": JSONSchema.integer.with("minimum", 0), "following": JSONSchema.integer.with("minimum", 0),
        "followers": JSONSchema.integer.with("minimum", 0)
    ]
}

extension ResultJSON.AnnualReportHashtag {
    static let schemaDescription: String? = "A hashtag of a report."
    static let memberDescriptions = [
        "name": "The hashtag (normalised, without #).", "count": "How many of the year's posts carry it."
    ]
    static let memberSchemas = ["count": JSONSchema.integer.with("minimum", 2)]
}
