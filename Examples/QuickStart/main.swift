// The README's library example ("Library API"), compiled and run by `tools/test`. The block
// between the `README:` markers is the README's snippet, line for line (a test checks), and the
// lines before it define what the snippet takes as given.
import Foundation
import Timeline

func check(_ condition: Bool, _ what: String) {
    guard condition else {
        print("QuickStart: \(what) failed")
        exit(1)
    }
}

// A scratch directory: the snippet opens "timeline.db" in the current directory.
let scratch = FileManager.default.temporaryDirectory.appending(path: "timeline-quickstart-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
check(FileManager.default.changeCurrentDirectoryPath(scratch.path), "entering the scratch directory")

// Given: a JPEG to post (a whole 8×8 image: uploads are decoded in full) and a second user.
let jpegBase64 =
    "/9j/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAAL" +
    "CAAIAAgBAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEG" +
    "E1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4" +
    "eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6" +
    "/9oACAEBAAA/APn+v//Z"
let bobID: UserID = try await {
    let setup = try TimelineService(path: "timeline.db")
    defer { setup.close() }
    guard case .user(let bob) = try await setup.execute(
        .createUser(username: "bob", email: "bob@example.com", password: "correct horse", bio: nil, url: nil))
    else { fatalError() }
    _ = try await setup.execute(.addPost(image: jpegBase64, caption: "Bob's first"), as: .user(bob.id.rawValue))
    return bob.id
}()

// README: begin
let timeline = try TimelineService(path: "timeline.db")     // creates the directory if needed

guard case .user(let alice) = try await timeline.execute(
    .createUser(username: "alice", email: "alice@example.com", password: "correct horse", bio: nil, url: nil))
else { fatalError() }

// Act as a signed-in session, or (trusted local tools) as a user id.
guard case .session(let token, _) = try await timeline.execute(
    .signIn(email: "alice@example.com", password: "correct horse"))
else { fatalError() }
_ = try await timeline.execute(.addPost(image: jpegBase64, caption: "Harbour fog #sea"), as: .session(token))
_ = try await timeline.execute(.follow(user: bobID.rawValue), as: .user(alice.id.rawValue))

let home = try timeline.timeline(of: alice.id, PageRequest(limit: 20))  // newest first
let older = try timeline.timeline(of: alice.id, PageRequest(limit: 20, before: home.next))
let detail = try timeline.post(home.items[0].id, viewer: alice.id)      // comments, likedByViewer
// README: end

// What the snippet should have seen: her post first, then bob's (followed after she posted,
// merged in by identifier), on one page.
check(home.items.map(\.caption) == ["Harbour fog #sea", "Bob's first"], "the home timeline")
check(home.next == nil && older == home, "paging")  // one page: no `next`, so `before: nil` reads it again
check(detail.post.id == home.items[0].id && !detail.likedByViewer, "the post detail")
check(try timeline.hashtag("SEA").items.count == 1, "the hashtag query")
timeline.close()
print("QuickStart: ok (\(home.items.count) posts on @\(alice.username)'s timeline)")
