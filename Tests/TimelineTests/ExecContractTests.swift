import Foundation
import Testing
import Vips
@testable import Timeline

/// The JSON-lines contract of `timeline exec`, row by row of docs/spec.md.
@Suite struct ExecContractTests {
    final class Client {
        let session: ExecSession
        init(_ service: TimelineService) { session = ExecSession(service: service) }

        /// Sends one request object, returns the parsed response.
        func send(_ request: [String: Any]) async throws -> [String: Any] {
            let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            return try await raw(line)
        }

        func raw(_ line: String) async throws -> [String: Any] {
            let answer = await session.handle(line: line)
            #expect(!answer.contains("\n"), "a response must be one line")
            return try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
        }

        /// Sends and expects success; returns `result`.
        func ok(_ request: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Any {
            let response = try await send(request)
            #expect(response["ok"] as? Bool == true, "\(response)", sourceLocation: sourceLocation)
            return response["result"] ?? NSNull()
        }

        /// Sends and expects failure with `code`.
        func fails(
            _ request: [String: Any], _ code: String, field: String? = nil,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let response = try await send(request)
            #expect(response["ok"] as? Bool == false, sourceLocation: sourceLocation)
            let error = response["error"] as? [String: Any]
            #expect(error?["code"] as? String == code, "\(response)", sourceLocation: sourceLocation)
            let message = error?["message"] as? String ?? ""
            #expect(message.count > 0, sourceLocation: sourceLocation)
            if let field { #expect(error?["field"] as? String == field, "\(response)", sourceLocation: sourceLocation) }
        }
    }

    @Test func everyCommandAndQueryRow() async throws {
        let client = Client(try openService())
        let a =
            try await client.ok([
                "id": "c1", "command": "createUser", "username": "alice", "email": "a@example.com",
                "password": "password-1", "bio": "hi"
            ]) as! [String: Any]
        #expect(
            Set(a.keys) == [
                "id", "username", "bio", "url", "postCount", "followerCount", "followingCount", "avatar", "header",
                "locked"
            ])
        #expect(a["avatar"] is NSNull)
        #expect(a["header"] is NSNull)
        #expect(a["url"] is NSNull)
        let alice = a["id"] as! String
        let bob =
            (try await client.ok([
                "command": "createUser", "username": "bob", "email": "b@example.com", "password": "password-1"
            ]) as! [String: Any])["id"] as! String
        let echo = try await client.send(["id": "q-7", "query": "user", "user": alice])
        #expect(echo["id"] as? String == "q-7" && echo["ok"] as? Bool == true)

        let signIn =
            try await client.ok(["command": "signIn", "email": "b@example.com", "password": "password-1"])
            as! [String: Any]
        #expect(Set(signIn.keys) == ["session", "user"])
        let token = signIn["session"] as! String
        #expect(
            (try await client.ok(["command": "follow", "session": token, "user": alice]) as! [String: Any])["changed"]
                as? Bool == true)
        #expect(
            (try await client.ok(["command": "follow", "as": bob, "user": alice]) as! [String: Any])["changed"] as? Bool
                == false)
        #expect(
            (try await client.ok(["command": "updateProfile", "as": alice, "url": "https://alice.example"])
                as! [String: Any])["url"] as? String == "https://alice.example")

        let post =
            try await client.ok(["command": "addPost", "as": alice, "image": gifBase64(1), "caption": "hi #sea"])
            as! [String: Any]
        #expect(
            Set(post.keys) == [
                "id", "author", "authorUsername", "caption", "image", "hashtags", "likeCount", "commentCount",
                "createdAt", "likedByViewer", "bookmarkedByViewer", "width", "height", "variants", "sensitive",
                "visibility", "media", "boostCount", "boostedByViewer"
            ])
        #expect(post["sensitive"] as? Bool == false)
        #expect(post["width"] as? Int == 2 && post["height"] as? Int == 1)
        #expect((post["variants"] as? [String: Any])?["full"] as? String == post["image"] as? String)
        #expect(post["authorUsername"] as? String == "alice" && post["likedByViewer"] as? Bool == false)
        #expect(post["hashtags"] as? [String] == ["sea"])
        let postID = post["id"] as! String
        let comment =
            try await client.ok(["command": "addComment", "as": bob, "post": postID, "text": "lovely"])
            as! [String: Any]
        #expect(Set(comment.keys) == ["id", "post", "author", "authorUsername", "text", "createdAt"])
        #expect(comment["authorUsername"] as? String == "bob")
        #expect(
            (try await client.ok(["command": "like", "as": bob, "post": postID]) as! [String: Any])["changed"] as? Bool
                == true)
        _ = try await client.ok(["command": "reportPost", "as": bob, "post": postID, "reason": "test"])

        // Queries.
        #expect(
            (try await client.ok(["query": "userByName", "username": "ALICE"]) as! [String: Any])["id"] as? String
                == alice)
        let users = try await client.ok(["query": "users", "limit": 1]) as! [String: Any]
        #expect((users["items"] as! [Any]).count == 1 && users["next"] is String)
        let search = try await client.ok(["query": "searchUsers", "prefix": "B"]) as! [String: Any]
        #expect(((search["items"] as! [[String: Any]]).map { $0["username"] as! String }) == ["bob"])
        #expect(search["next"] is NSNull)
        #expect(
            ((try await client.ok(["query": "followers", "user": alice]) as! [String: Any])["items"] as! [Any]).count
                == 1)
        #expect(
            ((try await client.ok(["query": "following", "user": bob]) as! [String: Any])["items"] as! [Any]).count == 1
        )
        #expect(
            (try await client.ok(["query": "follows", "user": bob, "target": alice]) as! [String: Any])["follows"]
                as? Bool == true)
        #expect(
            ((try await client.ok(["query": "posts", "user": alice]) as! [String: Any])["items"] as! [Any]).count == 1)
        let detail = try await client.ok(["query": "post", "post": postID, "viewer": bob]) as! [String: Any]
        #expect(detail["likedByViewer"] as? Bool == true && detail["likeCount"] as? Int == 1)
        #expect(
            ((detail["comments"] as! [String: Any])["items"] as! [[String: Any]]).first?["text"] as? String == "lovely")
        let timeline = try await client.ok(["query": "timeline", "user": bob, "limit": 20]) as! [String: Any]
        #expect(((timeline["items"] as! [[String: Any]]).map { $0["id"] as! String }) == [postID])
        #expect(
            ((try await client.ok(["query": "hashtag", "tag": "sea"]) as! [String: Any])["items"] as! [Any]).count == 1)
        let activity = try await client.ok(["query": "activity", "user": alice]) as! [String: Any]
        let kinds = (activity["items"] as! [[String: Any]]).map { $0["kind"] as! String }
        #expect(kinds == ["like", "comment", "follow"])
        #expect((activity["items"] as! [[String: Any]])[1]["comment"] as? String == comment["id"] as? String)
        let image = try await client.ok(["query": "image", "image": post["image"] as! String]) as! [String: Any]
        // The photo as the pipeline re-encoded it (an opaque GIF becomes a JPEG).
        #expect(image["mediaType"] as? String == "image/jpeg")
        let served = try Vips.header([UInt8](try #require(Data(base64Encoded: image["data"] as? String ?? ""))))
        #expect(served.format == .jpeg && served.width == 2 && served.height == 1)

        // Deleting, unliking, unfollowing, signing out.
        #expect(
            (try await client.ok(["command": "unlike", "as": bob, "post": postID]) as! [String: Any])["changed"]
                as? Bool == true)
        _ = try await client.ok(["command": "deleteComment", "as": alice, "comment": comment["id"] as! String])
        #expect(
            (try await client.ok(["command": "unfollow", "as": bob, "user": alice]) as! [String: Any])["changed"]
                as? Bool == true)
        _ = try await client.ok(["command": "deletePost", "as": alice, "post": postID])
        _ = try await client.ok(["command": "signOut", "session": token])
        try await client.fails(["command": "like", "session": token, "post": postID], "unauthenticated")
        try await client.fails(["query": "post", "post": postID], "not_found")
    }

    @Test func badLinesAreAnsweredAndTheNextLinesStillRun() async throws {
        let service = try openService()
        let client = Client(service)
        for line in [
            "", "not json", "[1,2]", "42", "{", #"{"id":"x"}"#, #"{"command":"fly"}"#, #"{"query":"everything"}"#,
            String(repeating: "[", count: 10_000),
            #"{"command":"createUser","username":5,"email":"a@b.co","password":"x"}"#,
            #"{"query":"users",}"#, #"{"query":"users","limit":1 ,  }"#, #"{"query":"users","hashtags":["a",]}"#
        ] {
            let response = try await client.raw(line)
            #expect(response["ok"] as? Bool == false)
            #expect(
                (response["error"] as? [String: Any])?["code"] as? String == "invalid_argument", "\(line.prefix(40))")
        }
        try await client.fails(
            ["command": "createUser", "username": "u", "email": "a@b.co", "password": true], "invalid_argument",
            field: "password")
        try await client.fails(["query": "users", "limit": "5"], "invalid_argument", field: "limit")
        try await client.fails(["query": "users", "limit": 1000], "invalid_argument", field: "limit")
        try await client.fails(["query": "user", "user": "no such user"], "invalid_argument", field: "user")
        try await client.fails(["query": "user", "user": "nosuchuser"], "not_found")
        try await client.fails(["command": "addPost", "image": gifBase64(1)], "unauthenticated")
        // A line refused whole still has its id echoed when it can be read.
        let twice = try await client.raw(#"{"id":"d","query":"users","limit":1,"limit":2}"#)
        #expect(twice["id"] as? String == "d" && twice["ok"] as? Bool == false, "\(twice)")
        // A comma inside a string is just text: the line is read, and its field judged.
        try await client.fails(["query": "user", "user": "x,]"], "invalid_argument", field: "user")
        #expect(try service.lastSequence() == 0)
        _ = try await client.ok([
            "command": "createUser", "username": "fine", "email": "f@example.com", "password": "password-1"
        ])
    }

    /// The real executable: one line out per line in, in order, exit 0.
    @Test func theExecutableAnswersEveryLine() throws {
        let tool = try ToolProcess(["exec", "--db", temporaryPath()])
        let lines = [
            #"{"id":"1","command":"createUser","username":"zed","email":"z@example.com","password":"password-1"}"#,
            "garbage",
            #"{"id":"3","query":"userByName","username":"ZED"}"#
        ]
        tool.input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        try tool.input.fileHandleForWriting.close()
        let data = tool.output.fileHandleForReading.readDataToEndOfFile()
        tool.process.waitUntilExit()
        #expect(tool.process.terminationStatus == 0)
        let answers = String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(answers.count == 3)
        #expect(answers[0]?["ok"] as? Bool == true && answers[0]?["id"] as? String == "1")
        #expect(answers[1]?["ok"] as? Bool == false)
        #expect((answers[2]?["result"] as? [String: Any])?["username"] as? String == "zed")
    }
}
