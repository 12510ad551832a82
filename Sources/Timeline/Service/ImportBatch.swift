import LMDB
import TimelineDomain

/// One write transaction of a batch that brings in what no user's command made — an import
/// (`TimelineImport`'s Firebase importer), reprocessed media: what such a batch may do with
/// the log and the read models, and nothing more. Each event appended is applied to the read
/// models at once, so the next record sees it.
package struct ImportBatch {
    /// The transaction, for the importer's own scratch databases.
    package let txn: Transaction
    private let log: EventLog
    private let models: ReadModels

    fileprivate init(txn: Transaction, log: EventLog, models: ReadModels) {
        self.txn = txn
        self.log = log
        self.models = models
    }

    /// The state decisions read, as of this transaction.
    package var state: any DecisionState { ReadView(txn: txn, models: models) }

    /// Whether an event with this id is in the log (a previous run appended it).
    package func contains(_ id: EventID) throws -> Bool { try log.contains(id, txn) }

    /// Appends `event` with the given id unless the log has it; whether it was appended.
    package func append(_ event: Event, id: EventID, timestamp: Int64, actor: String, correlationId: String) throws
        -> Bool
    {
        let appended = try log.append(
            [PendingEvent(id: id, event: event, timestamp: timestamp, actor: actor, correlationId: correlationId)], txn)
        if appended.isEmpty { return false }
        try models.apply(appended, txn)
        return true
    }

    /// Whether `owner` has a key (none once they are erased).
    package func hasKey(for owner: UserID) throws -> Bool { try log.keys.key(for: owner) != nil }

    /// Stores one processed image sealed with its owner's key; its content-addressed id.
    package func storeImage(_ image: ImageUpload, owner: UserID) throws -> ImageID {
        let id = ImageID(TimelineService.contentID(owner, image.bytes))
        try models.storeImage(id, image, owner: owner, key: try log.keys.ensureKey(for: owner), txn)
        return id
    }
}

extension TimelineService {
    /// Runs `body` in one write transaction of an import or reprocessing, beside whatever else
    /// writes: the read models are caught up with the log first (as every writer does), their
    /// checkpoint moves to the log's head at the end, and when a rebuild switched them
    /// meanwhile the transaction runs again on the new ones (so `body` may run more than once).
    package func importBatch<T>(_ body: (ImportBatch) throws -> T) throws -> T {
        try registry.retrying { () throws -> T? in
            try environment.write { txn -> T? in
                guard let models = try registry.models(in: txn) else { return nil }
                _ = try models.catchUp(log, head: try log.head(txn).sequence, txn)
                let result = try body(ImportBatch(txn: txn, log: log, models: models))
                try models.setCheckpoint(try log.head(txn).sequence, txn)
                return result
            }
        }
    }

    /// Whether this service is a cluster node (its log is the replicated one).
    package var isClusterNode: Bool { replication != nil }

    /// The service clock's time, in milliseconds.
    package var nowMilliseconds: Int64 { options.clock.nowMilliseconds() }
}
