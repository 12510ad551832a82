import Foundation
import Testing
@testable import Timeline

/// The instance's texts, rules and announcements: set by the operator with `timeline instance`
/// and `timeline announcements` (processes beside a running `timeline serve`), recorded as
/// events, and answered by the Mastodon API (read by Mastodon.py, Tests/mastodon/test_instance_py.py).
@Suite struct MastodonInstanceTests {
    /// Runs the `timeline` tool with `arguments`; its exit status and output.
    func tool(_ arguments: [String]) async throws -> (status: Int32?, output: String) {
        let run = try ChildProcess(arguments)
        let status = await run.exitStatus(within: .seconds(60))
        return (status, run.standardOutput + run.standardError)
    }

    /// The id a `--json` add answered.
    func createdID(_ output: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return try #require(object?["id"] as? String, "\(output)")
    }

    @Test(.timeLimit(.minutes(3))) func instanceTextsAndRulesFromTheCommandLine() async throws {
        try await withServer { server in
            let api = server.api, db = server.database
            let alice = try await api.signUp("alice")
            // Nothing set: no policy nor terms (not found, as a Mastodon server without them), no rules.
            #expect(try await api.get("/api/v1/instance/privacy_policy").status == 404)
            #expect(try await api.get("/api/v1/instance/terms_of_service").status == 404)
            #expect(try await api.get("/api/v1/instance/rules").text == "[]")
            #expect(try await api.get("/api/v1/instance/extended_description").json["content"] as? String == "")
            #expect(try await api.get("/api/v2/instance").json["title"] as? String == "Timeline")

            let policy = temporaryPath()
            try "<b>We</b> keep little.\n\nNothing is sold.\n".write(toFile: policy, atomically: true, encoding: .utf8)
            #expect(try await tool(["instance", "--db", db, "set", "title", "Sea photos"]).status == 0)
            #expect(try await tool(["instance", "--db", db, "set", "privacy-policy", "--file", policy]).status == 0)
            #expect(try await tool(["instance", "--db", db, "set", "terms-of-service", "Be nice."]).status == 0)
            #expect(try await tool(["instance", "--db", db, "set", "contact-email", "admin@example.com"]).status == 0)
            let kind = try await tool(["instance", "--db", db, "rules", "add", "Be kind", "--hint", "Always", "--json"])
            let spam = try await tool(["instance", "--db", db, "rules", "add", "No spam", "--json"])
            let (kindID, spamID) = (try createdID(kind.output), try createdID(spam.output))
            #expect(try await tool(["instance", "--db", db, "rules", "remove", kindID]).status == 0)
            // What the tool refuses, it refuses with a typed error and a failing status.
            let unknownField = try await tool(["instance", "--db", db, "set", "motto", "x"])
            #expect(unknownField.status == 2, "\(unknownField.output)")
            let gone = try await tool(["instance", "--db", db, "rules", "remove", kindID])
            #expect(gone.status == 1 && gone.output.contains("not_found"), "\(gone.output)")
            // Only the operator sets them: a user's command is refused.
            let asAlice = try await execLines(
                database: db, [["command": "setInstanceText", "field": "title", "text": "Mine", "as": alice.id]])
            #expect((asAlice.first?["error"] as? [String: Any])?["code"] as? String == "forbidden", "\(asAlice)")

            let spamNumber = try await server.mastodonID("rule", spamID)
            let rules = try await api.get("/api/v1/instance/rules")
            let list = try #require(try JSONSerialization.jsonObject(with: rules.body) as? [[String: Any]])
            #expect(list.map { $0["id"] as? String } == [spamNumber] && list.first?["text"] as? String == "No spam")
            #expect(list.first?["hint"] as? String == "")
            for path in ["/api/v1/instance", "/api/v2/instance"] {
                let instance = try await api.get(path).json
                #expect(instance["title"] as? String == "Sea photos", "\(path)")
                #expect((instance["rules"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [spamNumber])
            }
            #expect(
                (try await api.get("/api/v2/instance").json["contact"] as? [String: Any])?["email"] as? String
                    == "admin@example.com")
            let privacy = try await api.get("/api/v1/instance/privacy_policy")
            #expect(
                privacy.json["content"] as? String
                    == "<p>&lt;b&gt;We&lt;/b&gt; keep little.</p>\n<p>Nothing is sold.</p>",
                "\(privacy)")
            let terms = try await api.get("/api/v1/instance/terms_of_service").json
            #expect(terms["content"] as? String == "<p>Be nice.</p>" && terms["effective"] as? Bool == true)
            #expect((terms["effective_date"] as? String)?.count == 10)
            // Taken away: not found again.
            #expect(try await tool(["instance", "--db", db, "set", "terms-of-service", ""]).status == 0)
            #expect(try await api.get("/api/v1/instance/terms_of_service").status == 404)
            #expect(try await api.get("/api/v1/instance/peers").text == "[]")
            #expect(try await api.get("/api/v1/instance/translation_languages").text == "{}")

