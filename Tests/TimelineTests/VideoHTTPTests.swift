import Foundation
import Testing

@testable import TimelineHTTP

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

/// `Range` headers as RFC 9110 §14 reads them, against a body of 1,000 bytes.
@Suite struct ByteRangeTests {
    @Test func oneRangeIsTakenAndTheRestIsTheWholeBodyOrUnsatisfiable() {
        let size = 1000
        #expect(ByteRange(nil, size: size) == .whole)
        #expect(ByteRange("bytes=0-0", size: size) == .part(0...0))
        #expect(ByteRange("bytes=100-", size: size) == .part(100...999))
        #expect(ByteRange("bytes=-100", size: size) == .part(900...999))
        #expect(ByteRange("bytes=-5000", size: size) == .part(0...999))
        #expect(ByteRange("bytes=990-5000", size: size) == .part(990...999))
        // Digits past any Int: the end clamped, a first byte past the end.
        #expect(ByteRange("bytes=0-99999999999999999999999", size: size) == .part(0...999))
        #expect(ByteRange("bytes=99999999999999999999-", size: size) == .unsatisfiable)
        #expect(ByteRange("bytes=1000-", size: size) == .unsatisfiable)
        #expect(ByteRange("bytes=-0", size: size) == .unsatisfiable)
        // Not honoured (several ranges, another unit) or not well formed: the whole body.
        for header in ["bytes=0-1,5-6", "items=0-1", "bytes=5-2", "bytes=-", "bytes=a-b", "bytes 0-1"] {
            #expect(ByteRange(header, size: size) == .whole, "\(header)")
        }
    }
}
