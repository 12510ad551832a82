import Foundation
import OpenSSL
import Testing
import WebPush

/// Web Push's message encryption (RFC 8291) and VAPID (RFC 8292), checked by implementations
/// written by others: http_ece decrypts, `cryptography` verifies the JWT (Tests/push/check_webpush.py).
@Suite struct WebPushTests {
    @Test func aMessageDecryptsWithHTTPECEAndItsVAPIDSignatureVerifies() async throws {
        let receiver = try P256KeyPair.generate(), auth = try SecureRandom.bytes(16)
        let plaintext = #"{"notification_id":"n1","notification_type":"mention","title":"bob commented","body":"lovely"}"#
        let body = try WebPushEncryption.encrypt(Array(plaintext.utf8), p256dh: receiver.publicKey, auth: auth)
        let endpoint = try #require(URL(string: "https://push.example.net:8443/send/abc"))
        let vapid = VAPID(keys: try P256KeyPair.generate(), contact: "mailto:ops@example.com")
        let legacy = try WebPushEncryption.encryptLegacy(Array(plaintext.utf8), p256dh: receiver.publicKey, auth: auth)
        let input: [String: Any] = [
            "legacy_body": Base64URL.encode(legacy.body), "legacy_headers": legacy.headers,
            "body": Base64URL.encode(body), "receiver_private": Base64URL.encode(receiver.privateKey),
            "receiver_public": Base64URL.encode(receiver.publicKey), "auth": Base64URL.encode(auth),
            "authorization": try vapid.authorization(for: endpoint), "endpoint": endpoint.absoluteString, "plaintext": plaintext,
        ]
        let file = temporaryPath("push.json")
        try JSONSerialization.data(withJSONObject: input).write(to: URL(fileURLWithPath: file))
        let run = try ChildProcess(["sh", "-c", "python3 \(SchemaTests.root.path)/Tests/push/check_webpush.py < \(file)"],
                                   executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = await run.exitStatus(within: .seconds(60))
        #expect(status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardOutput.contains("ok - aud is the push service's origin"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("ok - http_ece decrypts the legacy aesgcm message"), "\(run.standardOutput)")
    }

    /// Each message has its own salt and key: the same text never encrypts alike.
    @Test func twoMessagesOfTheSameTextDiffer() throws {
        let receiver = try P256KeyPair.generate(), auth = try SecureRandom.bytes(16)
        let a = try WebPushEncryption.encrypt(Array("hi".utf8), p256dh: receiver.publicKey, auth: auth)
        let b = try WebPushEncryption.encrypt(Array("hi".utf8), p256dh: receiver.publicKey, auth: auth)
        #expect(a != b && a.count == 16 + 4 + 1 + 65 + 2 + 1 + 16)
        #expect(throws: CryptoError.self) { try WebPushEncryption.encrypt([1], p256dh: [4] + [UInt8](repeating: 0, count: 64), auth: auth) }
    }
}

/// Web Push end to end against a real `timeline serve` and a test push service on loopback with
/// its own certificate authority (Tests/push/test_push.py).
@Suite struct WebPushDeliveryTests {
    @Test(.timeLimit(.minutes(3))) func notificationsArePushedAsSubscribed() async throws {
        let ca = try await makePushCA(), photo = try pixelFile()
        try await withServer(arguments: ["--push-ca-file", ca + "/ca.pem", "--push-allow-private", "--push-contact", "mailto:ops@example.com"]) { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"), carol = try await api.signUp("carol")
            let second = try await api.send("POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "password-123"])
            let aliceAgain = try #require(second.json["session"] as? String)
            let post = try await api.addPost(alice.token, caption: "harbour", image: 5)
            let run = try ChildProcess(["python3", pushScript, "run", "http://127.0.0.1:\(server.port)", ca, alice.token, aliceAgain,
                                        bob.token, carol.token, post, photo], executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - the other subscription stays") && text.contains("ok - a post of an account alice asked to be notified of is pushed"), "\(text)")
        }
    }

    /// SIGKILL with deliveries pending, then a restart: every notification arrives, none twice
    /// but those in flight; a slow push service does not slow commands (Tests/push/test_push_crash.py).
    @Test(.timeLimit(.minutes(3))) func aCrashLosesNoPushAndASlowServiceSlowsNoCommand() async throws {
        let ca = try await makePushCA(), photo = try pixelFile()
        let run = try ChildProcess(["python3", SchemaTests.root.appendingPathComponent("Tests/push/test_push_crash.py").path,
                                    try timelineExecutable().path, ca, photo], executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = await run.exitStatus(within: .seconds(150))
        let text = run.standardOutput + run.standardError
        #expect(status == 0, "\(text)")
        #expect(text.contains("ok - 10 comments while the push service holds"), "\(text)")
    }

    /// `timeline backup` and `restore` carry the VAPID key pair made by `timeline serve`:
    /// subscriptions made with its public key stay valid on the restored server.
    @Test func backupAndRestoreCarryTheVAPIDKey() async throws {
        let path = temporaryPath("db")
        try await withServer(database: path) { _ in }
        let key = try #require(FileManager.default.contents(atPath: path + "/push/vapid.key"))
        #expect(key.count == 97)
        #expect((try FileManager.default.attributesOfItem(atPath: path + "/push/vapid.key")[.posixPermissions] as? Int) == 0o600)
        let copy = temporaryPath("backup"), restored = temporaryPath("restored")
        for arguments in [["backup", "--db", path, copy], ["restore", copy, "--db", restored]] {
            let tool = try ChildProcess(arguments)
            #expect(await tool.exitStatus(within: .seconds(60)) == 0, "\(arguments): \(tool.standardError)")
        }
        #expect(FileManager.default.contents(atPath: copy + "/push/vapid.key") == key)
        #expect(FileManager.default.contents(atPath: restored + "/push/vapid.key") == key)
    }
}

/// Tests/push/test_push.py: the test push service's tools and the Mastodon.py scenario.
let pushScript = SchemaTests.root.appendingPathComponent("Tests/push/test_push.py").path

/// A new test certificate authority for push services on loopback (`test_push.py make-ca`): the
/// directory holding `ca.pem` (for `--push-ca-file`) and the service's certificate.
func makePushCA() async throws -> String {
    let ca = temporaryPath("push-ca")
    try FileManager.default.createDirectory(atPath: ca, withIntermediateDirectories: true)
    let made = try ChildProcess(["python3", pushScript, "make-ca", ca], executable: URL(fileURLWithPath: "/usr/bin/env"))
    try #require(await made.exitStatus(within: .seconds(60)) == 0, "\(made.standardError)")
    return ca
}

/// `test_push.py sink` with `ca`'s certificate: an HTTPS push service that prints "delivery
/// <Topic>" for each push and answers 201; the process (stop it) and its port.
func startPushSink(ca: String) async throws -> (process: ChildProcess, port: String) {
    let sink = try ChildProcess(["python3", pushScript, "sink", ca], executable: URL(fileURLWithPath: "/usr/bin/env"))
    let greeting = try #require(await sink.waitForOutput { $0.contains("port ") })
    let port = try #require(greeting.split(separator: "\n").first { $0.hasPrefix("port ") }.map { String($0.dropFirst(5)) })
    return (sink, port)
}
