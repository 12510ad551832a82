import Foundation
import JSONModel
import Testing
@testable import Timeline

/// Suggested friends: `suggestions` (friends of friends, ranked), `findContacts`
/// (by email, only users who are `discoverable`) and the `discoverable` setting.
@Suite struct SuggestionTests {
    /// A small hand-built network around ann, who follows bob, carol and dan (in that order):
    ///
    /// - eve is followed by bob, carol and dan (3); fay by bob and carol, gus by carol and dan (2);
    ///   hal by dan (1);
    /// - bob also follows ann herself and carol (whom ann follows already): neither is suggested;
    /// - ivy is followed by all three but blocks ann; jay is followed by bob but ann blocks him.
    struct Network {
        let service: TimelineService
        var users: [String: Profile] = [:]
        subscript(_ name: String) -> UserID { users[name]!.id }

        init() async throws {
            service = try openService()
            for name in ["ann", "bob", "carol", "dan", "eve", "fay", "gus", "hal", "ivy", "jay"] {
                users[name] = try await service.createUser(name)
            }
            let follows = [
                ("ann", ["bob", "carol", "dan"]), ("bob", ["eve", "fay", "ann", "carol", "ivy", "jay"]),
                ("carol", ["eve", "fay", "gus", "ivy"]), ("dan", ["eve", "gus", "hal", "ivy"])
            ]
            for (follower, followees) in follows {
                for followee in followees {
                    try await service.run(.follow(user: self[followee].rawValue), as: self[follower])
                }
            }
            try await service.run(.block(user: self["ann"].rawValue), as: self["ivy"])
            try await service.run(.block(user: self["jay"].rawValue), as: self["ann"])
        }

        func names(_ page: Page<Suggestion>) -> [String] { page.items.map(\.user.username) }
    }

    /// A dismissed suggestion (`dismissSuggestion`, Mastodon's `DELETE /api/v1/suggestions/:id`)
    /// never comes back, ranked or popular; dismissing again appends nothing; erasing either
    /// account takes the dismissal; the read model rebuilds equal.
    @Test func aDismissedSuggestionNeverComesBack() async throws {
        let net = try await Network()
        let service = net.service
        let twos = ["fay", "gus"].sorted { net[$0].rawValue < net[$1].rawValue }
        try await service.run(.dismissSuggestion(user: net["eve"].rawValue), as: net["ann"])
        #expect(net.names(try service.suggestions(for: net["ann"])) == twos + ["hal"])
        let head = try service.lastSequence()
        #expect(try await service.run(.dismissSuggestion(user: net["eve"].rawValue), as: net["ann"]) == .changed(false))
        #expect(try service.lastSequence() == head)
        await expectError(.invalidArgument, field: "user") {
            try await service.run(.dismissSuggestion(user: net["ann"].rawValue), as: net["ann"])
        }
        await expectError(.notFound) { try await service.run(.dismissSuggestion(user: "u-nobody"), as: net["ann"]) }
        // Only ann's suggestions change; the fallback list of a new account leaves eve out too.
        #expect(net.names(try service.suggestions(for: net["bob"])).contains("gus"))
        let kim = try await service.createUser("kim").id
        #expect(net.names(try service.suggestions(for: kim)).contains("eve"))
        try await service.run(.dismissSuggestion(user: net["eve"].rawValue), as: kim)
        #expect(!net.names(try service.suggestions(for: kim)).contains("eve"))
        let rebuilt = try service.rebuild(RebuildOptions(projections: [.profileExtras], verifyOnly: true))
        #expect(rebuilt.differences.isEmpty, "\(rebuilt.differences.prefix(3))")
        // Erasure takes the dismissals of and about the erased.
        try await service.run(.dismissSuggestion(user: net["fay"].rawValue), as: net["ann"])
        _ = try await service.execute(.eraseUser(user: net["eve"].rawValue), as: .operator)
        _ = try await service.execute(.eraseUser(user: net["ann"].rawValue), as: .operator)
        let left = try service.read { view in
            let extras = view.models.profileExtras
            return try extras.dismissedSuggestions.members(of: net["ann"], view.txn)
                + extras.dismissedBy.members(of: net["eve"], view.txn)
                + extras.dismissedBy.members(of: net["fay"], view.txn)
        }
        #expect(left.isEmpty)
    }

