/// How big a synthetic network the benchmark builds.
public struct Scale: Sendable {
    /// The scale's name (`small`, `medium`, `large`).
    public var name: String
    /// Users created.
    public var users: Int
    /// Follows between them.
    public var follows: Int
    /// Posts.
    public var posts: Int
    /// Likes.
    public var likes: Int
    /// Comments.
    public var comments: Int
    /// How many samples each latency figure takes.
    public var samples: Int

    /// 5,000 users: a quick run.
    public static let small = Scale(
        name: "small", users: 5_000, follows: 50_000, posts: 50_000, likes: 30_000, comments: 20_000, samples: 2_000)
    /// 100,000 users.
    public static let medium = Scale(
        name: "medium", users: 100_000, follows: 1_000_000, posts: 1_000_000, likes: 600_000, comments: 400_000,
        samples: 10_000)
    /// 300,000 users.
    public static let large = Scale(
        name: "large", users: 300_000, follows: 3_000_000, posts: 3_000_000, likes: 1_800_000, comments: 1_200_000,
        samples: 10_000)

    /// The scale called `name`, if any.
    public static func named(_ name: String) -> Scale? { [small, medium, large].first { $0.name == name } }
}
