import Foundation
import Testing
@testable import Timeline

/// The stored form of every event type (`EventPayload` in each feature's file, keyed by
/// `PayloadCodec`): current events round-trip, older versions upcast, and an erased owner's
/// sealed fields read as absent.
@Suite struct PayloadCodecTests {
    func keyStore() throws -> KeyStore {
        try KeyStore(backend: FileKeyBackend(directory: URL(fileURLWithPath: temporaryPath())))
    }

    /// Every event of a history that has every type decodes from its stored bytes to itself,
    /// encoded again decodes to itself, and its owner's key gone, it decodes `erased` with only
    /// its sealed fields missing.
    @Test func everyEventTypeRoundTrips() async throws {
        var options = TimelineService.Options()
        options.clock = TestClock()  // the history publishes a scheduled post at its time
        let service = try TimelineService(path: temporaryPath(), options: options)
        try await SchemaTests.historyOfEveryEventType(service)
        let keys = service.log.keys
        let events = try service.events(limit: 10_000)
        try #require(Set(events.map(\.type)) == Set(EventType.allCases))
        let stranger = try keyStore()  // holds no one's key: every sealed section is erased
        for envelope in events where !envelope.erased {
            let bytes = try PayloadCodec.encode(envelope.event, keys: keys)
            let decoded = try PayloadCodec.decode(
                type: envelope.type, version: envelope.type.currentVersion, bytes, keys: keys)
            #expect(decoded.event == envelope.event && !decoded.erased, "\(envelope.type)")
            let erased = try PayloadCodec.decode(
                type: envelope.type, version: envelope.type.currentVersion, bytes, keys: ErasedEveryone(stranger))
            // The unsealed part survives: stream, users and post are never personal.
            #expect(
                erased.event.stream == envelope.event.stream && erased.event.users == envelope.event.users
                    && erased.event.post == envelope.event.post, "\(envelope.type)")
            #expect(
                erased.erased || erased.event == envelope.event,
                "\(envelope.type): a payload with nothing sealed is whole")
        }
    }

    /// Version 1 of the sealed types held the personal fields in clear, in the same order.
    @Test func version1HeldPersonalFieldsInClear() throws {
        let keys = try keyStore()
        let user = UserID("-NjEtLV-KuqujN23jOmK"), post = PostID("-NjEtLV-KuqujN23jPost")
        func decode(_ type: EventType, _ version: UInt8 = 1, _ fill: (inout ByteWriter) -> Void) throws -> Event {
            var w = ByteWriter()
            fill(&w)
            let decoded = try PayloadCodec.decode(type: type, version: version, w.bytes, keys: keys)
            #expect(!decoded.erased)
            return decoded.event
        }
        #expect(
            try decode(.userCreated) {
                $0.string(user.rawValue)
                $0.string("ann")
                $0.optionalString("ann@example.com")
                $0.optionalString("hash")
                $0.optionalString("bio")
                $0.optionalString(nil)
            }
                == .userCreated(
                    UserCreated(
                        userId: user, username: "ann", email: "ann@example.com", passwordHash: "hash", bio: "bio")))
        #expect(
            try decode(.profileUpdated) {
                $0.string(user.rawValue)
                $0.optionalString("ann2")
                $0.optionalString(nil)
                $0.optionalString("https://a.org")
            }
                == .profileUpdated(ProfileUpdated(userId: user, username: "ann2", url: "https://a.org")))
        #expect(
            try decode(.postAdded) {
                $0.string(post.rawValue)
                $0.string(user.rawValue)
                $0.string("image")
                $0.optionalString("hi #sea")
                $0.strings(["sea"])
            }
                == .postAdded(
                    PostAdded(
                        postId: post, authorId: user, imageId: ImageID("image"), caption: "hi #sea", hashtags: ["sea"]))
        )
        #expect(
            try decode(.commentAdded) {
                $0.string("c1")
                $0.string(post.rawValue)
                $0.string(user.rawValue)
                $0.string("nice")
            }
                == .commentAdded(CommentAdded(commentId: CommentID("c1"), postId: post, authorId: user, text: "nice")))
        #expect(
            try decode(.postReported) {
                $0.string(post.rawValue)
                $0.string(user.rawValue)
                $0.string("spam")
            }
                == .postReported(PostReported(postId: post, reporterId: user, reason: "spam")))
        // PasswordChanged v1 always named its reset token (and sealed the rest, as v2 does).
        let changed = PasswordChanged(userId: user, passwordHash: "hash", email: nil, resetTokenHash: "token")
        let v2 = try PayloadCodec.encode(.passwordChanged(changed), keys: keys)
        var v1 = ByteWriter()
        v1.string(user.rawValue)
        v1.string("token")
        var rest = ByteReader(v2)
        _ = try rest.string()
        _ = try rest.optionalString()
        v1.raw(try rest.raw(rest.remaining))
        #expect(
            try PayloadCodec.decode(type: .passwordChanged, version: 1, v1.bytes, keys: keys).event
                == .passwordChanged(changed))
        // SignInFailed v1 held the email alone, in clear: it reads back as its keyed hash.
        #expect(
            try decode(.signInFailed) { $0.string("ann@example.com") }
                == .signInFailed(SignInFailed(emailHash: keys.emailHash("ann@example.com"))))
        // SignInFailed before v3 had no origin.
        #expect(
            try decode(.signInFailed, 2) {
                $0.string("emailhash")
                $0.optionalString(user.rawValue)
            }
                == .signInFailed(SignInFailed(emailHash: "emailhash", userId: user)))
        // A version newer than the build, or trailing bytes, is refused.
        #expect(throws: CorruptRecord.self) {
            try decode(.likeAdded, 2) {
                $0.string(post.rawValue)
                $0.string(user.rawValue)
            }
        }
        #expect(throws: CorruptRecord.self) {
            try decode(.likeAdded) {
                $0.string(post.rawValue)
                $0.string(user.rawValue)
                $0.u8(0)
            }
        }
    }
}

/// Keys as they are once every user is erased.
private struct ErasedEveryone: PayloadKeys {
    let store: KeyStore
    init(_ store: KeyStore) { self.store = store }
    func key(for user: UserID) throws(KeyStoreError) -> [UInt8]? { nil }
    func ensureKey(for user: UserID) throws -> [UInt8] { try store.ensureKey(for: user) }
    func emailHash(_ email: String) -> String { store.emailHash(email) }
}
