import Foundation
import Testing

/// Videos over HTTP against a real `timeline serve` (Tests/mastodon/test_video.py): videos the
/// ffmpeg command line makes, uploaded through Mastodon.py and /v1, checked by ffprobe; ranges;
/// a followers-only post's video; a broken one failed, one that is no video refused.
@Suite struct VideoHTTPTests {
    @Test(.timeLimit(.minutes(5))) func ffprobeAndMastodonPyAgreeWithTheServer() async throws {
        try await withServer { server in
            let alice = try await server.api.signUp("alice"), bob = try await server.api.signUp("bob")
            let run = try ChildProcess(
                [
                    "python3", SchemaTests.root.appendingPathComponent("Tests/mastodon/test_video.py").path,
                    "http://127.0.0.1:\(server.port)", alice.token, bob.token
                ],
                executable: URL(fileURLWithPath: "/usr/bin/env"))
            let status = await run.exitStatus(within: .seconds(240))
            let text = run.standardOutput + run.standardError
            #expect(status == 0, "\(text)")
            #expect(text.contains("ok - videos checked by ffprobe and Mastodon.py"), "\(text)")
        }
    }
}

/// Tests/browser/test_video.py: New post takes a video, waits while it is transcoded, and the
/// post plays it in headless Chromium; a video added to one's story plays in a follower's viewer.
@Suite struct VideoWebAppTests {
    @Test(.timeLimit(.minutes(4))) func inARealBrowser() async throws {
        try await WebAppTests.browserScript(
            "test_video.py", passes: "ok - a video story: added from the row, played in a follower's story viewer")
    }
}
