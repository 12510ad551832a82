import Foundation
import HTTPSignatures
import OpenSSL
import Testing

/// HTTP Signatures checked by code others wrote: Timeline's signatures verified by Python's
/// `httpsig` (draft-cavage) and `http-message-signatures` (RFC 9421), theirs verified by
/// Timeline's, and forged, stale and tampered requests refused.
@Suite(.serialized) struct HTTPSignaturesTests {
    static let key = try! RSAKey.generate()
    static let keyId = "https://one.example/users/alice#main-key"
    static let uri = "https://two.example/inbox"
    static let body = Array(#"{"type":"Follow","actor":"https://one.example/users/alice"}"#.utf8)

    /// A scratch directory holding the key pair's PEM files, for the Python side.
    static let directory: String = {
        let path = NSTemporaryDirectory() + "httpsig-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try! key.privatePEM().write(toFile: path + "/private.pem", atomically: true, encoding: .utf8)
        try! key.publicPEM().write(toFile: path + "/public.pem", atomically: true, encoding: .utf8)
        return path
    }()

    static func message(_ headers: [(name: String, value: String)] = [], body: [UInt8] = body) -> SignedMessage {
        SignedMessage(
            method: "POST", uri: uri, headers: [("Content-Type", "application/activity+json")] + headers, body: body)
    }

    /// Writes `message`'s headers and body where Python reads them.
    static func hand(_ message: SignedMessage) throws {
        let headers = message.headers.map { [$0.name, $0.value] }
        try JSONSerialization.data(withJSONObject: headers).write(to: URL(fileURLWithPath: directory + "/headers.json"))
        try Data(message.body).write(to: URL(fileURLWithPath: directory + "/body"))
    }

    /// The headers Python wrote (`signed.json`), as a message with `body`.
    static func received(body: [UInt8] = body) throws -> SignedMessage {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/signed.json"))
        let pairs = try #require(try JSONSerialization.jsonObject(with: data) as? [[String]])
        return SignedMessage(method: "POST", uri: uri, headers: pairs.map { ($0[0], $0[1]) }, body: body)
    }

    static let pythonPrelude = """
        import json, datetime
        headers = json.load(open('headers.json'))
        body = open('body', 'rb').read()
        private = open('private.pem', 'rb').read()
        public = open('public.pem', 'rb').read()
        def write(pairs):
            json.dump([[k, v] for k, v in pairs], open('signed.json', 'w'))

        """

    @Test func httpsigVerifiesTimelinesCavageSignature() throws {
        var message = Self.message()
        try HTTPSigner.signCavage(&message, keyId: Self.keyId, key: Self.key, at: Date())
        try Self.hand(message)
        #expect(
            try ZipReaderTests.python(
                Self.pythonPrelude + """
                    from httpsig import HeaderVerifier
                    h = {k: v for k, v in headers}
                    assert h['Digest'].startswith('SHA-256=')
                    ok = HeaderVerifier(h, public, required_headers=['(request-target)', 'host', 'date', 'digest'],
                        method='POST', path='/inbox', sign_header='Signature').verify()
                    assert ok, 'httpsig refused the signature'
                    h['Date'] = 'Mon, 01 Jan 2024 00:00:00 GMT'
                    assert not HeaderVerifier(h, public, method='POST', path='/inbox',
                        sign_header='Signature').verify(), 'a changed Date still verified'
                    """, in: Self.directory))
    }

