/// What an import did: what it added, what was already there, and what it skipped and why.
public struct ImportReport: Sendable, Equatable {
    /// Records added, by kind (`users`, `follows`, `posts`, `comments`, `likes`).
    public var imported: [String: Int] = [:]
    /// Records already in the database (a re-run adds nothing).
    public var alreadyPresent: [String: Int] = [:]
    /// Records skipped, by reason, with a few examples of their Firebase paths.
    public var skipped: [String: Skipped] = [:]

    /// Records skipped for one reason.
    public struct Skipped: Sendable, Equatable {
        /// How many.
        public var count = 0
        /// A few of their paths in the export.
        public var examples: [String] = []
    }

    /// An empty report.
    public init() {}

    /// Counts a record skipped for `reason`, keeping `path` as an example (the first three).
    package mutating func skip(_ reason: String, _ path: String) {
        var entry = skipped[reason] ?? Skipped()
        entry.count += 1
        if entry.examples.count < 3 { entry.examples.append(path) }
        skipped[reason] = entry
    }

    /// Records imported, of every kind.
    public var totalImported: Int { imported.values.reduce(0, +) }
    /// Records skipped, for every reason.
    public var totalSkipped: Int { skipped.values.reduce(0) { $0 + $1.count } }

    /// A readable report.
    public var text: String {
        var lines = ["imported:"]
        for kind in ["users", "follows", "posts", "comments", "likes", "profile"]
        where kind != "profile" || imported[kind] != nil || alreadyPresent[kind] != nil {
            lines.append(
                "  \(kind.padding(toLength: 10, withPad: " ", startingAt: 0)) \(imported[kind] ?? 0)"
                    + ((alreadyPresent[kind] ?? 0) > 0 ? "  (\(alreadyPresent[kind]!) already present)" : ""))
        }
        if skipped.isEmpty {
            lines.append("skipped: nothing")
        } else {
            lines.append("skipped:")
            for (reason, entry) in skipped.sorted(by: { $0.value.count > $1.value.count }) {
                lines.append("  \(entry.count) \(reason), e.g. \(entry.examples.joined(separator: ", "))")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// An import the server runs for a user (`POST /v1/me/imports`): how far it is, and, once it
/// ended, its report or why it failed.
public struct ImportProgress: Sendable, Equatable {
    /// Where an import stands.
    public enum State: String, Sendable, CaseIterable {
        /// Reading the archive and adding what it holds.
        case running
        /// Ended: `report` says what it did.
        case done
        /// Refused or stopped: `error` says why (nothing was added when the archive was refused).
        case failed
    }
    /// Its id.
    public var id: String
    /// Where it stands.
    public var state: State
    /// Items (photos, videos, posts) done, of `total` (0 until the archive was read through once).
    public var done: Int
    /// Items to do.
    public var total: Int
    /// What it did, once done.
    public var report: ImportReport?
    /// Why it failed.
    public var error: TimelineError?

    /// An import just started.
    public init(id: String) {
        self.id = id
        state = .running
        done = 0
        total = 0
    }
}
