import Foundation
import Testing

/// Annual reports over `/v1` against a real `timeline serve` (this year, by the system clock):
/// the state, asking for the report, its figures, marking it read; another user's report is
/// never answered; a bad year is refused. The web app's "Your year" screen is
/// Tests/browser/test_annual_report.py (`WebAppTests`).
@Suite struct AnnualReportHTTPTests {
    @Test func stateGenerateFiguresAndRead() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
                .year!
            let first = try await api.addPost(alice.token, caption: "#sea one", image: 1)
            _ = try await api.addPost(alice.token, caption: "#sea two", image: 2)
            #expect(try await api.send("PUT", "/v1/me/following/\(alice.id)", bearer: bob.token).status < 300)
            #expect(try await api.send("PUT", "/v1/posts/\(first)/like", bearer: bob.token).status < 300)

            let before = try await api.get("/v1/me/annual-reports/\(year)", bearer: alice.token)
            #expect(before.status == 200, "\(before)")
            #expect(before.json["year"] as? Int == year && before.json["state"] as? String == "eligible")
            #expect(before.json["report"] is NSNull, "\(before)")
            let old = try await api.get("/v1/me/annual-reports/\(year - 1)", bearer: alice.token)
            #expect(old.json["state"] as? String == "ineligible", "\(old)")
            #expect(try await api.send("POST", "/v1/me/annual-reports/\(year)/read", bearer: alice.token).status == 404)
            let refused = try await api.send("POST", "/v1/me/annual-reports/\(year - 1)/generate", bearer: alice.token)
            #expect(refused.status == 400 && refused.errorField == "year", "\(refused)")
            let bad = try await api.get("/v1/me/annual-reports/20x5", bearer: alice.token)
            #expect(bad.status == 400, "\(bad)")
            #expect(try await api.get("/v1/me/annual-reports/\(year)").status == 401)

            let made = try await api.send("POST", "/v1/me/annual-reports/\(year)/generate", bearer: alice.token)
            #expect(made.status == 200 && made.json["changed"] as? Bool == true, "\(made)")
            let again = try await api.send("POST", "/v1/me/annual-reports/\(year)/generate", bearer: alice.token)
            #expect(again.json["changed"] as? Bool == false, "\(again)")
            let answer = try await api.get("/v1/me/annual-reports/\(year)", bearer: alice.token)
            #expect(answer.json["state"] as? String == "available", "\(answer)")
            let report = try #require(answer.json["report"] as? [String: Any], "\(answer)")
            #expect(report["archetype"] as? String == "lurker" && report["read"] as? Bool == false, "\(report)")
            #expect(report["mostLiked"] as? String == first || report["mostBoosted"] as? String == first, "\(report)")
            let months = try #require(report["months"] as? [[String: Any]])
            #expect(months.count == 12)
            #expect(months.reduce(0) { $0 + ($1["statuses"] as? Int ?? 0) } == 2, "\(months)")
            #expect(months.reduce(0) { $0 + ($1["followers"] as? Int ?? 0) } == 1, "\(months)")
            let tags = try #require(report["hashtags"] as? [[String: Any]])
            #expect(tags.count == 1 && tags[0]["name"] as? String == "sea" && tags[0]["count"] as? Int == 2)

            // Bob's year is his own: he has not asked for it.
            let bobs = try await api.get("/v1/me/annual-reports/\(year)", bearer: bob.token)
            #expect(bobs.json["state"] as? String == "eligible" && bobs.json["report"] is NSNull, "\(bobs)")

            let read = try await api.send("POST", "/v1/me/annual-reports/\(year)/read", bearer: alice.token)
            #expect(read.status == 200 && read.json["changed"] as? Bool == true, "\(read)")
            let after = try await api.get("/v1/me/annual-reports/\(year)", bearer: alice.token)
            #expect((after.json["report"] as? [String: Any])?["read"] as? Bool == true, "\(after)")
        }
    }
}
