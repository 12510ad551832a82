/// A minimal `git`-style argument reader: positional words and `--name value` / `--flag` options.
struct Arguments {
    var positional: [String] = []
    var options: [String: [String]] = [:]
    var flags: Set<String> = []

    /// - Parameter flagNames: options that take no value.
    init(
        _ words: [String],
        flagNames: Set<String> = [
            "json", "help", "verify", "list", "follow", "reverse", "cluster", "http", "photos", "video",
            "accept-missing-keys", "demo", "mastodon", "push-allow-private", "push", "federation", "all-day",
            "federation-allow-private", "federation-authorized-fetch"
        ]
    ) throws(UsageError) {
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == "-h" {
                flags.insert("help")
            } else if word.hasPrefix("--") {
                let name = String(word.dropFirst(2))
                if let eq = name.firstIndex(of: "=") {
                    let key = String(name[..<eq])
                    // `--verify=1` is not `--verify`: refused rather than read as "not given".
                    guard !flagNames.contains(key) else { throw UsageError("--\(key) takes no value") }
                    options[key, default: []].append(String(name[name.index(after: eq)...]))
                } else if flagNames.contains(name) {
                    flags.insert(name)
                } else {
                    index += 1
                    guard index < words.count else { throw UsageError("--\(name) needs a value") }
                    options[name, default: []].append(words[index])
                }
            } else {
                positional.append(word)
            }
            index += 1
        }
    }

    /// The options of a command that opens the database (`TimelineTool.open`).
    static let opening: Set<String> = TimelineTool.openOptions.union(["accept-missing-keys"])

    /// Refuses an option or flag the command does not take: a mistyped or misplaced option must
    /// not be ignored (`rebuild --verfy` would rebuild instead of verifying). A command takes
    /// `accepted`, the `opening` options it honours (all of them by default) and `--help`.
    /// `anyOption`: every `--name value` is the command's to check (a query's fields).
    func refuseUnknown(_ accepted: Set<String>, opening: Set<String> = Self.opening, anyOption: Bool = false)
        throws(UsageError)
    {
        let known = accepted.union(opening).union(["help"])
        let given = flags.union(anyOption ? [] : Set(options.keys))
        if let unknown = given.subtracting(known).sorted().first { throw UsageError("unknown option --\(unknown)") }
    }

    func value(_ name: String) -> String? { options[name]?.last }
    func has(_ flag: String) -> Bool { flags.contains(flag) }
    var db: String { value("db") ?? "timeline.db" }

    /// `--map-size SIZE`: bytes, or with a K, M or G suffix (powers of 1024).
    var mapSize: Int? {
        get throws(UsageError) {
            guard let text = value("map-size") else { return nil }
            guard let size = Self.size(text) else {
                throw UsageError("--map-size takes a size in bytes, e.g. 64M (got \(text))")
            }
            return size
        }
    }

    /// A size in bytes written with an optional K, M or G suffix (KiB, MiB, GiB: `64M`), if it is one.
    static func size(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("IB") { digits = digits.dropLast(2) }
        var unit = 1
        if let last = digits.last, let scale = units[last] {
            unit = scale
            digits = digits.dropLast()
        }
        guard let count = Int(digits), count > 0, count <= Int.max / unit else { return nil }
        return count * unit
    }
}

/// Wrong use of the command line: printed with the command's help, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
