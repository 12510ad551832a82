import Foundation
import Timeline

/// Builds the synthetic network through the library API: users, a power-law follow graph
/// (followee rank drawn log-uniformly, so a few accounts have very many followers), then posts
/// with hashtags, likes and comments, by many concurrent clients (so group commit batches them).
struct NetworkBuilder {
    let service: TimelineService
    let scale: Scale
    var progress: (String) -> Void

    struct Network {
        var users: [UserID]
        var posts: [PostID]
        /// Users ordered by rank: `users[0]` gets the most followers.
        var mostFollowed: UserID
        var medianFollowed: UserID

        /// The network as its file holds it: the ids as strings.
        private struct Saved: Codable {
            var users: [String]
            var posts: [String]
            var mostFollowed: String
            var medianFollowed: String
        }

        func save(_ path: String) throws {
            let saved = Saved(
                users: users.map(\.rawValue), posts: posts.map(\.rawValue),
                mostFollowed: mostFollowed.rawValue, medianFollowed: medianFollowed.rawValue)
            try JSONEncoder().encode(saved).write(to: URL(fileURLWithPath: path))
        }

        static func load(_ path: String) -> Network? {
            guard let data = FileManager.default.contents(atPath: path),
                let saved = try? JSONDecoder().decode(Saved.self, from: data)
            else { return nil }
            return Network(
                users: saved.users.map(UserID.init), posts: saved.posts.map(PostID.init),
                mostFollowed: UserID(saved.mostFollowed), medianFollowed: UserID(saved.medianFollowed))
        }
    }

    /// Runs `commands` with `clients` concurrent callers and keeps what `keep` takes of each
    /// result (only that: a million full results would dwarf the service's own memory);
    /// failures (e.g. self-follows) are `nil`, not fatal.
    /// `processed` gives, for an `addPost`, its photo already through the image pipeline.
    func run<Kept: Sendable>(
        _ label: String, count: Int, clients: Int = 64, keep: @escaping @Sendable (CommandResult) -> Kept?,
        processed: @escaping @Sendable (Int) -> ProcessedImage? = { _ in nil },
        _ make: @escaping @Sendable (Int) -> (Command, Caller)
    ) async -> [Kept?] {
        let start = now()
        let service = self.service
        let results = await withTaskGroup(of: [(Int, Kept?)].self) { group in
            for client in 0..<clients {
                group.addTask {
                    var out: [(Int, Kept?)] = []
                    var index = client
                    while index < count {
                        let (command, caller) = make(index)
                        out.append(
                            (
                                index,
                                (try? await service.execute(command, as: caller, processedImage: processed(index)))
                                    .flatMap(keep)
                            ))
                        index += clients
                    }
                    return out
                }
            }
            var all = [Kept?](repeating: nil, count: count)
            for await part in group { for (index, result) in part { all[index] = result } }
            return all
        }
        let seconds = now() - start
        progress(String(format: "  %@: %d commands in %.1fs (%.0f/s)", label, count, seconds, Double(count) / seconds))
        return results
    }

    /// Runs `commands` as above, keeping nothing of their results.
    func run(_ label: String, count: Int, clients: Int = 64, _ make: @escaping @Sendable (Int) -> (Command, Caller))
        async
    {
        let _: [Never?] = await run(label, count: count, clients: clients, keep: { _ in nil }, make)
    }

