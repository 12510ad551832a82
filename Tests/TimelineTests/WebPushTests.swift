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
        let input: [String: String] = [
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
