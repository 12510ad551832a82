import Foundation
import JSONModel
import Testing
import Timeline
import TimelineDomain

/// One command of each kind, with every optional field set. A test fails until a new command
/// has its sample here; the tests below then check its JSON round trip and its schema.
let sampleCommands: [Command] = [
    .createUser(username: "a", email: "a@b.co", password: "password-1", bio: "b", url: "https://x.org"),
    .signIn(email: "a@b.co", password: "p", app: "app1", clientSecret: "s", scopes: "read write"),
    .signOut(session: "t"),
    .signOutEverywhere,
    .updateProfile(username: "n", bio: "b", url: "https://x.org", discoverable: false, locked: true),
    .follow(user: "u1", notify: true),
    .unfollow(user: "u1"),
    .addPost(
        image: gifBase64(1), caption: "c", location: Place(latitude: -33.5, longitude: 151.25, name: "Bay"),
        sensitive: true, warning: "w",
        visibility: .followers),
    .deletePost(post: "p1"),
    .addComment(post: "p1", text: "t", replyTo: "c1"),
    .deleteComment(comment: "c1"),
    .like(post: "p1"),
    .unlike(post: "p1"),
    .bookmark(post: "p1"),
    .unbookmark(post: "p1"),
    .block(user: "u1"),
    .unblock(user: "u1"),
    .mute(user: "u1", duration: 3600),
    .unmute(user: "u1"),
    .approveFollowRequest(user: "u1"),
    .rejectFollowRequest(user: "u1"),
    .uploadMedia(image: gifBase64(2), alt: "a red square"),
    .updateMedia(media: "m1", alt: "a green square"),
    .deleteMedia(media: "m1"),
    .expireMedia,
    .grantRole(user: "u1"),
    .revokeRole(user: "u1"),
    .reportUser(user: "u1", reason: "spam", posts: ["p1"]),
    .dismissUserReports(user: "u1"),
    .suspendUser(user: "u1"),
    .unsuspendUser(user: "u1"),
    .registerApp(
        name: "An app", redirectURIs: ["urn:ietf:wg:oauth:2.0:oob"], scopes: "read write",
        website: "https://app.example"),
    .authorizeApp(
        app: "a1", redirectURI: "urn:ietf:wg:oauth:2.0:oob", scopes: "read",
        codeChallenge: String(repeating: "A", count: 43),
        codeChallengeMethod: "S256"),
    .dismissActivity(item: "a1"),
    .subscribePush(
        endpoint: "https://push.example/s/1", p256dh: "BA", auth: "AAAAAAAAAAAAAAAAAAAAAA", standard: true,
        alerts: ["mention"], policy: "all"),
    .unsubscribePush,
    .endPushSubscription(sessionHash: "h"),
    .redeemAuthorization(
        code: "c", app: "a1", clientSecret: nil, redirectURI: "urn:ietf:wg:oauth:2.0:oob", codeVerifier: "v"),
    .issueAppToken(app: "a1", clientSecret: "s", scopes: "read"),
    .checkSignIn(email: "a@b.co", password: "p"),
    .revokeToken(token: "t", app: "a1", clientSecret: "s"),
    .markActivityRead(upTo: "a1"),
    .editPost(post: "p1", caption: .some("new #caption"), alts: ["m1": "a red square", "m2": nil]),
    .reportPost(post: "p1", reason: "r"),
    .removePost(post: "p1", reason: "r"),
    .dismissReports(post: "p1"),
    .eraseUser(user: "u1"),
    .requestPasswordReset(user: "u1"),
    .resetPassword(token: "t", password: "password-1", email: "a@b.co"),
    .changePassword(currentPassword: "password-1", newPassword: "password-2"),
    .changeEmail(password: "password-1", email: "a@b.co"),
    .setInstanceText(field: "privacyPolicy", text: "We keep little."),
    .addInstanceRule(text: "Be kind", hint: "To everyone"),
    .removeInstanceRule(rule: "r1"),
    .addAnnouncement(text: "Maintenance", startsAt: "2026-12-24", endsAt: "2026-12-25", allDay: true),
    .removeAnnouncement(announcement: "a1"),
    .dismissAnnouncement(announcement: "a1"),
    .addAnnouncementReaction(announcement: "a1", name: "👍"),
    .removeAnnouncementReaction(announcement: "a1", name: "👍")
]

@Suite struct CatalogueTests {
    /// Every command of the registry has its sample, in the registry's order.
    @Test func everyCommandHasASample() {
        #expect(sampleCommands.map(\.name) == Command.names)
    }

    /// The decoder (`Catalogue.command`) and the encoder (`Command.jsonObject`) are one mapping:
    /// every command survives the round trip, and the decoder reads every field encoded.
    @Test(arguments: sampleCommands) func commandJSONRoundTrips(_ command: Command) throws {
        let object = command.jsonObject()
        #expect(object["command"]?.string == command.name)
        let input = JSONInput(object: object.removing("command"))
        let decoded = try Catalogue.command(named: command.name, input)
        try input.refuseUnreadFields()
        #expect(decoded == command)
        #expect(decoded != Command.signOut(session: "another"))
    }

    /// Every query name decodes to that query, which says whether it is private as the catalogue does.
    @Test(arguments: Catalogue.queryNames) func queryNamesDecode(_ name: String) throws {
        let fields: JSONValue = [
            "user": "u1", "username": "zoe", "prefix": "z", "target": "u2", "post": "p1", "tag": "sea",
            "image": "i1", "limit": 5, "latitude": .double(1.5), "longitude": .double(2.5), "emails": ["a@b.co"]
        ]
        let query = try Catalogue.query(named: name, JSONInput(object: fields))
        #expect(query.name == name)
        #expect(query.isPrivate == Catalogue.isPrivate(name))
    }

    @Test func unknownCommandNamesAreRefused() {
        #expect(throws: TimelineError.self) { try Catalogue.command(named: "teleport", JSONInput(object: [:])) }
        #expect(throws: TimelineError.self) { try Catalogue.query(named: "teleports", JSONInput(object: [:])) }
    }

    /// Every command and event type has its JSON Schema.
    @Test func everyCommandAndEventTypeHasASchema() {
        let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../schemas")
            .standardized
        for name in Command.names {
            let path = schemas.appending(path: "commands/\(name).schema.json").path
            #expect(FileManager.default.fileExists(atPath: path), "missing \(path)")
        }
        for type in EventType.allCases {
            let path = schemas.appending(path: "events/\(type.rawValue).v\(type.currentVersion).schema.json").path
            #expect(FileManager.default.fileExists(atPath: path), "missing \(path)")
        }
    }
}