    /// Over Mastodon's API: the account leaves `GET /api/v1/suggestions` and `/api/v2/suggestions`.
    @Test func dismissingOverMastodonsAPI() async throws {
        try await withServer { server in
            let api = server.api
            let ann = try await api.signUp("ann"), bob = try await api.signUp("bob"), eve = try await api.signUp("eve")
            for (follower, followee) in [(ann, bob), (bob, eve)] {
                #expect(
                    try await api.send("PUT", "/v1/me/following/\(followee.id)", bearer: follower.token).status == 200)
            }
            let eveNumber = try await server.mastodonID("account", eve.id)
            func suggested(_ path: String) async throws -> [String] {
                let list = try JSONSerialization.jsonObject(with: try await api.get(path, bearer: ann.token).body)
                return (list as? [[String: Any]] ?? []).map {
                    ($0["account"] as? [String: Any] ?? $0)["id"] as? String ?? ""
                }
            }
            #expect(try await suggested("/api/v1/suggestions") == [eveNumber])
            let dismissed = try await api.send("DELETE", "/api/v1/suggestions/\(eveNumber)", bearer: ann.token)
            #expect(dismissed.status == 200 && dismissed.text == "{}", "\(dismissed)")
            #expect(try await suggested("/api/v1/suggestions").isEmpty)
            #expect(try await suggested("/api/v2/suggestions").isEmpty)
            #expect(try await api.send("DELETE", "/api/v1/suggestions/1", bearer: ann.token).status == 404)
            // /v1's own route, by native id.
            let again = try await api.send("DELETE", "/v1/me/suggestions/\(eve.id)", bearer: ann.token)
            #expect(again.status == 200 && again.json["changed"] as? Bool == false, "\(again)")
        }
    }

    @Test func rankedByHowManyOfYourFollowsFollowThemWithoutYouThoseYouFollowAndBlocks() async throws {
        let net = try await Network()
        let service = net.service
        let before = try service.lastSequence()
        let page = try service.suggestions(for: net["ann"])
        // Ties (fay and gus, 2 each) are in user id order.
        let twos = ["fay", "gus"].sorted { net[$0].rawValue < net[$1].rawValue }
        #expect(net.names(page) == ["eve"] + twos + ["hal"])
        #expect(page.items.map(\.followedByCount) == [3, 2, 2, 1])
        #expect(page.next == nil)
        // Named by up to three of ann's follows, her most recent follow first.
        #expect(page.items[0].followedBy == ["dan", "carol", "bob"])
        #expect(page.items.last?.followedBy == ["dan"])
        // Each item is the profile as ann sees it.
        #expect(page.items.allSatisfy { $0.user.followedByViewer == false && $0.user.blockedByViewer == false })
        #expect(page.items.allSatisfy { $0.user.discoverable == nil })
        // Paged with a stable cursor: every page size gives the same list.
        for limit in 1...3 {
            #expect(
                try service.all(limit: limit) { try service.suggestions(for: net["ann"], $0) }.map(\.user.username)
                    == net.names(page))
        }
        let first = try service.suggestions(for: net["ann"], PageRequest(limit: 1))
        #expect(first.next == "3:\(net["eve"].rawValue)")
        for bad in ["x", "3", "0:\(net["eve"].rawValue)", "3:", "-1:abc", "3:bad id"] {
            await expectError(.invalidArgument, field: "before") {
                _ = try service.suggestions(for: net["ann"], PageRequest(before: bad))
            }
        }
        // Following a suggestion takes it off the list; lifting the block brings jay in.
        try await service.run(.follow(user: net["eve"].rawValue), as: net["ann"])
        try await service.run(.unblock(user: net["jay"].rawValue), as: net["ann"])
        #expect(net.names(try service.suggestions(for: net["ann"])).sorted() == (twos + ["hal", "jay"]).sorted())
        // Someone who follows nobody gets the popular accounts instead (see below); the query
        // appends nothing.
        #expect(try service.suggestions(for: net["hal"]).items.allSatisfy { $0.followedByCount == 0 })
        let after = try service.lastSequence()
        _ = try service.suggestions(for: net["ann"])
        #expect(try service.lastSequence() == after && after > before)
    }

    /// A new account, whose follows suggest nobody, is offered the most followed, then most
    /// active, public accounts: not locked ones, not those blocked either way, not those it
    /// follows, not accounts with neither followers nor posts.
    @Test func withNobodyToSuggestTheMostFollowedPublicAccountsComeInstead() async throws {
        let net = try await Network()
        let service = net.service
        let kim = try await service.createUser("kim").id
        _ = try await service.createUser("lea")  // no followers, no posts: never suggested
        func ordered(_ names: [String]) -> [String] { names.sorted { net[$0].rawValue < net[$1].rawValue } }
        // Followers: eve and ivy 3; carol, fay and gus 2; ann, bob, dan, hal and jay 1.
        let everyone =
            ordered(["eve", "ivy"]) + ordered(["carol", "fay", "gus"]) + ordered(["ann", "bob", "dan", "hal", "jay"])
        let page = try service.suggestions(for: kim)
        #expect(net.names(page) == everyone)
        #expect(
            page.items.allSatisfy {
                $0.followedByCount == 0 && $0.followedBy.isEmpty && $0.user.followedByViewer == false
            })
        #expect(page.next == nil)
        #expect(net.names(try service.suggestions(for: kim, PageRequest(limit: 3))) == Array(everyone.prefix(3)))
        // Posts break a tie of followers: hal shares a photo and leads the ones.
        _ = try await service.addPost(by: net["hal"], caption: "hi")
        #expect(
            net.names(try service.suggestions(for: kim))
                == ordered(["eve", "ivy"]) + ordered(["carol", "fay", "gus"]) + ["hal"]
                + ordered(["ann", "bob", "dan", "jay"]))
        // Locked, blocking, blocked and followed accounts leave the list.
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: net["carol"])
        try await service.run(.block(user: kim.rawValue), as: net["ivy"])
        try await service.run(.block(user: net["jay"].rawValue), as: kim)
        try await service.run(.follow(user: net["eve"].rawValue), as: kim)
        // eve follows nobody, so kim's follows still suggest nobody: the fallback again.
        #expect(
            net.names(try service.suggestions(for: kim))
                == ordered(["fay", "gus"]) + ["hal"] + ordered(["ann", "bob", "dan"]))
        // Once a follow suggests someone, the list is friends of friends only.
        try await service.run(.follow(user: net["dan"].rawValue), as: kim)
        let friends = try service.suggestions(for: kim)
        #expect(net.names(friends) == ordered(["gus", "hal"]))
        #expect(friends.items.allSatisfy { $0.followedByCount == 1 })
    }

    @Test func privateToTheActingUser() async throws {
        let net = try await Network()
        let service = net.service
        #expect(
            try ask(service, "suggestions", viewer: net["ann"])
                == .suggestions(try service.suggestions(for: net["ann"])))
        await expectError(.unauthenticated) { _ = try ask(service, "suggestions") }
        await expectError(.unauthenticated) { _ = try ask(service, "findContacts", ["emails": ["bob@example.com"]]) }
        // exec: `as` or `session`, never a `user` or a `viewer`.
        let session = ExecSession(service: service)
        func send(_ request: [String: Any]) async throws -> [String: Any] {
            let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            return try #require(
                try JSONSerialization.jsonObject(with: Data(await session.handle(line: line).utf8)) as? [String: Any])
        }
        let ok = try await send(["query": "suggestions", "as": net["ann"].rawValue, "limit": 2])
        let items = try #require((ok["result"] as? [String: Any])?["items"] as? [[String: Any]])
        #expect(items.count == 2)
        #expect((items[0]["user"] as? [String: Any])?["username"] as? String == "eve")
        #expect(items[0]["followedByCount"] as? Int == 3)
        #expect(items[0]["followedBy"] as? [String] == ["dan", "carol", "bob"])
        #expect((ok["result"] as? [String: Any])?["next"] is String)
        let named = try await send(["query": "suggestions", "as": net["ann"].rawValue, "user": net["bob"].rawValue])
        #expect((named["error"] as? [String: Any])?["field"] as? String == "user")
        let nobody = try await send(["query": "findContacts", "emails": ["bob@example.com"]])
        #expect((nobody["error"] as? [String: Any])?["code"] as? String == "unauthenticated")
        let contacts = try await send([
            "query": "findContacts", "as": net["ann"].rawValue, "emails": ["bob@example.com", "nobody@example.com"]
        ])
        #expect(
            ((contacts["result"] as? [String: Any])?["users"] as? [[String: Any]])?.compactMap {
                $0["username"] as? String
            } == ["bob"])
        let notStrings = try await send([
            "query": "findContacts", "as": net["ann"].rawValue, "emails": ["bob@example.com", 7]
        ])
        #expect((notStrings["error"] as? [String: Any])?["field"] as? String == "emails")
    }

    @Test func findContactsMatchesOnlyDiscoverableUsersAndHidesTheRest() async throws {
        let net = try await Network()
        let service = net.service
        let ann = net["ann"]
        func found(_ emails: [String]) throws -> [String] {
            try service.findContacts(emails, viewer: ann).map(\.username)
        }
        // Any case, in the emails' order, each user once; ann herself, a user she blocks, a user
        // who blocks her, unknown and malformed emails match nobody.
        #expect(
            try found([
                "FAY@example.com", "eve@example.com", "fay@example.com", "ann@example.com", "jay@example.com",
                "ivy@example.com", "nobody@example.com", "not an email", "", "bob@example.com"
            ]) == ["fay", "eve", "bob"])
        let eve = try #require(try service.findContacts(["eve@example.com"], viewer: ann).first)
        #expect(eve.followedByViewer == false && eve.discoverable == nil)
        // eve turns discoverable off: found by nobody, answered exactly as an unknown email.
        let before = try service.lastSequence()
        let own = try #require(
            try await service.run(
                .updateProfile(username: nil, bio: nil, url: nil, discoverable: false), as: net["eve"]
            ).profile)
        #expect(own.discoverable == false)
        #expect(try service.lastSequence() == before + 1)
        let hidden = try ask(service, "findContacts", ["emails": ["eve@example.com"]], viewer: ann)
        #expect(hidden == .contacts([]))
        #expect(
            JSONOutput.answer(hidden)
                == JSONOutput.answer(try ask(service, "findContacts", ["emails": ["zed@example.com"]], viewer: ann)))
        #expect(try found(["eve@example.com", "fay@example.com"]) == ["fay"])
        // Setting it to what it is records nothing; the setting shows only to eve herself.
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, discoverable: false), as: net["eve"])
        #expect(try service.lastSequence() == before + 1)
        #expect(try service.user(net["eve"], viewer: net["eve"]).discoverable == false)
        #expect(try service.user(net["eve"], viewer: ann).discoverable == nil)
        #expect(try service.user(net["eve"]).discoverable == nil)
        #expect(try service.user(ann, viewer: ann).discoverable == true)
        // Back on.
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, discoverable: true), as: net["eve"])
        #expect(try found(["eve@example.com"]) == ["eve"])
        // The log has the setting, with a readable audit line; the query itself appended nothing.
        let events = try service.events(from: before + 1)
        #expect(
            events.map(\.event) == [
                .profileUpdated(ProfileUpdated(userId: net["eve"], discoverable: false)),
                .profileUpdated(ProfileUpdated(userId: net["eve"], discoverable: true))
            ])
        #expect(events.allSatisfy { $0.schemaVersion == 6 })  // v6 added the header
        #expect(events[0].event.summary { _ in "@eve" } == "@eve updated discoverable → off")
        #expect(events[0].jsonObject().payload == ["userId": .string(net["eve"].rawValue), "discoverable": false])
        #expect(try service.lastSequence() == before + 2)
        // At most `maxContactEmails` (500) emails.
        let most = TimelineService.maxContactEmails
        #expect(
            try service.findContacts(Array(repeating: "fay@example.com", count: most), viewer: ann).map(\.username) == [
                "fay"
            ])
        await expectError(.invalidArgument, field: "emails") {
            _ = try service.findContacts(Array(repeating: "a@b.co", count: most + 1), viewer: ann)
        }
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    /// A `ProfileUpdated` without the setting has exactly version 3's (and 2's) bytes; version 3
    /// cannot carry the setting.
    @Test func profileUpdatedV4AppendsTheSettingAfterThePhoto() throws {
        let keys = try KeyStore(backend: FileKeyBackend(directory: URL(fileURLWithPath: temporaryPath())))
        let user = UserID("-NjEtLV-KuqujN23jOmK")
        let plain = ProfileUpdated(userId: user, bio: "b")
        let bytes = try PayloadCodec.encode(.profileUpdated(plain), keys: keys)
        for version: UInt8 in 2...4 {
            #expect(
                try PayloadCodec.decode(type: .profileUpdated, version: version, bytes, keys: keys).event
                    == .profileUpdated(plain))
        }
        let avatar = Avatar(large: ImageID("large"), small: ImageID("small"))
        for change in [
            ProfileUpdated(userId: user, discoverable: false),
            ProfileUpdated(userId: user, avatar: .set(avatar), discoverable: true),
            ProfileUpdated(userId: user, avatar: .removed, discoverable: false)
        ] {
            let encoded = try PayloadCodec.encode(.profileUpdated(change), keys: keys)
            #expect(
                try PayloadCodec.decode(type: .profileUpdated, version: 4, encoded, keys: keys).event
                    == .profileUpdated(change))
            #expect(throws: CorruptRecord.self) {
                try PayloadCodec.decode(type: .profileUpdated, version: 3, encoded, keys: keys)
            }
        }
        // The user record keeps version 1's bytes for a discoverable user.
        var record = UserRecord(
            id: user, username: "u", emailHash: nil, passwordHash: nil, bio: nil, url: nil, createdAt: 1, avatar: avatar
        )
        #expect(RecordCodec.encode(record).first == 1)
        #expect(try RecordCodec.user(RecordCodec.encode(record)) == record)
        record.discoverable = false
        #expect(RecordCodec.encode(record).first == 2)
        #expect(try RecordCodec.user(RecordCodec.encode(record)) == record)
        // The locked flag read in place (a page asks it of each stranger's post) agrees with the
        // whole record's, past every optional field.
        #expect(try !RecordCodec.userIsLocked(RecordCodec.encode(record).span))
        record.locked = true
        record.bio = "ünïcode bio"
        record.emailHash = "hash"
        #expect(try RecordCodec.userIsLocked(RecordCodec.encode(record).span))
        #expect(try RecordCodec.user(RecordCodec.encode(record)).locked)
    }

    @Test func erasureTakesTheUserOutOfBoth() async throws {
        let net = try await Network()
        let service = net.service
        try await service.run(.eraseUser(user: net["eve"].rawValue, password: "password-123"), as: net["eve"])
        let page = try service.suggestions(for: net["ann"])
        #expect(!page.items.contains { $0.user.id == net["eve"] })
        #expect(page.items.map(\.followedByCount) == [2, 2, 1])
        #expect(try service.findContacts(["eve@example.com"], viewer: net["ann"]).isEmpty)
        // An erased follow no longer counts: dan's go with him.
        try await service.run(.eraseUser(user: net["dan"].rawValue, password: "password-123"), as: net["dan"])
        #expect(net.names(try service.suggestions(for: net["ann"])) == ["fay", "gus"])
        #expect(try service.suggestions(for: net["ann"]).items.map(\.followedByCount) == [2, 1])
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }
}
