import Curl
import Foundation
import OpenSSL
import Testing
import WebPush

/// Web Push's message encryption (RFC 8291) and VAPID (RFC 8292), checked by implementations
/// written by others: http_ece decrypts, `cryptography` verifies the JWT (Tests/push/check_webpush.py).
@Suite struct WebPushTests {
    @Test func aMessageDecryptsWithHTTPECEAndItsVAPIDSignatureVerifies() async throws {
        let receiver = try P256KeyPair.generate(), auth = try SecureRandom.bytes(16)
        let plaintext =
            #"{"notification_id":"n1","notification_type":"mention","title":"bob commented","body":"lovely"}"#
        let body = try WebPushEncryption.encrypt(Array(plaintext.utf8), p256dh: receiver.publicKey, auth: auth)
        let endpoint = try #require(URL(string: "https://push.example.net:8443/send/abc"))
        let vapid = VAPID(keys: try P256KeyPair.generate(), contact: "mailto:ops@example.com")
        let legacy = try WebPushEncryption.encryptLegacy(Array(plaintext.utf8), p256dh: receiver.publicKey, auth: auth)
        let input: [String: Any] = [
            "legacy_body": Base64URL.encode(legacy.body), "legacy_headers": legacy.headers,
            "body": Base64URL.encode(body), "receiver_private": Base64URL.encode(receiver.privateKey),
            "receiver_public": Base64URL.encode(receiver.publicKey), "auth": Base64URL.encode(auth),
            "authorization": try vapid.authorization(for: endpoint), "endpoint": endpoint.absoluteString,
            "plaintext": plaintext
        ]
        let file = temporaryPath("push.json")
        try JSONSerialization.data(withJSONObject: input).write(to: URL(fileURLWithPath: file))
        let run = try ChildProcess(
            ["sh", "-c", "python3 \(SchemaTests.root.path)/Tests/push/check_webpush.py < \(file)"],
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = await run.exitStatus(within: .seconds(60))
        #expect(status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardOutput.contains("ok - aud is the push service's origin"), "\(run.standardOutput)")
        #expect(
            run.standardOutput.contains("ok - http_ece decrypts the legacy aesgcm message"), "\(run.standardOutput)")
    }

    /// Each message has its own salt and key: the same text never encrypts alike.
    @Test func twoMessagesOfTheSameTextDiffer() throws {
        let receiver = try P256KeyPair.generate(), auth = try SecureRandom.bytes(16)
        let a = try WebPushEncryption.encrypt(Array("hi".utf8), p256dh: receiver.publicKey, auth: auth)
        let b = try WebPushEncryption.encrypt(Array("hi".utf8), p256dh: receiver.publicKey, auth: auth)
        #expect(a != b && a.count == 16 + 4 + 1 + 65 + 2 + 1 + 16)
        #expect(throws: CryptoError.self) {
            try WebPushEncryption.encrypt([1], p256dh: [4] + [UInt8](repeating: 0, count: 64), auth: auth)
        }
    }
}

