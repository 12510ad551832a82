import Foundation
import Testing
@testable import Timeline

/// Random, mutated and classic bad input: never a crash or a hang, every line answered, the
/// log still verifies.
@Suite struct HostileInputTests {
    static var cases: Int { ProcessInfo.processInfo.environment["TIMELINE_LONG_TESTS"] == nil ? 3_000 : 30_000 }
    static let codes = Set(TimelineError.Code.allCases.map(\.rawValue))

    /// Parses a response line and checks its shape.
    func checkResponse(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            Issue.record("unparsable response \(line.prefix(200))", sourceLocation: sourceLocation)
            return nil
        }
        if object["ok"] as? Bool == false {
            let code = (object["error"] as? [String: Any])?["code"] as? String ?? ""
            #expect(Self.codes.contains(code), "unknown code in \(line.prefix(200))", sourceLocation: sourceLocation)
        } else {
            #expect(object["ok"] as? Bool == true, sourceLocation: sourceLocation)
        }
        return object
    }

    @Test(.timeLimit(.minutes(5)))
    func fuzzedLinesAreAllAnswered() async throws {
        let service = try openService()
        let session = ExecSession(service: service)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let post = try await service.addPost(by: alice.id, caption: "#seed")
        let seeds: [String] = [
            #"{"id":"1","command":"createUser","username":"fuzz","email":"f@example.com","password":"password-1"}"#,
            #"{"command":"addPost","as":"\#(alice.id)","image":"\#(gifBase64(3))","caption":"hi #sea"}"#,
            #"{"command":"follow","as":"\#(bob.id)","user":"\#(alice.id)"}"#,
            #"{"command":"addComment","as":"\#(bob.id)","post":"\#(post.id)","text":"nice"}"#,
            #"{"command":"like","as":"\#(bob.id)","post":"\#(post.id)"}"#,
            #"{"command":"updateProfile","as":"\#(bob.id)","bio":"b","url":"https://x.org"}"#,
            #"{"query":"timeline","user":"\#(bob.id)","limit":5}"#,
            #"{"query":"post","post":"\#(post.id)","viewer":"\#(bob.id)"}"#,
            #"{"query":"searchUsers","prefix":"a"}"#,
            #"{"command":"signIn","email":"alice@example.com","password":"password-123"}"#
        ]
        let junk: [String] = [
            "null", "true", "-1e309", "\"\\u0000\"", "[]", "{}", "\"\\ud800\"", "1e400",
            String(repeating: "9", count: 400),
            "\"" + String(repeating: "x", count: 5_000) + "\"", "\"\u{202E}\"", "\"ａｌｉｃｅ\""
        ]
        var rng = SeededRandom(seed: 1234)
        for index in 0..<Self.cases {
            var line = Array(seeds[index % seeds.count].utf8)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0:  // flip random bytes
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    line[Int.random(in: 0..<line.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            case 1:  // truncate
                line = Array(line.prefix(Int.random(in: 0..<line.count, using: &rng)))
            case 2:  // replace a value with junk
                if let colon = line.indices.filter({ line[$0] == 0x3A }).randomElement(using: &rng),
                    let end = line[colon...].firstIndex(where: { $0 == 0x2C || $0 == 0x7D })
                {
                    line.replaceSubrange((colon + 1)..<end, with: Array(junk.randomElement(using: &rng)!.utf8))
                }
            case 3:  // insert random bytes
                let at = Int.random(in: 0...line.count, using: &rng)
                line.insert(
                    contentsOf: (0..<Int.random(in: 1...8, using: &rng)).map { _ in
                        UInt8.random(in: 0...255, using: &rng)
                    }, at: at)
            case 4:  // pure noise
                line = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            default:  // duplicate a key
                line = Array((String(decoding: line, as: UTF8.self).dropLast() + #","as":"\#(bob.id)"}"#).utf8)
            }
            let text = String(decoding: line.filter { $0 != 0x0A }, as: UTF8.self)
            _ = checkResponse(await session.handle(line: text))
        }
        #expect(try service.verifyLog().isValid)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    /// The real executable: raw random and mutated bytes on stdin, one answer per line, exit 0.
    @Test func theExecutableAnswersEveryFuzzedLine() throws {
        var rng = SeededRandom(seed: 77)
        let valid = Array(
            #"{"id":"x","command":"createUser","username":"fz","email":"fz@example.com","password":"password-1"}"#.utf8)
        var input: [UInt8] = []
        let lines = Self.cases / 6
        for _ in 0..<lines {
            var line =
                Bool.random(using: &rng)
                ? valid : (0..<Int.random(in: 0...120, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for _ in 0..<Int.random(in: 0...3, using: &rng) where !line.isEmpty {
                line[Int.random(in: 0..<line.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            input += line.filter { $0 != 0x0A } + [0x0A]
        }
        let path = temporaryPath()
        let answers = try execOutputLines(path: path, input: input)
        #expect(answers.count == lines, "every line gets exactly one answer")
        #expect(answers.allSatisfy { checkResponse(String($0)) != nil })
        #expect(try openService(path: path).verifyLog().isValid)
    }

    @Test func randomBytesNeverCrashTheDecoders() throws {
        var rng = SeededRandom(seed: 99)
        let keys = try KeyStore(backend: FileKeyBackend(directory: URL(fileURLWithPath: temporaryPath())))
        var envelope = EventEnvelope(
            sequence: 7, id: EventID("-NjEtLV-KuqujN23jOmK"), type: .postAdded,
            schemaVersion: EventType.postAdded.currentVersion, stream: "post-x", streamVersion: 1,
            timestamp: 1, actor: "a", correlationId: nil, causationId: "c",
            event: .postAdded(
                PostAdded(
                    postId: PostID("p"), authorId: UserID("a"), imageId: ImageID("i"), caption: "c", hashtags: ["t"])),
            previousHash: [], hash: [])
        envelope.encodedPayload = try PayloadCodec.encode(envelope.event, keys: keys)
        let valid = EnvelopeCodec.body(of: envelope) + [UInt8](repeating: 1, count: 64)
        #expect(try EnvelopeCodec.decode(valid, keys: keys).sequence == 7)
        for _ in 0..<Self.cases * 3 {
            var bytes: [UInt8]
            if Bool.random(using: &rng) {
                bytes = valid
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                if Bool.random(using: &rng) {
                    bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
                }
            } else {
                bytes = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
            _ = try? EnvelopeCodec.decode(bytes, keys: keys)
            for type in EventType.allCases {
                for version in 1...type.currentVersion {
                    _ = try? PayloadCodec.decode(type: type, version: version, bytes, keys: keys)
                }
            }
            _ = try? RecordCodec.user(bytes)
            _ = try? StoredPost(decoding: bytes)
            _ = try? RecordCodec.comment(bytes)
            _ = try? ActivityRecord(bytes)
            _ = MediaType.sniff(bytes)
            _ = try? ImageUpload(bytes: bytes)
        }
    }

    /// The classic bad values, for every string field of every command.
    @Test func classicBadValuesForEveryField() async throws {
        let service = try openService()
        let session = ExecSession(service: service)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let post = try await service.addPost(by: alice.id)
        let comment = try await service.addComment(by: bob.id, on: post.id)
        let valid: [String: [String: Any]] = [
            "createUser": [
                "username": "newuser", "email": "n@example.com", "password": "password-1", "bio": "b",
                "url": "https://x.org"
            ],
            "signIn": ["email": "alice@example.com", "password": "password-123"],
            "updateProfile": ["as": bob.id.rawValue, "username": "bobby", "bio": "b", "url": "https://x.org"],
            "follow": ["as": bob.id.rawValue, "user": alice.id.rawValue],
            "addPost": ["as": bob.id.rawValue, "image": gifBase64(9), "caption": "c"],
            "addComment": ["as": bob.id.rawValue, "post": post.id.rawValue, "text": "t"],
            "deleteComment": ["as": bob.id.rawValue, "comment": comment.id.rawValue],
            "like": ["as": bob.id.rawValue, "post": post.id.rawValue],
            "reportPost": ["as": bob.id.rawValue, "post": post.id.rawValue, "reason": "r"]
        ]
        let megabyte = String(repeating: "x", count: 1 << 20)
        let bad: [Any] = [
            "", "   ", megabyte, "a\u{0}b", "bell\u{7}", "\u{202E}evil", "ａlice", 42, true, NSNull(), [1], ["k": "v"],
            1.5
        ]
        for (command, fields) in valid {
            for (field, _) in fields where field != "as" {
                for value in bad {
                    var request = fields
                    request["command"] = command
                    request[field] = value
                    let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
                    guard let response = checkResponse(await session.handle(line: line)) else { continue }
                    let error = response["error"] as? [String: Any]
                    if value is NSNumber || value is [Any] || value is [String: Any] {
                        #expect(
                            error?["code"] as? String == "invalid_argument" && error?["field"] as? String == field,
                            "\(command).\(field) = \(value)")
                    }
                    if let text = value as? String,
                        text == megabyte || text.contains("\u{0}") || text.contains("\u{7}")
                            || text.contains("\u{202E}")
                    {
                        #expect(
                            response["ok"] as? Bool == false,
                            "\(command).\(field) accepted \(text.prefix(20).debugDescription)")
                    }
                }
            }
        }
        // Specific answers.
        func answer(_ request: String) async -> [String: Any] {
            checkResponse(await session.handle(line: request)) ?? [:]
        }
        func code(_ response: [String: Any]) -> String? { (response["error"] as? [String: Any])?["code"] as? String }
        #expect(
            code(
                await answer(
                    #"{"command":"createUser","username":"ａlice","email":"z@example.com","password":"password-1"}"#))
                == "username_taken")
        #expect(
            code(
                await answer(
                    #"{"command":"createUser","username":"ALICE","email":"y@example.com","password":"password-1"}"#))
                == "username_taken")
        #expect(code(await answer(String(repeating: "[", count: 100_000))) == "invalid_argument")
        #expect(
            code(await answer(#"{"command":"like","as":"\#(bob.id)","as":"\#(alice.id)","post":"\#(post.id)"}"#))
                == "invalid_argument")
        #expect(
            code(await answer(#"{"command":"like","as":"\#(bob.id)","\u0061s":"\#(alice.id)","post":"\#(post.id)"}"#))
                == "invalid_argument")
        #expect(code(await answer(#"{"command":"like","as":"\#(bob.id)","post":"\#(alice.id)"}"#)) == "not_found")  // a user id as a post
        #expect(code(await answer(#"{"command":"follow","as":"\#(bob.id)","user":"\#(post.id)"}"#)) == "not_found")  // a post id as a user
        #expect(
            code(await answer(#"{"command":"deleteComment","as":"\#(bob.id)","comment":"\#(post.id)"}"#)) == "not_found"
        )
        #expect(code(await answer(#"{"query":"post","post":"nonexistent"}"#)) == "not_found")
        // A lone surrogate: answered (checkResponse checks the shape), never a crash.
        _ = await answer(
            "{\"command\":\"addComment\",\"as\":\"\(bob.id)\",\"post\":\"\(post.id)\",\"text\":\"\\ud800\"}")
        #expect(try service.verifyLog().isValid)
    }
}
