import Foundation
import LMDB
import Sodium
import Testing
@testable import Timeline
import TimelineDomain

/// Anchoring the hash chain outside the database: signed checkpoints written as the log grows,
/// `timeline audit head`, and `timeline audit verify --anchor` against a log rewritten (every
/// later hash recomputed) or cut short — which the chain alone cannot catch.
@Suite struct AnchorTests {
    /// A database and an anchor key beside it (outside it), in a fresh directory.
    struct Setup {
        let directory: String
        var path: String { directory + "/db" }
        var keyPath: String { directory + "/anchor.key" }
        var checkpoints: String { keyPath + ".checkpoints" }
        var publicKeyPath: String { keyPath + ".pub" }
        var anchor: AnchorOptions { AnchorOptions(keyPath: keyPath) }

        init() throws {
            directory = URL(fileURLWithPath: temporaryPath()).deletingLastPathComponent().path
            try AnchorKey.create(at: keyPath)
        }

        /// Opens the database (each opening of one database needs its own `seed`: the same
        /// identifiers would be taken for retries and append nothing).
        func open(anchored: Bool = true, seed: UInt64 = 42) throws -> TimelineService {
            try openService(path: path, seed: seed) { if anchored { $0.anchor = anchor } }
        }
    }

    /// Runs the real `timeline` with `arguments`, feeding it `input`; returns its exit status and output.
    func tool(_ arguments: [String], input: String = "") throws -> (status: Int32, output: String) {
        let tool = try ToolProcess(arguments)
        tool.input.fileHandleForWriting.write(Data(input.utf8))
        try tool.input.fileHandleForWriting.close()
        let data = tool.output.fileHandleForReading.readDataToEndOfFile()
        tool.process.waitUntilExit()
        return (tool.process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Nine events signed by the anchor, the ninth Alice's like of Bob's post; then three more
    /// users through `timeline exec --anchor-key` (12 events). Returns Carol's id.
    func history(_ setup: Setup) async throws -> UserID {
        let service = try setup.open()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let carol = try await service.createUser("carol")
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        try await service.run(.follow(user: bob.id.rawValue), as: carol.id)
        var post: Post?
        for index in 0..<3 { post = try await service.addPost(by: bob.id, caption: "p\(index)", image: index) }
        try await service.run(.like(post: try #require(post).id.rawValue), as: alice.id)
        try #require(try service.lastSequence() == 9)
        service.close()
        let lines = ["dave", "erin", "frank"].map {
            #"{"id":"\#($0)","command":"createUser","username":"\#($0)","email":"\#($0)@example.com","password":"long enough"}"#
        }
        let exec = try tool(
            ["exec", "--db", setup.path, "--anchor-key", setup.keyPath], input: lines.joined(separator: "\n") + "\n")
        try #require(
            exec.status == 0 && exec.output.split(separator: "\n").allSatisfy { $0.contains(#""ok":true"#) },
            "\(exec.output)")
        return carol.id
    }

    /// Rewrites event `sequence` with `change` and recomputes every later hash through the
    /// LMDB layer, then deletes `derived/`: what someone with the database files can do.
    func rewrite(_ path: String, event sequence: UInt64, _ change: (inout EventEnvelope) -> Void) throws {
        do {
            let service = try openService(path: path)
            defer { service.close() }
            let log = service.log
            try service.environment.write { txn in
                var previous = try #require(try log.hash(at: sequence - 1, txn))
                var seq = sequence
                while let stored = try txn.get(log.log, BigEndian.bytes(seq)) {
                    var body = try EnvelopeCodec.split(stored).body
                    if seq == sequence {
                        var envelope = try EnvelopeCodec.decode(stored, keys: log.keys)
                        change(&envelope)
                        envelope.encodedPayload = try PayloadCodec.encode(envelope.event, keys: log.keys)
                        body = EnvelopeCodec.body(of: envelope)
                    }
                    let hash = Sodium.hash(previous, body)
                    try txn.put(
                        log.log, BigEndian.bytes(seq),
                        EnvelopeCodec.encode(body: body, previousHash: previous, hash: hash))
                    previous = hash
                    seq += 1
                }
            }
        }
        try FileManager.default.removeItem(atPath: path + "/derived")
    }

    func verify(_ setup: Setup, anchor: String? = nil) throws -> (status: Int32, output: String) {
        var arguments = ["audit", "verify", "--db", setup.path]
        if let anchor { arguments += ["--anchor", anchor, "--anchor-public-key", setup.publicKeyPath] }
        return try tool(arguments)
    }

    @Test func aRewrittenEventIsFoundThroughTheAnchorAndNamed() async throws {
        let setup = try Setup()
        let carol = try await history(setup)
        let recorded = try tool(["audit", "head", "--db", setup.path]).output.trimmingCharacters(in: .newlines)
        #expect(LogHead(recorded)?.sequence == 12, "\(recorded)")
        let entries = try AnchorFile(path: setup.checkpoints).entries()
        #expect(entries.unreadable.isEmpty)
        #expect(entries.entries.map(\.checkpoint.head.sequence).contains(9))
        #expect(
            entries.entries.last?.checkpoint.head.description == recorded, "the exec run signed its last head at exit")

        // Alice's like becomes Carol's; every later hash is recomputed.
        try rewrite(setup.path, event: 9) { envelope in
            guard case .likeAdded(let like) = envelope.event else {
                Issue.record("event 9 is \(envelope.type)")
                return
            }
            envelope.event = .likeAdded(Like(postId: like.postId, userId: carol))
            envelope.actor = carol.rawValue
        }
        let plain = try verify(setup)
        #expect(plain.status == 0, "the chain alone cannot tell: \(plain.output)")

        let anchored = try verify(setup, anchor: setup.checkpoints)
        #expect(anchored.status == 1)
        #expect(
            anchored.output.contains("TAMPERED: the log diverges from the anchor at sequence 9"), "\(anchored.output)")
        let againstHead = try tool(["audit", "verify", "--db", setup.path, "--anchor", recorded, "--json"])
        #expect(againstHead.status == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(againstHead.output.utf8)) as? [String: Any])
        #expect(json["valid"] as? Bool == false)
        #expect((json["anchor"] as? [String: Any])?["divergesAt"] as? Int == 12)

        // A writer with the anchor key refuses to sign the rewritten log.
        await expectError(.conflict) { _ = try setup.open() }
        let exec = try tool(["exec", "--db", setup.path, "--anchor-key", setup.keyPath])
        #expect(exec.status == 1 && exec.output.isEmpty)
    }

    @Test func droppedEventsAreFound() async throws {
        let setup = try Setup()
        _ = try await history(setup)
        do {
            let service = try openService(path: setup.path)
            defer { service.close() }
            let log = service.log
            try service.environment.write { txn in
                for seq in UInt64(10)...12 { try txn.delete(log.log, BigEndian.bytes(seq)) }
            }
        }
        try FileManager.default.removeItem(atPath: setup.path + "/derived")
        #expect(try verify(setup).status == 0, "the chain alone cannot tell")
        let anchored = try verify(setup, anchor: setup.checkpoints)
        #expect(anchored.status == 1)
        #expect(
            anchored.output.contains("the log ends at 9 but the anchor says 12: events were dropped"),
            "\(anchored.output)")
    }

    @Test func aLogThatGrewAfterTheAnchorPasses() async throws {
        let setup = try Setup()
        _ = try await history(setup)
        let recorded = try tool(["audit", "head", "--db", setup.path, "--json"]).output
        let head = try #require(try JSONSerialization.jsonObject(with: Data(recorded.utf8)) as? [String: Any])
        let anchor = "\(try #require(head["sequence"] as? Int)):\(try #require(head["hash"] as? String))"
        // Grows with the anchor key, and without it (checkpoints then lag; they are still on the chain).
        let service = try setup.open(seed: 1)
        _ = try await service.createUser("gina")
        service.close()
        #expect(service.anchorStatus == AnchorStatus(checkpointed: 13))
        let unanchored = try setup.open(anchored: false, seed: 2)
        _ = try await unanchored.createUser("hugo")
        unanchored.close()

        let againstHead = try tool(["audit", "verify", "--db", setup.path, "--anchor", anchor])
        #expect(againstHead.status == 0, "\(againstHead.output)")
        let againstFile = try verify(setup, anchor: setup.checkpoints)
        #expect(againstFile.status == 0, "\(againstFile.output)")
        #expect(againstFile.output.contains("ok: the log extends the anchor"), "\(againstFile.output)")
        #expect(
            try setup.open(seed: 3).verifyAnchor(
                .file(path: setup.checkpoints, publicKey: AnchorKey.load(from: setup.keyPath).publicKey)
            ).latest?.sequence == 13)
    }

    @Test func aForgedCheckpointFails() async throws {
        let setup = try Setup()
        _ = try await history(setup)
        let genuine = try String(contentsOfFile: setup.checkpoints, encoding: .utf8)
        // A checkpoint of the real head, signed by another key.
        let other = try Setup.otherKey(in: setup.directory)
        let head = try tool(["audit", "head", "--db", setup.path]).output.trimmingCharacters(in: .newlines)
        let forged = try AnchorCheckpoint(signing: try #require(LogHead(head)), time: 1, with: other)
        try (genuine + forged.line + "\n").write(toFile: setup.checkpoints, atomically: true, encoding: .utf8)
        let signedByOther = try verify(setup, anchor: setup.checkpoints)
        #expect(signedByOther.status == 1)
        #expect(signedByOther.output.contains("has a bad signature"), "\(signedByOther.output)")

        // A genuine checkpoint whose hash was changed to match a rewritten log.
        var lines = genuine.split(separator: "\n").map(String.init)
        var fields = lines[0].split(separator: " ").map(String.init)
        fields[1] = fields[1].prefix { $0 != ":" } + ":" + String(repeating: "ab", count: 32)
        lines[0] = fields.joined(separator: " ")
        try (lines.joined(separator: "\n") + "\n").write(toFile: setup.checkpoints, atomically: true, encoding: .utf8)
        let altered = try verify(setup, anchor: setup.checkpoints)
        #expect(altered.status == 1)
        #expect(altered.output.contains("on line 1"), "\(altered.output)")
    }

    @Test func aTornLastLineIsSkippedAndTheNextCheckpointStartsOnItsOwnLine() async throws {
        let setup = try Setup()
        _ = try await history(setup)
        let handle = try #require(FileHandle(forWritingAtPath: setup.checkpoints))
        handle.seekToEndOfFile()
        handle.write(Data("v1 13:ab".utf8))  // a crash mid-append
        try handle.close()
        let service = try setup.open(seed: 1)
        _ = try await service.createUser("gina")
        service.close()
        let entries = try AnchorFile(path: setup.checkpoints).entries()
        #expect(entries.unreadable.count == 1)
        #expect(entries.entries.last?.checkpoint.head.sequence == 13)
        let verified = try verify(setup, anchor: setup.checkpoints)
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("skipped 1 unreadable line"), "\(verified.output)")
    }

    @Test func theAnchorMustBeOutsideTheDatabase() async throws {
        let setup = try Setup()
        try FileManager.default.createDirectory(atPath: setup.path, withIntermediateDirectories: true)
        let inside = setup.path + "/anchor.key"
        try FileManager.default.copyItem(atPath: setup.keyPath, toPath: inside)
        await expectError(.invalidArgument, field: "anchorKey") {
            _ = try openService(path: setup.path) { $0.anchor = AnchorOptions(keyPath: inside) }
        }
        await expectError(.invalidArgument, field: "anchorLog") {
            _ = try openService(path: setup.path) {
                $0.anchor = AnchorOptions(keyPath: setup.keyPath, checkpointsPath: setup.path + "/../db/c")
            }
        }
        let refused = try tool(["anchor", "init", "--key", setup.path + "/derived/new.key", "--db", setup.path])
        #expect(refused.status == 1)
        #expect(!FileManager.default.fileExists(atPath: setup.path + "/derived/new.key"))
        let created = try tool(["anchor", "init", "--key", setup.directory + "/new.key", "--db", setup.path])
        #expect(created.status == 0, "\(created.output)")
        let mode =
            try FileManager.default.attributesOfItem(atPath: setup.directory + "/new.key")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func signaturesVerifyOnlyWithTheirKeyAndMessage() {
        let (publicKey, secretKey) = Sodium.signingKeyPair()
        let message = Array("head".utf8)
        let signature = Sodium.sign(message, secretKey: secretKey)
        #expect(signature.map { Sodium.verifySignature($0, of: message, publicKey: publicKey) } == true)
        #expect(signature.map { Sodium.verifySignature($0, of: message + [0], publicKey: publicKey) } == false)
        #expect(
            signature.map { Sodium.verifySignature($0, of: message, publicKey: Sodium.signingKeyPair().publicKey) }
                == false)
        #expect(Sodium.signingPublicKey(of: secretKey) == publicKey)
        #expect(LogHead("12:" + String(repeating: "0f", count: 32))?.sequence == 12)
        #expect(LogHead("+12:" + String(repeating: "0f", count: 32)) == nil)
        #expect(LogHead("12:0f") == nil)
    }
}

extension AnchorTests.Setup {
    /// Another anchor key, in `directory`.
    static func otherKey(in directory: String) throws -> AnchorKey {
        try AnchorKey.create(at: directory + "/other.key")
    }
}