/// Web Push end to end against a real `timeline serve` and a test push service on loopback with
/// its own certificate authority (Tests/push/test_push.py).
@Suite struct WebPushDeliveryTests {
    @Test(.timeLimit(.minutes(3))) func notificationsArePushedAsSubscribed() async throws {
        let ca = try await makePushCA(), photo = try pixelFile()
        try await withServer(arguments: [
            "--push-ca-file", ca + "/ca.pem", "--push-allow-private", "--push-contact", "mailto:ops@example.com"
        ]) { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob"),
                carol = try await api.signUp("carol")
            let second = try await api.send(
                "POST", "/v1/sessions", json: ["email": "alice@example.com", "password": "password-123"])
            let aliceAgain = try #require(second.json["session"] as? String)
            let post = try await api.addPost(alice.token, caption: "harbour", image: 5)
            let run = try ChildProcess(
                [
                    "python3", pushScript, "run", "http://127.0.0.1:\(server.port)", ca, alice.token, aliceAgain,
                    bob.token, carol.token, try await server.mastodonID("post", post), photo
                ], executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(
                text.contains("ok - the other subscription stays")
                    && text.contains("ok - a post of an account alice asked to be notified of is pushed"), "\(text)")
        }
    }

    /// SIGKILL with deliveries pending, then a restart: every notification arrives, none twice
    /// but those in flight; a slow push service does not slow commands (Tests/push/test_push_crash.py).
    @Test(.timeLimit(.minutes(3))) func aCrashLosesNoPushAndASlowServiceSlowsNoCommand() async throws {
        let ca = try await makePushCA(), photo = try pixelFile()
        let run = try ChildProcess(
            [
                "python3", SchemaTests.root.appendingPathComponent("Tests/push/test_push_crash.py").path,
                try timelineExecutable().path, ca, photo
            ], executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = await run.exitStatus(within: .seconds(150))
        let text = run.standardOutput + run.standardError
        #expect(status == 0, "\(text)")
        #expect(text.contains("ok - 10 comments while the push service holds"), "\(text)")
    }

    /// The outbox's journal holds no comment's text, no name, no endpoint and no key, and a
    /// sign-out, an unsubscription or an erasure takes the deliveries it ends out of it, never
    /// sent again (Tests/push/test_push_outbox.py).
    @Test(.timeLimit(.minutes(3))) func theOutboxKeepsNoWordsNorKeysAndForgetsWhatEnded() async throws {
        let ca = try await makePushCA(), photo = try pixelFile()
        let script = SchemaTests.root.appendingPathComponent("Tests/push/test_push_outbox.py").path
        let run = try ChildProcess(
            ["python3", script, try timelineExecutable().path, ca, photo],
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = await run.exitStatus(within: .seconds(150))
        let text = run.standardOutput + run.standardError
        #expect(status == 0, "\(text)")
        #expect(text.contains("ok - the erased subscriber's deliveries leave the journal: none is left"), "\(text)")
    }

    /// `timeline backup` and `restore` carry the VAPID key pair made by `timeline serve`:
    /// subscriptions made with its public key stay valid on the restored server.
    @Test func backupAndRestoreCarryTheVAPIDKey() async throws {
        let path = temporaryPath("db")
        try await withServer(database: path) { _ in }
        let key = try #require(FileManager.default.contents(atPath: path + "/push/vapid.key"))
        #expect(key.count == 97)
        #expect(
            (try FileManager.default.attributesOfItem(atPath: path + "/push/vapid.key")[.posixPermissions] as? Int)
                == 0o600)
        let copy = temporaryPath("backup"), restored = temporaryPath("restored")
        for arguments in [["backup", "--db", path, copy], ["restore", copy, "--db", restored]] {
            let tool = try ChildProcess(arguments)
            #expect(await tool.exitStatus(within: .seconds(60)) == 0, "\(arguments): \(tool.standardError)")
        }
        #expect(FileManager.default.contents(atPath: copy + "/push/vapid.key") == key)
        #expect(FileManager.default.contents(atPath: restored + "/push/vapid.key") == key)
    }
}

/// Where pushes may go: one rule says which addresses are private (IPv6's spellings of an IPv4
/// address judged by the IPv4 rules), applied by libcurl at connect time; and an endpoint whose
/// host is an IP address (any spelling curl accepts) is refused when subscribing.
@Suite struct PushAddressTests {
    @Test func privateAddressesAreJudgedByOneRule() {
        let privateAddresses = [
            // IPv6 spellings of an IPv4 address, judged by it: :: is ::/96's 0.0.0.0.
            "::", "0:0:0:0:0:0:0:0", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.1.2.3", "::127.0.0.1",
            "::ffff:0:127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "2002:c0a8:101::1",
            "2002:a00::1",
            // Other IPv6 off the public Internet.
            "64:ff9b:1::1", "2001:0:4136:e378::1", "fe80::1", "fc00::1", "fd12:3456::1", "fec0::1", "ff02::1",
            "ff0e::1",
            "2001:db8::1", "100::1", "3fff::1",
            // IPv4.
            "127.0.0.1", "127.255.1.2", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", "169.254.169.254",
            "100.64.0.1", "0.0.0.0", "0.1.2.3", "224.0.0.1", "239.1.2.3", "240.0.0.1", "255.255.255.255", "192.0.0.8",
            "198.18.0.1", "192.0.2.1"
        ]
        for address in privateAddresses { #expect(HTTPSClient.isPrivate(address: address) == true, "\(address)") }
        let publicAddresses = [
            "8.8.8.8", "142.250.185.74", "172.32.0.1", "100.128.0.1", "2a00:1450:4001:82a::200a",
            "2606:4700::1111", "64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8"
        ]
        for address in publicAddresses { #expect(HTTPSClient.isPrivate(address: address) == false, "\(address)") }
        #expect(HTTPSClient.isPrivate(address: "push.example.net") == nil)
        // Not an address to inet_pton (curl normalises such a host before it resolves it).
        #expect(HTTPSClient.isPrivate(address: "127.1") == nil)
    }

    /// Linux connects `[::]` (and its long spelling) to `::1`: refused as loopback at connect
    /// time, as the IPv4-mapped spellings of 127.0.0.1 are. A listener on `::1` and one on
    /// 127.0.0.1 count the connections; the sentinels (a client allowed private addresses)
    /// arrive after the refused ones would have.
    /// Its waits are bounded (the listeners' greeting, each refused post's 5 s, the sentinels'
    /// 10 s); the time limit, a guard against a hang, is above their sum, as the suite's others.
    @Test(.timeLimit(.minutes(3))) func theUnspecifiedAddressIsRefusedAtConnectTime() async throws {
        let listeners = try ChildProcess(
            [
                "python3", "-c",
                """
                import socket, threading
                def serve(family, host, tag):
                    s = socket.socket(family)
                    s.bind((host, 0))
                    s.listen(16)
                    print(tag, "port", s.getsockname()[1], flush=True)
                    def loop():
                        while True:
                            c, _ = s.accept()
                            print(tag, "accepted", flush=True)
                            c.close()
                    threading.Thread(target=loop, daemon=True).start()
                serve(socket.AF_INET6, "::1", "v6")
                serve(socket.AF_INET, "127.0.0.1", "v4")
                threading.Event().wait()
                """
            ], executable: URL(fileURLWithPath: "/usr/bin/env"))
        defer { listeners.signal(SIGKILL) }
        let greeting = try #require(
            await listeners.waitForOutput {
                $0.contains("v6 port ") && $0.contains("v4 port ")
            })
        func port(_ tag: String) throws -> String {
            let line = greeting.split(separator: "\n").first { $0.hasPrefix("\(tag) port ") }
            return try #require(line.map { String($0.dropFirst(8)) })
        }
        let (v6, v4) = (try port("v6"), try port("v4"))
        let client = try #require(HTTPSClient())
        let refused = [
            "https://[::]:\(v6)/push", "https://[0:0:0:0:0:0:0:0]:\(v6)/push", "https://[::1]:\(v6)/push",
            "https://[::ffff:127.0.0.1]:\(v4)/push", "https://[::ffff:7f00:1]:\(v4)/push",
            "https://127.0.0.1:\(v4)/push", "https://127.1:\(v4)/push"
        ]
        for url in refused {
            // CURLE_COULDNT_CONNECT: the open-socket callback refused the address.
            let error = #expect(throws: DeliveryError.self, "\(url)") {
                _ = try client.post(url, headers: [], body: [1], timeout: .seconds(5))
            }
            #expect(error?.code == 7, "\(url): \(String(describing: error))")
        }
        let allowed = try #require(HTTPSClient(allowPrivate: true))
        for url in ["https://[::1]:\(v6)/push", "https://127.0.0.1:\(v4)/push"] {
            _ = try? allowed.post(url, headers: [], body: [1], timeout: .seconds(5))
        }
        let seen = await listeners.waitForOutput(within: .seconds(10)) {
            $0.contains("v6 accepted") && $0.contains("v4 accepted")
        }
        #expect(seen != nil, "\(listeners.standardOutput)")
        for tag in ["v6", "v4"] {
            let accepted = listeners.standardOutput.components(separatedBy: "\(tag) accepted").count - 1
            #expect(accepted == 1, "\(listeners.standardOutput)")
        }
    }

    /// An endpoint whose host is an IP address — bracketed IPv6 in any spelling, IPv4 in any form
    /// curl reads (`127.1`, `0x7f.1`, `2130706433`, octal, a trailing dot) — or `localhost`, or
    /// that carries a user name, is refused when subscribing: Mastodon's route answers 422, /v1
    /// 400 `invalid_argument`. (`timeline serve --push-allow-private` accepts them: the tests'
    /// push services listen on 127.0.0.1.)
    @Test(.timeLimit(.minutes(3))) func ipAddressEndpointsAreRefusedWhenSubscribing() async throws {
        let p256dh = Base64URL.encode(try P256KeyPair.generate().publicKey)
        let auth = Base64URL.encode(try SecureRandom.bytes(16))
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice")
            func encoded(_ text: String) -> String {
                text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            }
            func subscribe(_ endpoint: String) async throws -> (mastodon: Reply, v1: Reply) {
                let fields = [
                    "subscription[endpoint]": endpoint, "subscription[keys][p256dh]": p256dh,
                    "subscription[keys][auth]": auth, "data[alerts][mention]": "true"
                ]
                let form = fields.map { "\(encoded($0.key))=\(encoded($0.value))" }.joined(separator: "&")
                let mastodon = try await api.send(
                    "POST", "/api/v1/push/subscription", body: Data(form.utf8),
                    contentType: "application/x-www-form-urlencoded", bearer: alice.token)
                let keys = ["endpoint": endpoint, "p256dh": p256dh, "auth": auth]
                let v1 = try await api.send("PUT", "/v1/me/push", json: keys, bearer: alice.token)
                return (mastodon, v1)
            }
            let refused = [
                "https://[::]:8443/push", "https://[0:0:0:0:0:0:0:0]:8443/push", "https://[0000::0000]/push",
                "https://[::ffff:127.0.0.1]:8443/push", "https://[::ffff:7f00:1]/push",
                "https://[64:ff9b::7f00:1]/push", "https://[2002:7f00:1::]/push", "https://[::1]/push",
                "https://[fe80::1%25eth0]/push", "https://[2606:4700::1111]/push", "https://127.1:8443/push",
                "https://0x7f.1/push", "https://0x7f000001/push", "https://2130706433/push", "https://0177.0.0.1/push",
                "https://127.0.0.1./push", "https://127.0.0.1/push",
                "https://8.8.8.8/push", "https://1.2.3.0x4/push", "https://0x/push", "https://%31%32%37.0.0.1/push",
                "https://localhost/push", "https://push.localhost./push", "https://user@push.example.net/push",
                "https://push.example.net@127.0.0.1/push", "https://push.example.net:/push",
                "https://push.example.net:99999/push", "https://push.example.net\\@127.0.0.1/push", "https:///push",
                "https://:8443/push"
            ]
            for endpoint in refused {
                let (mastodon, v1) = try await subscribe(endpoint)
                #expect(mastodon.status == 422, "\(endpoint): \(mastodon)")
                #expect(
                    v1.status == 400 && v1.errorCode == "invalid_argument" && v1.errorField == "endpoint",
                    "\(endpoint): \(v1)")
            }
            #expect(try await api.get("/v1/me/push", bearer: alice.token).status == 404)
            let accepted = [
                "https://push.example.net:8443/send/abc", "https://fcm.googleapis.com/fcm/send/abc:APA91b",
                "https://updates.push.services.mozilla.com/wpush/v2/gAAAAA",
                "https://web.push.apple.com/QGuQyavXutnMsH", "https://1.push.example/x",
                "https://push-1.example.net./x"
            ]
            for endpoint in accepted {
                let (mastodon, v1) = try await subscribe(endpoint)
                #expect(mastodon.status == 200 && v1.status == 204, "\(endpoint): \(mastodon) \(v1)")
            }
        }
    }
}

