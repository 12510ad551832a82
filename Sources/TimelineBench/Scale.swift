/// How big a synthetic network the benchmark builds.
public struct Scale: Sendable {
    public var name: String
    public var users: Int
    public var follows: Int
    public var posts: Int
    public var likes: Int
    public var comments: Int
    /// How many samples each latency figure takes.
    public var samples: Int

    public static let small = Scale(name: "small", users: 5_000, follows: 50_000, posts: 50_000, likes: 30_000, comments: 20_000, samples: 2_000)
    public static let medium = Scale(name: "medium", users: 100_000, follows: 1_000_000, posts: 1_000_000, likes: 600_000, comments: 400_000, samples: 10_000)
    public static let large = Scale(name: "large", users: 300_000, follows: 3_000_000, posts: 3_000_000, likes: 1_800_000, comments: 1_200_000, samples: 10_000)

    public static func named(_ name: String) -> Scale? { [small, medium, large].first { $0.name == name } }
}
