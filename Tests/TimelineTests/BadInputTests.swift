import Foundation
import Synchronization
import Sodium
import Testing
@testable import Timeline
import TimelineDomain

/// Bad input at the exec contract and the library: each a clear error, nothing appended,
/// nothing lost.
@Suite struct BadInputTests {
    /// Answers one line through the exec contract, parsed.
    func answer(_ session: ExecSession, _ line: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> [String: Any]
    {
        let text = await session.handle(line: line)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], sourceLocation: sourceLocation)
    }

    func error(_ response: [String: Any]) -> (code: String?, field: String?) {
        let error = response["error"] as? [String: Any]
        return (error?["code"] as? String, error?["field"] as? String)
    }

    @Test func asBesideASessionIsRefused() async throws {
        let service = try openService()
        let session = ExecSession(service: service)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let token = try #require(
            try await service.execute(.signIn(email: "bob@example.com", password: "password-123")).session
        ).token
        let before = try service.lastSequence()
        let both = try await answer(
            session, #"{"command":"updateProfile","session":"\#(token)","as":"\#(alice.id)","bio":"taken over"}"#)
        #expect(error(both).code == "invalid_argument" && error(both).field == "as", "\(both)")
        #expect(try service.lastSequence() == before)
        #expect(try service.user(alice.id).bio == nil)
        // Each alone still acts.
        let bySession = try await answer(session, #"{"command":"updateProfile","session":"\#(token)","bio":"mine"}"#)
        #expect((bySession["result"] as? [String: Any])?["id"] as? String == bob.id.rawValue)
        let byAs = try await answer(session, #"{"command":"updateProfile","as":"\#(alice.id)","bio":"hers"}"#)
        #expect((byAs["result"] as? [String: Any])?["bio"] as? String == "hers")
    }

    @Test func anEmptySearchPrefixIsTheWholeList() async throws {
        let service = try openService()
        for name in ["carol", "alice", "bob"] { _ = try await service.createUser(name) }
        let all = try service.all(limit: 2) { try service.searchUsers(prefix: "", $0) }.map(\.username)
        #expect(all == ["alice", "bob", "carol"])
        let response = try await answer(
            ExecSession(service: service), #"{"query":"searchUsers","prefix":"","limit":2}"#)
        #expect(
            ((response["result"] as? [String: Any])?["items"] as? [[String: Any]])?.compactMap {
                $0["username"] as? String
            } == ["alice", "bob"])
    }

    @Test func invalidUTF8IsRefusedNotRepaired() async throws {
        let service = try openService()
        let session = ExecSession(service: service)
        let alice = try await service.createUser("alice")
        let before = try service.lastSequence()
        var line = Array(#"{"command":"updateProfile","as":"\#(alice.id)","bio":"ab"#.utf8)
        line += [0xFF, 0xFE] + Array(#"cd"}"#.utf8)
        let refused = try #require(
            try JSONSerialization.jsonObject(with: Data((await session.handle(bytes: line)).utf8)) as? [String: Any])
        #expect(error(refused).code == "invalid_argument", "\(refused)")
        // An overlong encoding and an encoded surrogate are not UTF-8 either.
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80]] {
            let text = await session.handle(
                bytes: Array(#"{"command":"updateProfile","as":"\#(alice.id)","bio":""#.utf8) + bad + Array(#""}"#.utf8)
            )
            #expect(text.contains("invalid_argument"), "\(text)")
        }
        #expect(try service.lastSequence() == before)
        #expect(try service.user(alice.id).bio == nil)
    }

    /// The real executable reads bytes: nothing on the way repairs them into U+FFFD.
    @Test func theExecutableRefusesInvalidUTF8() throws {
        let path = temporaryPath()
        var input = Array(
            #"{"id":"c1","command":"createUser","username":"zoe","email":"zoe@example.com","password":"password-1","bio":"ab"#
                .utf8)
        input += [0xFF, 0xFE] + Array("cd\"}\n".utf8)
        let answers = try execAnswers(path: path, input: input)
        #expect(answers.count == 1)
        #expect(error(answers[0]).code == "invalid_argument", "\(answers)")
        #expect(try openService(path: path).lastSequence() == 0)
    }

    @Test func unknownFieldsAreRefusedByName() async throws {
        let service = try openService()
        let session = ExecSession(service: service)
        let alice = try await service.createUser("alice")
        for index in 0..<3 { _ = try await service.addPost(by: alice.id, image: index) }
        let before = try service.lastSequence()
        let cases: [(String, String)] = [
            (#"{"query":"posts","user":"\#(alice.id)","limt":2}"#, "limt"),
            (
                #"{"command":"addPost","as":"\#(alice.id)","image":"\#(gifBase64(9))","caption":"c","location":"Oslo"}"#,
                "location"
            ),
            (
                #"{"command":"createUser","username":"bob","email":"b@example.com","password":"password-1","avatar":"x"}"#,
                "avatar"
            ),
            (#"{"query":"user","user":"\#(alice.id)","as":"\#(alice.id)"}"#, "as"),
            (#"{"command":"like","as":"\#(alice.id)","post":"x","query":"users"}"#, "query"),
            (#"{"query":"users","b":1,"a":2}"#, "a")
        ]
        for (line, field) in cases {
            let response = try await answer(session, line)
            #expect(
                error(response).code == "invalid_argument" && error(response).field == field, "\(line): \(response)")
        }
        #expect(try service.lastSequence() == before)
        // Every field a command or query takes is still known.
        let ok = try await answer(
            session,
            #"{"id":"q","query":"post","post":"\#(try service.posts(by: alice.id).items[0].id)","viewer":"\#(alice.id)","limit":5,"before":null}"#
        )
        #expect(ok["ok"] as? Bool == true, "\(ok)")
    }

    @Test func anEmptyCursorIsRefusedAndHashtagQueriesAreNormalised() async throws {
        let service = try openService()
        let session = ExecSession(service: service)
        let alice = try await service.createUser("alice")
        let post = try await service.addPost(by: alice.id, caption: "evening #séa")
        for query in [
            #"{"query":"users","before":""}"#, #"{"query":"posts","user":"\#(alice.id)","before":""}"#,
            #"{"query":"searchUsers","prefix":"a","before":""}"#
        ] {
            let response = try await answer(session, query)
            #expect(
                error(response).code == "invalid_argument" && error(response).field == "before", "\(query): \(response)"
            )
        }
        await expectError(.invalidArgument, field: "before") {
            _ = try service.timeline(of: alice.id, PageRequest(before: ""))
        }
        for tag in ["se\u{301}a", "#SÉA", "S\u{45}\u{301}A"] {
            #expect(try service.hashtag(tag).items.map(\.id) == [post.id], "\(tag.unicodeScalars.map(\.value))")
        }
    }

    @Test func passwordsAreHashedOnlyForCommandsThatCanSucceed() async throws {
        let hashes = Mutex(0)
        let service = try openService { options in
            options.hashPassword = { password, cost in
                hashes.withLock { $0 += 1 }
                return Sodium.hashPassword(password, cost: cost)
            }
        }
        let alice = try await service.createUser("alice")
        #expect(hashes.withLock { $0 } == 1)
        let refused: [(Command, TimelineError.Code)] = [
            (
                .createUser(username: "no spaces", email: "n@example.com", password: "password-1", bio: nil, url: nil),
                .invalidArgument
            ),
            (
                .createUser(username: "newuser", email: "not an email", password: "password-1", bio: nil, url: nil),
                .invalidArgument
            ),
            (
                .createUser(username: "ALICE", email: "n@example.com", password: "password-1", bio: nil, url: nil),
                .usernameTaken
            ),
            (
                .createUser(
                    username: "newuser", email: "alice@example.com", password: "password-1", bio: nil, url: nil),
                .emailTaken
            ),
            (
                .createUser(username: "newuser", email: "n@example.com", password: "short", bio: nil, url: nil),
                .invalidArgument
            ),
            (
                .createUser(
                    username: "newuser", email: "n@example.com", password: "password-1", bio: "bell\u{7}", url: nil),
                .invalidArgument
            ),
            (
                .createUser(
                    username: "newuser", email: "n@example.com", password: "password-1", bio: nil, url: "ftp://x.org"),
                .invalidArgument
            ),
            (.resetPassword(token: "no such token", password: "password-2", email: nil), .unauthenticated)
        ]
        for (command, code) in refused {
            await expectError(code) { _ = try await service.execute(command) }
        }
        _ = try await service.createUser("bob")
        let token = try #require(
            try await service.execute(.requestPasswordReset(user: alice.id.rawValue), as: .operator).token)
        await expectError(.emailTaken, field: "email") {
            _ = try await service.execute(
                .resetPassword(token: token, password: "password-2", email: "bob@example.com"))
        }
        await expectError(.invalidArgument, field: "email") {
            _ = try await service.execute(.resetPassword(token: token, password: "password-2", email: "nope"))
        }
        #expect(hashes.withLock { $0 } == 2, "only the two users that were created had their password hashed")
        _ = try await service.execute(.resetPassword(token: token, password: "password-2", email: nil))
        #expect(hashes.withLock { $0 } == 3)
    }

    @Test func failedSignInsAppendABoundedTrail() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        _ = try await service.createUser("alice")
        let start = try service.lastSequence()
        func failedSignIns() throws -> Int {
            try service.events(from: start + 1, limit: 1000).filter { $0.type == .signInFailed }.count
        }
        for _ in 0..<50 {
            _ = try? await service.execute(.signIn(email: "alice@example.com", password: "wrong-password"))
        }
        #expect(try failedSignIns() == SignInPolicy.maxFailures)
        await expectError(.rateLimited, field: "email") {
            _ = try await service.execute(.signIn(email: "alice@example.com", password: "password-123"))
        }
        // Addresses no account can have leave no trail at all (each would be a new key).
        let before = try service.lastSequence()
        for index in 0..<50 {
            await expectError(.invalidCredentials) {
                _ = try await service.execute(.signIn(email: "not an address \(index)", password: "wrong-password"))
            }
        }
        #expect(try service.lastSequence() == before)
        // The next window allows the next few, again bounded.
        clock.advance(SignInPolicy.window + 1)
        for _ in 0..<50 {
            _ = try? await service.execute(.signIn(email: "alice@example.com", password: "wrong-password"))
        }
        #expect(try failedSignIns() == 2 * SignInPolicy.maxFailures)
    }

    @Test func theLineReaderKeepsAtMostTheLimit() throws {
        let pipe = Pipe()
        try pipe.fileHandleForWriting.write(
            contentsOf: Data("short\r\n\nexactly8\nnine bytes\n123456789012345678901234\nlast".utf8))
        try pipe.fileHandleForWriting.close()
        var reader = LineReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, limit: 8, chunkSize: 3)
        var lines: [LineReader.Line] = []
        while let line = reader.next() { lines.append(line) }
        #expect(
            lines == [
                .line(Array("short".utf8)), .line([]), .line(Array("exactly8".utf8)), .tooLong, .tooLong,
                .line(Array("last".utf8))
            ])
    }

    /// The real executable stops reading a line at the limit: a line far longer than it is
    /// answered `payload_too_large` without being held in memory, and the next line runs.
    @Test func anOverlongLineIsNotReadIntoMemory() throws {
        let limit = ExecSession.maxLineBytes
        let tool = try ToolProcess(["exec", "--db", temporaryPath()])
        let writer = tool.input.fileHandleForWriting
        let hugeLine = limit * 12  // 192 MiB
        Thread {
            let chunk = Data(repeating: 0x78, count: 1 << 20)
            try? writer.write(contentsOf: Data(#"{"id":"big","command":"addPost","caption":""#.utf8))
            for _ in 0..<(hugeLine >> 20) { try? writer.write(contentsOf: chunk) }
            try? writer.write(contentsOf: Data("\"}\n".utf8))
            try? writer.write(contentsOf: Data(#"{"id":"after","query":"users"}"#.utf8 + [0x0A]))
        }.start()
        let output = waitForOutput(tool.output, containing: #""id":"after""#)
        // Still running (stdin is open): its peak resident size so far.
        let status = try String(contentsOfFile: "/proc/\(tool.process.processIdentifier)/status", encoding: .utf8)
        let peakKiB = try #require(
            status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
                .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) })
        try writer.close()
        tool.process.waitUntilExit()
        #expect(tool.process.terminationStatus == 0)
        let answers = output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(answers.count == 2)
        #expect(error(answers[0]).code == "payload_too_large", "\(answers)")
        #expect(answers.last?["id"] as? String == "after" && answers.last?["ok"] as? Bool == true)
        #expect(peakKiB * 1024 < hugeLine / 2, "peak resident size \(peakKiB) KiB for a \(hugeLine >> 20) MiB line")
    }
}

/// Runs the real `timeline exec` on `input` (expecting exit 0) and returns its output lines.
func execOutputLines(path: String, input: [UInt8]) throws -> [Substring] {
    let tool = try ToolProcess(["exec", "--db", path])
    let writer = tool.input.fileHandleForWriting
    let bytes = Data(input)
    Thread {
        try? writer.write(contentsOf: bytes)
        try? writer.close()
    }.start()
    let output = tool.output.fileHandleForReading.readDataToEndOfFile()
    tool.process.waitUntilExit()
    #expect(tool.process.terminationStatus == 0)
    return String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
}

/// Runs the real `timeline exec` on `input` and returns its answers, parsed.
func execAnswers(path: String, input: [UInt8]) throws -> [[String: Any]] {
    try execOutputLines(path: path, input: input).compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
}
