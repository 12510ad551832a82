import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Given-when-then over the pure domain: given the events already recorded (folded, in order,
/// into the tests' in-memory `DecisionState` as the projections would fold them), when an actor
/// runs a command, then the events decided — or the error. No LMDB, no I/O: each runs in
/// microseconds.
///
///     Scenario([.userCreated(…), .followed(…)]).when(.block(user: "bob1"), by: alice).then([…])
///
/// (`DomainScenarioTests.given` starts from three users and a post.)
struct Scenario {
    /// The state the command is decided against.
    var state = InMemoryState()
    /// The time and fresh identifiers it is decided with (`hideAfterReports` may be lowered).
    var context = scenarioContext()
    /// The last sequence folded in.
    private var sequence: UInt64 = 0

    /// A state that has recorded `events`, in order.
    init(_ events: [Event]) {
        for event in events { record(event) }
    }

    /// Folds `event` in as the next logged event.
    mutating func record(_ event: Event) {
        sequence += 1
        let type = event.typeName
        state.apply(
            EventEnvelope(
                sequence: sequence, id: EventID(String(format: "ev%04d", sequence)), type: type,
                schemaVersion: type.currentVersion, stream: "scenario", streamVersion: sequence,
                timestamp: Int64(sequence), actor: EventEnvelope.systemActor, correlationId: nil,
                causationId: nil, event: event, previousHash: [], hash: []))
    }

    /// Sets what the events cannot tell the in-memory state (activity items: deriving them is the
    /// activity projection's job, and deciding only asks whether one is there).
    func seeding(_ change: (inout InMemoryState) -> Void) -> Scenario {
        var copy = self
        change(&copy.state)
        return copy
    }

    /// The same scenario decided with `change` made to its context.
    func with(_ change: (inout DecisionContext) -> Void) -> Scenario {
        var copy = self
        change(&copy.context)
        return copy
    }

    /// Decides `command` run by `actor` (a user's id, as a trusted operator acting as them).
    func when(_ command: Command, by actor: UserID) -> Verdict {
        Verdict(
            result: Result { try decide(command, actor: .user(actor), state: state, context: context) }
                .mapError { $0 as? TimelineError ?? TimelineError(.internal, "\($0)") })
    }
}

/// The tests' decision context (`context()`, which `Scenario.context` would shadow).
private func scenarioContext() -> DecisionContext { context() }

/// What deciding a scenario's command gave: the `then`s check it.
struct Verdict {
    /// The decision, or the error it was refused with.
    let result: Result<Decision, TimelineError>

    /// Then exactly `events` are decided (and the command succeeds).
    func then(_ events: [Event], sourceLocation: SourceLocation = #_sourceLocation) {
        switch result {
        case .success(let decision):
            #expect(decision.events == events, sourceLocation: sourceLocation)
            if case .failure(let error) = decision.outcome {
                Issue.record("the command failed: \(error)", sourceLocation: sourceLocation)
            }
        case .failure(let error):
            Issue.record("refused with \(error), not deciding \(events)", sourceLocation: sourceLocation)
        }
    }

    /// Then nothing is decided: the command succeeds and says it changed nothing (idempotence).
    func thenNothing(sourceLocation: SourceLocation = #_sourceLocation) {
        then([], sourceLocation: sourceLocation)
        if case .success(let decision) = result, case .success(let outcome) = decision.outcome {
            #expect(outcome == .changed(false), sourceLocation: sourceLocation)
        }
    }

    /// Then the command is refused with `code` (and nothing is recorded).
    func thenRefused(_ code: TimelineError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
        switch result {
        case .success(let decision):
            Issue.record(
                "decided \(decision.events) (\(decision.outcome)), not refused with \(code)",
                sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        }
    }
}

/// The main commands' rules, one scenario each, on the pure domain.
@Suite struct DomainScenarioTests {
    static let alice = UserID("alice1"), bob = UserID("bob1"), carol = UserID("carol1")
    static let post = PostID("post1")

    /// Users alice, bob and carol, and a public post of bob's.
    static let people: [Event] =
        [alice, bob, carol].map { id in
            .userCreated(
                UserCreated(userId: id, username: String(id.rawValue.dropLast()), email: nil, passwordHash: "x"))
        } + [
            .postAdded(
                PostAdded(
                    postId: post, authorId: bob, imageId: ImageID("image1"), caption: "harbour",
                    hashtags: []))
        ]

    /// The state after `people`, then `events`.
    func given(_ events: Event...) -> Scenario { Scenario(Self.people + events) }

    func follow(_ a: UserID, _ b: UserID) -> Follow { Follow(followerId: a, followeeId: b) }

    // MARK: - Follow

    @Test func followingRecordsAFollowOnceAndNeverOfOneself() {
        let (alice, bob) = (Self.alice, Self.bob)
        given().when(.follow(user: bob.rawValue), by: alice).then([.followed(follow(alice, bob))])
        given(.followed(follow(alice, bob))).when(.follow(user: bob.rawValue), by: alice).thenNothing()
        given().when(.follow(user: alice.rawValue), by: alice).thenRefused(.invalidArgument)
        given().when(.follow(user: "nobody1"), by: alice).thenRefused(.notFound)
    }

    @Test func aBlockEitherWayStandsInTheWayOfAFollow() {
        let (alice, bob) = (Self.alice, Self.bob)
        given(.blocked(Block(blockerId: bob, blockedId: alice)))
            .when(.follow(user: bob.rawValue), by: alice).thenRefused(.forbidden)
        given(.blocked(Block(blockerId: alice, blockedId: bob)))
            .when(.follow(user: bob.rawValue), by: alice).thenRefused(.forbidden)
    }

    @Test func followingALockedAccountAsksFirstAndAskingAgainDoesNothing() {
        let (alice, bob) = (Self.alice, Self.bob)
        let locked = Event.profileUpdated(ProfileUpdated(userId: bob, locked: true))
        given(locked).when(.follow(user: bob.rawValue), by: alice).then([.followRequested(follow(alice, bob))])
        given(locked, .followRequested(follow(alice, bob))).when(.follow(user: bob.rawValue), by: alice).thenNothing()
        // Approved (a follow), the request is gone and following again changes nothing.
        given(locked, .followRequested(follow(alice, bob)), .followed(follow(alice, bob)))
            .when(.follow(user: bob.rawValue), by: alice).thenNothing()
    }

    // MARK: - Likes

    @Test func likeAndUnlikeAreIdempotent() {
        let (alice, post) = (Self.alice, Self.post.rawValue)
        let like = Like(postId: Self.post, userId: alice)
        given().when(.like(post: post), by: alice).then([.likeAdded(like)])
        given(.likeAdded(like)).when(.like(post: post), by: alice).thenNothing()
        given(.likeAdded(like)).when(.unlike(post: post), by: alice).then([.likeRemoved(like)])
        given().when(.unlike(post: post), by: alice).thenNothing()
        given(.likeAdded(like), .likeRemoved(like)).when(.unlike(post: post), by: alice).thenNothing()
    }

    // MARK: - Comments

    @Test func noCommentOnTheAuthorsPostWhileABlockStandsEitherWay() {
        let (alice, bob, post) = (Self.alice, Self.bob, Self.post.rawValue)
        // The author blocks her: the post is out of her sight, as unknown as one that never was.
        given(.blocked(Block(blockerId: bob, blockedId: alice)))
            .when(.addComment(post: post, text: "hello"), by: alice).thenRefused(.notFound)
        given(.blocked(Block(blockerId: alice, blockedId: bob)))
            .when(.addComment(post: post, text: "hello"), by: alice).thenRefused(.forbidden)
        // Unblocked, the comment is recorded (its id is the context's first fresh one).
        given(.blocked(Block(blockerId: bob, blockedId: alice)), .unblocked(Block(blockerId: bob, blockedId: alice)))
            .when(.addComment(post: post, text: "hello"), by: alice)
            .then([
                .commentAdded(
                    CommentAdded(
                        commentId: CommentID("id0001"), postId: Self.post, authorId: alice,
                        text: "hello", replyTo: nil))
            ])
    }

    // MARK: - Deleting posts

    @Test func deletingSomeoneElsesPostIsForbiddenIfVisibleAndNotFoundIfHidden() {
        let (alice, bob, carol, post) = (Self.alice, Self.bob, Self.carol, Self.post.rawValue)
        given().when(.deletePost(post: post), by: alice).thenRefused(.forbidden)
        given().when(.deletePost(post: post), by: bob)
            .then([.postDeleted(PostDeleted(postId: Self.post, authorId: bob))])
        // Hidden from alice, it is not there for her: a forbidden would tell it exists.
        given(.blocked(Block(blockerId: bob, blockedId: alice)))
            .when(.deletePost(post: post), by: alice).thenRefused(.notFound)
        let reported = given(.postReported(PostReported(postId: Self.post, reporterId: carol, reason: "spam")))
            .with { $0.hideAfterReports = 1 }
        reported.when(.deletePost(post: post), by: alice).thenRefused(.notFound)
        let forFollowers = Event.postAdded(
            PostAdded(
                postId: PostID("post2"), authorId: bob, imageId: ImageID("image2"),
                caption: nil, hashtags: [], visibility: .followers))
        given(forFollowers).when(.deletePost(post: "post2"), by: alice).thenRefused(.notFound)
        given(forFollowers, .followed(follow(alice, bob)))
            .when(.deletePost(post: "post2"), by: alice).thenRefused(.forbidden)
        given().when(.deletePost(post: "nopost1"), by: alice).thenRefused(.notFound)
    }

    // MARK: - Activity

    /// Activity items are the activity projection's to derive (the in-memory state does not):
    /// `seeding` gives alice the one the scenario needs.
    @Test func dismissingActivityThatIsNotThereDoesNothing() {
        let alice = Self.alice
        given().when(.dismissActivity(item: "item1"), by: alice).thenNothing()
        given().when(.dismissActivity(), by: alice).thenNothing()
        let holding = given().seeding { $0.activityItems[alice] = ["item1"] }
        holding.when(.dismissActivity(item: "item1"), by: alice)
            .then([.activityDismissed(ActivityDismissed(userId: alice, item: "item1"))])
        holding.when(.dismissActivity(item: "item2"), by: alice).thenNothing()
        holding.when(.dismissActivity(), by: alice)
            .then([.activityDismissed(ActivityDismissed(userId: alice, item: nil))])
        var dismissed = holding
        dismissed.record(.activityDismissed(ActivityDismissed(userId: alice, item: "item1")))
        dismissed.when(.dismissActivity(item: "item1"), by: alice).thenNothing()
    }

    // MARK: - Mutes

    @Test func muteAndUnmuteAreIdempotent() {
        let (alice, bob) = (Self.alice, Self.bob)
        let mute = Mute(muterId: alice, mutedId: bob), unmute = Unmute(muterId: alice, mutedId: bob)
        given().when(.mute(user: bob.rawValue), by: alice).then([.muted(mute)])
        given(.muted(mute)).when(.mute(user: bob.rawValue), by: alice).thenNothing()
        given(.muted(mute)).when(.unmute(user: bob.rawValue), by: alice).then([.unmuted(unmute)])
        given().when(.unmute(user: bob.rawValue), by: alice).thenNothing()
        given(.muted(mute), .unmuted(unmute)).when(.unmute(user: bob.rawValue), by: alice).thenNothing()
        given().when(.mute(user: alice.rawValue), by: alice).thenRefused(.invalidArgument)
        // A mute that ended by itself (at 500 ms; deciding at 1 000) is lifted already.
        given(.muted(Mute(muterId: alice, mutedId: bob, until: 500)))
            .when(.unmute(user: bob.rawValue), by: alice).thenNothing()
    }

    // MARK: - Blocks

    @Test func aBlockEndsTheFollowsAndRequestsBothWays() {
        let (alice, bob, carol) = (Self.alice, Self.bob, Self.carol)
        let block = Event.blocked(Block(blockerId: alice, blockedId: bob))
        given(.followed(follow(alice, bob)), .followed(follow(bob, alice))).when(.block(user: bob.rawValue), by: alice)
            .then([.unfollowed(follow(alice, bob)), .unfollowed(follow(bob, alice)), block])
        given(.followRequested(follow(bob, alice))).when(.block(user: bob.rawValue), by: alice)
            .then([.followRequestWithdrawn(follow(bob, alice)), block])
        // Follows with others stay; blocking again changes nothing.
        given(.followed(follow(alice, carol))).when(.block(user: bob.rawValue), by: alice).then([block])
        given(block).when(.block(user: bob.rawValue), by: alice).thenNothing()
    }
}
