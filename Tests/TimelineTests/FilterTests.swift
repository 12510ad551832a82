import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Filters: deciding (given events, when a command, then `FilterSaved`/`FilterDeleted` or a
/// refusal), the one matcher (Mastodon's whole-word rule), the projection (rebuilt equal), and
/// the library applying them where posts surface: hide leaves a post out, warn and blur mark
/// it; an expired filter matches nothing, with nothing written; a filter never reveals a post.
@Suite struct FilterTests {
    static let alice = DomainScenarioTests.alice, bob = DomainScenarioTests.bob

    func given(_ events: Event...) -> Scenario { Scenario(DomainScenarioTests.people + events) }

    // MARK: - Deciding

    @Test func creatingAFilterRecordsItWithItsKeywords() {
        let made = FilterSaved(
            filterId: FilterID("id0001"), userId: Self.alice, title: "Spoilers", context: [.home, .thread],
            action: .hide, expiresAt: 1_000 + 3_600_000,
            keywords: [FilterKeyword(id: "id0002", keyword: "finale", wholeWord: true)])
        given()
            .when(
                .createFilter(
                    title: "Spoilers", context: ["home", "thread", "home"], action: "hide", expiresIn: 3600,
                    keywords: [FilterKeywordInput(keyword: "finale")]), by: Self.alice
            )
            .then([.filterSaved(made)])
        given().when(.createFilter(title: "", context: ["home"]), by: Self.alice).thenRefused(.invalidArgument)
        given().when(.createFilter(title: "x", context: []), by: Self.alice).thenRefused(.invalidArgument)
        given().when(.createFilter(title: "x", context: ["everywhere"]), by: Self.alice).thenRefused(.invalidArgument)
        given().when(.createFilter(title: "x", context: ["home"], action: "mute"), by: Self.alice)
            .thenRefused(.invalidArgument)
    }

    @Test func keywordsAndStatusesChangeTheFilterAndOnlyItsOwnersMay() {
        let filter = FilterSaved(
            filterId: FilterID("f1"), userId: Self.alice, title: "t", context: [.home], action: .warn, expiresAt: nil,
            keywords: [FilterKeyword(id: "k1", keyword: "cat", wholeWord: true)])
        var renamed = filter
        renamed.keywords[0] = FilterKeyword(id: "k1", keyword: "dog", wholeWord: false)
        given(.filterSaved(filter)).when(
            .updateFilterKeyword(keyword: "k1", text: "dog", wholeWord: false), by: Self.alice
        )
        .then([.filterSaved(renamed)])
        var added = filter
        added.keywords.append(FilterKeyword(id: "id0001", keyword: "bird", wholeWord: true))
        given(.filterSaved(filter)).when(.addFilterKeyword(filter: "f1", keyword: "bird"), by: Self.alice)
            .then([.filterSaved(added)])
        var emptied = filter
        emptied.keywords = []
        given(.filterSaved(filter)).when(.removeFilterKeyword(keyword: "k1"), by: Self.alice).then([
            .filterSaved(emptied)
        ])
        var withPost = filter
        withPost.statuses = [FilterStatus(id: "id0001", postId: DomainScenarioTests.post)]
        given(.filterSaved(filter))
            .when(.addFilterStatus(filter: "f1", post: DomainScenarioTests.post.rawValue), by: Self.alice)
            .then([.filterSaved(withPost)])
        given(.filterSaved(filter)).when(.updateFilter(filter: "f1", title: "t"), by: Self.alice).thenNothing()
        given(.filterSaved(filter)).when(.deleteFilter(filter: "f1"), by: Self.alice)
            .then([.filterDeleted(FilterDeleted(filterId: FilterID("f1"), userId: Self.alice))])
        // Someone else's filter, keyword or status is as unknown as none.
        given(.filterSaved(filter)).when(.deleteFilter(filter: "f1"), by: Self.bob).thenRefused(.notFound)
        given(.filterSaved(filter)).when(.removeFilterKeyword(keyword: "k1"), by: Self.bob).thenRefused(.notFound)
        given(.filterSaved(filter)).when(.addFilterKeyword(filter: "f1", keyword: "x"), by: Self.bob)
            .thenRefused(.notFound)
        // A keyword's id names no filter to delete.
        given(.filterSaved(filter)).when(.deleteFilter(filter: "k1"), by: Self.alice).thenRefused(.notFound)
    }

    /// A post the user may not see (followers-only, of someone they do not follow) cannot be
    /// named by their filter: it is as unknown as none.
    @Test func aFilterStatusNeverNamesAPostOutOfSight() {
        let hidden = PostAdded(
            postId: PostID("secret1"), authorId: Self.bob, imageId: ImageID("image2"), caption: "for followers",
            hashtags: [], visibility: .followers)
        let filter = FilterSaved(
            filterId: FilterID("f1"), userId: Self.alice, title: "t", context: [.home], action: .warn, expiresAt: nil)
        given(.postAdded(hidden), .filterSaved(filter))
            .when(.addFilterStatus(filter: "f1", post: "secret1"), by: Self.alice).thenRefused(.notFound)
        given(.postAdded(hidden), .filterSaved(filter), .followed(Follow(followerId: Self.alice, followeeId: Self.bob)))
            .when(.addFilterStatus(filter: "f1", post: "secret1"), by: Self.alice)
            .then([
                .filterSaved(
                    FilterSaved(
                        filterId: FilterID("f1"), userId: Self.alice, title: "t", context: [.home], action: .warn,
                        expiresAt: nil, statuses: [FilterStatus(id: "id0001", postId: PostID("secret1"))]))
            ])
    }

    // MARK: - Matching

    @Test func keywordsMatchAsMastodonsDo() {
        #expect(FilterMatching.find("cat", in: "A Cat sat", wholeWord: true) == "Cat")
        #expect(FilterMatching.find("cat", in: "concatenate", wholeWord: true) == nil)
        #expect(FilterMatching.find("cat", in: "concatenate", wholeWord: false) == "cat")
        #expect(FilterMatching.find("cat", in: "cat_food", wholeWord: true) == nil)  // `_` is a word character
        #expect(FilterMatching.find("cat", in: "cats", wholeWord: true) == nil)
        #expect(FilterMatching.find("cat", in: "(cat)", wholeWord: true) == "cat")
        // A keyword starting or ending with a non-word character needs no boundary there.
        #expect(FilterMatching.find("#tag", in: "a#tag here", wholeWord: true) == "#tag")
        #expect(FilterMatching.find("ÉTÉ", in: "un été chaud", wholeWord: true) == "été")
        let filter = FilterSaved(
            filterId: FilterID("f1"), userId: Self.alice, title: "t", context: [.home], action: .warn,
            expiresAt: 5_000, keywords: [FilterKeyword(id: "k1", keyword: "cat", wholeWord: true)],
            statuses: [FilterStatus(id: "s1", postId: PostID("p9"))])
        let now = FilterMatching([filter], context: .home, now: 4_999)
        #expect(
            now.verdict(postId: "p9", text: "a cat")
                == FilterVerdict(matches: [FilterMatch(filter: filter, keywordMatches: ["cat"], statusMatches: ["p9"])])
        )
        #expect(now.verdict(postId: "p1", text: "a dog").matches.isEmpty)
        // Another context, or once expired: nothing.
        #expect(FilterMatching([filter], context: .public, now: 4_999).isEmpty)
        #expect(FilterMatching([filter], context: .home, now: 5_000).isEmpty)
    }

    // MARK: - Library, projection, expiry

    @Test func filtersApplyWhereverPostsSurfaceAndExpireWithNothingWritten() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        let spoiler = try await service.addPost(by: bob.id, caption: "The #finale was great")
        let plain = try await service.addPost(by: bob.id, caption: "A #sunny day", image: 1)
        let mine = try await service.addPost(by: alice.id, caption: "my finale", image: 2)
        _ = try await service.addComment(by: bob.id, on: plain.id, "no finale talk")

        guard
            case .created(let hideID) = try await service.run(
                .createFilter(
                    title: "Spoilers", context: ["home", "thread", "public"], action: "hide", expiresIn: 60,
                    keywords: [FilterKeywordInput(keyword: "FINALE")]), as: alice.id)
        else {
            Issue.record("no id")
            return
        }
        // Hidden in the home timeline, the hashtag and the thread; her own post stays.
        #expect(try service.timeline(of: alice.id).items.map(\.id) == [mine.id, plain.id])
        #expect(try service.hashtag("finale", viewer: alice.id).items.isEmpty)
        #expect(try service.comments(of: plain.id, viewer: alice.id).items.isEmpty)
        #expect(try service.post(plain.id, viewer: alice.id).comments.items.isEmpty)
        // Not in a context it does not name (account), and not for anyone else.
        #expect(try service.posts(by: bob.id, viewer: alice.id).items.map(\.id) == [plain.id, spoiler.id])
        #expect(try service.timeline(of: bob.id).items.map(\.id) == [plain.id, spoiler.id])

        // Warn marks it instead.
        _ = try await service.run(.updateFilter(filter: hideID, action: "warn"), as: alice.id)
        let home = try service.timeline(of: alice.id).items
        #expect(home.map(\.id) == [mine.id, plain.id, spoiler.id])
        #expect(home[2].filtered.map(\.filter.title) == ["Spoilers"])
        #expect(home[2].filtered.first?.keywordMatches == ["finale"])
        #expect(home[0].filtered.isEmpty && home[1].filtered.isEmpty)

        // A filter status names a post the user sees.
        guard
            case .created(let statusFilter) = try await service.run(
                .createFilter(title: "That one", context: ["account"], action: "hide"), as: alice.id)
        else {
            Issue.record("no id")
            return
        }
        _ = try await service.run(.addFilterStatus(filter: statusFilter, post: plain.id.rawValue), as: alice.id)
        #expect(try service.posts(by: bob.id, viewer: alice.id).items.map(\.id) == [spoiler.id])

        // The projection rebuilds equal.
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)

        // Expiry ends the first filter when its time comes: nothing is written.
        let before = try service.lastSequence()
        clock.advance(60_000)
        #expect(try service.timeline(of: alice.id).items.allSatisfy { $0.filtered.isEmpty })
        #expect(try service.lastSequence() == before)
        #expect(try service.filters(of: alice.id).count == 2)  // still listed, expired

        // Deleting a filter, and erasing its owner, leave nothing behind.
        _ = try await service.run(.deleteFilter(filter: statusFilter), as: alice.id)
        #expect(try service.filters(of: alice.id).map(\.filterId.rawValue) == [hideID])
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        #expect(throws: TimelineError.self) { try service.filter(holding: hideID, viewer: bob.id) }
    }

    /// The live streams (`/v1/stream` and Mastodon's) read `liveUpdates`: a post a home filter
    /// hides never arrives, nor a notification whose comment a notifications filter hides; a
    /// warned post arrives marked.
    @Test func liveStreamsHonourFilters() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        guard
            case .created(let filter) = try await service.run(
                .createFilter(
                    title: "Spoilers", context: ["home", "notifications"], action: "hide",
                    keywords: [FilterKeywordInput(keyword: "finale")]), as: alice.id)
        else {
            Issue.record("no id")
            return
        }
        let hidden = try await service.addPost(by: bob.id, caption: "the finale")
        let shown = try await service.addPost(by: bob.id, caption: "a harbour", image: 1)
        let mine = try await service.addPost(by: alice.id, caption: "mine", image: 2)
        _ = try await service.addComment(by: bob.id, on: mine.id, "what a finale")
        let log = try service.events(from: 1, limit: 1000)
        func updates(_ type: EventType, _ post: PostID) throws -> [LiveUpdate] {
            try log.filter { $0.type == type && $0.event.post == post }.flatMap {
                try service.liveUpdates(for: $0, viewer: alice.id)
            }
        }
        #expect(try updates(.postAdded, hidden.id).isEmpty)
        #expect(try updates(.postAdded, shown.id).count == 1)
        #expect(try updates(.commentAdded, mine.id).isEmpty)
        #expect(try service.activity(of: alice.id).items.allSatisfy { $0.kind != .comment })  // nor in the activity
        #expect(try service.liveUpdates(for: try #require(log.last), viewer: bob.id).isEmpty)  // bob is told nothing
        _ = try await service.run(.updateFilter(filter: filter, action: "warn"), as: alice.id)
        guard case .post(let warned)? = try updates(.postAdded, hidden.id).first else {
            Issue.record("the warned post does not arrive")
            return
        }
        #expect(warned.filtered.map(\.filter.title) == ["Spoilers"])
        #expect(try updates(.commentAdded, mine.id).count == 1)
        #expect(try service.activity(of: alice.id).items.contains { $0.kind == .comment })
    }

    /// `timeline exec`: filters are commands and a query like any other.
    @Test func throughTimelineExec() throws {
        let db = temporaryPath()
        func exec(_ lines: [String]) throws -> [[String: Any]?] {
            let tool = try ToolProcess(["exec", "--db", db])
            tool.input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            try tool.input.fileHandleForWriting.close()
            let data = tool.output.fileHandleForReading.readDataToEndOfFile()
            tool.process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        let made = try exec([
            #"{"id":"1","command":"createUser","username":"zed","email":"z@example.com","password":"password-1"}"#
        ])
        let zed = try #require(((made.first??["result"] as? [String: Any]))?["id"] as? String, "\(made)")
        let answers = try exec([
            #"{"id":"2","command":"createFilter","as":"\#(zed)","title":"Spoilers","context":["home"],"#
                + #""action":"hide","keywords":[{"keyword":"finale","wholeWord":false}]}"#,
            #"{"id":"3","query":"filters","as":"\#(zed)"}"#,
            #"{"id":"4","command":"createFilter","as":"\#(zed)","title":"x","context":["nowhere"]}"#
        ])
        #expect(answers.count == 3, "\(answers)")
        #expect(answers.first??["ok"] as? Bool == true, "\(answers)")
        let filters = (answers[1]?["result"] as? [String: Any])?["filters"] as? [[String: Any]]
        #expect(filters?.first?["title"] as? String == "Spoilers" && filters?.first?["action"] as? String == "hide")
        #expect(((filters?.first?["keywords"] as? [[String: Any]])?.first)?["wholeWord"] as? Bool == false)
        #expect(answers[2]?["ok"] as? Bool == false)
    }
}
