import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// A poll's end pushed to its author and voters once — at its end, or at the next start when
/// the server was down then — and to no one who may no longer see it (Tests/push/test_push_poll.py:
/// a real `timeline serve`, restarted with its clock moved ahead, and a real push service).
@Suite struct PollPushTests {
    @Test(.timeLimit(.minutes(3))) func aPollsEndIsPushedOnceToWhoMaySeeIt() async throws {
        let ca = try await makePushCA(), photo = try pixelFile()
        let script = SchemaTests.root.appendingPathComponent("Tests/push/test_push_poll.py").path
        let run = try ChildProcess(
            ["python3", script, try timelineExecutable().path, ca, photo],
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = await run.exitStatus(within: .seconds(150))
        let text = run.standardOutput + run.standardError
        #expect(status == 0, "\(text)")
        #expect(text.contains("ok - after the restart, no end is pushed twice"), "\(text)")
    }
}

/// What the push worker reads of the polls' ends, in the library: the polls ended in a window
/// with their participants (an erased voter not among them), the next end, each participant's
/// notification as their activity shows it (none for one blocked since), and the participant a
/// late vote or poll makes.
@Suite struct PollEndReadsTests {
    @Test func endsTheirParticipantsAndWhoMaySeeThem() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let carol = try await service.createUser("carol"), eve = try await service.createUser("eve")
        let start = service.now()
        let post = try #require(
            try await service.run(
                .addPost(image: gifBase64(1), caption: "which?", poll: PollDraft(options: ["a", "b"], expiresIn: 600)),
                as: alice.id
            ).post)
        let poll = try #require(try service.poll(of: post.id, viewer: alice.id))
        for user in [bob, carol, eve] {
            try await service.run(.vote(poll: poll.id.rawValue, choices: [0]), as: user.id)
        }
        #expect(try service.nextPollEnd(after: start) == poll.expiresAt)
        #expect(try service.nextPollEnd(after: poll.expiresAt) == nil)
        #expect(try service.pollsEnded(after: start, through: poll.expiresAt - 1).polls.isEmpty)
        try await service.run(.eraseUser(user: eve.id.rawValue, password: "password-123"), as: eve.id)
        try await service.run(.block(user: carol.id.rawValue), as: alice.id)
        clock.advance(600_000)
        let (sequence, ended) = try service.pollsEnded(after: start, through: service.now())
        #expect(sequence == (try service.appliedSequence()))
        let end = try #require(ended.first)
        #expect(ended.count == 1 && end.poll == poll.id && end.author == alice.id && end.at == poll.expiresAt)
        #expect(Set(end.participants) == [alice.id, bob.id, carol.id], "the erased voter has no notification left")
        #expect(try service.pollsEnded(after: poll.expiresAt, through: service.now()).polls.isEmpty)
        // As the activity shows it: bob's and alice's; carol, blocked by alice, none.
        #expect(try service.pollEndItem(end.item, for: bob.id)?.kind == .poll)
        #expect(try service.pollEndItem(end.item, for: alice.id)?.actor == alice.id)
        #expect(try service.pollEndItem(end.item, for: carol.id) == nil)
        #expect(try service.activity(of: carol.id, kinds: [.poll]).items.isEmpty)
        // The vote's event names its voter's end; the poll's its author's.
        let events = try service.events(from: 1, limit: 1000)
        let vote = try #require(
            events.first { if case .pollVoted(let e) = $0.event { e.userId == bob.id } else { false } })
        #expect(try service.pollEnd(madeBy: vote)?.user == bob.id)
        let set = try #require(events.first { $0.type == .pollSet })
        #expect(
            try service.pollEnd(madeBy: set).map { ($0.user, $0.poll.item) } ?? (eve.id, "") == (alice.id, end.item))
    }
}