/// Tests/push/test_push.py: the test push service's tools and the Mastodon.py scenario.
let pushScript = SchemaTests.root.appendingPathComponent("Tests/push/test_push.py").path

/// A new test certificate authority for push services on loopback (`test_push.py make-ca`): the
/// directory holding `ca.pem` (for `--push-ca-file`) and the service's certificate.
func makePushCA() async throws -> String {
    let ca = temporaryPath("push-ca")
    try FileManager.default.createDirectory(atPath: ca, withIntermediateDirectories: true)
    let made = try ChildProcess(
        ["python3", pushScript, "make-ca", ca], executable: URL(fileURLWithPath: "/usr/bin/env"))
    try #require(await made.exitStatus(within: .seconds(60)) == 0, "\(made.standardError)")
    return ca
}

/// `test_push.py sink` with `ca`'s certificate: an HTTPS push service that prints "delivery
/// <Topic>" for each push and answers 201; the process (stop it) and its port.
func startPushSink(ca: String) async throws -> (process: ChildProcess, port: String) {
    let sink = try ChildProcess(["python3", pushScript, "sink", ca], executable: URL(fileURLWithPath: "/usr/bin/env"))
    let greeting = try #require(await sink.waitForOutput { $0.contains("port ") })
    let port = try #require(
        greeting.split(separator: "\n").first { $0.hasPrefix("port ") }.map { String($0.dropFirst(5)) })
    return (sink, port)
}
