import Foundation
import Timeline

/// `timeline anchor init`: creates the key that signs anchor checkpoints.
enum AnchorCommand {
    static let help = """
        usage: timeline anchor init --key PATH [--db PATH]

        Creates an Ed25519 signing key at PATH (mode 0600) and its public key at PATH.pub. PATH must
        be outside the database directory. Run writers (exec, import, erase-user, …) with
        `--anchor-key PATH` and they append a signed checkpoint of the log's head (sequence, hash)
        to PATH.checkpoints (or `--anchor-log FILE`) after their commits. Check the log against it
        with `timeline audit verify --anchor PATH.checkpoints --anchor-public-key PATH.pub`.
        """

    static func run(_ args: Arguments) throws -> Int32 {
        try args.refuseUnknown(["key", "anchor-log"], opening: ["db"])
        guard !args.has("help"), args.positional.first == "init" else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        guard let path = args.value("key") else { throw UsageError("anchor init needs --key PATH") }
        let options = AnchorOptions(keyPath: path, checkpointsPath: args.value("anchor-log"))
        try options.checkOutside(databasePath: args.db)
        let key = try AnchorKey.create(at: path)
        print(
            """
            created the anchor key \(path) (mode 0600: keep it secret, and away from the database)
            public key \(key.publicKeyHex) (also in \(AnchorKey.publicKeyPath(for: path)); keep a copy where the database's writers cannot change it)
            run writers with --anchor-key \(path): checkpoints go to \(options.checkpointsPath)
            check with: timeline audit verify --anchor \(options.checkpointsPath) --anchor-public-key \(key.publicKeyHex)
            """)
        return 0
    }
}