    @Test func timelineVerifiesHttpsigsSignature() throws {
        try Self.hand(Self.message())
        #expect(
            try ZipReaderTests.python(
                Self.pythonPrelude + """
                    import base64, hashlib, email.utils
                    from httpsig import HeaderSigner
                    h = dict(headers)
                    h['Host'] = 'two.example'
                    h['Date'] = email.utils.formatdate(usegmt=True)
                    h['Digest'] = 'SHA-256=' + base64.b64encode(hashlib.sha256(body).digest()).decode()
                    signer = HeaderSigner('\(Self.keyId)', private, algorithm='rsa-sha256',
                        headers=['(request-target)', 'host', 'date', 'digest'], sign_header='Signature')
                    write(signer.sign(h, method='POST', path='/inbox').items())
                    """, in: Self.directory))
        let signature = try ReceivedSignature.parse(try Self.received(), now: Date())
        #expect(signature.keyId == Self.keyId)
        #expect(signature.scheme == .cavage)
        try signature.verify(with: Self.key)
        // Another body under the same headers: the digest no longer names it.
        #expect(throws: SignatureError.digestMismatch) {
            try ReceivedSignature.parse(try Self.received(body: Array("{}".utf8)), now: Date())
        }
        // Another key: the signature does not verify.
        #expect(throws: SignatureError.invalidSignature) {
            try ReceivedSignature.parse(try Self.received(), now: Date()).verify(with: try RSAKey.generate())
        }
        // Thirteen hours later: stale.
        #expect(throws: SignatureError.stale) {
            try ReceivedSignature.parse(try Self.received(), now: Date().addingTimeInterval(13 * 3600))
        }
    }

    @Test func httpMessageSignaturesVerifiesTimelinesRFC9421Signature() throws {
        var message = Self.message()
        try HTTPSigner.signRFC9421(&message, keyId: Self.keyId, key: Self.key, at: Date())
        try Self.hand(message)
        #expect(
            try ZipReaderTests.python(
                Self.pythonPrelude + """
                    import requests
                    from http_message_signatures import HTTPMessageVerifier, HTTPSignatureKeyResolver, algorithms
                    class Keys(HTTPSignatureKeyResolver):
                        def resolve_public_key(self, key_id):
                            assert key_id == '\(Self.keyId)'
                            return public
                    request = requests.Request('POST', '\(Self.uri)', data=body, headers=dict(headers)).prepare()
                    verifier = HTTPMessageVerifier(signature_algorithm=algorithms.RSA_V1_5_SHA256, key_resolver=Keys())
                    results = verifier.verify(request, require_components=('@method', '@target-uri', 'content-digest'))
                    assert len(results) == 1
                    verifier.verify_body(request, results, body)
                    try:
                        verifier.verify_body(request, results, b'{}')
                        raise SystemExit('another body verified')
                    except Exception as e:
                        if isinstance(e, SystemExit): raise
                    """, in: Self.directory))
    }

    @Test func timelineVerifiesHttpMessageSignaturesRFC9421Signature() throws {
        try Self.hand(Self.message())
        #expect(
            try ZipReaderTests.python(
                Self.pythonPrelude + """
                    import requests
                    from http_message_signatures import HTTPMessageSigner, HTTPSignatureKeyResolver, algorithms
                    class Keys(HTTPSignatureKeyResolver):
                        def resolve_private_key(self, key_id):
                            return private
                    request = requests.Request('POST', '\(Self.uri)', data=body, headers=dict(headers)).prepare()
                    signer = HTTPMessageSigner(signature_algorithm=algorithms.RSA_V1_5_SHA256, key_resolver=Keys())
                    signer.sign(request, key_id='\(Self.keyId)', body=body,
                        covered_component_ids=('@method', '@authority', '@target-uri', 'content-digest'))
                    write(request.headers.items())
                    """, in: Self.directory))
        let signature = try ReceivedSignature.parse(try Self.received(), now: Date())
        #expect(signature.scheme == .rfc9421)
        #expect(signature.keyId == Self.keyId)
        try signature.verify(with: Self.key)
        #expect(throws: SignatureError.digestMismatch) {
            try ReceivedSignature.parse(try Self.received(body: Array("{}".utf8)), now: Date())
        }
        #expect(throws: SignatureError.invalidSignature) {
            try ReceivedSignature.parse(try Self.received(), now: Date()).verify(with: try RSAKey.generate())
        }
    }

    @Test func aSignatureMustCoverTheTargetTheHostTheTimeAndTheDigest() throws {
        func refusal(_ headers: String) throws -> SignatureError? {
            var message = Self.message()
            try HTTPSigner.signCavage(&message, keyId: Self.keyId, key: Self.key, at: Date())
            // The same signature, claimed over fewer parts.
            message.headers = message.headers.map { header in
                guard header.name == "Signature" else { return header }
                let value = header.value.replacingOccurrences(
                    of: "headers=\"(request-target) host date digest\"", with: "headers=\"\(headers)\"")
                return (header.name, value)
            }
            let result = Result { () throws(SignatureError) in
                try ReceivedSignature.parse(message, now: Date()).verify(with: Self.key)
            }
            guard case .failure(let error) = result else { return nil }
            return error
        }
        #expect(try refusal("host date digest") == .uncovered("(request-target)"))
        #expect(try refusal("(request-target) date digest") == .uncovered("host"))
        #expect(try refusal("(request-target) host digest") == .uncovered("date"))
        #expect(try refusal("(request-target) host date") == .uncovered("digest"))
        #expect(try refusal("(request-target) host date digest") == nil)
        #expect(throws: SignatureError.missing) { try ReceivedSignature.parse(Self.message(), now: Date()) }
    }

    @Test func hostileHeadersAreRefusedNotCrashedOn() throws {
        let hostile = [
            "keyId=\"", "keyId=\"k\",signature=\"%%%\"", "keyId=\"k\",keyId=\"j\"",
            String(repeating: "a=b,", count: 5000),
            "keyId=\"k\",algorithm=\"hmac-sha256\",signature=\"AAAA\""
        ]
        for value in hostile {
            #expect(throws: SignatureError.self) {
                try ReceivedSignature.parse(Self.message([("Signature", value)]), now: Date())
            }
        }
        for input in ["sig1=(", "sig1=(\"@method\";sf)", "sig1=(\"@method\")", "sig1=:AAA", "=1", "sig1=(\"@x\")"] {
            #expect(throws: SignatureError.self) {
                try ReceivedSignature.parse(
                    Self.message([("Signature-Input", input), ("Signature", "sig1=:AAAA:")]), now: Date())
            }
        }
        #expect(throws: CryptoError.self) { try RSAKey(publicPEM: "-----BEGIN PUBLIC KEY-----\nAAAA\n") }
        #expect(throws: CryptoError.self) { try RSAKey(publicPEM: String(repeating: "A", count: 20_000)) }
        let round = try RSAKey(publicPEM: try Self.key.publicPEM())
        #expect(round.bits == 2048)
        #expect(try RSAKey(privatePEM: try Self.key.privatePEM()).publicPEM() == (try Self.key.publicPEM()))
    }
}
