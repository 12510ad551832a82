import LMDB
import Synchronization
import TimelineDomain

/// Keeps the service's read-model handles in step with the generations recorded in the
/// database, which a rebuild (in this or another process) may switch at any commit.
final class ModelRegistry: Sendable {
    private let environment: Environment
    /// Derived: the generations in use and the next generation number. Kept with the models,
    /// so models recomputed from scratch start again at generation 0.
    let meta: Database
    private let state: Mutex<(key: [UInt8]?, models: ReadModels)>
    /// How the home timelines are fanned out (fixed when the database is created, so every
    /// process and every rebuild projects the same way).
    let fanOut: FanOut
    /// The keyed hash the profiles keep emails as (the key store's).
    let hashEmail: @Sendable (String) -> String

    /// - Parameter logMeta: the durable metadata, which records the fan-out settings.
    init(
        _ environment: Environment, logMeta: Database, defaultFanOut: FanOut,
        hashEmail: @escaping @Sendable (String) -> String
    ) throws {
        self.environment = environment
        self.hashEmail = hashEmail
        let meta = try environment.database("models", placement: .derived)
        self.meta = meta
        let fanOut = try environment.write { txn in try FanOut.recorded(in: logMeta, txn, defaults: defaultFanOut) }
        self.fanOut = fanOut
        let key = try environment.read { txn in try txn.get(meta, Generations.metaKey) }
        state = Mutex(
            (
                key,
                try ReadModels(
                    environment, generations: try Generations(key), fanOut: fanOut, hashEmail: hashEmail)
            ))
    }

    /// The models valid in `txn`, or `nil` if the generations changed since they were opened
    /// (call `reload()` outside any transaction, then retry).
    func models(in txn: Transaction) throws -> ReadModels? {
        let key = try txn.get(meta, Generations.metaKey)
        let (known, models) = state.withLock { ($0.key, $0.models) }
        return key == known ? models : nil
    }

    /// Opens the handles of the generations now recorded.
    func reload() throws {
        let key = try environment.read { txn in try txn.get(meta, Generations.metaKey) }
        let models = try ReadModels(
            environment, generations: try Generations(key), fanOut: fanOut, hashEmail: hashEmail)
        state.withLock { $0 = (key, models) }
    }

    var current: ReadModels { state.withLock { $0.models } }

    /// How many times `retrying` runs its body before giving up.
    static let maxAttempts = 8

    /// Runs `attempt` (a transaction that uses `models(in:)`) until it returns a value: when it
    /// returns `nil` or throws `ReadModelsMoved` (a rebuild switched generations meanwhile),
    /// reopens the handles and runs it again, at most `maxAttempts` times in all; then fails
    /// with `conflict` rather than retry forever.
    func retrying<R>(_ attempt: () throws -> R?) throws -> R {
        for _ in 1...Self.maxAttempts {
            do {
                if let result = try attempt() { return result }
            } catch is ReadModelsMoved {}
            try reload()
        }
        throw TimelineError(.conflict, "the read models kept moving (rebuilds kept switching them); try again")
    }
}

/// Thrown inside a transaction whose read-model generations moved; the caller reloads and retries.
struct ReadModelsMoved: Error {}
