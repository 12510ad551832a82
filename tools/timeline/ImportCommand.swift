import Foundation
import JSONModel
import Timeline
import TimelineImport

/// `timeline import firebase EXPORT.json`, `timeline import instagram EXPORT.zip --user USER` and
/// `timeline password-reset USER`.
enum ImportCommand {
    static let help = """
        usage: timeline import firebase EXPORT.json [--db PATH] [--json]
               timeline import instagram EXPORT.zip --user USER_ID|@username [--db PATH] [--json]

        Imports a Firebase Realtime Database export of the Timeline app (users, follows, posts with
        comments and likes, base64 images), keeping its identifiers. Streams the file; prints a
        report of what was imported and what was skipped, and why. Running it again adds nothing.
        Imported users have no password: give each a token with `timeline password-reset @name`.

        instagram: the zip of Instagram's "Download your information" (JSON format), read as a
        stream: its posts (photos, videos and albums, captions and their hashtags, places from the
        photos' EXIF, each at its original date), bio and profile photo become the user's; videos are
        transcoded as uploads are. Running it again adds nothing; an archive with a path outside
        it, or a damaged one, is refused before anything is written.
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(["json", "user"])
        guard !args.has("help"), args.positional.count == 2, ["firebase", "instagram"].contains(args.positional[0])
        else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        let service = try TimelineTool.open(args)
        defer { TimelineTool.close(service) }
        let report: ImportReport
        if args.positional[0] == "instagram" {
            guard let target = args.value("user") else { throw UsageError("import instagram needs --user") }
            let user = target.hasPrefix("@") ? try service.user(named: String(target.dropFirst())).id : UserID(target)
            report = try service.importInstagram(path: args.positional[1], as: user)
        } else {
            let terminal = isatty(2) == 1
            report = try service.importFirebase(path: args.positional[1]) { p in
                guard terminal else { return }
                let percent = p.total > 0 ? " \(p.done * 100 / p.total)%" : ""
                FileHandle.standardError.write(Data("\r  \(p.phase): \(p.done)/\(p.total)\(percent)      ".utf8))
            }
            if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
        }
        if args.has("json") {
            try emitJSON(
                ImportJSON(
                    imported: report.imported, alreadyPresent: report.alreadyPresent,
                    skipped: report.skipped.mapValues { Skipped(count: $0.count, examples: $0.examples) }))
        } else {
            print(report.text)
        }
        return 0
    }

    /// `import firebase --json`'s line: what was imported, found already, and skipped (why, how
    /// often, with examples).
    struct ImportJSON: Encodable {
        let imported: [String: Int]
        let alreadyPresent: [String: Int]
        let skipped: [String: Skipped]
    }

    /// Records skipped for one reason.
    struct Skipped: Encodable {
        let count: Int
        let examples: [String]
    }

    /// `timeline password-reset USER`: an operator issues a one-time token to set a password.
    static func passwordReset(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown([])
        guard !args.has("help"), let target = args.positional.first else {
            print(
                "usage: timeline password-reset [--db PATH] USER_ID|@username\n\nPrints a one-time token (valid 1 hour; deliver it to the user out of band) for the resetPassword command."
            )
            return args.has("help") ? 0 : 2
        }
        let service = try TimelineTool.open(args)
        defer { TimelineTool.close(service) }
        let id = target.hasPrefix("@") ? try service.user(named: String(target.dropFirst())).id.rawValue : target
        guard case .token(let token) = try await service.execute(.requestPasswordReset(user: id), as: .operator) else {
            return 1
        }
        print(token)
        return 0
    }
}
