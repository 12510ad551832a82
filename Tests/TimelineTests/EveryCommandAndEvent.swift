import Foundation
import OpenSSL
import Sodium
import Testing
import WebPush

@testable import Timeline

// The two registers a new command or event type adds a line to, side by side: one sample of
// each command (CatalogueTests checks its JSON round trip, SchemaTests its schema) and a
// history with an event of every type (SchemaTests validates each against its schema, and the
// routing and payload codec tests replay it). A test fails until the new one is here.

/// One command of each kind, with every optional field set. A test fails until a new command
/// has its sample here; CatalogueTests checks its JSON round trip, SchemaTests its schema.
let sampleCommands: [Command] = [
    .createUser(username: "a", email: "a@b.co", password: "password-1", bio: "b", url: "https://x.org"),
    .signIn(email: "a@b.co", password: "p", app: "app1", clientSecret: "s", scopes: "read write"),
    .signOut(session: "t"),
    .signOutEverywhere,
    .updateProfile(username: "n", bio: "b", url: "https://x.org", discoverable: false, locked: true),
    .follow(user: "u1", notify: true, reblogs: false),
    .unfollow(user: "u1"),
    .addPost(
        image: gifBase64(1), caption: "c", location: Place(latitude: -33.5, longitude: 151.25, name: "Bay"),
        sensitive: true, warning: "w",
        visibility: .followers, poll: PollDraft(options: ["a", "b"], expiresIn: 300, hideTotals: true)),
    .deletePost(post: "p1"),
    .addComment(post: "p1", text: "t", replyTo: "c1"),
    .deleteComment(comment: "c1"),
    .like(post: "p1"),
    .unlike(post: "p1"),
    .reblog(post: "p1", visibility: "unlisted"),
    .unreblog(post: "p1"),
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
    .uploadVideo(video: "AAAAGGZ0eXBpc29t", alt: "a clip"),
    .finishVideo(media: "m1"),
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
    .editPost(
        post: "p1", caption: .some("new #caption"), alts: ["m1": "a red square", "m2": nil],
        poll: .some(PollDraft(options: ["yes", "no"], expiresIn: 300, multiple: true))),
    .reportPost(post: "p1", reason: "r"),
    .removePost(post: "p1", reason: "r"),
    .dismissReports(post: "p1"),
    .eraseUser(user: "u1"),
    .requestPasswordReset(user: "u1"),
    .requestPasswordResetByEmail(email: "u1@example.com"),
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
    .removeAnnouncementReaction(announcement: "a1", name: "👍"),
    .hideTrend(tag: "sea"), .showTrend(post: "p1"),
    .setNotificationPolicy(forNotFollowing: "filter", forNewAccounts: "drop"),
    .acceptNotificationRequest(account: "u2"),
    .dismissNotificationRequest(account: "u2"),
    .createFilter(
        title: "Spoilers", context: ["home", "thread"], action: "hide", expiresIn: 3600,
        keywords: [FilterKeywordInput(keyword: "finale", wholeWord: false)]),
    .updateFilter(
        filter: "f1", title: "Spoilers!", context: ["home"], action: "warn", expiresIn: 0,
        keywords: [FilterKeywordInput(id: "k1", destroy: true), FilterKeywordInput(keyword: "ending")]),
    .deleteFilter(filter: "f1"),
    .addFilterKeyword(filter: "f1", keyword: "finale", wholeWord: true),
    .updateFilterKeyword(keyword: "k1", text: "ending", wholeWord: false),
    .removeFilterKeyword(keyword: "k1"),
    .addFilterStatus(filter: "f1", post: "p1"),
    .removeFilterStatus(filterStatus: "s1"),
    .vote(poll: "q1", choices: [0, 2]),
    .pin(post: "p1"), .unpin(post: "p1"), .muteConversation(post: "p1"), .unmuteConversation(post: "p1"),
    .setAccountNote(user: "u2", note: "a note"), .removeFromFollowers(user: "u2"), .endorse(user: "u2"),
    .unendorse(user: "u2"), .featureTag(tag: "cats"), .unfeatureTag(tag: "cats"), .dismissSuggestion(user: "u2"),
    .generateAnnualReport(year: "2025"), .readAnnualReport(year: "2025"),
    .followTag(tag: "cats"), .unfollowTag(tag: "cats"),
    .createList(title: "Friends", repliesPolicy: "list", exclusive: true),
    .updateList(list: "l1", title: "Close friends", repliesPolicy: "none", exclusive: false),
    .deleteList(list: "l1"),
    .addToList(list: "l1", users: ["u2", "u3"]),
    .removeFromList(list: "l1", users: ["u2"]),
    .createCollection(
        name: "Starters", description: "Well worth following", language: "en", sensitive: false, discoverable: true,
        tag: "photo", accounts: ["u2", "u3"]),
    .updateCollection(collection: "c1", name: "Starter pack", description: "", language: "", tag: ""),
    .deleteCollection(collection: "c1"),
    .addToCollection(collection: "c1", account: "u2"),
    .removeFromCollection(collection: "c1", item: "i1"),
    .revokeCollectionItem(collection: "c1", item: "i2"),
    .markConversationRead(conversation: "p1"), .removeConversation(conversation: "p1"),
    .schedulePost(
        media: ["m1"], caption: "later #tag", scheduledAt: "2030-01-01T12:00:00Z",
        location: Place(latitude: 1, longitude: 2, name: "There"), warning: "cw", visibility: .followers,
        poll: PollDraft(options: ["a", "b"], expiresIn: 3600)),
    .reschedulePost(scheduledPost: "s1", scheduledAt: "2030-01-02T12:00:00Z"),
    .cancelScheduledPost(scheduledPost: "s1"),
    .publishScheduledPost(scheduledPost: "s1"),
    .enrollTwoFactor, .confirmTwoFactor(code: "123456"), .disableTwoFactor(password: "password-123", code: "123456"),
    .postStory(media: gifBase64(0)), .postVideoStory(video: "m1"), .viewStory(story: "s1"),
    .replyToStory(story: "s1", text: "lovely"),
    .highlightStory(story: "s1"), .unhighlightStory(story: "s1"), .deleteStory(story: "s1"), .expireStory(story: "s1"),
    .createActorKey(user: "u1"),
    .recordRemoteAccount(
        actor: "https://two.example/users/bob", username: "bob", inbox: "https://two.example/users/bob/inbox",
        sharedInbox: "https://two.example/inbox", keyId: "https://two.example/users/bob#main-key",
        publicKey: "-----BEGIN PUBLIC KEY-----\n…", locked: false),
    .blockDomain(host: "evil.example"), .unblockDomain(host: "evil.example"),
    .receiveRemotePost(
        author: "u2", object: "https://two.example/users/bob/statuses/1", caption: "from afar #far", media: ["m1"],
        visibility: .followers, sensitive: true, warning: "cw"),
    .blockAccountDomain(host: "evil.example"), .unblockAccountDomain(host: "evil.example"),
    .receiveRemoteComment(
        author: "u2", object: "https://two.example/users/bob/statuses/2", post: "p1", text: "from afar", replyTo: "c1")
]

