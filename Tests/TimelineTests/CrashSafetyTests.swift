import Foundation
import Testing
@testable import Timeline

/// `timeline exec` killed with SIGKILL at random moments: nothing acknowledged is lost, the log
/// has no gap, the chain verifies and the read models equal a rebuild.
@Suite struct CrashSafetyTests {
    static var kills: Int { ProcessInfo.processInfo.environment["TIMELINE_LONG_TESTS"] == nil ? 50 : 500 }

    @Test func killedWritersLoseNothingAcknowledged() async throws {
        signal(SIGPIPE, SIG_IGN)
        let path = temporaryPath()
        let author: UserID
        do {
            let service = try openService(path: path)
            author = try await service.createUser("writer").id
            service.close()
        }
        var rng = SeededRandom(seed: 2026)
        var acknowledged: [PostID] = []
        var acknowledgedComments: [CommentID] = []
        for round in 0..<Self.kills {
            let tool = try ToolProcess(["exec", "--db", path])
            // Feed commands from another thread until the pipe breaks.
            let lines = (0..<3_000).map { index -> String in
                if index % 4 == 3, let post = acknowledged.last {
                    return
                        #"{"id":"c\#(round)-\#(index)","command":"addComment","as":"\#(author)","post":"\#(post)","text":"r\#(round) i\#(index)"}"#
                }
                return
                    #"{"id":"p\#(round)-\#(index)","command":"addPost","as":"\#(author)","image":"\#(gifBase64(index))","caption":"r\#(round) i\#(index)"}"#
            }
            let writer = tool.input.fileHandleForWriting
            let feeder = Thread {
                for line in lines {
                    do { try writer.write(contentsOf: Data((line + "\n").utf8)) } catch { return }
                }
            }
            feeder.start()
            // Kill once a seeded number (at least one) of commands is acknowledged, while it
            // goes on writing: where the kill lands varies, that something was acknowledged
            // before it does not.
            let target = Int.random(in: 1...20, using: &rng)
            var output = Data()
            while Self.acknowledgedLines(in: output) < target {
                let chunk = tool.output.fileHandleForReading.availableData
                if chunk.isEmpty { break }  // it ended by itself: the checks below say why
                output.append(chunk)
            }
            tool.kill()
            try? writer.close()
            output.append(tool.output.fileHandleForReading.readDataToEndOfFile())
            let printed = String(decoding: output, as: UTF8.self)
            for line in printed.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["ok"] as? Bool == true, let result = object["result"] as? [String: Any],
                    let id = result["id"] as? String
                else { continue }  // a line cut short by the kill was never acknowledged
                if result["text"] != nil {
                    acknowledgedComments.append(CommentID(id))
                } else {
                    acknowledged.append(PostID(id))
                }
            }
            // After every kill: no gap, the chain verifies, everything acknowledged is there.
            let service = try openService(path: path)
            let events = try service.events(from: 1, limit: 1_000_000)
            #expect(events.map(\.sequence) == Array(1...UInt64(events.count)), "round \(round): the log has a gap")
            #expect(try service.verifyLog().isValid, "round \(round)")
            let posts = Set(events.compactMap { if case .postAdded(let e) = $0.event { e.postId } else { nil } })
            let comments = Set(
                events.compactMap { if case .commentAdded(let e) = $0.event { e.commentId } else { nil } })
            #expect(acknowledged.allSatisfy(posts.contains), "round \(round): an acknowledged post is missing")
            #expect(
                acknowledgedComments.allSatisfy(comments.contains), "round \(round): an acknowledged comment is missing"
            )
            if round % 10 == 9 || round == Self.kills - 1 {
                #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty, "round \(round)")
            }
            service.close()
        }
        #expect(
            acknowledged.count + acknowledgedComments.count >= Self.kills, "every round has an acknowledged command")
    }

    /// How many complete answer lines in `output` acknowledge a command.
    static func acknowledgedLines(in output: Data) -> Int {
        let complete = output.prefix(through: output.lastIndex(of: 0x0A) ?? output.startIndex - 1)
        return complete.split(separator: 0x0A).filter { String(decoding: $0, as: UTF8.self).contains(#""ok":true"#) }
            .count
    }
}
