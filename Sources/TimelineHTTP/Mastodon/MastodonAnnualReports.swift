import Foundation
import JSONModel
import Timeline

// Mastodon's annual reports ("Wrapstodon", `/api/v1/annual_reports`): the bearer asks for the
// report of a year (`generate`: `generateAnnualReport`, at once — nothing is refreshed in the
// background here, so it is `available` as soon as asked for), reads it (schema 2: archetype, top
// statuses, time series, top hashtags, computed when read), and marks it read. The list holds
// the reports asked for and not read yet, as Mastodon's.

extension Mastodon {
    /// One or more reports with the accounts and statuses they name (`WrappedAnnualReports`).
    struct WrappedAnnualReports: Codable, Sendable {
        var accounts: [Account]
        var statuses: [Status]
        var annual_reports: [AnnualReport]
    }

    /// A user's year (`AnnualReport`, schema version 2).
    struct AnnualReport: Codable, Sendable {
        var year: Int
        var account_id: String
        var data: AnnualReportData
        var schema_version: Int
        var share_url: Nullable<String>
    }

    /// What schema 2 of a report holds.
    struct AnnualReportData: Codable, Sendable {
        var archetype: String
        var top_statuses: TopStatuses
        var time_series: [AnnualReportMonth]
        var top_hashtags: [AnnualReportHashtag]
    }

    /// The year's public statuses most boosted, then most liked, then most replied to.
    struct TopStatuses: Codable, Sendable {
        var by_reblogs: Nullable<String>
        var by_favourites: Nullable<String>
        var by_replies: Nullable<String>
    }

    /// One month of a report.
    struct AnnualReportMonth: Codable, Sendable {
        var month: Int
        var statuses: Int
        var following: Int
        var followers: Int
    }

    /// A hashtag and how many of the year's statuses carry it.
    struct AnnualReportHashtag: Codable, Sendable {
        var name: String
        var count: Int
    }

    /// Where a report stands (`GET /api/v1/annual_reports/:year/state`).
    struct AnnualReportStateAnswer: Codable, Sendable {
        var state: String
    }
}

extension MastodonAPI {
    static let annualReportRoutes: [Route] = [
        now(
            "GET", "/api/v1/annual_reports", scope: "read:accounts",
            doc: .init(
                "The bearer's reports asked for and not read yet, the latest year first.", returns: .annualReports)
        ) { api, request, entities in
            let me = try request.requireViewer()
            return Responses.entity(200, try api.wrapped(try api.service.unreadAnnualReports(me), request, entities))
        },
        now(
            "GET", "/api/v1/annual_reports/{year}", scope: "read:accounts",
            doc: .init(
                "The bearer's report of a year, as it stands now (404 until asked for).", returns: .annualReports)
        ) { api, request, entities in
            let me = try request.requireViewer()
            guard let report = try api.service.annualReport(me, year: try year(request)) else {
                throw TimelineError(.notFound, "Record not found")
            }
            return Responses.entity(200, try api.wrapped([report], request, entities))
        },
        now(
            "GET", "/api/v1/annual_reports/{year}/state", scope: "read:accounts",
            doc: .init(
                "Whether the bearer's report of a year is `available`, `eligible` (a year from the account's first "
                    + "to now) or `ineligible`.", returns: .annualReportState)
        ) { api, request, _ in
            let state = try api.service.annualReportState(try request.requireViewer(), year: try year(request))
            return Responses.entity(200, Mastodon.AnnualReportStateAnswer(state: state.rawValue))
        },
        later(
            "POST", "/api/v1/annual_reports/{year}/generate", scope: "write:accounts",
            doc: .init("Makes the bearer's report of a year available (at once).", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.generateAnnualReport(year: request.parameters["year"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        later(
            "POST", "/api/v1/annual_reports/{year}/read", scope: "write:accounts",
            doc: .init("Marks the bearer's report of a year read (404 until asked for).", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.readAnnualReport(year: request.parameters["year"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        }
    ]

    /// The `{year}` of a report's route: four digits, else not found (as Mastodon's lookup).
    private static func year(_ request: APIRequest) throws(TimelineError) -> Int {
        do { return try AnnualReportMark.year(request.parameters["year"] ?? "") } catch {
            throw TimelineError(.notFound, "Record not found")
        }
    }
}

extension TimelineAPI {
    /// `reports` (the bearer's own) with the account they are about and the statuses they name, as
    /// the bearer sees them.
    func wrapped(_ reports: [AnnualReport], _ request: APIRequest, _ entities: MastodonEntities)
        throws(TimelineError) -> Mastodon.WrappedAnnualReports
    {
        let render = statuses(request, entities)
        var accounts: [Mastodon.Account] = [], statuses: [Mastodon.Status] = [], named: Set<PostID> = []
        var annual: [Mastodon.AnnualReport] = []
        for report in reports {
            if accounts.isEmpty {
                accounts.append(try entities.account(try service.user(report.user, viewer: request.viewer)))
            }
            for id in [report.mostBoosted, report.mostLiked, report.mostCommented].compactMap({ $0 })
            where named.insert(id).inserted {
                if let status = try render(try service.post(id, viewer: request.viewer).post) {
                    statuses.append(status)
                }
            }
            func number(_ id: PostID?) throws(TimelineError) -> Nullable<String> {
                Nullable(try id.map { id throws(TimelineError) in try entities.ids.id(.post(id)) })
            }
            annual.append(
                Mastodon.AnnualReport(
                    year: report.year, account_id: try entities.ids.id(.account(report.user)),
                    data: Mastodon.AnnualReportData(
                        archetype: report.archetype.rawValue,
                        top_statuses: Mastodon.TopStatuses(
                            by_reblogs: try number(report.mostBoosted), by_favourites: try number(report.mostLiked),
                            by_replies: try number(report.mostCommented)),
                        time_series: report.months.map {
                            Mastodon.AnnualReportMonth(
                                month: $0.month, statuses: $0.statuses, following: $0.following, followers: $0.followers
                            )
                        },
                        top_hashtags: report.hashtags.map {
                            Mastodon.AnnualReportHashtag(name: $0.name, count: $0.count)
                        }),
                    schema_version: 2, share_url: Nullable(nil)))
        }
        return Mastodon.WrappedAnnualReports(accounts: accounts, statuses: statuses, annual_reports: annual)
    }
}

extension MastodonOpenAPI {
    /// The schemas of the annual reports.
    static func annualReportSchemas() throws -> [(String, JSONSchema)] {
        [
            ("WrappedAnnualReports", try .of(Mastodon.WrappedAnnualReports.self)),
            ("AnnualReport", try .of(Mastodon.AnnualReport.self)),
            ("AnnualReportState", try .of(Mastodon.AnnualReportStateAnswer.self))
        ]
    }
}