    func build() async throws -> Network {
        let scale = self.scale
        let created = await run(
            "users", count: scale.users,
            keep: { result -> UserID? in
                guard case .user(let profile) = result else { return nil }
                return profile.id
            }
        ) { index in
            (
                .createUser(
                    username: "user\(index)", email: "user\(index)@bench.example", password: "bench-password", bio: nil,
                    url: nil), .anonymous
            )
        }
        let users = created.map { $0 ?? UserID("missing") }
        let userIDs = users.map(\.rawValue)
        // Power law: rank r is drawn with probability ∝ 1/(r+1).
        await run("follows", count: scale.follows) { index in
            var rng = SplitMix(state: UInt64(index) &* 7919)
            let follower = Int.random(in: 0..<userIDs.count, using: &rng)
            let rank = min(
                userIDs.count - 1, Int(exp(Double.random(in: 0..<log(Double(userIDs.count)), using: &rng))) - 1)
            return (
                .follow(user: userIDs[rank]),
                .user(userIDs[follower == rank ? (follower + 1) % userIDs.count : follower])
            )
        }
        let images = (0..<256).map { Self.gif($0).base64EncodedString() }
        // Each image goes through the pipeline once (it is deterministic), not once a post:
        // building the network is not what is measured.
        let processed = try images.map { image throws(TimelineError) in
            try ImagePipeline.post(try ImageUpload(base64: image))
        }
        let tags = Self.tags
        let added = await run(
            "posts", count: scale.posts,
            keep: { result -> PostID? in
                guard case .post(let post) = result else { return nil }
                return post.id
            }, processed: { processed[$0 % processed.count] }
        ) { index in
            var rng = SplitMix(state: UInt64(index) &* 104_729)
            let author = userIDs[Int.random(in: 0..<userIDs.count, using: &rng)]
            let caption = "Post \(index) #\(tags[index % tags.count]) #\(tags[(index / 10) % tags.count])"
            return (.addPost(image: images[index % images.count], caption: caption), .user(author))
        }
        // One user in ten follows one to three of the tags, before the albums: those come into
        // their timelines by the tags as they are posted (#41).
        let tagFollowers = userIDs.indices.filter { $0 % 10 == 0 }
        await run("tag follows", count: tagFollowers.count * 3) { index in
            var rng = SplitMix(state: UInt64(index / 3) &* 49_979_687)
            let follows = Int.random(in: 1...3, using: &rng)
            let tag = tags.shuffled(using: &rng)[index % 3 < follows ? index % 3 : 0]
            return (.followTag(tag: tag), .user(userIDs[tagFollowers[index / 3]]))
        }
        // Albums: one post in ten more, each of three photos uploaded first (as apps do), the
        // newest posts of the network, so the first pages read them.
        let albums = scale.posts / 10, photosPerAlbum = 3
        @Sendable func albumAuthor(_ album: Int) -> String {
            var rng = SplitMix(state: UInt64(album) &* 6_700_417)
            return userIDs[Int.random(in: 0..<userIDs.count, using: &rng)]
        }
        let uploads = await run(
            "album photos", count: albums * photosPerAlbum,
            keep: { result -> String? in
                guard case .media(let media) = result else { return nil }
                return media.id
            }, processed: { processed[$0 % processed.count] }
        ) { index in
            (
                .uploadMedia(
                    image: images[index % images.count],
                    alt: "Photo \(index % photosPerAlbum + 1) of album \(index / photosPerAlbum)"),
                .user(albumAuthor(index / photosPerAlbum))
            )
        }
        let addedAlbums = await run(
            "albums", count: albums,
            keep: { result -> PostID? in
                guard case .post(let post) = result else { return nil }
                return post.id
            }
        ) { index in
            let media = uploads[index * photosPerAlbum..<(index + 1) * photosPerAlbum].compactMap { $0 }
            return (
                .addPost(media: media, caption: "Album \(index) #\(tags[index % tags.count])"),
                .user(albumAuthor(index))
            )
        }
        let posts = (added + addedAlbums).compactMap { $0 }
        let postIDs = posts.map(\.rawValue)
        // Boosts (#41): one for every twenty posts, by random users, of the newest ten thousand
        // posts (a boost made twice is the same one; one the policy refuses is left out).
        let newest = Array(postIDs.suffix(10_000))
        await run("boosts", count: scale.posts / 20) { index in
            var rng = SplitMix(state: UInt64(index) &* 86_028_121)
            return (
                .reblog(post: newest[Int.random(in: 0..<newest.count, using: &rng)]),
                .user(userIDs[Int.random(in: 0..<userIDs.count, using: &rng)])
            )
        }
        await run("likes", count: scale.likes) { index in
            var rng = SplitMix(state: UInt64(index) &* 15_485_863)
            return (
                .like(post: postIDs[Int.random(in: 0..<postIDs.count, using: &rng)]),
                .user(userIDs[Int.random(in: 0..<userIDs.count, using: &rng)])
            )
        }
        await run("comments", count: scale.comments) { index in
            var rng = SplitMix(state: UInt64(index) &* 32_452_843)
            return (
                .addComment(post: postIDs[Int.random(in: 0..<postIDs.count, using: &rng)], text: "Comment \(index)"),
                .user(userIDs[Int.random(in: 0..<userIDs.count, using: &rng)])
            )
        }
        let counts = try users.prefix(2_000).map { ($0, try service.user($0).followerCount) }.sorted { $0.1 > $1.1 }
        let median = try (users.count / 2..<min(users.count, users.count / 2 + 50)).map { users[$0] }
            .map { ($0, try service.user($0).followerCount) }.sorted { $0.1 < $1.1 }
        return Network(
            users: users, posts: posts, mostFollowed: counts[0].0, medianFollowed: median[median.count / 2].0)
    }

    /// The network's ten hashtags: each post carries two, each album one.
    static let tags = ["sea", "sunrise", "film", "bread", "cats", "trains", "night", "coffee", "climbing", "city"]

    /// A real 2×1 GIF whose palette varies with `n`.
    static func gif(_ n: Int) -> Data {
        var bytes = Array("GIF89a".utf8) + [2, 0, 1, 0, 0x80, 0, 0]
        bytes += [UInt8(n & 255), UInt8((n >> 8) & 255), 77, 1, 2, 3]
        bytes += [0x2C, 0, 0, 0, 0, 2, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B]
        return Data(bytes)
    }
}
