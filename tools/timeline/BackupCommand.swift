import Foundation
import Timeline

/// `timeline backup DEST` and `timeline restore BACKUP`.
enum BackupCommand {
    static let help = """
        usage: timeline backup [--db PATH] DEST
               timeline restore BACKUP [--db PATH]

        backup writes a consistent, compacted hot copy of the database into the directory DEST
        (safe while the service runs), with the keys/ beside it (a key that cannot be copied
        fails the backup) and the Web Push VAPID key pair (push/vapid.key: subscriptions stay valid). restore copies a backup (data.mdb, derived/, keys/) into --db (which
        must not hold a database yet), then verifies its log; a backup without its keys/ is
        refused unless --accept-missing-keys (every sealed personal field then reads as erased).
        """

    static func backup(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown([])
        guard !args.has("help"), args.positional.count == 1 else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        let service = try TimelineTool.open(args, existing: true)
        defer { service.close() }
        try service.backup(to: args.positional[0])
        try copyPushKey(from: args.db, to: args.positional[0])
        print("backup of \(args.db) at log sequence \(try service.lastSequence()) written to \(args.positional[0])")
        return 0
    }

    static func restore(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown([])
        guard !args.has("help"), args.positional.count == 1 else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        let source = URL(fileURLWithPath: args.positional[0]).appendingPathComponent("data.mdb")
        let target = URL(fileURLWithPath: args.db)
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw UsageError("\(args.positional[0]) holds no backup (no data.mdb)")
        }
        guard !FileManager.default.fileExists(atPath: target.appendingPathComponent("data.mdb").path) else {
            throw UsageError("\(args.db) already holds a database; restore into a new path")
        }
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: target.appendingPathComponent("data.mdb"))
        // The read models; without them they are recomputed from the log when the service opens.
        let derived = URL(fileURLWithPath: args.positional[0]).appendingPathComponent("derived/data.mdb")
        if FileManager.default.fileExists(atPath: derived.path) {
            try FileManager.default.createDirectory(
                at: target.appendingPathComponent("derived"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: derived, to: target.appendingPathComponent("derived/data.mdb"))
        }
        // The keys (a cluster's are in its bucket). Without them the open below refuses a log
        // with sealed fields unless --accept-missing-keys.
        let keys = URL(fileURLWithPath: args.positional[0]).appendingPathComponent("keys")
        if FileManager.default.fileExists(atPath: keys.path) {
            try TimelineService.copyKeys(from: keys, to: target.appendingPathComponent("keys"))
        }
        try copyPushKey(from: args.positional[0], to: args.db)
        let service = try TimelineTool.open(args)
        defer { service.close() }
        let report = try service.verifyLog()
        print(
            "restored \(args.positional[0]) into \(args.db): \(report.eventsChecked) events, log \(report.isValid ? "verified" : "INVALID at \(report.firstBadSequence!)")"
        )
        return report.isValid ? 0 : 1
    }

    /// Copies the VAPID key pair (`push/vapid.key`, 0600) from one database directory to
    /// another, if there is one: restored subscriptions were made with its public key.
    static func copyPushKey(from source: String, to destination: String) throws {
        let key = source + "/push/vapid.key"
        guard FileManager.default.fileExists(atPath: key) else { return }
        try FileManager.default.createDirectory(
            atPath: destination + "/push", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let target = destination + "/push/vapid.key"
        guard !FileManager.default.fileExists(atPath: target) else { return }
        try FileManager.default.copyItem(atPath: key, toPath: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
    }
}
