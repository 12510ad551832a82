import Foundation
import Timeline

/// `timeline export-user --user U --out FILE`: a user's data as a zip archive (the operator's
/// side of `GET /v1/me/export`).
enum ExportCommand {
    static let help = """
        usage: timeline export-user --user USER_ID|@username --out FILE.zip [--db PATH]

        Writes the user's data as a zip archive: profile.json, posts.json and every photo of theirs
        (photos/POST/N.jpg), comments.json, likes.json, bookmarks.json, following.json,
        followers.json, blocks.json, mutes.json, and events.jsonl (every event they caused, valid
        against schemas/, their personal fields in clear). Written as it is made: photos one at a
        time. FILE must not exist.
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(["user", "out"])
        guard !args.has("help"), let target = args.value("user"), let out = args.value("out"), args.positional.isEmpty
        else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        guard !FileManager.default.fileExists(atPath: out) else {
            throw TimelineError(.invalidArgument, "\(out) exists", field: "out")
        }
        guard FileManager.default.createFile(atPath: out, contents: nil, attributes: [.posixPermissions: 0o600]),
            let file = FileHandle(forWritingAtPath: out)
        else { throw TimelineError(.invalidArgument, "cannot create \(out)", field: "out") }
        defer { try? file.close() }
        let service = try TimelineTool.open(args, existing: true)
        defer { TimelineTool.close(service) }
        let user = target.hasPrefix("@") ? try service.userID(named: String(target.dropFirst())) : UserID(target)
        do {
            try service.export(user: user) { bytes in try file.write(contentsOf: bytes) }
        } catch {
            try? FileManager.default.removeItem(atPath: out)
            throw error
        }
        emit("exported \(user) to \(out)")
        return 0
    }
}
