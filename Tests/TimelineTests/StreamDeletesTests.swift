import Foundation
import Testing

/// A stream's `delete` through Mastodon.py and the streaming API against a real `timeline serve`
/// (Tests/mastodon/test_stream_deletes.py): a deleted followers-only or direct post's id never
/// reaches a public, hashtag or user stream that could not see it; a boost taken back is a
/// `delete` of the reblog's id on the user stream that showed it.
@Suite struct StreamDeletesTests {
    @Test(.timeLimit(.minutes(3))) func deletesTellOnlyWhatTheStreamCouldSee() async throws {
        try await withServer { server in
            let api = server.api
            let alice = try await api.signUp("alice"), bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol"), dave = try await api.signUp("dave")
            let path = PhotoTests.directory() + "/deletes.png"
            try Data(try AvatarTests.image(64, shade: 90)).write(to: URL(fileURLWithPath: path))
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_stream_deletes.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token, carol.token, dave.token, path
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(120))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - a stream's deletes tell only what it could see"), "\(text)")
        }
    }
}
