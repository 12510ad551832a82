import Foundation
import JSONModel
import MicroHTTPD
import Testing
@testable import Timeline
@testable import TimelineHTTP

/// Annual reports (Mastodon's "Wrapstodon"): asked for and read as events, computed from the read
/// models when read — months, archetype, top posts, hashtags — through the library and Mastodon's
/// `/api/v1/annual_reports`.
@Suite struct AnnualReportTests {
    static let jan2025: Int64 = 1_735_689_600_000, feb2025: Int64 = 1_738_368_000_000
    static let day: Int64 = 86_400_000

    /// alice (made in January 2025) posts in January and February (#sea twice, #sky once, one
    /// poll), comments on bob's post, boosts it; bob follows her in February; carol is followed
    /// by her in January. Then it is 2026.
    static func network() async throws -> (TimelineService, TestClock, UserID, UserID, [Post]) {
        let clock = TestClock(jan2025 + day)
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice").id, bob = try await service.createUser("bob").id
        let carol = try await service.createUser("carol").id
        try await service.run(.follow(user: carol.rawValue), as: alice)
        var posts: [Post] = []
        posts.append(try await service.addPost(by: alice, caption: "#sea one", image: 1))
        clock.advance(day)
        posts.append(
            try #require(
                try await service.run(
                    .addPost(
                        image: gifBase64(2), caption: "#sea #sky two",
                        poll: PollDraft(options: ["a", "b"], expiresIn: 600)),
                    as: alice
                ).post))
        clock.advance(feb2025 - jan2025 - day)
        posts.append(try await service.addPost(by: alice, caption: "#sky three", image: 3))
        let bobs = try await service.addPost(by: bob, caption: "bob's", image: 4)
        _ = try await service.addComment(by: alice, on: bobs.id)
        try await service.run(.reblog(post: bobs.id.rawValue), as: alice)
        try await service.run(.follow(user: alice.rawValue), as: bob)
        try await service.run(.like(post: posts[2].id.rawValue), as: bob)
        try await service.run(.reblog(post: posts[0].id.rawValue), as: bob)
        _ = try await service.addComment(by: bob, on: posts[1].id)
        clock.advance(365 * day)  // 2026-02-02
        return (service, clock, alice, bob, posts)
    }

    @Test func askedForReadAndComputedFromTheReadModels() async throws {
        let (service, _, alice, _, posts) = try await Self.network()
        #expect(try service.annualReportState(alice, year: 2025) == .eligible)
        #expect(try service.annualReportState(alice, year: 2024) == .ineligible)
        #expect(try service.annualReportState(alice, year: 2027) == .ineligible)
        #expect(try service.annualReport(alice, year: 2025) == nil)
        await expectError(.notFound) { try await service.run(.readAnnualReport(year: "2025"), as: alice) }
        for refused in ["2024", "2027", "25", "year"] {
            await expectError(.invalidArgument, field: "year") {
                try await service.run(.generateAnnualReport(year: refused), as: alice)
            }
        }
        #expect(try await service.run(.generateAnnualReport(year: "2025"), as: alice) == .changed(true))
        let head = try service.lastSequence()
        #expect(try await service.run(.generateAnnualReport(year: "2025"), as: alice) == .changed(false))
        #expect(try service.lastSequence() == head)
        #expect(try service.annualReportState(alice, year: 2025) == .available)

        let report = try #require(try service.annualReport(alice, year: 2025))
        // January: two posts and carol followed; February: a post, a comment, a boost, and bob.
        #expect(report.months.count == 12 && report.months.map(\.month) == Array(1...12))
        #expect(report.months[0] == AnnualReportMonth(month: 1, statuses: 2, following: 1, followers: 0))
        #expect(report.months[1] == AnnualReportMonth(month: 2, statuses: 3, following: 0, followers: 1))
        #expect(report.months[2...].allSatisfy { $0.statuses == 0 && $0.following == 0 && $0.followers == 0 })
        #expect(report.archetype == .lurker)
        // Boosted most: the first; liked most: the third; commented most: the second.
        #expect(report.mostBoosted == posts[0].id && report.mostLiked == posts[2].id)
        #expect(report.mostCommented == posts[1].id)
        #expect(
            report.hashtags == [AnnualReportHashtag(name: "sea", count: 2), AnnualReportHashtag(name: "sky", count: 2)])
        let unread = try service.unreadAnnualReports(alice)
        #expect(!report.read && unread == [report])
        // Computed when read: a deleted post leaves it.
        try await service.run(.deletePost(post: posts[0].id.rawValue), as: alice)
        let after = try #require(try service.annualReport(alice, year: 2025))
        #expect(after.months[0].statuses == 1 && after.mostBoosted != posts[0].id)
        #expect(after.hashtags == [AnnualReportHashtag(name: "sky", count: 2)])

        #expect(try await service.run(.readAnnualReport(year: "2025"), as: alice) == .changed(true))
        #expect(try await service.run(.readAnnualReport(year: "2025"), as: alice) == .changed(false))
        #expect(try service.unreadAnnualReports(alice).isEmpty)
        #expect(try service.annualReport(alice, year: 2025)?.read == true)
        let rebuilt = try service.rebuild(RebuildOptions(projections: [.profileExtras], verifyOnly: true))
        #expect(rebuilt.differences.isEmpty, "\(rebuilt.differences.prefix(3))")
        // Erasure takes the marks.
        _ = try await service.execute(.eraseUser(user: alice.rawValue), as: .operator)
        let left = try service.read { view in try view.models.profileExtras.annualReports.members(of: alice, view.txn) }
        #expect(left.isEmpty)
    }

    /// The archetypes, by Mastodon's rules.
    @Test func archetypes() {
        #expect(AnnualReportArchetype.of(posts: 50, replies: 10, boosts: 10, polls: 0) == .lurker)
        #expect(AnnualReportArchetype.of(posts: 40, replies: 0, boosts: 81, polls: 0) == .booster)
        #expect(AnnualReportArchetype.of(posts: 100, replies: 20, boosts: 0, polls: 11) == .pollster)
        #expect(AnnualReportArchetype.of(posts: 40, replies: 81, boosts: 0, polls: 0) == .replier)
        #expect(AnnualReportArchetype.of(posts: 200, replies: 10, boosts: 10, polls: 1) == .oracle)
        let lastOf2024 = UTCCalendar.yearMonth(ms: Self.jan2025 - 1)
        #expect(lastOf2024.year == 2024 && lastOf2024.month == 12)
        let leapDay = UTCCalendar.yearMonth(ms: 1_709_164_800_000)  // 2024-02-29
        #expect(leapDay.year == 2024 && leapDay.month == 2)
        #expect(UTCCalendar.yearMonth(ms: Self.feb2025).month == 2 && UTCCalendar.yearMonth(ms: 0).year == 1970)
    }

    /// Mastodon's five operations, in process (the test clock puts it in 2026).
    @Test func overMastodonsAPI() async throws {
        let (service, _, alice, _, posts) = try await Self.network()
        let api = TimelineAPI(service: service, options: TimelineAPI.Options())
        let token = try #require(
            try await service.execute(.signIn(email: "alice@example.com", password: "password-123")).session
        ).token
        func call(_ method: String, _ path: String) async throws -> (status: Int, json: JSONValue?) {
            let response = await api.handle(
                HTTPRequest(method: method, path: path, headers: ["authorization": "Bearer \(token)"]))
            guard case .bytes(let body) = response.body else { return (response.status, nil) }
            return (response.status, try? JSONDecoder().decode(JSONValue.self, from: Data(body)))
        }
        #expect(try await call("GET", "/api/v1/annual_reports/2025/state").json?["state"] == .string("eligible"))
        #expect(try await call("GET", "/api/v1/annual_reports/2024/state").json?["state"] == .string("ineligible"))
        #expect(try await call("GET", "/api/v1/annual_reports/2025").status == 404)
        #expect(try await call("POST", "/api/v1/annual_reports/2025/read").status == 404)
        #expect(try await call("POST", "/api/v1/annual_reports/2024/generate").status == 422)
        #expect(try await call("POST", "/api/v1/annual_reports/2025/generate").status == 200)
        #expect(try await call("GET", "/api/v1/annual_reports/2025/state").json?["state"] == .string("available"))
        let list = try #require(try await call("GET", "/api/v1/annual_reports").json)
        let report = try #require(list["annual_reports"]?.elements.first)
        #expect(report["year"] == .number("2025") && report["schema_version"] == .number("2"), "\(report)")
        let first = try service.numericID(of: .post(posts[0].id)).description
        #expect(report["data"]?["top_statuses"]?["by_reblogs"] == .string(first), "\(report)")
        #expect(report["data"]?["archetype"] == .string("lurker"))
        #expect(report["data"]?["time_series"]?.elements.count == 12)
        #expect(list["statuses"]?.elements.count == 3 && list["accounts"]?.elements.count == 1, "\(list)")
        #expect(
            list["accounts"]?.elements.first?["id"] == .string(try service.numericID(of: .account(alice)).description))
        #expect(try await call("GET", "/api/v1/annual_reports/2025").json?["annual_reports"]?.elements.count == 1)
        #expect(try await call("POST", "/api/v1/annual_reports/2025/read").status == 200)
        #expect(try await call("GET", "/api/v1/annual_reports").json?["annual_reports"]?.elements.isEmpty == true)
        #expect(try await call("GET", "/api/v1/annual_reports/x/state").status == 404)
    }
}
