import Foundation
import Testing

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
