import Foundation
import Timeline
import Vips

/// `timeline demo`: builds a small, lively network (users, follows, photo posts with hashtags,
/// comments and likes) and prints a home timeline, a profile and a post detail. Running it
/// again reuses the users and adds a new round of activity.
enum DemoCommand {
    static let help = """
        usage: timeline demo [--db PATH]

        Builds a small network in the database (default ./timeline.db) and prints @alice's home
        timeline, her profile and the detail of the newest post.
        """

    struct Person { let username, bio, url: String }
    static let people = [
        Person(username: "alice", bio: "Harbour mornings and film cameras.", url: "https://alice.example.com"),
        Person(username: "bob", bio: "Climbing, coffee, repeat.", url: ""),
        Person(username: "carol", bio: "I photograph bread. Sometimes cats.", url: "https://carol.example.org"),
        Person(username: "dave", bio: "Night skies from the back garden.", url: ""),
        Person(username: "erin", bio: "Trains, tunnels, timetables.", url: "")
    ]
    /// Each post's photo is a gradient from `sky` to `ground` (RGB), and some have a place.
    static let posts:
        [(
            author: String, caption: String, sky: (Double, Double, Double), ground: (Double, Double, Double),
            place: Place?
        )] = [
            (
                "bob", "First light on the north face #climbing #sunrise", (250, 200, 120), (90, 60, 40),
                Place(latitude: 45.9237, longitude: 6.8694, name: "Chamonix")
            ),
            ("carol", "Sourdough, day three. It finally rose! #bread #baking", (235, 215, 180), (150, 105, 60), nil),
            (
                "dave", "Orion over the shed #astrophotography #night", (10, 14, 40), (30, 40, 80),
                Place(latitude: 55.2330, longitude: -2.5870, name: "Kielder Forest")
            ),
            (
                "erin", "The 6:12 pulling into Haltwhistle #trains", (170, 175, 185), (70, 70, 75),
                Place(latitude: 54.9707, longitude: -2.4610, name: "Haltwhistle station")
            ),
            (
                "alice", "Fog rolling over the harbour this morning #sea #sunrise #film", (225, 230, 235),
                (120, 140, 155),
                Place(latitude: 60.1675, longitude: 24.9520, name: "South Harbour, Helsinki")
            ),
            ("carol", "Cat inspecting the crumb #cats #bread", (200, 170, 130), (60, 45, 35), nil)
        ]
    static let follows = [
        ("alice", "bob"), ("alice", "carol"), ("alice", "dave"), ("bob", "alice"), ("bob", "carol"),
        ("carol", "alice"), ("dave", "alice"), ("dave", "erin"), ("erin", "alice"), ("erin", "carol")
    ]
    static let comments = [
        "This is gorgeous.", "Wow, the colours!", "Where was this taken?", "Frame-worthy.",
        "Now I'm hungry 😄", "Adding this to my list."
    ]

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown([])
        if args.has("help") {
            print(help)
            return 0
        }
        let service = try TimelineTool.open(args)
        defer { TimelineTool.close(service) }
        let (ids, newPosts) = try await fill(service)
        let alice = ids["alice"]!
        let names = Dictionary(uniqueKeysWithValues: ids.map { ($0.value, $0.key) })
        func name(_ id: UserID) -> String { "@" + (names[id] ?? (try? service.user(id).username) ?? id.rawValue) }
        let now = Int64(Date().timeIntervalSince1970 * 1000)