extension SchemaTests {
    /// A history in `service` with at least one event of every type (`everyEventTypeValidates`
    /// checks it).
    static func historyOfEveryEventType(_ service: TimelineService) async throws {
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let token = try #require(
            try await service.execute(.signIn(email: "alice@example.com", password: "password-123")).session
        ).token
        _ = try? await service.execute(.signIn(email: "alice@example.com", password: "wrong-password"))
        try await service.run(
            .updateProfile(username: "alice2", bio: "bio", url: "https://x.org", discoverable: false), as: alice.id)
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)
        let post = try #require(
            try await service.run(
                .addPost(
                    image: gifBase64(0), caption: "caption #tag",
                    location: Place(latitude: 1.5, longitude: -2.5, name: "Here"),
                    sensitive: true, warning: "needles"), as: alice.id
            ).post)
        try await service.run(.editPost(post: post.id.rawValue, caption: .some("caption, edited #tag2")), as: alice.id)
        // A poll: set with its post, voted in, set anew by an edit, then taken away by another.
        let polled = try #require(
            try await service.run(
                .addPost(
                    image: gifBase64(5), caption: "which?",
                    poll: PollDraft(options: ["red", "blue"], expiresIn: 3_600, multiple: true, hideTotals: true)),
                as: alice.id
            ).post)
        let poll = try #require(try service.poll(of: polled.id, viewer: bob.id))
        try await service.run(.vote(poll: poll.id.rawValue, choices: [0, 1]), as: bob.id)
        try await service.run(
            .editPost(
                post: polled.id.rawValue, caption: nil, poll: .some(PollDraft(options: ["a", "b", "c"], expiresIn: 600))
            ), as: alice.id)
        try await service.run(.editPost(post: polled.id.rawValue, caption: nil, poll: .some(nil)), as: alice.id)
        let comment = try await service.addComment(by: bob.id, on: post.id)
        try await service.run(
            .addComment(post: post.id.rawValue, text: "thanks @bob", replyTo: comment.id.rawValue), as: alice.id)
        try await service.run(.like(post: post.id.rawValue), as: bob.id)
        try await service.run(.unlike(post: post.id.rawValue), as: bob.id)
        // A boost, taken back; boosts hidden and shown again.
        try await service.run(.reblog(post: post.id.rawValue), as: bob.id)
        try await service.run(.unreblog(post: post.id.rawValue), as: bob.id)
        try await service.run(.follow(user: alice.id.rawValue, reblogs: false), as: bob.id)
        try await service.run(.follow(user: alice.id.rawValue, reblogs: true), as: bob.id)
        try await service.run(.block(user: alice.id.rawValue), as: bob.id)
        try await service.run(.unblock(user: alice.id.rawValue), as: bob.id)
        try await service.run(.mute(user: alice.id.rawValue, duration: 3600), as: bob.id)
        try await service.run(.unmute(user: alice.id.rawValue), as: bob.id)
        let seen = try #require(try service.activity(of: alice.id).items.first).id
        try await service.run(.markActivityRead(upTo: seen), as: alice.id)
        try await service.run(.bookmark(post: post.id.rawValue), as: bob.id)
        try await service.run(.unbookmark(post: post.id.rawValue), as: bob.id)
        try await service.run(.pin(post: post.id.rawValue), as: alice.id)
        try await service.run(.unpin(post: post.id.rawValue), as: alice.id)
        try await service.run(.muteConversation(post: post.id.rawValue), as: bob.id)
        try await service.run(.unmuteConversation(post: post.id.rawValue), as: bob.id)
        try await service.run(.setAccountNote(user: alice.id.rawValue, note: "a note"), as: bob.id)
        try await service.run(.follow(user: alice.id.rawValue), as: bob.id)  // the block ended it
        try await service.run(.endorse(user: alice.id.rawValue), as: bob.id)
        try await service.run(.unendorse(user: alice.id.rawValue), as: bob.id)
        try await service.run(.dismissSuggestion(user: alice.id.rawValue), as: bob.id)
        let thisYear = String(UTCCalendar.yearMonth(ms: service.options.clock.nowMilliseconds()).year)
        try await service.run(.generateAnnualReport(year: thisYear), as: bob.id)
        try await service.run(.readAnnualReport(year: thisYear), as: bob.id)
        try await service.run(.featureTag(tag: "cats"), as: alice.id)
        try await service.run(.unfeatureTag(tag: "cats"), as: alice.id)
        try await service.run(.followTag(tag: "cats"), as: alice.id)
        try await service.run(.unfollowTag(tag: "cats"), as: alice.id)
        try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: bob.id)
        _ = try await service.execute(.dismissReports(post: post.id.rawValue), as: .operator)
        let doomed = try await service.addPost(by: alice.id, caption: "against the rules")
        _ = try await service.execute(.removePost(post: doomed.id.rawValue, reason: "rule 3"), as: .operator)
        try await service.run(.deleteComment(comment: comment.id.rawValue), as: bob.id)
        try await service.run(.unfollow(user: alice.id.rawValue), as: bob.id)
        try await service.run(.deletePost(post: post.id.rawValue), as: alice.id)
        _ = try MediaReprocessTests.addOldPost(service, by: alice.id, gifBytes(3))  // a post from before the image pipeline
        #expect(try service.reprocessMedia().processed == 1)
        _ = try await service.execute(.signOut(session: token))
        try await service.run(.signOutEverywhere, as: alice.id)
        let reset = try #require(
            try await service.execute(.requestPasswordReset(user: bob.id.rawValue), as: .operator).token)
        _ = try await service.execute(
            .resetPassword(token: reset, password: "new-password-1", email: "bob2@example.com"))
        try await service.run(.changeEmail(password: "new-password-1", email: "bob3@example.com"), as: bob.id)
        _ = try await service.execute(.requestPasswordResetByEmail(email: "bob3@example.com"))  // v2, to be mailed
        try await service.run(
            .changePassword(currentPassword: "new-password-1", newPassword: "new-password-2"), as: bob.id)
        // An OAuth app, and a token of it for fay (SignedIn v2).
        let fay = try await service.createUser("fay")
        guard
            case .app(let app) = try await service.execute(
                .registerApp(
                    name: "App", redirectURIs: ["urn:ietf:wg:oauth:2.0:oob"],
                    scopes: "read write"))
        else { throw TimelineError(.internal, "no app") }
        _ = try await service.execute(
            .signIn(
                email: "fay@example.com", password: "password-123", app: app.id,
                clientSecret: try #require(app.clientSecret), scopes: "read"))
        // Fay authorizes it on the authorize page; it redeems the code (SignedIn v3), and gets a token of its own.
        let verifier = String(repeating: "v", count: 43)
        let challenge = Sodium.base64URL(Sodium.sha256(Array(verifier.utf8)))
        guard
            case .session(let faysSession, _) = try await service.execute(
                .signIn(email: "fay@example.com", password: "password-123"))
        else { throw TimelineError(.internal, "no session") }
        guard
            case .token(let code) = try await service.execute(
                .authorizeApp(
                    app: app.id, redirectURI: "urn:ietf:wg:oauth:2.0:oob", scopes: "read",
                    codeChallenge: challenge, codeChallengeMethod: "S256"),
                as: .session(faysSession))
        else { throw TimelineError(.internal, "no code") }
        _ = try await service.execute(
            .redeemAuthorization(
                code: code, app: app.id, clientSecret: nil, redirectURI: "urn:ietf:wg:oauth:2.0:oob",
                codeVerifier: verifier))
        let secret = try #require(app.clientSecret)
        guard case .token(let appToken) = try await service.execute(.issueAppToken(app: app.id, clientSecret: secret))
        else { throw TimelineError(.internal, "no app token") }
        _ = try await service.execute(.revokeToken(token: appToken, app: app.id, clientSecret: app.clientSecret))
        try await service.run(.dismissActivity(item: nil), as: alice.id)
        // Post notifications on, then off.
        try await service.run(.follow(user: fay.id.rawValue, notify: true), as: alice.id)
        try await service.run(.follow(user: fay.id.rawValue, notify: false), as: alice.id)
        // A push subscription of fay's session, ended by the operator (as the delivery worker does on a 410).
        _ = try await service.execute(
            .subscribePush(
                endpoint: "https://push.example/s/fay", p256dh: Base64URL.encode(try P256KeyPair.generate().publicKey),
                auth: Base64URL.encode(Array(repeating: 7, count: 16))), as: .session(faysSession))
        _ = try await service.execute(
            .endPushSubscription(sessionHash: TimelineService.hashToken(faysSession)), as: .operator)
        // Account moderation: a moderator, a report naming a post, dismissed; a suspension, lifted.
        let dan = try await service.createUser("dan"), eve = try await service.createUser("eve")
        _ = try await service.execute(.grantRole(user: dan.id.rawValue), as: .operator)
        let evesPost = try await service.addPost(by: eve.id, caption: "spam")
        try await service.run(
            .reportUser(user: eve.id.rawValue, reason: "spam account", posts: [evesPost.id.rawValue]), as: alice.id)
        try await service.run(.dismissUserReports(user: eve.id.rawValue), as: dan.id)
        try await service.run(.suspendUser(user: eve.id.rawValue), as: dan.id)
        try await service.run(.unsuspendUser(user: eve.id.rawValue), as: dan.id)
        _ = try await service.execute(.revokeRole(user: dan.id.rawValue), as: .operator)
        let carol = try await service.createUser("carol")
        // A locked account: a request rejected, one withdrawn, one approved by unlocking.
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: carol.id)
        try await service.run(.follow(user: carol.id.rawValue), as: alice.id)
        try await service.run(.rejectFollowRequest(user: alice.id.rawValue), as: carol.id)
        try await service.run(.follow(user: carol.id.rawValue), as: bob.id)
        try await service.run(.unfollow(user: carol.id.rawValue), as: bob.id)
        try await service.run(.follow(user: carol.id.rawValue), as: alice.id)
        try await service.run(.approveFollowRequest(user: alice.id.rawValue), as: carol.id)
        _ = try await service.run(
            .addPost(
                image: gifBase64(1), caption: "soon gone #bye", location: Place(latitude: -80, longitude: 170),
                visibility: .followers), as: carol.id)
        // An album, one of its alt texts changed, and a photo never attached (erasure deletes it).
        var album: [String] = []
        for (n, alt) in [(0xFF, "red"), (0xFF00, nil)] {
            guard
                case .media(let media) = try await service.execute(
                    .uploadMedia(image: gifBase64(n), alt: alt), as: .user(carol.id.rawValue))
            else { throw TimelineError(.internal, "no media") }
            album.append(media.id)
        }
        _ = try await service.run(.addPost(media: album, caption: "an album"), as: carol.id)
        _ = try await service.run(.updateMedia(media: album[1], alt: "green"), as: carol.id)
        _ = try await service.run(.uploadMedia(image: gifBase64(0xFF0000)), as: carol.id)
        // The instance's texts, rules and announcements, a dismissal and reactions (carol's go with her).
        _ = try await service.execute(.setInstanceText(field: "termsOfService", text: "Be nice."), as: .operator)
        let rule = try #require(
            try await service.execute(.addInstanceRule(text: "Be kind", hint: "Always"), as: .operator).created)
        _ = try await service.execute(.removeInstanceRule(rule: rule), as: .operator)
        let note = try #require(
            try await service.execute(
                .addAnnouncement(
                    text: "Down at noon", startsAt: "2026-12-24T12:00:00Z", endsAt: "2026-12-24T13:00:00Z"),
                as: .operator
            ).created)
        try await service.run(.dismissAnnouncement(announcement: note), as: carol.id)
        try await service.run(.addAnnouncementReaction(announcement: note, name: "🎉"), as: carol.id)
        try await service.run(.addAnnouncementReaction(announcement: note, name: "👍"), as: alice.id)
        try await service.run(.removeAnnouncementReaction(announcement: note, name: "👍"), as: alice.id)
        let gone = try #require(try await service.execute(.addAnnouncement(text: "Oops"), as: .operator).created)
        _ = try await service.execute(.removeAnnouncement(announcement: gone), as: .operator)
        // A moderator's word on the trends: a hashtag hidden, then shown again.
        _ = try await service.execute(.hideTrend(tag: "sea"), as: .operator)
        _ = try await service.execute(.showTrend(tag: "sea"), as: .operator)
        // Dan's notification policy holds the follows of those he does not follow: eve's is accepted, fay's dismissed.
        try await service.run(.setNotificationPolicy(forNotFollowing: "filter"), as: dan.id)
        try await service.run(.follow(user: dan.id.rawValue), as: eve.id)
        try await service.run(.follow(user: dan.id.rawValue), as: fay.id)
        try await service.run(.acceptNotificationRequest(account: eve.id.rawValue), as: dan.id)
        try await service.run(.dismissNotificationRequest(account: fay.id.rawValue), as: dan.id)
        // Carol's filters: made, changed (keywords and a post of her own), one deleted; erased with her.
        let words = try #require(
            try await service.run(
                .createFilter(
                    title: "Words", context: ["home"], action: "warn", expiresIn: 3600,
                    keywords: [FilterKeywordInput(keyword: "tag", wholeWord: false)]), as: carol.id
            ).created)
        let word = try #require(
            try await service.run(.addFilterKeyword(filter: words, keyword: "caption"), as: carol.id).created)
        try await service.run(.updateFilterKeyword(keyword: word, wholeWord: false), as: carol.id)
        try await service.run(
            .updateFilter(filter: words, title: "Muted words", context: ["home", "public"]), as: carol.id)
        let carols = try await service.addPost(by: carol.id, caption: "mine", image: 7)
        let named = try #require(
            try await service.run(.addFilterStatus(filter: words, post: carols.id.rawValue), as: carol.id).created)
        try await service.run(.removeFilterStatus(filterStatus: named), as: carol.id)
        try await service.run(.removeFilterKeyword(keyword: word), as: carol.id)
        let other = try #require(
            try await service.run(.createFilter(title: "Other", context: ["thread"]), as: carol.id).created)
        try await service.run(.deleteFilter(filter: other), as: carol.id)
        // Alice's list of fay (made, changed, fay put in and taken out) and a deleted one.
        let list = try #require(
            try await service.execute(.createList(title: "Fay", exclusive: true), as: .user(alice.id.rawValue)).created)
        try await service.run(.updateList(list: list, title: "Fay's", repliesPolicy: "followed"), as: alice.id)
        try await service.run(.addToList(list: list, users: [fay.id.rawValue]), as: alice.id)
        try await service.run(.removeFromList(list: list, users: [fay.id.rawValue]), as: alice.id)
        try await service.run(.deleteList(list: list), as: alice.id)
        // Alice's collection of fay (made, changed, fay taken out, bob added, revoked by him),
        // and a deleted one.
        let collection = try #require(
            try await service.execute(
                .createCollection(name: "Fay", accounts: [fay.id.rawValue]), as: .user(alice.id.rawValue)
            ).created)
        try await service.run(.updateCollection(collection: collection, name: "Fay's", sensitive: true), as: alice.id)
        let fayItem = try #require(try service.collection(CollectionID(collection), viewer: alice.id).items.first)
        try await service.run(.removeFromCollection(collection: collection, item: fayItem.id.rawValue), as: alice.id)
        let bobItem = try #require(
            try await service.run(.addToCollection(collection: collection, account: bob.id.rawValue), as: alice.id)
                .created)
        try await service.run(.revokeCollectionItem(collection: collection, item: bobItem), as: bob.id)
        try await service.run(.deleteCollection(collection: collection), as: alice.id)
        // A direct message of text alone from alice to fay, read, then removed from fay's list.
        let message = try await service.execute(
            .addDirectPost(caption: "@\(fay.username) lunch?"), as: .user(alice.id.rawValue))
        guard case .post(let dm) = message else { throw TimelineError(.internal, "no post") }
        try await service.run(.markConversationRead(conversation: dm.id.rawValue), as: fay.id)
        try await service.run(.removeConversation(conversation: dm.id.rawValue), as: fay.id)
        // Alice schedules two posts, moves one and cancels the other; the first is published.
        try await ScheduledPostTests.scheduleMoveCancelAndPublish(service, as: alice.id)
        // Two-factor sign-in: enrolled, confirmed, a code spent at a sign-in, then turned off.
        guard case .twoFactorEnrollment(let enrollment) = try await service.run(.enrollTwoFactor, as: fay.id) else {
            throw TimelineError(.internal, "no enrolment")
        }
        let now = service.options.clock.nowMilliseconds()
        guard
            case .recoveryCodes(let recovery) = try await service.run(
                .confirmTwoFactor(code: TwoFactorTests.code(enrollment.secret, at: now)), as: fay.id)
        else { throw TimelineError(.internal, "no recovery codes") }
        let nextCode = TwoFactorTests.code(enrollment.secret, at: now + 30_000)
        _ = try await service.execute(.signIn(email: "fay@example.com", password: "password-123", code: nextCode))
        _ = try await service.run(.disableTwoFactor(password: "password-123", code: recovery[0]), as: fay.id)
        // Another server's actor is seen, and follows alice.
        let remote = try #require(
            try await service.execute(RemoteAccountTests.record(), as: .operator).profile)
        try await service.run(.follow(user: alice.id.rawValue), as: remote.id)
        // Its post comes in, with a photo it uploaded here, and alice follows it.
        guard
            case .media(let remoteMedia) = try await service.execute(
                .uploadMedia(image: gifBase64(0xABCDEF), alt: "far away"), as: .user(remote.id.rawValue))
        else { throw TimelineError(.internal, "no media") }
        _ = try await service.execute(
            .receiveRemotePost(
                author: remote.id.rawValue, object: RemoteAccountTests.actor + "/statuses/1", caption: "from afar",
                media: [remoteMedia.id], visibility: .public),
            as: .operator)
        // It comments on a post here, from its server.
        let commented = try await service.addPost(by: alice.id, caption: "near", image: 9)
        _ = try await service.execute(
            .receiveRemoteComment(
                author: remote.id.rawValue, object: RemoteAccountTests.actor + "/statuses/2",
                post: commented.id.rawValue, text: "from afar"),
            as: .operator)
        // Bob blocks the remote account's server and lifts the block; then blocks another for good.
        try await service.run(.blockAccountDomain(host: "two.example"), as: bob.id)
        try await service.run(.unblockAccountDomain(host: "two.example"), as: bob.id)
        try await service.run(.blockAccountDomain(host: "evil.example"), as: bob.id)
        // The operator blocks a server, then federates with it again.
        _ = try await service.execute(.blockDomain(host: "evil.example:8443"), as: .operator)
        _ = try await service.execute(.unblockDomain(host: "evil.example:8443"), as: .operator)
        // Carol's actor gets its key (its private half sealed with her key), then she is erased.
        _ = try await service.actorPublicKey(of: carol.id)
        try await service.run(.eraseUser(user: carol.id.rawValue, password: "password-123"), as: carol.id)
        // Stories: two of fay's, one seen by alice, highlighted and let go again, one deleted; a
        // day later the sweep lets the other's photo go.
        guard case .story(let story) = try await service.run(.postStory(media: gifBase64(7)), as: fay.id),
            case .story(let deleted) = try await service.run(.postStory(media: gifBase64(8)), as: fay.id)
        else { throw TimelineError(.internal, "no story") }
        try await service.run(.follow(user: fay.id.rawValue), as: alice.id)
        _ = try await service.run(.viewStory(story: story.id.rawValue), as: alice.id)
        _ = try await service.run(.highlightStory(story: story.id.rawValue), as: fay.id)
        _ = try await service.run(.unhighlightStory(story: story.id.rawValue), as: fay.id)
        try await service.run(.deleteStory(story: deleted.id.rawValue), as: fay.id)
        try #require(service.options.clock as? TestClock).advance(24 * 3_600_000)
        try await service.expireDueStories()
        // Videos: one transcoded and posted, one cut short and refused, one shown as a story.
        let clip = try VideoTranscoderTests.make(
            "every-event.mp4", ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "1", "-pix_fmt", "yuv420p"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: clip))
        var videos: [String] = []
        for video in [bytes, bytes.prefix(bytes.count / 2), bytes] {
            guard
                case .media(let media) = try await service.run(
                    .uploadVideo(video: video.base64EncodedString()), as: fay.id)
            else { throw TimelineError(.internal, "no video") }
            videos.append(media.id)
        }
        try await service.processPendingVideos()
        _ = try await service.run(.addPost(media: [videos[0]], caption: "a clip"), as: fay.id)
        _ = try await service.run(.postVideoStory(video: videos[2]), as: fay.id)
    }
}