            let shown = try await tool(["instance", "--db", db, "show", "--json"])
            let texts = try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any]
            #expect(texts?["title"] as? String == "Sea photos" && texts?["terms-of-service"] == nil, "\(shown.output)")
            // Every change is an event of the log.
            let audit = try await tool(["audit", "list", "--db", db, "--json"])
            for type in ["InstanceTextSet", "InstanceRuleAdded", "InstanceRuleRemoved"] {
                #expect(audit.output.contains("\"\(type)\""), "\(type) in the audit")
            }
        }
    }

    /// Each day the terms changed keeps its version (the last set that day), which
    /// `termsOfService(on:)` and `GET /api/v1/instance/terms_of_service/{date}` answer with the
    /// day the next took effect; any other day is not found.
    @Test func everyVersionOfTheTermsByItsDay() async throws {
        let day = 86_400_000 as Int64
        let clock = TestClock(10 * day + 1000)
        let service = try openService(clock: clock)
        func set(_ text: String) async throws {
            _ = try await service.execute(.setInstanceText(field: "termsOfService", text: text), as: .operator)
        }
        #expect(try service.termsOfService() == nil)
        try await set("First.")
        try await set("First, mended.")
        clock.advance(2 * day - 1000)
        try await set("Second.")
        let first = try #require(try service.termsOfService(on: "1970-01-11"))
        #expect(
            first
                == TermsOfServiceVersion(effectiveDate: "1970-01-11", text: "First, mended.", succeededBy: "1970-01-13")
        )
        #expect(try service.termsOfService(on: "1970-01-12") == nil)
        #expect(try service.termsOfService(on: "not a day") == nil)
        let now = try #require(try service.termsOfService())
        #expect(now == TermsOfServiceVersion(effectiveDate: "1970-01-13", text: "Second.", succeededBy: nil))
        #expect(try service.termsOfService(on: "1970-01-13") == now)
        // Cleared: none in effect now, the history stays.
        clock.advance(2 * day)
        try await set("")
        #expect(try service.termsOfService() == nil)
        #expect(try service.termsOfService(on: "1970-01-11")?.succeededBy == "1970-01-13")
        #expect(try service.rebuild(RebuildOptions(projections: [.instance], verifyOnly: true)).differences.isEmpty)

        try await withServer { server in
            let api = server.api
            #expect(
                try await tool(["instance", "--db", server.database, "set", "terms-of-service", "Be nice."]).status == 0
            )
            let current = try await api.get("/api/v1/instance/terms_of_service").json
            let date = try #require(current["effective_date"] as? String)
            let dated = try await api.get("/api/v1/instance/terms_of_service/\(date)")
            #expect(dated.status == 200 && dated.json["content"] as? String == "<p>Be nice.</p>", "\(dated)")
            #expect(dated.json["succeeded_by"] is NSNull && dated.json["effective_date"] as? String == date)
            #expect(try await api.get("/api/v1/instance/terms_of_service/1999-01-01").status == 404)
            #expect(try await api.get("/api/v1/instance/terms_of_service/yesterday").status == 404)
        }
    }

    /// Weekly activity counts posts, sign-ups and the users who signed in, each once a week.
    @Test(.timeLimit(.minutes(3))) func activityCountsTheWeeksEvents() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            _ = try await api.signUp("bob")
            _ = try await api.addPost(alice.token, caption: "one")
            _ = try await api.addPost(alice.token, caption: "two", image: 1)
            func thisWeek() async throws -> [String: Any] {
                let reply = try await api.get("/api/v1/instance/activity")
                let weeks = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]])
                try #require(weeks.count == 12, "\(reply)")
                let starts = weeks.compactMap { ($0["week"] as? String).flatMap(Int64.init) }
                #expect(zip(starts, starts.dropFirst()).allSatisfy { $0 - $1 == 7 * 86_400 }, "weeks, newest first")
                let now = Int64(Date().timeIntervalSince1970)
                #expect(starts[0] <= now && now - starts[0] < 7 * 86_400)
                // A Monday, 00:00 UTC.
                #expect(
                    Calendar(identifier: .gregorian).dateComponents(
                        in: TimeZone(identifier: "UTC")!, from: Date(timeIntervalSince1970: Double(starts[0]))
                    ).weekday == 2)
                return weeks[0]
            }
            let before = try await thisWeek()
            #expect(before["statuses"] as? String == "2" && before["registrations"] as? String == "2", "\(before)")
            // Signing up signs in: alice and bob.
            #expect(before["logins"] as? String == "2", "\(before)")
            // Alice signs in twice more: still one of this week's logins; carol's sign-up is a new one.
            for _ in 0..<2 {
                let reply = try await api.send(
                    "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "password-123"])
                #expect(reply.status == 201 || reply.status == 200, "\(reply)")
            }
            _ = try await api.signUp("carol")
            let after = try await thisWeek()
            #expect(after["registrations"] as? String == "3")
            #expect(after["logins"] as? String == "3", "\(after)")
        }
    }

    @Test(.timeLimit(.minutes(3))) func announcementsFromTheCommandLineReadByMastodonPy() async throws {
        try await withServer { server in
            let api = server.api, db = server.database
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            _ = try await api.addPost(alice.token, caption: "hello")
            #expect(try await tool(["instance", "--db", db, "set", "extended-description", "About us."]).status == 0)
            let rule = try createdID(
                try await tool(["instance", "--db", db, "rules", "add", "No spam", "--hint", "Ads count", "--json"])
                    .output)
            let current = try createdID(
                try await tool(["announcements", "--db", db, "add", "Maintenance tonight", "--json"]).output)
            let ended = try createdID(
                try await tool([
                    "announcements", "--db", db, "add", "Long ago", "--starts", "2020-01-01", "--ends", "2020-01-02",
                    "--json"
                ]).output)
            let allDay = try createdID(
                try await tool([
                    "announcements", "--db", db, "add", "Party", "--starts", "2026-01-01", "--ends", "2099-12-25",
                    "--all-day", "--json"
                ]).output)
            let numbers = (
                rule: try await server.mastodonID("rule", rule),
                announcements: try await server.mastodonIDs("announcement", [current, ended, allDay])
            )
            // A start without an end is refused, as Mastodon refuses it.
            let half = try await tool(["announcements", "--db", db, "add", "Half", "--starts", "2026-01-01"])
            #expect(half.status == 1 && half.output.contains("endsAt"), "\(half.output)")
            #expect(try await api.get("/api/v1/announcements").status == 401)

            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_instance_py.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token, numbers.rule
                ] + numbers.announcements,
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - Mastodon.py reads the instance and its announcements"), "\(text)")

            // The operator's list shows the ended one too; removing one takes it from everyone.
            let listed = try await tool(["announcements", "--db", db, "list"])
            #expect(listed.output.contains("(ended)") && listed.output.contains("🎉 1"), "\(listed.output)")
            #expect(try await tool(["announcements", "--db", db, "remove", current]).status == 0)
            let after = try await api.get("/api/v1/announcements", bearer: alice.token)
            let ids = (try JSONSerialization.jsonObject(with: after.body) as? [[String: Any]])?.compactMap {
                $0["id"] as? String
            }
            #expect(ids == [numbers.announcements[2]], "\(after)")
            let reaction = try await api.send(
                "PUT", "/api/v1/announcements/\(numbers.announcements[0])/reactions/%F0%9F%91%8D", bearer: bob.token)
            #expect(reaction.status == 404, "\(reaction)")
            let audit = try await tool(["audit", "list", "--db", db, "--json"])
            for type in [
                "AnnouncementAdded", "AnnouncementRemoved", "AnnouncementDismissed", "AnnouncementReactionAdded",
                "AnnouncementReactionRemoved"
            ] {
                #expect(audit.output.contains("\"\(type)\""), "\(type) in the audit")
            }
        }
    }
}