        print("━━ Home timeline of @alice (newest first) ━━")
        for post in try service.timeline(of: alice, PageRequest(limit: 8)).items {
            print("\(name(post.author))  ·  \(ago(now - post.createdAt))")
            print("  \(post.caption ?? "")")
            print("  ♥ \(post.likeCount)   💬 \(post.commentCount)   #\(post.hashtags.joined(separator: " #"))\n")
        }
        let profile = try service.user(alice)
        print("━━ Profile ━━")
        print("@\(profile.username)  \(profile.bio ?? "")  \(profile.url ?? "")")
        print(
            "\(profile.postCount) posts  ·  \(profile.followerCount) followers  ·  \(profile.followingCount) following\n"
        )
        if let newest = newPosts.last {
            let detail = try service.post(newest, viewer: alice)
            print("━━ Post detail ━━")
            print("\(name(detail.post.author)): \(detail.post.caption ?? "")")
            print(
                "image \(detail.post.image.rawValue.prefix(16))…  ♥ \(detail.post.likeCount)  (liked by @alice: \(detail.likedByViewer ? "yes" : "no"))"
            )
            for comment in detail.comments.items { print("  \(name(comment.author)): \(comment.text)") }
        }
        let report = try service.verifyLog()
        print(
            "\nlog: \(report.eventsChecked) events, hash chain \(report.isValid ? "verified" : "BROKEN at \(report.firstBadSequence!)") — database \(args.db)"
        )
        return 0
    }

    /// Adds the demo network to `service` (reusing its users if they exist): follows, a round
    /// of posts, likes and comments, and two stories. Returns the users' ids and the new posts.
    @discardableResult
    static func fill(_ service: TimelineService) async throws -> (users: [String: UserID], posts: [PostID]) {
        var ids: [String: UserID] = [:]
        for person in people {
            if let existing = try? service.user(named: person.username) {
                ids[person.username] = existing.id
                continue
            }
            let result = try await service.execute(
                .createUser(
                    username: person.username, email: "\(person.username)@example.com",
                    password: "demo-password-\(person.username)", bio: person.bio,
                    url: person.url.isEmpty ? nil : person.url))
            if case .user(let profile) = result { ids[person.username] = profile.id }
        }
        func actor(_ name: String) -> Caller { .user(ids[name]!.rawValue) }
        for (follower, followee) in follows {
            _ = try await service.execute(.follow(user: ids[followee]!.rawValue), as: actor(follower))
        }
        var newPosts: [PostID] = []
        for (index, post) in posts.enumerated() {
            // A landscape photo's size; the grain's seed varies, so every run stores distinct images.
            let seed = Int32(truncatingIfNeeded: index &+ Int(Date().timeIntervalSince1970))
            let image = try Vips.gradient(width: 1440, height: 1080, from: post.sky, to: post.ground, seed: seed).jpeg(
                quality: 90)
            if case .post(let added) = try await service.execute(
                .addPost(
                    image: Data(image).base64EncodedString(), caption: post.caption,
                    location: post.place),
                as: actor(post.author))
            {
                newPosts.append(added.id)
            }
        }
        for (index, postID) in newPosts.enumerated() {
            for (offset, person) in people.enumerated() where (index + offset) % 3 != 0 {
                _ = try await service.execute(.like(post: postID.rawValue), as: actor(person.username))
            }
            let author = posts[index].author
            let commenter = (1...people.count).map { people[(index + $0) % people.count].username }.first {
                $0 != author
            }!
            _ = try await service.execute(
                .addComment(post: postID.rawValue, text: comments[index % comments.count]), as: actor(commenter))
        }
        // A story each for the first two posts' authors (a portrait photo, for a day): the
        // stories row of whoever follows them is not empty.
        for (index, post) in posts.prefix(2).enumerated() {
            let seed = Int32(truncatingIfNeeded: index &+ 7 &+ Int(Date().timeIntervalSince1970))
            let image = try Vips.gradient(width: 1080, height: 1920, from: post.ground, to: post.sky, seed: seed).jpeg(
                quality: 90)
            _ = try await service.execute(
                .postStory(media: Data(image).base64EncodedString()), as: actor(post.author))
        }

        return (ids, newPosts)
    }

    static func ago(_ ms: Int64) -> String {
        let seconds = max(ms / 1000, 0)
        if seconds < 60 { return "just now" }
        if seconds < 3600 { return "\(seconds / 60)m ago" }
        if seconds < 86400 { return "\(seconds / 3600)h ago" }
        return "\(seconds / 86400)d ago"
    }
}
