import Foundation
import Testing

/// "Forgot password?" end to end: a real `timeline serve --smtp-url … --smtp-from …` mailing
/// through libcurl to an SMTP server on loopback (Python's aiosmtpd, Tests/mail/smtp_sink.py).
@Suite(.serialized) struct PasswordResetMailTests {
    /// The SMTP sink, started; its port.
    static func startSink(starttls: String? = nil) async throws -> (ChildProcess, Int) {
        let sink = try ChildProcess(
            ["python3", SchemaTests.root.appendingPathComponent("Tests/mail/smtp_sink.py").path]
                + (starttls.map { ["--starttls", $0] } ?? []),
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        let first = await sink.waitForOutput(within: .seconds(60)) { $0.contains("\n") }
        let port = first?.split(separator: "\n").first.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) }
        guard let port else {
            sink.signal(SIGKILL)
            throw ServerFailed(message: "the SMTP sink did not start: \(sink.standardError)")
        }
        return (sink, port)
    }

    /// The messages the sink was given so far.
    static func mails(_ sink: ChildProcess) -> [[String: Any]] {
        sink.standardOutput.split(separator: "\n").dropFirst().compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// Waits for a mail to `address`: the messages so far once one has come.
    static func waitForMail(to address: String, _ sink: ChildProcess) async throws -> [[String: Any]] {
        let arrived = await sink.waitForOutput(within: .seconds(60)) { $0.contains("\"\(address)\"") }
        try #require(arrived != nil, "no mail to \(address): \(sink.standardOutput)")
        return mails(sink)
    }

    static func mails(to address: String, in mails: [[String: Any]]) -> [String] {
        mails.filter { ($0["to"] as? [String]) == [address] }.compactMap { $0["data"] as? String }
    }

    /// The token of the one link in `mail`.
    static func token(in mail: String) throws -> String {
        let range = try #require(mail.range(of: "/#/reset?token="))
        return String(mail[range.upperBound...].prefix { $0.isHexDigit })
    }

    @Test func forgottenPasswordIsMailedOnceAndResetsIt() async throws {
        let (sink, port) = try await Self.startSink()
        defer { sink.signal(SIGKILL) }
        let database = temporaryPath()
        let arguments = ["--smtp-url", "smtp://127.0.0.1:\(port)", "--smtp-from", "noreply@timeline.test"]
        var token = ""
        try await withServer(database: database, arguments: arguments) { server in
            let alice = try await server.api.signUp("alice")
            _ = try await server.api.signUp("bob")
            _ = try await server.api.signUp("carol")
            // A known email and an unknown one get the same answer.
            let known = try await server.api.send("POST", "/v1/password-resets", json: ["email": "alice@example.com"])
            let unknown = try await server.api.send(
                "POST", "/v1/password-resets", json: ["email": "nobody@example.com"])
            #expect(known.status == 202 && unknown.status == 202, "\(known) \(unknown)")
            #expect(known.body == unknown.body)
            var mails = try await Self.waitForMail(to: "alice@example.com", sink)
            let toAlice = Self.mails(to: "alice@example.com", in: mails)
            try #require(toAlice.count == 1, "\(mails)")
            #expect(toAlice[0].contains("From: Timeline <noreply@timeline.test>"))
            #expect(toAlice[0].contains("Subject: Reset your Timeline password"))
            token = try Self.token(in: toAlice[0])
            #expect(token.count == 64)
            #expect(toAlice[0].contains("http://127.0.0.1:\(server.port)/#/reset?token=\(token)"))

            // A second request within ten minutes: the same answer, and no mail. Bob's mail,
            // asked for after it, arrives only once everything before it in the log was mailed.
            let again = try await server.api.send("POST", "/v1/password-resets", json: ["email": "alice@example.com"])
            #expect(again.status == 202 && again.body == known.body)
            _ = try await server.api.send("POST", "/v1/password-resets", json: ["email": "bob@example.com"])
            mails = try await Self.waitForMail(to: "bob@example.com", sink)
            #expect(Self.mails(to: "alice@example.com", in: mails).count == 1, "\(mails)")
            #expect(Self.mails(to: "nobody@example.com", in: mails).isEmpty)
            #expect(mails.count == 2, "\(mails)")

            // The link's token sets a new password and ends every session.
            #expect(try await server.api.send("GET", "/v1/me", bearer: alice.token).status == 200)
            let reset = try await server.api.send(
                "POST", "/v1/password", json: ["token": token, "password": "a new pass phrase"])
            #expect(reset.status == 204, "\(reset)")
            #expect(try await server.api.send("GET", "/v1/me", bearer: alice.token).status == 401)
            let old = try await server.api.send(
                "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "password-123"])
            #expect(old.status == 401)
            let signIn = try await server.api.send(
                "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "a new pass phrase"])
            #expect(signIn.status == 201, "\(signIn)")
            // A spent token does not work twice.
            let twice = try await server.api.send(
                "POST", "/v1/password", json: ["token": token, "password": "another pass phrase"])
            #expect(twice.status == 401, "\(twice)")
        }
        // After a restart nothing is mailed again: Carol's mail, asked for afterwards, comes
        // after anything the journal would have sent again.
        try await withServer(database: database, arguments: arguments) { server in
            _ = try await server.api.send("POST", "/v1/password-resets", json: ["email": "carol@example.com"])
            let mails = try await Self.waitForMail(to: "carol@example.com", sink)
            #expect(mails.count == 3, "\(mails)")
            #expect(Self.mails(to: "alice@example.com", in: mails).count == 1)
            #expect(Self.mails(to: "bob@example.com", in: mails).count == 1)
        }
        // Neither the token nor an email is anywhere in clear under the database: the log, the
        // read models, the mail journal.
        let files = try FileManager.default.subpathsOfDirectory(atPath: database)
        for file in files {
            guard let data = FileManager.default.contents(atPath: database + "/" + file) else { continue }
            for secret in [token, "alice@example.com", "bob@example.com", "carol@example.com"] {
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(secret) in clear in \(file)")
            }
        }
    }

    @Test func aMailNotYetSentIsDroppedWhenItsUserIsErased() async throws {
        // Nothing listens on this port yet: the mail to Alice waits in the journal, retried.
        let closed = try await Self.startSink()
        let port = closed.1
        closed.0.signal(SIGKILL)
        _ = await closed.0.exitStatus(within: .seconds(10))
        let database = temporaryPath()
        try await withServer(
            database: database, arguments: ["--smtp-url", "smtp://127.0.0.1:\(port)", "--smtp-from", "a@timeline.test"]
        ) { server in
            let alice = try await server.api.signUp("alice")
            _ = try await server.api.signUp("bob")
            let asked = try await server.api.send(
                "POST", "/v1/password-resets", json: ["email": "alice@example.com"])
            #expect(asked.status == 202)
            let erased = try await server.api.send(
                "DELETE", "/v1/me", json: ["password": "password-123"], bearer: alice.token)
            #expect(erased.status == 204, "\(erased)")
        }
        // Restarted with a server that takes mail: Alice's pending mail is dropped (her sealed
        // email no longer opens); Bob's, asked for afterwards, is the only one to arrive.
        let (sink, sinkPort) = try await Self.startSink()
        defer { sink.signal(SIGKILL) }
        try await withServer(
            database: database,
            arguments: ["--smtp-url", "smtp://127.0.0.1:\(sinkPort)", "--smtp-from", "a@timeline.test"]
        ) { server in
            _ = try await server.api.send("POST", "/v1/password-resets", json: ["email": "bob@example.com"])
            let mails = try await Self.waitForMail(to: "bob@example.com", sink)
            #expect(mails.count == 1, "\(mails)")
        }
        for file in try FileManager.default.subpathsOfDirectory(atPath: database) {
            guard let data = FileManager.default.contents(atPath: database + "/" + file) else { continue }
            #expect(data.range(of: Data("alice@example.com".utf8)) == nil, "the email in clear in \(file)")
        }
    }

    /// Tests/browser/test_reset_browser.py: "Forgot password?" in headless Chromium, from the
    /// sign-in screen to the mailed link's page and a new session (see that file).
    @Test(.timeLimit(.minutes(3))) func inARealBrowser() async throws {
        let run = try ChildProcess(
            [
                "python3", SchemaTests.root.appendingPathComponent("Tests/browser/test_reset_browser.py").path,
                "--timeline", try timelineExecutable().path
            ],
            executable: URL(fileURLWithPath: "/usr/bin/env"), directory: SchemaTests.root)
        let status = await run.exitStatus(within: .seconds(170))
        let text = run.standardOutput + run.standardError
        #expect(status == 0, "the reset browser test failed:\n\(text)")
        #expect(text.contains("ok - the link's page sets the new password, signs in, and the old session is refused"))
    }

    @Test func startTLSIsUsedWhenTheServerOffersIt() async throws {
        // The sink offers STARTTLS with a certificate of its own authority, and refuses mail without it.
        let directory = temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (sink, port) = try await Self.startSink(starttls: directory)
        defer { sink.signal(SIGKILL) }
        let arguments = [
            "--smtp-url", "smtp://127.0.0.1:\(port)", "--smtp-from", "noreply@timeline.test", "--smtp-ca-file",
            directory + "/ca.pem"
        ]
        try await withServer(arguments: arguments) { server in
            _ = try await server.api.signUp("alice")
            _ = try await server.api.send("POST", "/v1/password-resets", json: ["email": "alice@example.com"])
            let mails = try await Self.waitForMail(to: "alice@example.com", sink)
            #expect(mails.count == 1 && mails[0]["tls"] as? Bool == true, "\(mails)")
        }
    }

    @Test func withoutSMTPTheAnswerIsTheSame() async throws {
        try await withServer { server in
            _ = try await server.api.signUp("alice")
            let known = try await server.api.send("POST", "/v1/password-resets", json: ["email": "alice@example.com"])
            let unknown = try await server.api.send("POST", "/v1/password-resets", json: ["email": "x@example.com"])
            #expect(known.status == 202 && unknown.status == 202 && known.body == unknown.body)
            let bad = try await server.api.send("POST", "/v1/password-resets", json: ["email": "not an email"])
            #expect(bad.status == 400, "\(bad)")
        }
    }
}
