import LMDB
import Synchronization

/// Keeps the service's read-model handles in step with the generations recorded in the
/// database, which a rebuild (in this or another process) may switch at any commit.
final class ModelRegistry: Sendable {
    private let environment: Environment
    private let meta: Database
    private let state: Mutex<(key: [UInt8]?, models: ReadModels)>

    init(_ environment: Environment, meta: Database) throws {
        self.environment = environment
        self.meta = meta
        let key = try environment.read { txn in try txn.get(meta, Generations.metaKey) }
        state = Mutex((key, try ReadModels(environment, generations: try Generations(key))))
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
        let models = try ReadModels(environment, generations: try Generations(key))
        state.withLock { $0 = (key, models) }
    }

    var current: ReadModels { state.withLock { $0.models } }
}

/// Thrown inside a transaction whose read-model generations moved; the caller reloads and retries.
struct ReadModelsMoved: Error {}
