import Testing
@testable import Timeline
import TimelineDomain

/// Boosts on the pure domain: given events, when `reblog`/`unreblog`/`follow`/`block`, then these
/// events, or this error (an erasure's `BoostRemoved`: BoostTests, through the library).
@Suite struct BoostDomainTests {
    static let (alice, bob, carol, post) = (
        DomainScenarioTests.alice, DomainScenarioTests.bob, DomainScenarioTests.carol, DomainScenarioTests.post
    )
    static let boost = PostID("boost1")

    func given(_ events: Event...) -> Scenario { Scenario(DomainScenarioTests.people + events) }

    /// alice's boost of bob's post.
    static let boosted = Event.postBoosted(
        Boost(boostId: boost, postId: post, authorId: bob, userId: alice, visibility: .public))

    @Test func reblogRecordsABoostOfItsOwnAndAgainAnswersTheSameOne() throws {
        let decision = try given().when(.reblog(post: Self.post.rawValue, visibility: "private"), by: Self.alice)
            .result.get()
        guard case .postBoosted(let boost) = try #require(decision.events.first), decision.events.count == 1 else {
            Issue.record("not one PostBoosted: \(decision.events)")
            return
        }
        #expect(boost.postId == Self.post && boost.authorId == Self.bob && boost.userId == Self.alice)
        #expect(boost.visibility == .private && boost.boostId != Self.post)
        #expect(decision.outcome == .success(.created(boost.boostId.rawValue)))
        // Again: nothing recorded, the same boost answered.
        let again = try given(Self.boosted).when(.reblog(post: Self.post.rawValue), by: Self.alice).result.get()
        #expect(again.events.isEmpty && again.outcome == .success(.created(Self.boost.rawValue)))
    }

    @Test func whatCannotBeBoosted() {
        let (alice, bob) = (Self.alice, Self.bob)
        let reblog = Command.reblog(post: Self.post.rawValue)
        given().when(.reblog(post: Self.post.rawValue, visibility: "direct"), by: alice).thenRefused(.invalidArgument)
        given().when(.reblog(post: "nopost1"), by: alice).thenRefused(.notFound)
        given(.profileUpdated(ProfileUpdated(userId: bob, locked: true))).when(reblog, by: bob).thenRefused(.forbidden)
        // Locked, to a non-follower the post is out of sight.
        given(.profileUpdated(ProfileUpdated(userId: bob, locked: true))).when(reblog, by: alice)
            .thenRefused(.notFound)
        given(.blocked(Block(blockerId: alice, blockedId: bob))).when(reblog, by: alice).thenRefused(.forbidden)
        given(.blocked(Block(blockerId: bob, blockedId: alice))).when(reblog, by: alice).thenRefused(.notFound)
        let friends = PostID("friends1")
        given(
            .followed(Follow(followerId: alice, followeeId: bob)),
            .postAdded(
                PostAdded(
                    postId: friends, authorId: bob, imageId: ImageID("image2"), caption: nil, hashtags: [],
                    visibility: .followers))
        ).when(.reblog(post: friends.rawValue), by: alice).thenRefused(.forbidden)
    }

    @Test func unreblogTakesTheBoostBackOnce() {
        let removed = Event.boostRemoved(
            Boost(boostId: Self.boost, postId: Self.post, authorId: Self.bob, userId: Self.alice, visibility: .public))
        given(Self.boosted).when(.unreblog(post: Self.post.rawValue), by: Self.alice).then([removed])
        given(Self.boosted, removed).when(.unreblog(post: Self.post.rawValue), by: Self.alice).thenNothing()
        given().when(.unreblog(post: Self.post.rawValue), by: Self.carol).thenNothing()
    }

    @Test func aBlockEndsTheBoostsAndFollowsReblogsHidesThem() {
        let (alice, bob) = (Self.alice, Self.bob)
        let removed = Event.boostRemoved(
            Boost(boostId: Self.boost, postId: Self.post, authorId: bob, userId: alice, visibility: .public))
        given(Self.boosted).when(.block(user: alice.rawValue), by: bob)
            .then([removed, .blocked(Block(blockerId: bob, blockedId: alice))])
        let edge = Follow(followerId: Self.carol, followeeId: alice)
        given(.followed(edge)).when(.follow(user: alice.rawValue, reblogs: false), by: Self.carol)
            .then([.boostsHidden(edge)])
        given(.followed(edge), .boostsHidden(edge)).when(.follow(user: alice.rawValue, reblogs: false), by: Self.carol)
            .thenNothing()
        given(.followed(edge), .boostsHidden(edge)).when(.follow(user: alice.rawValue, reblogs: true), by: Self.carol)
            .then([.boostsShown(edge)])
    }
}
